//! The shared plan cache: a scenario's active plan read for a branch (falling back to the
//! default branch), and written on a branch the token may write.

use axum::Json;
use axum::extract::rejection::{PathRejection, QueryRejection};
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use windup_model::api::{CachedPlan, PlanPutQuery, PlanQuery, PlanSaved};
use windup_model::{CacheEntry, CacheStatus};

use super::auth::ApiAuth;
use super::body::{JsonBody, path_error, query_error};
use crate::AppState;
use crate::error::ApiError;
use crate::secret::Scope;
use crate::store::CachePut;
use crate::time::{now_ms, to_second};

pub(super) async fn cache_get(
    State(state): State<AppState>,
    auth: ApiAuth,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<PlanQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Path(scenario_id) = path.map_err(path_error)?;
    auth.require(Scope::CacheRead)?;
    let Query(q) = query.map_err(query_error)?;
    let default_branch = auth.project.default_branch.clone();
    let mut branches = vec![q.branch.clone().unwrap_or_else(|| default_branch.clone())];
    if branches[0] != default_branch {
        branches.push(default_branch);
    }
    for branch in branches {
        if let Some(row) = state
            .store
            .cache_get(
                auth.project.id,
                &scenario_id,
                &q.start_url,
                &q.scenario_sha,
                &branch,
            )
            .await?
        {
            let entry: serde_json::Value = serde_json::from_str(&row.entry_json).map_err(|e| {
                tracing::error!(error = %e, "stored cache entry is not JSON");
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "internal",
                    "a stored cache entry is unreadable",
                )
            })?;
            let plan = CachedPlan {
                branch: row.branch,
                updated_at: to_second(row.updated_ms),
                entry,
            };
            return Ok(Json(plan).into_response());
        }
    }
    Err(ApiError::not_found(
        "cache_miss",
        format!(
            "no active plan for `{scenario_id}` at `{}` with this scenario_sha on this branch or `{}`",
            q.start_url, auth.project.default_branch
        ),
    ))
}

/// Longest stale reason kept, in characters.
const MAX_REASON_CHARS: usize = 300;

/// A reason as stored: one line without control characters, bounded.
fn clean_reason(reason: &str) -> Option<String> {
    let line = crate::ingest::one_line(reason, MAX_REASON_CHARS);
    (!line.is_empty()).then_some(line)
}

pub(super) async fn cache_put(
    State(state): State<AppState>,
    auth: ApiAuth,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<PlanPutQuery>, QueryRejection>,
    JsonBody(entry): JsonBody<CacheEntry>,
) -> Result<Response, ApiError> {
    let Path(scenario_id) = path.map_err(path_error)?;
    auth.require(Scope::CacheWrite)?;
    let Query(q) = query.map_err(query_error)?;
    if q.branch.is_empty() {
        return Err(ApiError::bad_request(
            "invalid_query",
            "`branch` must name the run's branch",
        ));
    }
    auth.may_write(&q.branch)?;
    if entry.key.scenario_id != scenario_id {
        return Err(ApiError::unprocessable(
            "key_mismatch",
            format!(
                "key.scenario_id is `{}` but the URL names `{scenario_id}`",
                entry.key.scenario_id
            ),
        ));
    }
    if entry.status != CacheStatus::Active {
        return Err(ApiError::unprocessable(
            "not_active",
            "only active entries are written; status must be \"active\"",
        ));
    }
    if !entry.key.start_url.starts_with('/') || entry.key.scenario_sha.is_empty() {
        return Err(ApiError::unprocessable(
            "invalid_key",
            "key.start_url must be a path starting with `/` and key.scenario_sha must not be empty",
        ));
    }
    let entry_json = serde_json::to_string(&entry)
        .map_err(|e| ApiError::unprocessable("invalid_body", e.to_string()))?;
    let reason = q.reason.as_deref().and_then(clean_reason);
    let created = state
        .store
        .cache_put(
            auth.project.id,
            &CachePut {
                branch: &q.branch,
                scenario_id: &scenario_id,
                start_url: &entry.key.start_url,
                scenario_sha: &entry.key.scenario_sha,
                entry_json: &entry_json,
                now_ms: now_ms(),
                stale_reason: reason.as_deref(),
            },
        )
        .await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let saved = PlanSaved {
        scenario_id,
        branch: q.branch,
        created,
    };
    Ok((status, Json(saved)).into_response())
}
