//! A screenshot file inlined into a self-contained report as a `data:` URI: only a file inside
//! the project, of a bounded size, whose bytes are the image type they claim.

use std::path::{Component, Path};

use base64::Engine as _;

/// A picture over this size is named, not inlined.
const MAX_SCREENSHOT_BYTES: u64 = 8 * 1024 * 1024;

/// An image file of `mime` type (its bytes start with `signature`) as a `data:` URI, or why
/// it is not shown.
pub(super) fn inline_image(
    root: &Path,
    rel: &str,
    mime: &str,
    signature: &[u8],
) -> Result<String, String> {
    let path = Path::new(rel);
    // The report names a file inside the project; never read anything else into the page.
    if !path
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
    {
        return Err(format!(
            "screenshot {rel} is not a path inside the project: not shown"
        ));
    }
    let full = root.join(path);
    let size = std::fs::metadata(&full)
        .map_err(|e| format!("screenshot {rel} cannot be read: {e}"))?
        .len();
    if size > MAX_SCREENSHOT_BYTES {
        return Err(format!(
            "screenshot {rel} is {size} bytes, over {MAX_SCREENSHOT_BYTES}: not inlined"
        ));
    }
    let bytes =
        std::fs::read(&full).map_err(|e| format!("screenshot {rel} cannot be read: {e}"))?;
    if !bytes.starts_with(signature) {
        let kind = mime.trim_start_matches("image/").to_uppercase();
        return Err(format!("screenshot {rel} is not a {kind}: not shown"));
    }
    Ok(format!(
        "data:{mime};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    ))
}
