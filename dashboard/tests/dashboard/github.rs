//! The sticky PR comment against a fake GitHub on 127.0.0.1 that speaks GitHub's REST shapes:
//! list issue comments (paginated with a `Link` header), create, and update by POST (as
//! octocrab sends it; PATCH is accepted too).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};
use windup_dashboard::{GithubAuth, GithubConfig};

use crate::common::{Dash, report};

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Ok,
    /// Every request answers 500.
    Down,
    /// The first request answers 500, later ones work.
    Flaky,
    /// Every request answers 403 (a token without the right permission).
    Forbidden,
}

#[derive(Default)]
struct Fake {
    comments: Vec<(u64, u64, String)>, // (id, issue, body)
    next_id: u64,
    requests: Vec<(String, String, String)>, // (method, path, authorization)
    mode: Option<Mode>,
    served_failure: bool,
}

type Shared = Arc<Mutex<Fake>>;

fn user(base: &str) -> Value {
    json!({
        "login": "windup-bot", "id": 42, "node_id": "MDQ6VXNlcjQy",
        "avatar_url": "https://avatars.githubusercontent.com/u/42?v=4", "gravatar_id": "",
        "url": format!("{base}/users/windup-bot"), "html_url": "https://github.com/windup-bot",
        "followers_url": format!("{base}/users/windup-bot/followers"),
        "following_url": format!("{base}/users/windup-bot/following{{/other_user}}"),
        "gists_url": format!("{base}/users/windup-bot/gists{{/gist_id}}"),
        "starred_url": format!("{base}/users/windup-bot/starred{{/owner}}{{/repo}}"),
        "subscriptions_url": format!("{base}/users/windup-bot/subscriptions"),
        "organizations_url": format!("{base}/users/windup-bot/orgs"),
        "repos_url": format!("{base}/users/windup-bot/repos"),
        "events_url": format!("{base}/users/windup-bot/events{{/privacy}}"),
        "received_events_url": format!("{base}/users/windup-bot/received_events"),
        "type": "Bot", "site_admin": false
    })
}

fn comment(base: &str, owner: &str, repo: &str, id: u64, issue: u64, body: &str) -> Value {
    json!({
        "id": id, "node_id": format!("IC_{id}"),
        "url": format!("{base}/repos/{owner}/{repo}/issues/comments/{id}"),
        "html_url": format!("https://github.com/{owner}/{repo}/pull/{issue}#issuecomment-{id}"),
        "issue_url": format!("{base}/repos/{owner}/{repo}/issues/{issue}"),
        "body": body, "user": user(base), "author_association": "NONE",
        "created_at": "2026-11-29T10:00:00Z", "updated_at": "2026-11-29T10:00:00Z"
    })
}

struct FakeGithub {
    state: Shared,
    base: String,
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

async fn start(mode: Mode) -> FakeGithub {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let state: Shared = Arc::new(Mutex::new(Fake {
        mode: Some(mode),
        next_id: 1000,
        ..Fake::default()
    }));
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
                .filter(|c| c.1 == issue)
                .map(|(id, issue, body)| comment(&base, &owner, &repo, *id, *issue, body))
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
            let id = fake.next_id;
            let text = body["body"].as_str().unwrap_or("").to_string();
            fake.comments.push((id, issue, text.clone()));
            (
                StatusCode::CREATED,
                Json(comment(&base, &owner, &repo, id, issue, &text)),
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
            let text = body["body"].as_str().unwrap_or("").to_string();
            let Some(c) = fake.comments.iter_mut().find(|c| c.0 == id) else {
                return (StatusCode::NOT_FOUND, Json(json!({"message": "Not Found"})))
                    .into_response();
            };
            c.2 = text.clone();
            let issue = c.1;
            Json(comment(&base, &owner, &repo, id, issue, &text)).into_response()
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
                "id": 4242, "account": user(&base),
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
                "token": "ghs_installation_token", "expires_at": "2099-01-01T00:00:00Z",
                "permissions": {"issues": "write", "pull_requests": "write"},
                "repository_selection": "selected"
            })),
        )
    };
    let app = Router::new()
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
        .with_state(state.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    FakeGithub { state, base }
}

async fn dash_for(fake: &FakeGithub) -> (Dash, String) {
    dash_with(fake, GithubAuth::Token("ghp_test".into())).await
}

async fn dash_with(fake: &FakeGithub, auth: GithubAuth) -> (Dash, String) {
    let dash = Dash::with_github(Some(GithubConfig {
        auth,
        api_url: fake.base.clone(),
    }))
    .await;
    dash.project("acme").await;
    let token = dash.token("acme", &["ingest"], None).await;
    (dash, token)
}

