//! A fake GitHub for sign-in on 127.0.0.1, speaking the wire format of GitHub's OAuth web flow
//! and the user endpoints the dashboard reads: `GET /login/oauth/authorize` (the person
//! approves at once and is sent back with a code and the state), `POST
//! /login/oauth/access_token` (form or JSON in; JSON out only for `Accept: application/json`,
//! else form-encoded; refusals as 200 with an `error` field, as GitHub does), `GET /user`,
//! `GET /user/emails` and `GET /orgs/{org}/teams/{team}/memberships/{user}` (404 for a
//! non-member). Kept apart from the PR comment's fake (`github.rs`), which plays the bot's
//! side of the REST API.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::{Path, Query, State};
use axum::http::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, LOCATION};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

pub(crate) const CLIENT_ID: &str = "Iv1.windupdash";
pub(crate) const CLIENT_SECRET: &str = "fake-client-secret-0123456789";

#[derive(Clone, Default)]
pub(crate) struct GhUser {
    pub id: i64,
    pub login: String,
    /// (email, primary, verified)
    pub emails: Vec<(String, bool, bool)>,
    /// (org, team, state: "active" or "pending")
    pub teams: Vec<(String, String, String)>,
}

#[derive(Default)]
pub(crate) struct Fake {
    users: Vec<GhUser>,
    /// The person signed in to GitHub in the browser, who approves the app.
    pub browser_user: String,
    /// code → (login, redirect_uri); a code works once.
    codes: HashMap<String, (String, String)>,
    tokens: HashMap<String, String>,
    /// The scope each authorisation asked for.
    pub scopes: Vec<String>,
    /// (method, path, Accept, Authorization, body) of every request.
    pub requests: Vec<(String, String, String, String, String)>,
}

pub(crate) struct FakeGithub {
    pub base: String,
    pub state: Arc<Mutex<Fake>>,
}

impl FakeGithub {
    pub(crate) fn set_user(&self, user: GhUser) {
        let mut fake = self.state.lock().unwrap();
        fake.users.retain(|u| u.id != user.id);
        fake.browser_user = user.login.clone();
        fake.users.push(user);
    }

    pub(crate) fn token_exchanges(&self) -> usize {
        let fake = self.state.lock().unwrap();
        fake.requests
            .iter()
            .filter(|r| r.1 == "/login/oauth/access_token")
            .count()
    }
}

type Shared = Arc<Mutex<Fake>>;

fn header(headers: &HeaderMap, name: axum::http::HeaderName) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string()
}

fn record(fake: &mut Fake, method: &str, path: &str, headers: &HeaderMap, body: &str) {
    fake.requests.push((
        method.into(),
        path.into(),
        header(headers, ACCEPT),
        header(headers, AUTHORIZATION),
        body.into(),
    ));
}

fn random() -> String {
    windup_dashboard::secret::random_hex()[..20].to_string()
}

fn user_json(base: &str, u: &GhUser) -> Value {
    let login = &u.login;
    json!({
        "login": login, "id": u.id, "node_id": format!("U_{}", u.id),
        "avatar_url": format!("https://avatars.githubusercontent.com/u/{}?v=4", u.id),
        "gravatar_id": "", "url": format!("{base}/users/{login}"),
        "html_url": format!("https://github.com/{login}"),
        "followers_url": format!("{base}/users/{login}/followers"),
        "following_url": format!("{base}/users/{login}/following{{/other_user}}"),
        "gists_url": format!("{base}/users/{login}/gists{{/gist_id}}"),
        "starred_url": format!("{base}/users/{login}/starred{{/owner}}{{/repo}}"),
        "subscriptions_url": format!("{base}/users/{login}/subscriptions"),
        "organizations_url": format!("{base}/users/{login}/orgs"),
        "repos_url": format!("{base}/users/{login}/repos"),
        "events_url": format!("{base}/users/{login}/events{{/privacy}}"),
        "received_events_url": format!("{base}/users/{login}/received_events"),
        "type": "User", "user_view_type": "public", "site_admin": false,
        "name": null, "company": null, "blog": "", "location": null, "email": null,
        "hireable": null, "bio": null, "twitter_username": null, "public_repos": 3,
        "public_gists": 0, "followers": 1, "following": 0,
        "created_at": "2020-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z"
    })
}

fn not_found(doc: &str) -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(json!({"message": "Not Found", "documentation_url": doc, "status": "404"})),
    )
        .into_response()
}

/// GitHub's 401 for a missing or unknown token.
fn bad_credentials() -> Response {
    (
        StatusCode::UNAUTHORIZED,
        Json(json!({"message": "Bad credentials",
                    "documentation_url": "https://docs.github.com/rest", "status": "401"})),
    )
        .into_response()
}

/// The user a request's token belongs to.
fn bearer(fake: &Fake, headers: &HeaderMap) -> Option<GhUser> {
    let auth = header(headers, AUTHORIZATION);
    let token = auth
        .strip_prefix("Bearer ")
        .or_else(|| auth.strip_prefix("token "))
        .unwrap_or("");
    fake.tokens
        .get(token)
        .and_then(|login| fake.users.iter().find(|u| &u.login == login))
        .cloned()
}

/// The token endpoint's refusal: status 200 with `error`, as GitHub answers.
fn token_error(error: &str, description: &str) -> Response {
    Json(json!({"error": error, "error_description": description,
                "error_uri": "https://docs.github.com/apps/managing-oauth-apps/troubleshooting-oauth-app-access-token-request-errors"}))
        .into_response()
}

