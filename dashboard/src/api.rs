//! The JSON API under `/api/v1` (documented in the README, "Dashboard API"). Machines only:
//! a bearer project token, never a session cookie.

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::extract::{DefaultBodyLimit, FromRequestParts, Path, Query, State};
use axum::http::header::{AUTHORIZATION, CONTENT_TYPE, COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use windup_model::api::{ArtifactSaved, CachedPlan, PlanSaved, RunCreated, RunUpload};
use windup_model::{CacheEntry, CacheStatus};

use crate::AppState;
use crate::admin;
use crate::error::ApiError;
use crate::ingest::{self, valid_name};
use crate::secret::{self, Scope};
use crate::store::{CachePut, Project};
use crate::time::{now_ms, to_second};

pub const RUN_LIMIT: usize = 16 * 1024 * 1024;
pub const ARTIFACT_LIMIT: usize = 5 * 1024 * 1024;
pub const DEFAULT_LIMIT: usize = 1024 * 1024;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v1/projects", post(create_project))
        .route("/api/v1/projects/{slug}/tokens", post(create_token))
        .route(
            "/api/v1/runs",
            post(ingest_run).layer(DefaultBodyLimit::max(RUN_LIMIT)),
        )
        .route(
            "/api/v1/runs/{run_id}/artifacts/{name}",
            put(put_artifact).layer(DefaultBodyLimit::max(ARTIFACT_LIMIT)),
        )
        .route("/api/v1/cache/{scenario_id}", get(cache_get).put(cache_put))
        .route("/api/{*rest}", axum::routing::any(no_route))
        .layer(DefaultBodyLimit::max(DEFAULT_LIMIT))
}

async fn no_route() -> ApiError {
    ApiError::not_found(
        "no_route",
        "no such API route; see the README's \"Dashboard API\" section",
    )
}

/// A caller holding a project token.
pub struct ApiAuth {
    pub project: Project,
    scopes: Vec<Scope>,
    branch_glob: Option<String>,
}

impl ApiAuth {
    fn require(&self, scope: Scope) -> Result<(), ApiError> {
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

    fn may_write(&self, branch: &str) -> Result<(), ApiError> {
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
        let project = state
            .store
            .project_by_id(row.project_id)
            .await?
            .ok_or_else(invalid)?;
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

/// A JSON body read under the route's size limit: 413 over it, 422 naming the field when the
/// JSON does not fit the type, e.g. `ledger[0].cost_micro_usd: invalid value: integer -1, …`.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> axum::extract::FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: axum::extract::Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(req, state).await.map_err(body_error)?;
        let unfit = |at: String, e: serde_json::Error| {
            ApiError::unprocessable(
                "invalid_body",
                format!("the JSON body does not fit: {at}{e}"),
            )
        };
        let mut json = serde_json::Deserializer::from_slice(&bytes);
        let value = serde_path_to_error::deserialize(&mut json).map_err(|e| {
            let path = e.path().to_string();
            let at = if path == "." {
                String::new()
            } else {
                format!("{path}: ")
            };
            unfit(at, e.into_inner())
        })?;
        json.end().map_err(|e| unfit(String::new(), e))?;
        Ok(JsonBody(value))
    }
}

fn body_error(e: BytesRejection) -> ApiError {
    if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body_too_large",
            format!(
                "the request body is too large (limits: runs {} MiB, artifacts {} MiB, other {} MiB)",
                RUN_LIMIT >> 20,
                ARTIFACT_LIMIT >> 20,
                DEFAULT_LIMIT >> 20
            ),
        )
    } else {
        ApiError::bad_request(
            "unreadable_body",
            format!("the request body could not be read: {e}"),
        )
    }
}

fn path_error(e: PathRejection) -> ApiError {
    ApiError::bad_request("invalid_path", e.body_text())
}

fn query_error(e: QueryRejection) -> ApiError {
    ApiError::bad_request("invalid_query", e.body_text())
}

#[derive(Deserialize)]
struct NewProject {
    slug: String,
    #[serde(default)]
    default_branch: Option<String>,
}

