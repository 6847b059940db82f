//! Cross-site request forgery: every form carries a token. After sign-in it is the session's
//! own token; the sign-in form, before there is a session, pairs its token with a short-lived
//! cookie (double submit).

use axum::http::{HeaderMap, HeaderValue, StatusCode};
use serde::Deserialize;

use super::cookies::{cookie, set_cookie};
use super::error::PageError;
use crate::AppState;
use crate::secret;

const LOGIN_CSRF_COOKIE: &str = "windup_login_csrf";

/// A form whose only field is the CSRF token (sign-out).
#[derive(Deserialize)]
pub(super) struct CsrfForm {
    #[serde(default)]
    pub(super) csrf: String,
}

/// A fresh token for the sign-in form, and the cookie that holds its twin for an hour.
pub(super) fn login_token(state: &AppState) -> (String, HeaderValue) {
    let csrf = secret::random_hex();
    let cookie = set_cookie(state, LOGIN_CSRF_COOKIE, &csrf, "/login", 3600, "Strict");
    (csrf, cookie)
}

/// The sign-in form's token must match its cookie.
pub(super) fn check_login_token(headers: &HeaderMap, token: &str) -> Result<(), PageError> {
    let expected = cookie(headers, LOGIN_CSRF_COOKIE).unwrap_or_default();
    if expected.is_empty() || !secret::same(&expected, token) {
        return Err(PageError(
            StatusCode::FORBIDDEN,
            "The sign-in form's CSRF token is missing or wrong; reload the page.".into(),
        ));
    }
    Ok(())
}

/// Removes the sign-in token's cookie once signed in.
pub(super) fn clear_login_token(state: &AppState) -> HeaderValue {
    set_cookie(state, LOGIN_CSRF_COOKIE, "", "/login", 0, "Strict")
}
