//! htmx, the style sheet, the icon and the trace viewer's keys, vendored and served from the binary, so the pages load nothing
//! from elsewhere (the CSP allows only this origin).

use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};

pub const HTMX_PATH: &str = "/static/htmx-2.0.11.min.js";
const HTMX: &[u8] = include_bytes!("../../static/htmx-2.0.11.min.js");
const CSS: &[u8] = include_bytes!("../../static/app.css");
const FAVICON: &[u8] = include_bytes!("../../static/favicon.svg");
const TRACE_JS: &[u8] = include_bytes!("../../static/trace.js");

pub(super) async fn htmx() -> Response {
    asset("text/javascript; charset=utf-8", HTMX)
}

pub(super) async fn css() -> Response {
    asset("text/css; charset=utf-8", CSS)
}

/// The icon, also at `/favicon.ico`, where a browser asks when a page names none: without it
/// every page load logged a 404 in the console.
pub(super) async fn favicon() -> Response {
    asset("image/svg+xml", FAVICON)
}

/// The trace viewer's keyboard steps.
pub(super) async fn trace_js() -> Response {
    asset("text/javascript; charset=utf-8", TRACE_JS)
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
