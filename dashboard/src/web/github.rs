//! Sign-in with GitHub, the pages' side of the OAuth flow. `/auth/github` sends the person to
//! GitHub with a fresh `state`, which a short-lived cookie keeps; GitHub sends them back to
//! `/auth/github/callback` with a code and that state. A callback whose state does not match
//! the cookie is refused before the code is used (it would sign the browser in as whoever
//! made the link). The server keeps each state's hash too (`oauth_states`) and the callback
//! takes it, so a state is good for one callback only: a replayed one is refused before its
//! code is used, even with its cookie. The code is exchanged for a user token, which reads who they are, their
//! verified emails and their team memberships; `admin::github_person` decides the account.

use axum::extract::{Query, State};
use axum::http::header::{LOCATION, SET_COOKIE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::cookies::{cookie, set_cookie};
use super::error::{PageError, PageResult, not_found};
use super::session::open_session;
use crate::admin::{self, TeamCheck};
use crate::oauth::{GithubSignIn, OauthError};
use crate::time::now_ms;
use crate::{AppState, secret};

const STATE_COOKIE: &str = "windup_github_state";
/// Where the state cookie is sent: the callback only.
const STATE_PATH: &str = "/auth/github";
/// Ten minutes to authorise on GitHub.
const STATE_SECONDS: i64 = 600;

fn app(state: &AppState) -> Result<&GithubSignIn, PageError> {
    state
        .github_sign_in
        .as_deref()
        .ok_or_else(|| not_found("page"))
}

fn callback_url(state: &AppState) -> String {
    format!(
        "{}/auth/github/callback",
        state.config.public_url.trim_end_matches('/')
    )
}

pub(super) async fn start(State(state): State<AppState>) -> PageResult {
    let github = app(&state)?;
    let read_org = !state.store.team_roles(None).await?.is_empty();
    let nonce = secret::random_hex();
    state
        .store
        .create_oauth_state(
            &secret::sha256_hex(&nonce),
            now_ms() + STATE_SECONDS * 1000,
            now_ms(),
        )
        .await?;
    let to = github.authorize_url(&callback_url(&state), &nonce, read_org);
    // Lax, not Strict: the callback is a navigation from GitHub's site.
    let cookie = set_cookie(
        &state,
        STATE_COOKIE,
        &nonce,
        STATE_PATH,
        STATE_SECONDS,
        "Lax",
    );
    Ok((
        StatusCode::SEE_OTHER,
        [(LOCATION, to)],
        [(SET_COOKIE, cookie)],
    )
        .into_response())
}

#[derive(Deserialize)]
pub(super) struct Callback {
    #[serde(default)]
    code: String,
    #[serde(default)]
    state: String,
    /// `access_denied` when the person declined.
    #[serde(default)]
    error: String,
}

pub(super) async fn callback(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(q): Query<Callback>,
) -> Response {
    let outcome = sign_in(&state, &headers, &q).await;
    let mut response = outcome.unwrap_or_else(IntoResponse::into_response);
    // The state is good for one callback, whatever came of it.
    let clear = set_cookie(&state, STATE_COOKIE, "", STATE_PATH, 0, "Lax");
    response.headers_mut().append(SET_COOKIE, clear);
    response
}

fn forbidden(message: &str) -> PageError {
    PageError(StatusCode::FORBIDDEN, message.to_string())
}

async fn sign_in(state: &AppState, headers: &HeaderMap, q: &Callback) -> PageResult {
    let github = app(state)?;
    let expected = cookie(headers, STATE_COOKIE).unwrap_or_default();
    let not_ours = || {
        forbidden(
            "This sign-in with GitHub was not started here, or took too long: start again from the sign-in page.",
        )
    };
    if expected.is_empty() || q.state.is_empty() || !secret::same(&expected, &q.state) {
        return Err(not_ours());
    }
    // The cookie alone could be replayed with its state (a captured callback); the server's
    // record is taken here, so a state answers one callback, whatever came of it.
    if !state
        .store
        .take_oauth_state(&secret::sha256_hex(&q.state), now_ms())
        .await?
    {
        return Err(not_ours());
    }
    if !q.error.is_empty() || q.code.is_empty() {
        return Err(forbidden("GitHub did not authorise the sign-in."));
    }
    let token = github
        .exchange(&q.code, &callback_url(state))
        .await
        .map_err(unreachable)?;
    let identity = github.identity(&token).await.map_err(unreachable)?;
    let mut teams = Vec::new();
    for mapping in state.store.team_roles(None).await? {
        let member = match github
            .in_team(&token, &mapping.org, &mapping.team, &identity.login)
            .await
        {
            Ok(member) => Some(member),
            Err(e) => {
                tracing::warn!(org = %mapping.org, team = %mapping.team, error = %e, "team membership unknown; its roles are left as they are");
                None
            }
        };
        teams.push(TeamCheck { mapping, member });
    }
    let person = admin::github_person(&*state.store, &identity, &teams).await?;
    tracing::info!(github = %identity.login, "signed in with GitHub");
    open_session(state, person).await
}

/// GitHub's refusal of the code is the person's to retry; anything else is GitHub's side.
fn unreachable(e: OauthError) -> PageError {
    tracing::warn!(error = %e, "GitHub sign-in failed");
    match e {
        OauthError::Refused(_) => forbidden("GitHub refused the sign-in code: start again."),
        _ => PageError(
            StatusCode::BAD_GATEWAY,
            "GitHub could not be reached to finish the sign-in; try again.".into(),
        ),
    }
}