async fn authorize(
    State(s): State<Shared>,
    headers: HeaderMap,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let mut fake = s.lock().unwrap();
    record(&mut fake, "GET", "/login/oauth/authorize", &headers, "");
    if q.get("client_id").map(String::as_str) != Some(CLIENT_ID) {
        return (StatusCode::NOT_FOUND, "unknown client_id").into_response();
    }
    let redirect = q.get("redirect_uri").cloned().unwrap_or_default();
    fake.scopes
        .push(q.get("scope").cloned().unwrap_or_default());
    let code = random();
    let login = fake.browser_user.clone();
    fake.codes.insert(code.clone(), (login, redirect.clone()));
    let back = format!(
        "{redirect}?code={code}&state={}",
        q.get("state").cloned().unwrap_or_default()
    );
    (StatusCode::FOUND, [(LOCATION, back)]).into_response()
}

async fn access_token(State(s): State<Shared>, headers: HeaderMap, body: String) -> Response {
    let mut fake = s.lock().unwrap();
    record(
        &mut fake,
        "POST",
        "/login/oauth/access_token",
        &headers,
        &body,
    );
    let params: HashMap<String, String> = if header(&headers, CONTENT_TYPE).contains("json") {
        serde_json::from_str::<HashMap<String, Value>>(&body)
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_string()))
            .collect()
    } else {
        url::form_urlencoded::parse(body.as_bytes())
            .into_owned()
            .collect()
    };
    let param = |k: &str| params.get(k).cloned().unwrap_or_default();
    if param("client_id") != CLIENT_ID || param("client_secret") != CLIENT_SECRET {
        return token_error(
            "incorrect_client_credentials",
            "The client_id and/or client_secret passed are incorrect.",
        );
    }
    let Some((login, redirect)) = fake.codes.remove(&param("code")) else {
        return token_error(
            "bad_verification_code",
            "The code passed is incorrect or expired.",
        );
    };
    if param("redirect_uri") != redirect {
        return token_error(
            "redirect_uri_mismatch",
            "The redirect_uri MUST match the registered callback URL for this application.",
        );
    }
    let token = format!("gho_{}", random());
    fake.tokens.insert(token.clone(), login);
    let scope = fake
        .scopes
        .last()
        .cloned()
        .unwrap_or_default()
        .replace(' ', ",");
    if header(&headers, ACCEPT).contains("application/json") {
        Json(json!({"access_token": token, "token_type": "bearer", "scope": scope})).into_response()
    } else {
        let form = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("access_token", &token)
            .append_pair("scope", &scope)
            .append_pair("token_type", "bearer")
            .finish();
        ([(CONTENT_TYPE, "application/x-www-form-urlencoded")], form).into_response()
    }
}

pub(crate) async fn start() -> FakeGithub {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let state: Shared = Arc::default();
    let b = base.clone();
    let user = move |State(s): State<Shared>, headers: HeaderMap| {
        let base = b.clone();
        async move {
            let mut fake = s.lock().unwrap();
            record(&mut fake, "GET", "/user", &headers, "");
            match bearer(&fake, &headers) {
                Some(u) => Json(user_json(&base, &u)).into_response(),
                None => bad_credentials(),
            }
        }
    };
    let emails = |State(s): State<Shared>, headers: HeaderMap| async move {
        let mut fake = s.lock().unwrap();
        record(&mut fake, "GET", "/user/emails", &headers, "");
        match bearer(&fake, &headers) {
            Some(u) => {
                let list: Vec<Value> = u
                    .emails
                    .iter()
                    .map(|(email, primary, verified)| {
                        json!({"email": email, "primary": primary, "verified": verified,
                               "visibility": if *primary { json!("private") } else { Value::Null }})
                    })
                    .collect();
                Json(list).into_response()
            }
            None => bad_credentials(),
        }
    };
    let b = base.clone();
    let membership = move |State(s): State<Shared>,
                           Path((org, team, username)): Path<(String, String, String)>,
                           headers: HeaderMap| {
        let base = b.clone();
        async move {
            let mut fake = s.lock().unwrap();
            let path = format!("/orgs/{org}/teams/{team}/memberships/{username}");
            record(&mut fake, "GET", &path, &headers, "");
            if bearer(&fake, &headers).is_none() {
                return bad_credentials();
            }
            let found = fake
                .users
                .iter()
                .find(|u| u.login.eq_ignore_ascii_case(&username))
                .and_then(|u| {
                    u.teams
                        .iter()
                        .find(|(o, t, _)| o.eq_ignore_ascii_case(&org) && t == &team)
                })
                .cloned();
            match found {
                Some((_, _, state)) => Json(json!({
                    "url": format!("{base}{path}"), "role": "member", "state": state
                }))
                .into_response(),
                None => not_found(
                    "https://docs.github.com/rest/teams/members#get-team-membership-for-a-user",
                ),
            }
        }
    };
    let app = Router::new()
        .route("/login/oauth/authorize", get(authorize))
        .route("/login/oauth/access_token", post(access_token))
        .route("/user", get(user))
        .route("/user/emails", get(emails))
        .route(
            "/orgs/{org}/teams/{team}/memberships/{username}",
            get(membership),
        )
        .with_state(state.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    FakeGithub { base, state }
}

/// A GET to the fake over plain HTTP/1.1: its status and `Location`.
pub(crate) async fn get_location(url: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let url = url::Url::parse(url).expect("an absolute URL");
    let host = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap());
    let mut stream = tokio::net::TcpStream::connect(&host).await.unwrap();
    let target = match url.query() {
        Some(q) => format!("{}?{q}", url.path()),
        None => url.path().to_string(),
    };
    let request = format!("GET {target} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut out = String::new();
    stream.read_to_string(&mut out).await.unwrap();
    let status = out[9..12].parse().unwrap();
    let location = out
        .lines()
        .find_map(|l| {
            l.split_once(':')
                .filter(|(k, _)| k.eq_ignore_ascii_case("location"))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_default();
    (status, location)
}
