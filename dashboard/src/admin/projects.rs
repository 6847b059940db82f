//! Projects: a slug people and URLs use, and the default branch plans fall back to.

use crate::access::Role;
use crate::error::ApiError;
use crate::repo::RepoName;
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

/// Creates a project whose first owner is the person `owner_id` (an instance administrator on
/// the overview page, or the person the CLI's `--owner` names).
pub async fn create_project_owned_by(
    store: &dyn Store,
    slug: &str,
    default_branch: Option<&str>,
    owner_id: i64,
) -> Result<Project, ApiError> {
    let project = create_project(store, slug, default_branch).await?;
    store
        .set_role(project.id, owner_id, Role::Owner.as_str(), now_ms())
        .await?;
    Ok(project)
}

/// Sets the repository that gets the project's PR comments, from what a person typed:
/// `owner/name` by GitHub's rules, or nothing (blank) to stop commenting. The stored text is
/// the checked name's, so a GitHub API path is only ever built from a checked name.
pub async fn set_repo(
    store: &dyn Store,
    project: &Project,
    repo: &str,
) -> Result<Option<RepoName>, ApiError> {
    let repo = repo.trim();
    let parsed = if repo.is_empty() {
        None
    } else {
        Some(
            RepoName::parse(repo)
                .map_err(|why| ApiError::unprocessable("invalid_repo", why.to_string()))?,
        )
    };
    let stored = parsed.as_ref().map(RepoName::to_string);
    store
        .set_project_repo(project.id, stored.as_deref())
        .await?;
    tracing::info!(project = %project.slug, repo = stored.as_deref().unwrap_or("(none)"), "PR comment repository set");
    Ok(parsed)
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
