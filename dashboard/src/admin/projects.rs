//! Projects: a slug people and URLs use, and the default branch plans fall back to.

use crate::error::ApiError;
use crate::store::{Project, Store};
use crate::time::now_ms;

pub fn valid_slug(slug: &str) -> bool {
    (1..=63).contains(&slug.len())
        && slug
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

pub async fn create_project(
    store: &dyn Store,
    slug: &str,
    default_branch: Option<&str>,
) -> Result<Project, ApiError> {
    if !valid_slug(slug) {
        return Err(ApiError::unprocessable(
            "invalid_slug",
            "slug must be 1-63 characters of a-z, 0-9 and -, starting with a letter or digit",
        ));
    }
    let branch = default_branch.unwrap_or("main");
    if branch.is_empty() || branch.len() > 255 {
        return Err(ApiError::unprocessable(
            "invalid_default_branch",
            "default_branch must be 1-255 characters",
        ));
    }
    Ok(store.create_project(slug, branch, now_ms()).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_lowercase_words() {
        assert!(valid_slug("shop-2"));
        for bad in ["", "-shop", "Shop", "a b", "a/b", "x'--", &"a".repeat(64)] {
            assert!(!valid_slug(bad), "{bad}");
        }
    }
}
