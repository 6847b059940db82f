//! A screenshot file inlined into a self-contained report as a `data:` URI: only a file inside
//! the project, of a bounded size, whose bytes are the image type they claim.

use std::path::{Component, Path};

use base64::Engine as _;

/// A picture over this size is named, not inlined.
const MAX_SCREENSHOT_BYTES: u64 = 8 * 1024 * 1024;

/// Why a screenshot is named in the report rather than shown.
#[derive(Debug, thiserror::Error)]
pub(super) enum NotInlined {
    /// The path leaves the project (absolute, or through `..`).
    #[error("screenshot {rel} is not a path inside the project: not shown")]
    Outside { rel: String },
    /// The file cannot be read (the cause is in the message, so not also its source).
    #[error("screenshot {rel} cannot be read: {cause}")]
    Unreadable { rel: String, cause: std::io::Error },
    /// The file is over [`MAX_SCREENSHOT_BYTES`].
    #[error("screenshot {rel} is {size} bytes, over {max}: not inlined", max = MAX_SCREENSHOT_BYTES)]
    TooLarge { rel: String, size: u64 },
    /// The bytes are not of the type the report claims (`kind`: `PNG`, `JPEG`).
    #[error("screenshot {rel} is not a {kind}: not shown")]
    WrongType { rel: String, kind: String },
}

/// An image file of `mime` type (its bytes start with `signature`) as a `data:` URI, or why
/// it is not shown.
pub(super) fn inline_image(
    root: &Path,
    rel: &str,
    mime: &str,
    signature: &[u8],
) -> Result<String, NotInlined> {
    let path = Path::new(rel);
    // The report names a file inside the project; never read anything else into the page.
    if !path
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(NotInlined::Outside {
            rel: rel.to_string(),
        });
    }
    let full = root.join(path);
    let unreadable = |cause| NotInlined::Unreadable {
        rel: rel.to_string(),
        cause,
    };
    let size = std::fs::metadata(&full).map_err(unreadable)?.len();
    if size > MAX_SCREENSHOT_BYTES {
        return Err(NotInlined::TooLarge {
            rel: rel.to_string(),
            size,
        });
    }
    let bytes = std::fs::read(&full).map_err(unreadable)?;
    if !bytes.starts_with(signature) {
        return Err(NotInlined::WrongType {
            rel: rel.to_string(),
            kind: mime.trim_start_matches("image/").to_uppercase(),
        });
    }
    Ok(format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    ))
}
