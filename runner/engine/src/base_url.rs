//! The project's base URL: parsing it from `windup.toml`, a flag or an input, and joining a plan's
//! paths onto it, so plans stay portable between environments. A leaf module.

use windup_model::InputError;

/// Parses a base URL, which must be absolute http or https: the app's origin is the trust
/// boundary's anchor, and a `file:` URL has none. `source` names where it
/// came from (`windup.toml`, `--base-url`), for the error.
pub fn parse_base_url(source: &str, raw: &str) -> Result<url::Url, InputError> {
    let url = url::Url::parse(raw).map_err(|e| {
        InputError::new(
            source,
            "base_url",
            format!("`{raw}` is not a URL: {e}"),
            "write an absolute URL such as http://127.0.0.1:3000",
        )
    })?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(InputError::new(
            source,
            "base_url",
            format!("`{raw}` uses the scheme `{}`", url.scheme()),
            "use an http:// or https:// URL",
        ));
    }
    Ok(url)
}

/// A URL as a path on its origin, with its query and fragment: `http://h:1/todos?x#/active` is
/// `/todos?x#/active`, what a scenario's `start_url` holds.
pub fn path_of(url: &url::Url) -> String {
    let mut out = url.path().to_string();
    if let Some(q) = url.query() {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = url.fragment() {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// A plan's path that cannot be joined onto the base URL.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot join `{path}` onto {base}: {cause}")]
pub struct RebaseError {
    /// The path (or URL) as the plan wrote it.
    pub path: String,
    /// The base URL it was joined onto.
    pub base: url::Url,
    /// Why the URL parser refused it (in the message, so not also its source).
    pub cause: url::ParseError,
}

/// Joins a plan's path onto the base URL: `/login` on `http://h:1/app/` is `http://h:1/login`;
/// an absolute URL stays as it is.
pub fn rebase(base: &url::Url, path_or_url: &str) -> Result<url::Url, RebaseError> {
    if let Ok(abs) = url::Url::parse(path_or_url) {
        return Ok(abs);
    }
    base.join(path_or_url).map_err(|cause| RebaseError {
        path: path_or_url.to_string(),
        base: base.clone(),
        cause,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rebase_keeps_paths_portable() {
        let base = url::Url::parse("http://127.0.0.1:8000/app/").unwrap();
        assert_eq!(
            rebase(&base, "/todos#/active").unwrap().as_str(),
            "http://127.0.0.1:8000/todos#/active"
        );
        assert_eq!(
            rebase(&base, "https://example.com/x").unwrap().as_str(),
            "https://example.com/x"
        );
    }
}
