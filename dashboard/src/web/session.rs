//! Who is signed in: the session cookie (never an API token) and the sign-in and sign-out
//! forms. Sessions are stored by the hash of their id; a missing account costs a full password
//! check like a wrong password. Sign-in is throttled (429) and its argon2 checks gated (503) by
//! the process's [`crate::sign_in::SignInGuard`].

use askama::Template;
use askama_web::WebTemplate;
use axum::{Extension, Form};
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use axum::extract::{ConnectInfo, FromRequestParts, State};
use axum::http::header::{LOCATION, RETRY_AFTER, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::cookies::{cookie, set_cookie};
use super::csrf::{self, CsrfForm};
use super::error::{PageError, PageResult};
use crate::AppState;
use crate::secret;
use crate::sign_in::account_key;
use crate::time::now_ms;

const SESSION_COOKIE: &str = "windup_session";
const SESSION_MS: i64 = 7 * 24 * 3600 * 1000;

pub(super) fn redirect(to: &str) -> Response {
    (StatusCode::SEE_OTHER, [(LOCATION, to.to_string())]).into_response()
}

/// A signed-in person, from the session cookie only.
pub struct Person {
    pub(super) user_id: i64,
    pub(super) email: String,
    /// Creates projects and owns every one.
    pub(super) instance_admin: bool,
    /// The session's CSRF token, which every form of this session carries.
    pub(super) csrf: String,
    session_hash: String,
}

impl FromRequestParts<AppState> for Person {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        let Some(id) = cookie(&parts.headers, SESSION_COOKIE) else {
            return Err(redirect("/login"));
        };
        let hash = secret::sha256_hex(&id);
        match state.store.session(&hash).await {
            Ok(Some(s)) if s.expires_ms > now_ms() => Ok(Person {
                user_id: s.user_id,
                email: s.email,
                instance_admin: s.instance_admin != 0,
                csrf: s.csrf,
                session_hash: hash,
            }),
            Ok(_) => Err(redirect("/login")),
            Err(e) => Err(PageError::from(e).into_response()),
        }
    }
}

#[derive(Template, WebTemplate)]
#[template(path = "login.html")]
struct LoginPage {
    csrf: String,
    error: String,
    /// Offer "Sign in with GitHub".
    github: bool,
}

pub(super) async fn login_page(State(state): State<AppState>) -> Response {
    let (csrf, cookie) = csrf::login_token(&state);
    let page = LoginPage {
        csrf,
        error: String::new(),
        github: state.github_sign_in.is_some(),
    };
    ([(SET_COOKIE, cookie)], page).into_response()
}

#[derive(Deserialize)]
pub(super) struct LoginForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    csrf: String,
}

/// A valid argon2 hash of nothing anyone types, so a missing account costs as long as a wrong
/// password.
const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$H6zFbmZ0cdsXl3KUIm5Gi9VZ5yFy3aN5X4Yzb9pVjAs";

pub(super) async fn login(
    State(state): State<AppState>,
    // Absent when the router is served without `ConnectInfo` (in-process tests).
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> PageResult {
    csrf::check_login_token(&headers, &form.csrf)?;
    let guard = &state.sign_in;
    let address = guard.address_key(&headers, peer.map(|Extension(ConnectInfo(p))| p));
    let email = account_key(&form.email);
    let attempt = match guard.throttle().begin(&email, &address, Instant::now()) {
        Ok(attempt) => attempt,
        Err(wait) => {
            let minutes = wait.as_secs().div_ceil(60).max(1);
            let message = format!(
                "Too many failed sign-ins for this account or from this address; try again in {minutes} minute{}.",
                if minutes == 1 { "" } else { "s" }
            );
            return Ok(refused(
                &state,
                StatusCode::TOO_MANY_REQUESTS,
                wait,
                message,
            ));
        }
    };
    let user = state.store.user(&email).await?;
    // An account without a local password (made by a GitHub sign-in) is checked against the
    // dummy hash too, so it costs as long as any other and never matches.
    let hash = user
        .as_ref()
        .map(|u| u.password_hash.clone())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| DUMMY_HASH.to_string());
    // The dummy hash costs a full verification, so a missing account answers as slowly as a
    // wrong password; both wait for the same gate.
    let Ok(ok) = guard.gate().verify(form.password.clone(), hash).await else {
        let message = "The dashboard is busy signing people in; try again in a moment.".to_string();
        return Ok(refused(
            &state,
            StatusCode::SERVICE_UNAVAILABLE,
            BUSY_RETRY,
            message,
        ));
    };
    let Some(user) = user.filter(|u| ok && !u.password_hash.is_empty()) else {
        attempt.failed();
        return Ok(login_form(
            &state,
            StatusCode::UNAUTHORIZED,
            "Wrong email or password.".into(),
        ));
    };
    attempt.succeeded();
    let mut response = open_session(&state, user.id).await?;
    response
        .headers_mut()
        .append(SET_COOKIE, csrf::clear_login_token(&state));
    Ok(response)
}

/// A new session for `user_id`: its cookie, and a redirect to the overview.
pub(super) async fn open_session(state: &AppState, user_id: i64) -> PageResult {
    state.store.delete_expired_sessions(now_ms()).await?;
    let id = secret::random_hex();
    state
        .store
        .create_session(
            &secret::sha256_hex(&id),
            user_id,
            &secret::random_hex(),
            now_ms() + SESSION_MS,
        )
        .await?;
    let session = set_cookie(state, SESSION_COOKIE, &id, "/", SESSION_MS / 1000, "Lax");
    let mut response = redirect("/");
    response.headers_mut().append(SET_COOKIE, session);
    Ok(response)
}

/// How long a sign-in turned away by the full gate is told to wait.
const BUSY_RETRY: Duration = Duration::from_secs(1);

/// The sign-in form again, with a fresh CSRF token and `message`.
fn login_form(state: &AppState, status: StatusCode, message: String) -> Response {
    let (csrf, cookie) = csrf::login_token(state);
    let page = LoginPage {
        csrf,
        error: message,
        github: state.github_sign_in.is_some(),
    };
    (status, [(SET_COOKIE, cookie)], page).into_response()
}

/// The sign-in form with `Retry-After`: throttled (429) or busy (503).
fn refused(state: &AppState, status: StatusCode, wait: Duration, message: String) -> Response {
    let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
    let mut response = login_form(state, status, message);
    response
        .headers_mut()
        .insert(RETRY_AFTER, HeaderValue::from(seconds.max(1)));
    response
}

pub(super) async fn logout(
    State(state): State<AppState>,
    person: Person,
    Form(form): Form<CsrfForm>,
) -> PageResult {
    person.check_csrf(&form.csrf)?;
    state.store.delete_session(&person.session_hash).await?;
    let mut response = redirect("/login");
    response.headers_mut().append(
        SET_COOKIE,
        set_cookie(&state, SESSION_COOKIE, "", "/", 0, "Lax"),
    );
    Ok(response)
}

impl Person {
    /// The token a signed-in person's form carries must be the session's.
    pub(super) fn check_csrf(&self, token: &str) -> Result<(), PageError> {
        if !token.is_empty() && secret::same(token, &self.csrf) {
            Ok(())
        } else {
            Err(PageError(
                StatusCode::FORBIDDEN,
                "The form's CSRF token is missing or wrong; reload the page and try again.".into(),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dummy_hash_is_a_real_argon2_hash() {
        // A missing account must cost a full argon2 verification, so the hash has to parse.
        assert!(argon2::password_hash::PasswordHash::new(DUMMY_HASH).is_ok());
        assert!(!crate::argon::verify_blocking("anything", DUMMY_HASH));
    }
}
