//! Projects: no token creates one. An `admin` token manages its own project only; projects are
//! made by instance administrators (the CLI, or a person flagged as such on the overview page).
//! The route stays to say so, after the same checks as every route.

use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;

use super::auth::ApiAuth;
use super::body::JsonBody;
use crate::AppState;
use crate::error::ApiError;
use crate::secret::Scope;

#[derive(Deserialize)]
pub(super) struct NewProject {
    #[expect(
        dead_code,
        reason = "read so that a bad body is still a 422, as on every route"
    )]
    slug: String,
    #[serde(default)]
    #[expect(
        dead_code,
        reason = "read so that a bad body is still a 422, as on every route"
    )]
    default_branch: Option<String>,
}

pub(super) async fn create_project(
    State(_state): State<AppState>,
    auth: ApiAuth,
    JsonBody(_body): JsonBody<NewProject>,
) -> Result<Response, ApiError> {
    auth.require(Scope::Admin)?;
    Err(ApiError::forbidden(
        "instance_admin_only",
        format!(
            "a token manages only its own project (`{}`); projects are created by instance administrators: `windup-dashboard project create SLUG --owner EMAIL`, or the overview page",
            auth.project.slug
        ),
    ))
}
