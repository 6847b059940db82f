//! Projects and their tokens, for a token with the `admin` scope.

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::auth::ApiAuth;
use super::body::{JsonBody, path_error};
use crate::error::ApiError;
use crate::secret::Scope;
use crate::{AppState, admin};

#[derive(Deserialize)]
pub(super) struct NewProject {
    slug: String,
    #[serde(default)]
    default_branch: Option<String>,
}

pub(super) async fn create_project(
    State(state): State<AppState>,
    auth: ApiAuth,
    JsonBody(body): JsonBody<NewProject>,
) -> Result<Response, ApiError> {
    auth.require(Scope::Admin)?;
    let project =
        admin::create_project(&*state.store, &body.slug, body.default_branch.as_deref()).await?;
    let json = serde_json::json!({"slug": project.slug, "default_branch": project.default_branch});
    Ok((StatusCode::CREATED, Json(json)).into_response())
}

#[derive(Deserialize)]
pub(super) struct NewToken {
    scopes: Vec<String>,
    #[serde(default)]
    branch: Option<String>,
}

pub(super) async fn create_token(
    State(state): State<AppState>,
    auth: ApiAuth,
    path: Result<Path<String>, PathRejection>,
    JsonBody(body): JsonBody<NewToken>,
) -> Result<Response, ApiError> {
    let Path(slug) = path.map_err(path_error)?;
    auth.require(Scope::Admin)?;
    if auth.project.slug != slug {
        return Err(ApiError::forbidden(
            "other_project",
            format!(
                "this token belongs to project `{}`, not `{slug}`",
                auth.project.slug
            ),
        ));
    }
    let created = admin::create_token(
        &*state.store,
        &auth.project,
        &body.scopes,
        body.branch.as_deref(),
    )
    .await?;
    let json = serde_json::json!({
        "token": created.token,
        "project": auth.project.slug,
        "scopes": created.scopes,
        "branch": created.branch,
    });
    Ok((StatusCode::CREATED, Json(json)).into_response())
}
