//! The sticky PR comment against the fake GitHub (`fake_github`): one comment per PR updated
//! in place, its content, retries, and a GitHub App's installation token.

use std::time::Duration;

use axum::http::StatusCode;
use serde_json::{Value, json};
use windup_dashboard::GithubAuth;

use crate::fake_github::{Mode, comment_status, dash_for, dash_with, pr_run, start};

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
            f.seed(id, 12, "octocat", body);
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
    let ours: Vec<_> = f
        .comments
        .iter()
        .filter(|c| c.body.contains("<!-- windup:acme -->"))
        .collect();
    assert_eq!(
        ours.len(),
        1,
        "exactly one sticky comment: {:?}",
        f.comments
    );
    assert_eq!(f.comments.len(), 4);
    assert_eq!(ours[0].author, "windup-bot");
    let body = &ours[0].body;
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
    let body = &f.comments[0].body;
    assert!(body.starts_with("<!-- windup:acme -->"), "{body}");
    assert!(body.contains("across 2 shards"), "{body}");
    assert!(
        body.contains("| 3 | 1 | 0 | 0 | 3 | $0.0124 | 4 of 4 | 0 |"),
        "passed, failed, flaky, calls, cost, hits: {body}"
    );
    assert!(
        body.contains(
            "`cart`: **selector_not_found at s2**: no visible match for role=button[name=\"Save\"]\n  - Evidence: page: http://localhost:3000/settings; target: "
        ),
        "{body}"
    );
    assert!(
        body.contains("Triage: **app_changed**"),
        "the comment carries the triage verdict: {body}"
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
        &paths[..3],
        [
            "/repos/octo/shop/installation",
            "/app",
            "/app/installations/4242/access_tokens"
        ],
        "{paths:?}"
    );
    // The app authenticates as itself with an RS256 JWT signed by its key, issued by its id.
    for r in &f.requests[..3] {
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
    let rest: Vec<&str> = f.requests[3..].iter().map(|r| r.2.as_str()).collect();
    assert!(!rest.is_empty());
    assert!(
        rest.iter().all(|a| a.ends_with("ghs_installation_token")),
        "{rest:?}"
    );
    assert_eq!(
        f.comments
            .iter()
            .filter(|c| c.body.contains("<!-- windup:acme -->") && c.author == "windup-app[bot]")
            .count(),
        1
    );
}
