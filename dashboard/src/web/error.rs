//! A page that failed: its status and a clean message, in the error template. The detail (a
//! store error, say) goes to the log, never to the browser.

use askama::Template;
use askama_web::WebTemplate;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::store::StoreError;

#[derive(Template, WebTemplate)]
#[template(path = "error.html")]
struct ErrorPage {
    title: String,
    message: String,
}

/// A status and the message shown with it.
pub struct PageError(pub(super) StatusCode, pub(super) String);

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let title = self.0.canonical_reason().unwrap_or("Error").to_string();
        (
            self.0,
            ErrorPage {
                title,
                message: self.1,
            },
        )
            .into_response()
    }
}

impl From<StoreError> for PageError {
    fn from(e: StoreError) -> Self {
        tracing::error!(error = %e, "store failed");
        PageError(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The dashboard's store failed; see its log.".into(),
        )
    }
}

impl From<crate::error::ApiError> for PageError {
    fn from(e: crate::error::ApiError) -> Self {
        PageError(e.status, e.message)
    }
}

pub(super) fn not_found(what: &str) -> PageError {
    PageError(StatusCode::NOT_FOUND, format!("No such {what}."))
}

pub(super) type PageResult = Result<Response, PageError>;
