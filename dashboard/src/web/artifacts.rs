//! Screenshots and trace frames uploaded with a run, served to signed-in people only.

use axum::extract::{Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::IntoResponse;

use super::access::{Access, project_of};
use super::error::{PageResult, not_found};
use super::session::Person;
use crate::AppState;
use crate::access::Role;

pub(super) async fn artifact(
    State(state): State<AppState>,
    person: Person,
    Path((slug, run_id, name)): Path<(String, String, String)>,
) -> PageResult {
    let Access { project, .. } = project_of(&state, &person, &slug, Role::Viewer).await?;
    let bytes = state
        .store
        .artifact(project.id, &run_id, &name)
        .await?
        .ok_or_else(|| not_found("screenshot"))?;
    // Served as what its bytes are (checked when it was uploaded), never as the name says.
    let content_type =
        windup_model::api::artifact_type_of(&bytes).unwrap_or("application/octet-stream");
    Ok((
        [
            (CONTENT_TYPE, content_type),
            (CACHE_CONTROL, "private, max-age=3600"),
        ],
        bytes,
    )
        .into_response())
}

/// The runner uploads a screenshot under its file name; the report names it by its path.
pub(super) fn screenshot_url(
    slug: &str,
    run_id: &str,
    path: Option<&str>,
    uploaded: &[String],
) -> String {
    let Some(name) = path.and_then(|p| p.rsplit('/').next()) else {
        return String::new();
    };
    if uploaded.iter().any(|u| u == name) {
        format!("/p/{slug}/runs/{run_id}/artifacts/{name}")
    } else {
        String::new()
    }
}
