//! A fake GitHub on 127.0.0.1 that speaks GitHub's REST shapes for what the sticky comment
//! needs: who the caller is (`GET /user` for a user's token, 403 for an installation token, as
//! GitHub answers; `GET /app` for an app's JWT), list issue comments (paginated with a `Link`
//! header, each with its author), create, update by POST (as octocrab sends it; PATCH is
//! accepted too), and a GitHub App's installation and its access tokens. Every request is
//! recorded, an unknown path too, so a test can say what never reached GitHub.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};
use windup_dashboard::{GithubAuth, GithubConfig};

use crate::common::{Dash, report};

/// The login of the personal token `ghp_test`.
pub(crate) const BOT_USER: &str = "windup-bot";
/// The fake app's slug, whose installation token comments as `windup-app[bot]`.
pub(crate) const APP_SLUG: &str = "windup-app";
/// The installation token the fake hands the app.
const INSTALLATION_TOKEN: &str = "ghs_installation_token";

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Mode {
    Ok,
    /// Every request answers 500.
    Down,
    /// The first request answers 500, later ones work.
    Flaky,
    /// Every request answers 403 (a token without the right permission).
    Forbidden,
}

/// A comment on an issue or pull request.
#[derive(Clone, Debug)]
pub(crate) struct FakeComment {
    pub(crate) id: u64,
    pub(crate) issue: u64,
    pub(crate) body: String,
    pub(crate) author: String,
}

#[derive(Default)]
pub(crate) struct Fake {
    pub(crate) comments: Vec<FakeComment>,
    next_id: u64,
    /// (method, path, authorization) of every request, in order.
    pub(crate) requests: Vec<(String, String, String)>,
    pub(crate) mode: Option<Mode>,
    served_failure: bool,
}

impl Fake {
    /// Someone's comment, written before the dashboard's.
    pub(crate) fn seed(&mut self, id: u64, issue: u64, author: &str, body: &str) {
        self.comments.push(FakeComment {
            id,
            issue,
            body: body.to_string(),
            author: author.to_string(),
        });
    }

    pub(crate) fn paths(&self) -> Vec<String> {
        self.requests
            .iter()
            .map(|r| format!("{} {}", r.0, r.1))
            .collect()
    }
}

type Shared = Arc<Mutex<Fake>>;

pub(crate) struct FakeGithub {
    pub(crate) state: Shared,
    pub(crate) base: String,
}

fn user(base: &str, login: &str) -> Value {
    let kind = if login.ends_with("[bot]") {
        "Bot"
    } else {
        "User"
    };
    json!({
        "login": login, "id": 42, "node_id": "MDQ6VXNlcjQy",
        "avatar_url": "https://avatars.githubusercontent.com/u/42?v=4", "gravatar_id": "",
        "url": format!("{base}/users/{login}"), "html_url": format!("https://github.com/{login}"),
        "followers_url": format!("{base}/users/{login}/followers"),
        "following_url": format!("{base}/users/{login}/following{{/other_user}}"),
        "gists_url": format!("{base}/users/{login}/gists{{/gist_id}}"),
        "starred_url": format!("{base}/users/{login}/starred{{/owner}}{{/repo}}"),
        "subscriptions_url": format!("{base}/users/{login}/subscriptions"),
        "organizations_url": format!("{base}/users/{login}/orgs"),
        "repos_url": format!("{base}/users/{login}/repos"),
        "events_url": format!("{base}/users/{login}/events{{/privacy}}"),
        "received_events_url": format!("{base}/users/{login}/received_events"),
        "type": kind, "site_admin": false
    })
}

fn comment(base: &str, owner: &str, repo: &str, c: &FakeComment) -> Value {
    let (id, issue) = (c.id, c.issue);
    json!({
        "id": id, "node_id": format!("IC_{id}"),
        "url": format!("{base}/repos/{owner}/{repo}/issues/comments/{id}"),
        "html_url": format!("https://github.com/{owner}/{repo}/pull/{issue}#issuecomment-{id}"),
        "issue_url": format!("{base}/repos/{owner}/{repo}/issues/{issue}"),
        "body": c.body, "user": user(base, &c.author), "author_association": "NONE",
        "created_at": "2026-11-29T10:00:00Z", "updated_at": "2026-11-29T10:00:00Z"
    })
}