async fn create_project(
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
struct NewToken {
    scopes: Vec<String>,
    #[serde(default)]
    branch: Option<String>,
}

async fn create_token(
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

async fn ingest_run(
    State(state): State<AppState>,
    auth: ApiAuth,
    JsonBody(body): JsonBody<RunUpload>,
) -> Result<Response, ApiError> {
    auth.require(Scope::Ingest)?;
    let run = ingest::to_new_run(&body.report, &body.ledger, body.pull_request.as_ref())?;
    let created = state
        .store
        .insert_run(auth.project.id, &run, now_ms())
        .await?;
    let url = state.config.run_url(&auth.project.slug, &run.run_id);
    if let Some(pr) = &body.pull_request {
        // A new run's PR gets the comment; a retried upload only re-posts a comment that
        // failed, to the pull request stored with the run, not the one the retry names.
        let target = if created {
            Some((pr.repo.clone(), pr.number))
        } else {
            state
                .store
                .run(auth.project.id, &run.run_id)
                .await?
                .map(|r| r.summary)
                .filter(|s| {
                    s.comment_status
                        .as_deref()
                        .is_some_and(|s| s.starts_with("failed"))
                })
                .and_then(|s| Some((s.pr_repo?, u64::try_from(s.pr_number?).ok()?)))
        };
        if let Some((repo, number)) = target {
            crate::github::comment_for_upload(&state, &auth.project, &run.run_id, &repo, number)
                .await?;
        }
    }
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((
        status,
        Json(RunCreated {
            run_id: run.run_id,
            url,
            created,
        }),
    )
        .into_response())
}

async fn put_artifact(
    State(state): State<AppState>,
    auth: ApiAuth,
    path: Result<Path<(String, String)>, PathRejection>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let Path((run_id, name)) = path.map_err(path_error)?;
    auth.require(Scope::Ingest)?;
    if !valid_name(&run_id) || !valid_name(&name) {
        return Err(ApiError::unprocessable(
            "invalid_name",
            "run id and artifact name may use only A-Z a-z 0-9 . _ -",
        ));
    }
    let content_type = headers
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if content_type != "image/png" {
        return Err(ApiError::unprocessable(
            "not_png",
            format!(
                "artifacts are PNG screenshots: send `content-type: image/png`, not `{content_type}`"
            ),
        ));
    }
    let bytes = body.map_err(body_error)?;
    if !bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Err(ApiError::unprocessable(
            "not_png",
            "the body is not a PNG image (bad signature)",
        ));
    }
    let existed = state
        .store
        .artifact(auth.project.id, &run_id, &name)
        .await?
        .is_some();
    state
        .store
        .put_artifact(auth.project.id, &run_id, &name, &bytes, now_ms())
        .await?;
    let status = if existed {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    let saved = ArtifactSaved {
        run_id,
        name,
        bytes: bytes.len() as u64,
        created: !existed,
    };
    Ok((status, Json(saved)).into_response())
}

#[derive(Deserialize)]
struct CacheQuery {
    start_url: String,
    scenario_sha: String,
    #[serde(default)]
    branch: Option<String>,
}

async fn cache_get(
    State(state): State<AppState>,
    auth: ApiAuth,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<CacheQuery>, QueryRejection>,
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

#[derive(Deserialize)]
struct BranchQuery {
    branch: String,
    /// On a PUT: why the plan it replaces went stale.
    #[serde(default)]
    reason: Option<String>,
}

/// Longest stale reason kept, in characters.
const MAX_REASON_CHARS: usize = 300;

/// A reason as stored: one line without control characters, bounded.
fn clean_reason(reason: &str) -> Option<String> {
    let line: String = reason
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(MAX_REASON_CHARS)
        .collect();
    let line = line.trim();
    (!line.is_empty()).then(|| line.to_string())
}

async fn cache_put(
    State(state): State<AppState>,
    auth: ApiAuth,
    path: Result<Path<String>, PathRejection>,
    query: Result<Query<BranchQuery>, QueryRejection>,
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
