//! Runs pushed by the runner, and the screenshots and trace frames uploaded with them (only for
//! a run the project has: 404 `unknown_run` otherwise).

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use windup_model::api::{ARTIFACT_TYPES, ArtifactSaved, RunCreated, RunUpload};

use super::auth::ApiAuth;
use super::body::{JsonBody, body_error, path_error};
use crate::AppState;
use crate::error::ApiError;
use crate::ingest::{self, valid_name};
use crate::secret::Scope;
use crate::time::now_ms;

pub(super) async fn ingest_run(
    State(state): State<AppState>,
    auth: ApiAuth,
    JsonBody(body): JsonBody<RunUpload>,
) -> Result<Response, ApiError> {
    auth.require(Scope::Ingest)?;
    let mut run = ingest::to_new_run(&body.report, &body.ledger, body.pull_request.as_ref())?;
    run.stale = ingest::to_new_stale(&body.report, &body.invalidations)?;
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

pub(super) async fn put_artifact(
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
    let Some((_, signature)) = ARTIFACT_TYPES.iter().find(|(t, _)| *t == content_type) else {
        return Err(ApiError::unprocessable(
            "not_png",
            format!(
                "artifacts are PNG screenshots or JPEG trace frames: send `content-type: image/png` or `image/jpeg`, not `{content_type}`"
            ),
        ));
    };
    let bytes = body.map_err(body_error)?;
    if !bytes.starts_with(signature) {
        return Err(ApiError::unprocessable(
            "not_png",
            format!("the body is not a {content_type} image (bad signature)"),
        ));
    }
    // Only a run the project has takes artifacts: otherwise any ingest token could store
    // images under made-up run ids without bound, which no page shows and nothing counts.
    if !state.store.has_run(auth.project.id, &run_id).await? {
        return Err(ApiError::not_found(
            "unknown_run",
            format!("the project has no run `{run_id}`: upload the run before its artifacts"),
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
