//! The dashboard's cookies: one read from a request, and one set as `HttpOnly` (and `Secure`
//! unless the dashboard runs on plain http for development).

use axum::http::HeaderMap;
use axum::http::HeaderValue;
use axum::http::header::COOKIE;

use crate::AppState;

/// A cookie's value from the request.
pub(super) fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// An `HttpOnly` cookie, `Secure` unless the dashboard runs on plain http for development.
pub(super) fn set_cookie(
    state: &AppState,
    name: &str,
    value: &str,
    path: &str,
    max_age: i64,
    same_site: &str,
) -> HeaderValue {
    let secure = if state.config.secure_cookies {
        "; Secure"
    } else {
        ""
    };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path={path}; Max-Age={max_age}; HttpOnly; SameSite={same_site}{secure}"
    ))
    .expect("cookie values are hex")
}
