//! htmx and the style sheet, vendored and served from the binary, so the pages load nothing
//! from elsewhere (the CSP allows only this origin).

use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};

pub const HTMX_PATH: &str = "/static/htmx-2.0.11.min.js";
const HTMX: &[u8] = include_bytes!("../../static/htmx-2.0.11.min.js");
const CSS: &[u8] = include_bytes!("../../static/app.css");

pub(super) async fn htmx() -> Response {
    asset("text/javascript; charset=utf-8", HTMX)
}

pub(super) async fn css() -> Response {
    asset("text/css; charset=utf-8", CSS)
}

fn asset(content_type: &'static str, bytes: &'static [u8]) -> Response {
    (
        [
            (CONTENT_TYPE, content_type),
            (CACHE_CONTROL, "public, max-age=86400"),
        ],
        bytes,
    )
        .into_response()
}