fn pr_run(run_id: &str, workflow_run: &str, failed: bool) -> Value {
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

/// Waits for the background poster to record an outcome on the run.
async fn comment_status(dash: &Dash, run_id: &str) -> String {
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

#[tokio::test]
async fn one_sticky_comment_per_pr_updated_in_place() {
    let fake = start(Mode::Ok).await;
    // Other people's comments come first, so ours is found on the second page.
    {
        let mut f = fake.state.lock().unwrap();
        for (id, body) in [
            (1, "LGTM"),
            (2, "nit: typo"),
            (3, "<!-- windup:other-project --> not ours"),
        ] {
            f.comments.push((id, 12, body.to_string()));
        }
    }
    let (dash, token) = dash_for(&fake).await;
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&pr_run("r-1", "wf-1", true))
        .await;
    assert_eq!(r.status_code(), StatusCode::CREATED);
    assert_eq!(
        comment_status(&dash, "r-1").await,
        "created comment on octo/shop#12"
    );
    for (n, run_id) in ["r-2", "r-3"].iter().enumerate() {
        let body = pr_run(run_id, &format!("wf-{}", n + 2), false);
        dash.server
            .post("/api/v1/runs")
            .authorization_bearer(&token)
            .json(&body)
            .await;
        assert_eq!(
            comment_status(&dash, run_id).await,
            "updated comment on octo/shop#12"
        );
    }
    let f = fake.state.lock().unwrap();
    let ours: Vec<&(u64, u64, String)> = f
        .comments
        .iter()
        .filter(|c| c.2.contains("<!-- windup:acme -->"))
        .collect();
    assert_eq!(
        ours.len(),
        1,
        "exactly one sticky comment: {:?}",
        f.comments
    );
    assert_eq!(f.comments.len(), 4);
    let body = &ours[0].2;
    assert!(
        body.contains("all passed"),
        "updated to the latest run: {body}"
    );
    assert!(body.contains("http://dash.test/p/acme/runs/r-3"), "{body}");
    let updates: Vec<&str> = f
        .requests
        .iter()
        .filter(|r| r.1.contains("/issues/comments/"))
        .map(|r| r.0.as_str())
        .collect();
    assert_eq!(updates, ["POST", "POST"], "octocrab updates by POST");
    assert!(
        f.requests.iter().all(|r| r.2 == "Bearer ghp_test"),
        "every request carries the token"
    );
}

#[tokio::test]
async fn the_comment_lists_failures_with_suggestions_cost_and_cache_hits() {
    let fake = start(Mode::Ok).await;
    let (dash, token) = dash_for(&fake).await;
    // Two shards of one workflow run: the comment sums both.
    dash.server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&pr_run("shard-1", "wf-9", true))
        .await;
    comment_status(&dash, "shard-1").await;
    let mut second = pr_run("shard-2", "wf-9", false);
    second["report"]["totals"]["cost_micro_usd"] = json!(12_345);
    second["report"]["totals"]["llm_calls"] = json!(3);
    dash.server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&second)
        .await;
    comment_status(&dash, "shard-2").await;
    let f = fake.state.lock().unwrap();
    assert_eq!(f.comments.len(), 1);
    let body = &f.comments[0].2;
    assert!(body.starts_with("<!-- windup:acme -->"), "{body}");
    assert!(body.contains("across 2 shards"), "{body}");
    assert!(
        body.contains("| 3 | 1 | 0 | 3 | $0.0124 | 4 of 4 | 0 |"),
        "passed, failed, flaky, calls, cost, hits: {body}"
    );
    assert!(
        body.contains("`cart`: **selector_not_found** no visible match"),
        "{body}"
    );
    assert!(
        body.contains("Suggested fix: Say \"Store\" in the scenario's task"),
        "{body}"
    );
}

