//! A project's tokens, for a token with the `admin` scope of that project: created (shown
//! once), listed (never the token, only what it may do and when it was used) and revoked.

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::auth::ApiAuth;
use super::body::{JsonBody, path_error};
use crate::AppState;
use crate::admin::{self, TokenRequest};
use crate::error::ApiError;
use crate::store::TokenInfo;
use crate::time::{now_ms, rfc3339};

#[derive(Deserialize)]
pub(super) struct NewToken {
    scopes: Vec<String>,
    #[serde(default)]
    branch: Option<String>,
    #[serde(default)]
    name: Option<String>,
    /// `90d`, `12h`, `2w`; absent or null: never expires.
    #[serde(default)]
    expires_in: Option<String>,
}

/// The answer to a token's creation: the only time the token is shown.
#[derive(Serialize)]
struct CreatedToken {
    token: String,
    id: i64,
    project: String,
    name: String,
    scopes: Vec<String>,
    branch: Option<String>,
    expires_at: Option<String>,
}

/// A token in a list: what it may do and its life, never the token.
#[derive(Serialize)]
struct TokenView {
    id: i64,
    name: String,
    scopes: Vec<String>,
    branch: Option<String>,
    created_at: String,
    last_used_at: Option<String>,
    expires_at: Option<String>,
    revoked_at: Option<String>,
    /// `active`, `expired` or `revoked`.
    state: &'static str,
}

impl TokenView {
    fn of(t: TokenInfo, now_ms: i64) -> TokenView {
        TokenView {
            id: t.id,
            state: t.state(now_ms).as_str(),
            scopes: t.scopes.split_whitespace().map(str::to_string).collect(),
            name: t.name,
            branch: t.branch_glob,
            created_at: rfc3339(t.created_ms),
            last_used_at: t.last_used_ms.map(rfc3339),
            expires_at: t.expires_ms.map(rfc3339),
            revoked_at: t.revoked_ms.map(rfc3339),
        }
    }
}

#[derive(Serialize)]
struct TokenList {
    tokens: Vec<TokenView>,
}

pub(super) async fn create_token(
    State(state): State<AppState>,
    auth: ApiAuth,
    path: Result<Path<String>, PathRejection>,
    JsonBody(body): JsonBody<NewToken>,
) -> Result<Response, ApiError> {
    let Path(slug) = path.map_err(path_error)?;
    auth.manage(&slug)?;
    let request = TokenRequest {
        name: body.name.unwrap_or_default(),
        scopes: body.scopes,
        branch: body.branch,
        expires_in: body.expires_in,
    };
    let created = admin::issue_token(&*state.store, &auth.project, &request).await?;
    let answer = CreatedToken {
        token: created.token,
        id: created.id,
        project: auth.project.slug,
        name: created.name,
        scopes: created.scopes,
        branch: created.branch,
        expires_at: created.expires_ms.map(rfc3339),
    };
    Ok((StatusCode::CREATED, Json(answer)).into_response())
}

pub(super) async fn list_tokens(
    State(state): State<AppState>,
    auth: ApiAuth,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, ApiError> {
    let Path(slug) = path.map_err(path_error)?;
    auth.manage(&slug)?;
    let now = now_ms();
    let tokens = state.store.tokens(auth.project.id).await?;
    let tokens = tokens.into_iter().map(|t| TokenView::of(t, now)).collect();
    Ok(Json(TokenList { tokens }).into_response())
}

pub(super) async fn revoke_token(
    State(state): State<AppState>,
    auth: ApiAuth,
    path: Result<Path<(String, i64)>, PathRejection>,
) -> Result<Response, ApiError> {
    let Path((slug, id)) = path.map_err(path_error)?;
    auth.manage(&slug)?;
    let revoked = admin::revoke_token(&*state.store, &auth.project, id).await?;
    Ok(Json(TokenView::of(revoked, now_ms())).into_response())
}
