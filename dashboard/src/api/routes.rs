//! Every API route, its handler and its body limit.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{delete, get, post, put};

use super::body::{ARTIFACT_LIMIT, DEFAULT_LIMIT, RUN_LIMIT};
use super::cache::{cache_get, cache_put};
use super::projects::create_project;
use super::runs::{ingest_run, put_artifact};
use super::sitemap::{sitemap_get, sitemap_put};
use super::tokens::{create_token, list_tokens, revoke_token};
use crate::AppState;
use crate::error::ApiError;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/projects", post(create_project))
        .route(
            "/api/v1/projects/{slug}/tokens",
            get(list_tokens).post(create_token),
        )
        .route("/api/v1/projects/{slug}/tokens/{id}", delete(revoke_token))
        .route(
            "/api/v1/runs",
            post(ingest_run).layer(DefaultBodyLimit::max(RUN_LIMIT)),
        )
        .route(
            "/api/v1/runs/{run_id}/artifacts/{name}",
            put(put_artifact).layer(DefaultBodyLimit::max(ARTIFACT_LIMIT)),
        )
        .route("/api/v1/cache/{scenario_id}", get(cache_get).put(cache_put))
        .route("/api/v1/sitemap", get(sitemap_get).put(sitemap_put))
        .route("/api/{*rest}", axum::routing::any(no_route))
        .layer(DefaultBodyLimit::max(DEFAULT_LIMIT))
}

async fn no_route() -> ApiError {
    ApiError::not_found(
        "no_route",
        "no such API route; see docs/dashboard.md, \"Dashboard API\"",
    )
}
