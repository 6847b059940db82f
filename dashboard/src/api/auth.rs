//! Who calls: a bearer project token, found by its hash, with its scopes and the branches it may
//! write the cache on. A revoked or expired token is refused on its next request: nothing
//! about a token is cached between requests.

use axum::extract::FromRequestParts;
use axum::http::header::{AUTHORIZATION, COOKIE};
use axum::http::request::Parts;

use crate::AppState;
use crate::error::ApiError;
use crate::secret::{self, Scope};
use crate::store::{Project, TokenState};
use crate::time::now_ms;

/// A token's last use is written at most once a minute: a busy CI token does not write on
/// every request.
const LAST_USED_PRECISION_MS: i64 = 60_000;

/// A caller holding a project token.
pub struct ApiAuth {
    pub project: Project,
    scopes: Vec<Scope>,
    branch_glob: Option<String>,
}

impl ApiAuth {
    pub(super) fn require(&self, scope: Scope) -> Result<(), ApiError> {
        if self.scopes.contains(&scope) {
            Ok(())
        } else {
            Err(ApiError::forbidden(
                "insufficient_scope",
                format!(
                    "this token lacks the `{0}` scope; create one with `--scope {0}`",
                    scope.as_str()
                ),
            ))
        }
    }

    /// The token may manage project `slug`: it has the `admin` scope and belongs to it.
    pub(super) fn manage(&self, slug: &str) -> Result<(), ApiError> {
        self.require(Scope::Admin)?;
        if self.project.slug == slug {
            Ok(())
        } else {
            Err(ApiError::forbidden(
                "other_project",
                format!(
                    "this token belongs to project `{}`, not `{slug}`",
                    self.project.slug
                ),
            ))
        }
    }

    pub(super) fn may_write(&self, branch: &str) -> Result<(), ApiError> {
        let Some(pattern) = &self.branch_glob else {
            return Ok(());
        };
        let matches = globset::Glob::new(pattern)
            .map(|g| g.compile_matcher().is_match(branch))
            .unwrap_or(false);
        if matches {
            Ok(())
        } else {
            Err(ApiError::forbidden(
                "branch_not_allowed",
                format!(
                    "this token may write the cache only on branches matching `{pattern}`, not `{branch}`"
                ),
            ))
        }
    }
}

impl FromRequestParts<AppState> for ApiAuth {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let Some(header) = parts.headers.get(AUTHORIZATION) else {
            let message = if parts.headers.contains_key(COOKIE) {
                "the API does not accept session cookies; send `Authorization: Bearer wdp_…` with a project token"
            } else {
                "send `Authorization: Bearer wdp_…` with a project token (`windup-dashboard token create`)"
            };
            return Err(ApiError::unauthorized("missing_token", message));
        };
        let invalid = || {
            ApiError::unauthorized(
                "invalid_token",
                "the bearer token is not a valid project token",
            )
        };
        let token = header
            .to_str()
            .ok()
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|t| t.starts_with(secret::TOKEN_PREFIX))
            .ok_or_else(invalid)?;
        let hash = secret::sha256_hex(token);
        let rows = state.store.tokens_by_lookup(secret::lookup(&hash)).await?;
        let row = rows
            .into_iter()
            .find(|row| secret::same(&row.sha256, &hash))
            .ok_or_else(invalid)?;
        let now = now_ms();
        match TokenState::of(row.expires_ms, row.revoked_ms, now) {
            TokenState::Active => {}
            TokenState::Revoked => {
                return Err(ApiError::unauthorized(
                    "token_revoked",
                    "this token was revoked; ask an owner of the project for a new one",
                ));
            }
            TokenState::Expired => {
                return Err(ApiError::unauthorized(
                    "token_expired",
                    "this token has expired; ask an owner of the project for a new one",
                ));
            }
        }
        let project = state
            .store
            .project_by_id(row.project_id)
            .await?
            .ok_or_else(invalid)?;
        if row
            .last_used_ms
            .is_none_or(|last| now - last >= LAST_USED_PRECISION_MS)
        {
            state.store.touch_token(row.id, now).await?;
        }
        Ok(ApiAuth {
            project,
            scopes: row
                .scopes
                .split_whitespace()
                .filter_map(Scope::parse)
                .collect(),
            branch_glob: row.branch_glob,
        })
    }
}