#[tokio::test]
async fn github_500s_are_retried_and_never_fail_ingest() {
    let fake = start(Mode::Flaky).await;
    let (dash, token) = dash_for(&fake).await;
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&pr_run("r-1", "wf-1", false))
        .await;
    assert_eq!(r.status_code(), StatusCode::CREATED);
    assert_eq!(
        comment_status(&dash, "r-1").await,
        "created comment on octo/shop#12"
    );
    assert_eq!(fake.state.lock().unwrap().comments.len(), 1);

    let down = start(Mode::Down).await;
    let (dash, token) = dash_for(&down).await;
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&pr_run("r-2", "wf-2", false))
        .await;
    assert_eq!(
        r.status_code(),
        StatusCode::CREATED,
        "ingest succeeds while GitHub is down"
    );
    let status = comment_status(&dash, "r-2").await;
    assert!(
        status.starts_with("failed: GitHub answered 500"),
        "{status}"
    );
    assert_eq!(
        down.state.lock().unwrap().requests.len(),
        3,
        "three attempts"
    );
    // The failure is shown on the run page.
    let (session, _) = dash.sign_in().await;
    let page = dash
        .server
        .get("/p/acme/runs/r-2")
        .add_header("cookie", session)
        .await;
    assert!(page.text().contains("failed: GitHub answered 500"));
}

#[tokio::test]
async fn a_github_403_is_recorded_without_retrying() {
    let fake = start(Mode::Forbidden).await;
    let (dash, token) = dash_for(&fake).await;
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&pr_run("r-1", "wf-1", true))
        .await;
    assert_eq!(r.status_code(), StatusCode::CREATED);
    let status = comment_status(&dash, "r-1").await;
    assert!(
        status.contains("403") && status.contains("Resource not accessible"),
        "{status}"
    );
    assert_eq!(
        fake.state.lock().unwrap().requests.len(),
        1,
        "a 403 is not retried"
    );
    // A retried upload of the same run tries the comment again.
    fake.state.lock().unwrap().mode = Some(Mode::Ok);
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&pr_run("r-1", "wf-1", true))
        .await;
    assert_eq!(r.status_code(), StatusCode::OK);
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    for _ in 0..200 {
        let s = dash
            .state
            .store
            .run(project.id, "r-1")
            .await
            .unwrap()
            .unwrap()
            .summary
            .comment_status;
        if s.as_deref() == Some("created comment on octo/shop#12") {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("the retried upload did not post the comment");
}

/// A fresh RSA key pair from `openssl`, as GitHub hands an app its key: (private PKCS#1 PEM,
/// public PEM).
fn app_key() -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("app.pem");
    let run = |args: &[&str]| {
        let out = std::process::Command::new("openssl")
            .args(args)
            .output()
            .expect("openssl (scripts/install-deps.sh installs it)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let key_path = key.to_str().unwrap();
    run(&["genrsa", "-traditional", "-out", key_path, "2048"]);
    let public = run(&["rsa", "-in", key_path, "-pubout"]);
    (std::fs::read_to_string(&key).unwrap(), public)
}

#[tokio::test]
async fn a_github_app_comments_with_its_installation_token() {
    let fake = start(Mode::Ok).await;
    let (private_pem, public_pem) = app_key();
    let auth = GithubAuth::App {
        app_id: 7,
        private_key_pem: private_pem,
    };
    let (dash, token) = dash_with(&fake, auth).await;
    dash.server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&pr_run("r-app", "wf-app", false))
        .await;
    assert_eq!(
        comment_status(&dash, "r-app").await,
        "created comment on octo/shop#12"
    );
    let f = fake.state.lock().unwrap();
    let paths: Vec<&str> = f.requests.iter().map(|r| r.1.as_str()).collect();
    assert_eq!(
        &paths[..2],
        [
            "/repos/octo/shop/installation",
            "/app/installations/4242/access_tokens"
        ],
        "{paths:?}"
    );
    // The app authenticates as itself with an RS256 JWT signed by its key, issued by its id.
    for r in &f.requests[..2] {
        let jwt = r.2.strip_prefix("Bearer ").expect("a bearer JWT");
        let key = octocrab::jsonwebtoken::DecodingKey::from_rsa_pem(public_pem.as_bytes()).unwrap();
        let mut validation =
            octocrab::jsonwebtoken::Validation::new(octocrab::jsonwebtoken::Algorithm::RS256);
        validation.set_required_spec_claims(&["exp"]);
        let claims = octocrab::jsonwebtoken::decode::<Value>(jwt, &key, &validation)
            .expect("signed by the app's key")
            .claims;
        assert_eq!(claims["iss"].to_string().trim_matches('"'), "7", "{claims}");
    }
    // The comment itself goes out with the installation's token, never the JWT.
    let rest: Vec<&str> = f.requests[2..].iter().map(|r| r.2.as_str()).collect();
    assert!(!rest.is_empty());
    assert!(
        rest.iter().all(|a| a.ends_with("ghs_installation_token")),
        "{rest:?}"
    );
    assert_eq!(
        f.comments
            .iter()
            .filter(|c| c.2.contains("<!-- windup:acme -->"))
            .count(),
        1
    );
}
