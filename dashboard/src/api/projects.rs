//! Projects, for a token with the `admin` scope.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::auth::ApiAuth;
use super::body::JsonBody;
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
