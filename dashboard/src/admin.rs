//! Creating projects, tokens and people, and a project's settings: shared by the CLI, the API
//! and the pages.

use crate::error::ApiError;
use crate::repo::RepoName;
use crate::secret::{self, Scope};
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
        Some(RepoName::parse(repo).map_err(|why| ApiError::unprocessable("invalid_repo", why))?)
    };
    let stored = parsed.as_ref().map(RepoName::to_string);
    store
        .set_project_repo(project.id, stored.as_deref())
        .await?;
    tracing::info!(project = %project.slug, repo = stored.as_deref().unwrap_or("(none)"), "PR comment repository set");
    Ok(parsed)
}

pub struct CreatedToken {
    /// Shown once; only its hash is stored.
    pub token: String,
    pub scopes: Vec<String>,
    pub branch: Option<String>,
}

impl std::fmt::Debug for CreatedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CreatedToken")
            .field("token", &"<redacted>")
            .field("scopes", &self.scopes)
            .field("branch", &self.branch)
            .finish()
    }
}

pub async fn create_token(
    store: &dyn Store,
    project: &Project,
    scopes: &[String],
    branch: Option<&str>,
) -> Result<CreatedToken, ApiError> {
    let mut parsed: Vec<Scope> = Vec::new();
    for s in scopes {
        let scope = Scope::parse(s).ok_or_else(|| {
            ApiError::unprocessable(
                "invalid_scope",
                format!("unknown scope `{s}`; use ingest, cache:read, cache:write or admin"),
            )
        })?;
        if !parsed.contains(&scope) {
            parsed.push(scope);
        }
    }
    if parsed.is_empty() {
        return Err(ApiError::unprocessable(
            "invalid_scope",
            "give at least one scope",
        ));
    }
    let branch = branch.filter(|b| !b.is_empty());
    if let Some(pattern) = branch
        && globset::Glob::new(pattern).is_err()
    {
        return Err(ApiError::unprocessable(
            "invalid_branch_pattern",
            format!("`{pattern}` is not a valid glob (e.g. `feature/*`)"),
        ));
    }
    let token = secret::new_project_token();
    let hash = secret::sha256_hex(&token);
    let scopes: Vec<String> = parsed.iter().map(|s| s.as_str().to_string()).collect();
    store
        .create_token(
            project.id,
            secret::lookup(&hash),
            &hash,
            &scopes.join(" "),
            branch,
            now_ms(),
        )
        .await?;
    Ok(CreatedToken {
        token,
        scopes,
        branch: branch.map(str::to_string),
    })
}

pub async fn create_user(store: &dyn Store, email: &str, password: &str) -> Result<(), ApiError> {
    if !email.contains('@') || email.len() > 254 {
        return Err(ApiError::unprocessable(
            "invalid_email",
            "give an email address",
        ));
    }
    if password.chars().count() < 12 {
        return Err(ApiError::unprocessable(
            "weak_password",
            "use a password of at least 12 characters",
        ));
    }
    let hash = secret::hash_password(password)
        .map_err(|e| ApiError::unprocessable("invalid_password", format!("hashing failed: {e}")))?;
    Ok(store
        .create_user(&email.to_lowercase(), &hash, now_ms())
        .await?)
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

    #[test]
    fn a_created_token_never_shows_in_debug_output() {
        let t = CreatedToken {
            token: "wdp_abc".into(),
            scopes: vec!["ingest".into()],
            branch: None,
        };
        assert!(!format!("{t:?}").contains("wdp_abc"));
    }
}