/// Whom a request's credentials stand for, as GitHub would see them.
enum Caller {
    User(&'static str),
    Installation,
    App,
    Nobody,
}

fn caller(headers: &HeaderMap) -> Caller {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let token = auth
        .strip_prefix("Bearer ")
        .or_else(|| auth.strip_prefix("token "))
        .unwrap_or("");
    match token {
        "ghp_test" => Caller::User(BOT_USER),
        "ghp_mallory" => Caller::User("mallory"),
        INSTALLATION_TOKEN => Caller::Installation,
        t if t.starts_with("eyJ") => Caller::App,
        _ => Caller::Nobody,
    }
}

fn author_of(headers: &HeaderMap) -> String {
    match caller(headers) {
        Caller::User(login) => login.to_string(),
        Caller::Installation => format!("{APP_SLUG}[bot]"),
        Caller::App | Caller::Nobody => "ghost".to_string(),
    }
}

fn failure(fake: &mut Fake) -> Option<Response> {
    let mode = fake.mode.unwrap_or(Mode::Ok);
    let fail = match mode {
        Mode::Ok => false,
        Mode::Down | Mode::Forbidden => true,
        Mode::Flaky => !std::mem::replace(&mut fake.served_failure, true),
    };
    if !fail {
        return None;
    }
    let (status, message) = if mode == Mode::Forbidden {
        (
            StatusCode::FORBIDDEN,
            "Resource not accessible by integration",
        )
    } else {
        (StatusCode::INTERNAL_SERVER_ERROR, "Server Error")
    };
    let body = json!({"message": message, "documentation_url": "https://docs.github.com/rest"});
    Some((status, Json(body)).into_response())
}

fn record(fake: &mut Fake, method: &str, path: String, headers: &HeaderMap) {
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    fake.requests.push((method.to_string(), path, auth));
}

fn forbidden(message: &str) -> Response {
    (
        StatusCode::FORBIDDEN,
        Json(json!({"message": message, "documentation_url": "https://docs.github.com/rest"})),
    )
        .into_response()
}

pub(crate) async fn start(mode: Mode) -> FakeGithub {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let state: Shared = Arc::new(Mutex::new(Fake {
        mode: Some(mode),
        next_id: 1000,
        ..Fake::default()
    }));
    let b = base.clone();
    let current_user = move |State(s): State<Shared>, headers: HeaderMap| {
        let base = b.clone();
        async move {
            let mut fake = s.lock().unwrap();
            record(&mut fake, "GET", "/user".into(), &headers);
            if let Some(r) = failure(&mut fake) {
                return r;
            }
            match caller(&headers) {
                Caller::User(login) => Json(user(&base, login)).into_response(),
                // GitHub refuses `GET /user` to an installation token and to an app's JWT.
                Caller::Installation | Caller::App => {
                    forbidden("Resource not accessible by integration")
                }
                Caller::Nobody => (
                    StatusCode::UNAUTHORIZED,
                    Json(json!({"message": "Bad credentials"})),
                )
                    .into_response(),
            }
        }
    };
    let b = base.clone();
    let current_app = move |State(s): State<Shared>, headers: HeaderMap| {
        let base = b.clone();
        async move {
            let mut fake = s.lock().unwrap();
            record(&mut fake, "GET", "/app".into(), &headers);
            if !matches!(caller(&headers), Caller::App) {
                return forbidden("A JSON web token could not be decoded");
            }
            Json(json!({
                "id": 7, "slug": APP_SLUG, "node_id": "MDM6QXBwNw==", "owner": user(&base, "octo-org"),
                "name": "Windup App", "description": "", "external_url": "https://windup.example",
                "html_url": format!("https://github.com/apps/{APP_SLUG}"),
                "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-01T10:00:00Z",
                "permissions": {"issues": "write", "pull_requests": "write", "metadata": "read"},
                "events": []
            }))
            .into_response()
        }
    };
    let b = base.clone();
    let list = move |State(s): State<Shared>,
                     Path((owner, repo, issue)): Path<(String, String, u64)>,
                     Query(q): Query<std::collections::HashMap<String, String>>,
                     headers: HeaderMap| {
        let base = b.clone();
        async move {
            let mut fake = s.lock().unwrap();
            record(
                &mut fake,
                "GET",
                format!("/repos/{owner}/{repo}/issues/{issue}/comments"),
                &headers,
            );
            if let Some(r) = failure(&mut fake) {
                return r;
            }
            // Two per page, whatever per_page says, so paging is exercised.
            let page: usize = q.get("page").and_then(|p| p.parse().ok()).unwrap_or(1);
            let all: Vec<Value> = fake
                .comments
                .iter()
                .filter(|c| c.issue == issue)
                .map(|c| comment(&base, &owner, &repo, c))
                .collect();
            let items: Vec<Value> = all.iter().skip((page - 1) * 2).take(2).cloned().collect();
            let mut response = Json(items).into_response();
            if all.len() > page * 2 {
                let link = format!(
                    "<{base}/repos/{owner}/{repo}/issues/{issue}/comments?page={}>; rel=\"next\"",
                    page + 1
                );
                response.headers_mut().insert("link", link.parse().unwrap());
            }
            response
        }
    };
    let b = base.clone();
    let create = move |State(s): State<Shared>,
                       Path((owner, repo, issue)): Path<(String, String, u64)>,
                       headers: HeaderMap,
                       Json(body): Json<Value>| {
        let base = b.clone();
        async move {
            let mut fake = s.lock().unwrap();
            record(
                &mut fake,
                "POST",
                format!("/repos/{owner}/{repo}/issues/{issue}/comments"),
                &headers,
            );
            if let Some(r) = failure(&mut fake) {
                return r;
            }
            fake.next_id += 1;
            let made = FakeComment {
                id: fake.next_id,
                issue,
                body: body["body"].as_str().unwrap_or("").to_string(),
                author: author_of(&headers),
            };
            fake.comments.push(made.clone());
            (
                StatusCode::CREATED,
                Json(comment(&base, &owner, &repo, &made)),
            )
                .into_response()
        }
    };
    let b = base.clone();
    let update = move |method: axum::http::Method,
                       State(s): State<Shared>,
                       Path((owner, repo, id)): Path<(String, String, u64)>,
                       headers: HeaderMap,
                       Json(body): Json<Value>| {
        let base = b.clone();
        async move {
            let mut fake = s.lock().unwrap();
            record(
                &mut fake,
                method.as_str(),
                format!("/repos/{owner}/{repo}/issues/comments/{id}"),
                &headers,
            );
            if let Some(r) = failure(&mut fake) {
                return r;
            }
            let Some(c) = fake.comments.iter_mut().find(|c| c.id == id) else {
                return (StatusCode::NOT_FOUND, Json(json!({"message": "Not Found"})))
                    .into_response();
            };
            // GitHub lets a repository's maintainers edit anyone's comment, so the fake does
            // too: the dashboard, not GitHub, must decide which comment is its own.
            c.body = body["body"].as_str().unwrap_or("").to_string();
            let updated = c.clone();
            Json(comment(&base, &owner, &repo, &updated)).into_response()
        }
    };
    // A GitHub App: the installation on a repository, and its access tokens.
    let b = base.clone();
    let installation = move |State(s): State<Shared>,
                             Path((owner, repo)): Path<(String, String)>,
                             headers: HeaderMap| {
        let base = b.clone();
        async move {
            let mut fake = s.lock().unwrap();
            record(
                &mut fake,
                "GET",
                format!("/repos/{owner}/{repo}/installation"),
                &headers,
            );
            Json(json!({
                "id": 4242, "account": user(&base, &owner),
                "access_tokens_url": format!("{base}/app/installations/4242/access_tokens"),
                "repositories_url": format!("{base}/installation/repositories"),
                "html_url": "https://github.com/organizations/octo/settings/installations/4242",
                "app_id": 7, "target_id": 42, "target_type": "Organization",
                "permissions": {"issues": "write", "pull_requests": "write"},
                "events": [], "single_file_name": null, "repository_selection": "selected",
                "created_at": "2026-11-01T10:00:00Z", "updated_at": "2026-11-01T10:00:00Z"
            }))
        }
    };
    let access_token = move |State(s): State<Shared>, Path(id): Path<u64>, headers: HeaderMap| async move {
        let mut fake = s.lock().unwrap();
        record(
            &mut fake,
            "POST",
            format!("/app/installations/{id}/access_tokens"),
            &headers,
        );
        (
            StatusCode::CREATED,
            Json(json!({
                "token": INSTALLATION_TOKEN, "expires_at": "2099-01-01T00:00:00Z",
                "permissions": {"issues": "write", "pull_requests": "write"},
                "repository_selection": "selected"
            })),
        )
    };
    // Anything else is recorded as it arrived (the raw path, `..` and all) and not found.
    let unknown = |State(s): State<Shared>,
                   method: axum::http::Method,
                   uri: Uri,
                   headers: HeaderMap| async move {
        let mut fake = s.lock().unwrap();
        record(&mut fake, method.as_str(), uri.path().to_string(), &headers);
        (StatusCode::NOT_FOUND, Json(json!({"message": "Not Found"})))
    };
    let app = Router::new()
        .route("/user", get(current_user))
        .route("/app", get(current_app))
        .route("/repos/{owner}/{repo}/installation", get(installation))
        .route("/app/installations/{id}/access_tokens", post(access_token))
        .route(
            "/repos/{owner}/{repo}/issues/{issue}/comments",
            get(list).post(create),
        )
        .route(
            "/repos/{owner}/{repo}/issues/comments/{id}",
            post(update.clone()).patch(update),
        )
        .fallback(unknown)
        .with_state(state.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    FakeGithub { state, base }
}

/// A dashboard that comments with the token `ghp_test` (user `windup-bot`), project `acme`
/// set to comment on `octo/shop`, and an ingest token of it.
pub(crate) async fn dash_for(fake: &FakeGithub) -> (Dash, String) {
    dash_with(fake, GithubAuth::Token("ghp_test".into())).await
}

pub(crate) async fn dash_with(fake: &FakeGithub, auth: GithubAuth) -> (Dash, String) {
    let dash = Dash::with_github(Some(GithubConfig {
        auth,
        api_url: fake.base.clone(),
    }))
    .await;
    let project = dash.project("acme").await;
    windup_dashboard::admin::set_repo(&*dash.state.store, &project, "octo/shop")
        .await
        .expect("set the repository");
    let token = dash.token("acme", &["ingest"], None).await;
    (dash, token)
}

/// An upload of a run for pull request 12 of `octo/shop`.
pub(crate) fn pr_run(run_id: &str, workflow_run: &str, failed: bool) -> Value {
    let status = if failed { "failed" } else { "passed" };
    let mut r = report(
        run_id,
        "feature/x",
        "c1",
        &[("login", "passed", false), ("cart", status, false)],
    );
    r["ci"]["workflow_run"] = json!(workflow_run);
    json!({"report": r, "ledger": [], "pull_request": {"repo": "octo/shop", "number": 12, "head_sha": "c1"}})
}

/// Waits for the background poster (or the upload's check) to record an outcome on the run.
pub(crate) async fn comment_status(dash: &Dash, run_id: &str) -> String {
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    for _ in 0..200 {
        let run = dash
            .state
            .store
            .run(project.id, run_id)
            .await
            .unwrap()
            .unwrap();
        if let Some(s) = run.summary.comment_status {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("no comment status recorded for {run_id}");
}
