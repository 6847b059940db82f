//! Request bodies, paths and queries read into types: size limits (413), JSON that does not fit
//! (422 naming the field), paths and queries that do not parse (400).

use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection, QueryRejection};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use crate::error::ApiError;

pub const RUN_LIMIT: usize = 16 * 1024 * 1024;
pub const ARTIFACT_LIMIT: usize = 5 * 1024 * 1024;
pub const DEFAULT_LIMIT: usize = 1024 * 1024;

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

pub(super) fn body_error(e: BytesRejection) -> ApiError {
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

pub(super) fn path_error(e: PathRejection) -> ApiError {
    ApiError::bad_request("invalid_path", e.body_text())
}

pub(super) fn query_error(e: QueryRejection) -> ApiError {
    ApiError::bad_request("invalid_query", e.body_text())
}
