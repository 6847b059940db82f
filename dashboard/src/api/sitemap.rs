//! The shared site map: read for a branch (the default branch's map with the branch's merged
//! over it), and merged into a branch the token may write, fact by fact by source precedence
//! (execution > static > llm) with the model's own `SiteMap::merge`, bounded like the file.
//! A push is checked by the model's one rule first (`SiteMap::problems`: routes are path
//! patterns, notes and `generation` within their bounds), refused whole with 422 naming the
//! first bad field; a stored map from before that rule is cleaned when read.

use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use windup_model::api::{SiteMapQuery, SiteMapSaved};
use windup_model::sitemap::{MAP_VERSION, SiteMap};

use super::auth::ApiAuth;
use super::body::{JsonBody, query_error};
use crate::AppState;
use crate::error::ApiError;
use crate::secret::Scope;
use crate::time::now_ms;

/// A stored map; one that no longer parses counts as empty (and is replaced by the next merge).
fn stored(json: Option<&str>) -> SiteMap {
    match json.map(serde_json::from_str::<SiteMap>) {
        Some(Ok(mut map)) => {
            for problem in map.drop_invalid() {
                tracing::warn!(%problem, "a stored site map held a fact it may not; left out");
            }
            map
        }
        Some(Err(e)) => {
            tracing::error!(error = %e, "a stored site map is unreadable");
            SiteMap::new()
        }
        None => SiteMap::new(),
    }
}

pub(super) async fn sitemap_get(
    State(state): State<AppState>,
    auth: ApiAuth,
    query: Result<Query<SiteMapQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    auth.require(Scope::CacheRead)?;
    let Query(q) = query.map_err(query_error)?;
    let default_branch = auth.project.default_branch.clone();
    let mut map = stored(
        state
            .store
            .sitemap_get(auth.project.id, &default_branch)
            .await?
            .as_deref(),
    );
    if let Some(branch) = q.branch.filter(|b| *b != default_branch) {
        let own = state.store.sitemap_get(auth.project.id, &branch).await?;
        map.merge(&stored(own.as_deref()));
    }
    map.canonicalize();
    Ok(Json(map).into_response())
}

pub(super) async fn sitemap_put(
    State(state): State<AppState>,
    auth: ApiAuth,
    query: Result<Query<SiteMapQuery>, QueryRejection>,
    JsonBody(upload): JsonBody<SiteMap>,
) -> Result<Response, ApiError> {
    auth.require(Scope::CacheWrite)?;
    let Query(q) = query.map_err(query_error)?;
    let Some(branch) = q.branch.filter(|b| !b.is_empty()) else {
        return Err(ApiError::bad_request(
            "invalid_query",
            "`branch` must name the run's branch",
        ));
    };
    auth.may_write(&branch)?;
    if upload.map_version != MAP_VERSION {
        return Err(ApiError::unprocessable(
            "unknown_version",
            format!("map_version must be \"{MAP_VERSION}\""),
        ));
    }
    // Checked where it comes in, not only where it is read: a route that could close a prompt's
    // block, a note no runner would keep, a `generation` that wraps would each reach every
    // runner restoring this branch.
    if let Some(problem) = upload.problems().into_iter().next() {
        return Err(ApiError::unprocessable(problem.code, problem.to_string()));
    }
    let merge = |old: Option<&str>| {
        let mut map = stored(old);
        map.merge(&upload);
        serde_json::to_string(&map).expect("a site map serialises")
    };
    let json = state
        .store
        .sitemap_merge(auth.project.id, &branch, &merge, now_ms())
        .await?;
    let map = stored(Some(&json));
    Ok(Json(SiteMapSaved {
        branch,
        pages: map.pages.len() as u64,
        edges: map.edges.len() as u64,
    })
    .into_response())
}
