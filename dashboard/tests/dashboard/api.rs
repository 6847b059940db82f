//! The JSON API over real HTTP on 127.0.0.1: contract, idempotency, auth and limits.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::common::{Dash, cache_entry, error_code, ledger, png, report};

fn ingest_body(run_id: &str) -> Value {
    json!({"report": report(run_id, "main", "c1", &[("login", "passed", false)]),
           "ledger": [ledger(run_id, "login", Some("gemini"), 1, 700)],
           "pull_request": null})
}

#[tokio::test]
async fn ingest_is_idempotent_on_run_id() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let token = dash.token("acme", &["ingest"], None).await;
    let first = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&ingest_body("r-1"))
        .await;
    assert_eq!(first.status_code(), StatusCode::CREATED, "{}", first.text());
    let body: Value = first.json();
    assert_eq!(
        body,
        json!({"run_id": "r-1", "url": "http://dash.test/p/acme/runs/r-1", "created": true})
    );
    let again = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&ingest_body("r-1"))
        .await;
    assert_eq!(again.status_code(), StatusCode::OK);
    assert_eq!(again.json::<Value>()["created"], json!(false));
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    assert_eq!(
        dash.state
            .store
            .ledger_for_run(project.id, "r-1")
            .await
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn bad_bodies_get_422_naming_the_problem() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let token = dash.token("acme", &["ingest"], None).await;
    let mut body = ingest_body("r-1");
    body["report"].as_object_mut().unwrap().remove("run_id");
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&body)
        .await;
    assert_eq!(r.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
    let err: Value = r.json();
    assert_eq!(error_code(&err), "invalid_body");
    assert!(
        err["error"]["message"].as_str().unwrap().contains("run_id"),
        "{err}"
    );
    let mut body = ingest_body("r-2");
    body["ledger"][0]["run_id"] = json!("other");
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&body)
        .await;
    assert_eq!(error_code(&r.json()), "ledger_run_mismatch");
    let mut body = ingest_body("r-3");
    body["pull_request"] = json!({"repo": "no-slash", "number": 1, "head_sha": "abc"});
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&body)
        .await;
    assert_eq!(error_code(&r.json()), "invalid_pull_request");
}

#[tokio::test]
async fn every_api_route_rejects_missing_wrong_and_wrong_scope_tokens() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    // A token with a scope none of these routes accepts for its action.
    let read_only = dash.token("acme", &["cache:read"], None).await;
    let ingest_only = dash.token("acme", &["ingest"], None).await;
    let entry = cache_entry("login", "/", "aa", &["Sign in"]);
    let routes: Vec<(&str, String, Option<Value>, &str)> = vec![
        (
            "POST",
            "/api/v1/runs".into(),
            Some(ingest_body("r-1")),
            &read_only,
        ),
        (
            "PUT",
            "/api/v1/runs/r-1/artifacts/a.png".into(),
            None,
            &read_only,
        ),
        (
            "GET",
            "/api/v1/cache/login?start_url=/&scenario_sha=aa&branch=main".into(),
            None,
            &ingest_only,
        ),
        (
            "PUT",
            "/api/v1/cache/login?branch=main".into(),
            Some(entry),
            &read_only,
        ),
        (
            "GET",
            "/api/v1/sitemap?branch=main".into(),
            None,
            &ingest_only,
        ),
        (
            "PUT",
            "/api/v1/sitemap?branch=main".into(),
            Some(json!({"map_version": "0.1"})),
            &read_only,
        ),
        (
            "POST",
            "/api/v1/projects".into(),
            Some(json!({"slug": "new"})),
            &ingest_only,
        ),
        (
            "POST",
            "/api/v1/projects/acme/tokens".into(),
            Some(json!({"scopes": ["ingest"]})),
            &ingest_only,
        ),
    ];
    for (method, path, body, wrong_scope) in &routes {
        let request = |token: Option<&str>| {
            let mut r = match *method {
                "GET" => dash.server.get(path),
                "PUT" => dash.server.put(path),
                _ => dash.server.post(path),
            };
            if let Some(t) = token {
                r = r.authorization_bearer(t);
            }
            match body {
                Some(b) => r.json(b),
                None => r.bytes(png().into()).content_type("image/png"),
            }
        };
        let missing = request(None).await;
        assert_eq!(
            missing.status_code(),
            StatusCode::UNAUTHORIZED,
            "{method} {path}"
        );
        assert_eq!(error_code(&missing.json()), "missing_token");
        let wrong = request(Some(
            "wdp_0000000000000000000000000000000000000000000000000000000000000000",
        ))
        .await;
        assert_eq!(
            wrong.status_code(),
            StatusCode::UNAUTHORIZED,
            "{method} {path}"
        );
        assert_eq!(error_code(&wrong.json()), "invalid_token");
        let not_bearer = request(Some("not-a-token")).await;
        assert_eq!(
            not_bearer.status_code(),
            StatusCode::UNAUTHORIZED,
            "{method} {path}"
        );
        let scoped = request(Some(wrong_scope)).await;
        assert_eq!(
            scoped.status_code(),
            StatusCode::FORBIDDEN,
            "{method} {path}: {}",
            scoped.text()
        );
        assert_eq!(error_code(&scoped.json()), "insufficient_scope");
    }
}

#[tokio::test]
async fn session_cookies_are_not_accepted_by_the_api() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let (session, _csrf) = dash.sign_in().await;
    let r = dash
        .server
        .post("/api/v1/runs")
        .add_header("cookie", session)
        .json(&ingest_body("r-1"))
        .await;
    assert_eq!(r.status_code(), StatusCode::UNAUTHORIZED);
    let err: Value = r.json();
    assert!(
        err["error"]["message"]
            .as_str()
            .unwrap()
            .contains("session cookies"),
        "{err}"
    );
}

#[tokio::test]
async fn a_token_of_project_a_neither_reads_nor_writes_project_b() {
    let dash = Dash::new().await;
    dash.project("a").await;
    dash.project("b").await;
    let a = dash
        .token("a", &["ingest", "cache:read", "cache:write", "admin"], None)
        .await;
    let b = dash.token("b", &["cache:read", "cache:write"], None).await;
    let entry = cache_entry("login", "/", "aa", &["Sign in"]);
    let put = dash
        .server
        .put("/api/v1/cache/login?branch=main")
        .authorization_bearer(&b)
        .json(&entry)
        .await;
    assert_eq!(put.status_code(), StatusCode::CREATED);
    let read = dash
        .server
        .get("/api/v1/cache/login?start_url=/&scenario_sha=aa&branch=main")
        .authorization_bearer(&a)
        .await;
    assert_eq!(
        read.status_code(),
        StatusCode::NOT_FOUND,
        "A must not see B's plan"
    );
    // A's write lands in A: B's entry is unchanged and has no stale evidence.
    let other = cache_entry("login", "/", "aa", &["Other"]);
    dash.server
        .put("/api/v1/cache/login?branch=main")
        .authorization_bearer(&a)
        .json(&other)
        .await;
    let from_b = dash
        .server
        .get("/api/v1/cache/login?start_url=/&scenario_sha=aa&branch=main")
        .authorization_bearer(&b)
        .await;
    assert_eq!(from_b.json::<Value>()["entry"], entry);
    let b_project = dash.state.store.project("b").await.unwrap().unwrap();
    assert!(
        dash.state
            .store
            .stale_entries(b_project.id, 10)
            .await
            .unwrap()
            .is_empty()
    );
    let mint = dash
        .server
        .post("/api/v1/projects/b/tokens")
        .authorization_bearer(&a)
        .json(&json!({"scopes": ["admin"]}))
        .await;
    assert_eq!(mint.status_code(), StatusCode::FORBIDDEN);
    assert_eq!(error_code(&mint.json()), "other_project");
    // Runs and screenshots are per project too.
    dash.server
        .post("/api/v1/runs")
        .authorization_bearer(&a)
        .json(&ingest_body("shared-id"))
        .await;
    assert!(
        dash.state
            .store
            .run(b_project.id, "shared-id")
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn cache_reads_fall_back_to_the_default_branch_and_writes_stay_on_their_branch() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let ci = dash
        .token("acme", &["cache:read", "cache:write"], None)
        .await;
    let main_plan = cache_entry("login", "/", "aa", &["Sign in"]);
    let r = dash
        .server
        .put("/api/v1/cache/login?branch=main")
        .authorization_bearer(&ci)
        .json(&main_plan)
        .await;
    assert_eq!(r.status_code(), StatusCode::CREATED);
    assert_eq!(r.json::<Value>()["created"], json!(true));
    let get = |branch: &str, sha: &str| {
        dash.server
            .get(&format!(
                "/api/v1/cache/login?start_url=/&scenario_sha={sha}&branch={branch}"
            ))
            .authorization_bearer(&ci)
    };
    let fallback = get("feature/new", "aa").await;
    assert_eq!(fallback.status_code(), StatusCode::OK);
    let body: Value = fallback.json();
    assert_eq!(body["branch"], json!("main"));
    assert_eq!(body["entry"], main_plan);
    assert!(
        body["updated_at"].as_str().unwrap().ends_with('Z'),
        "{body}"
    );
    // A pull request's plan goes to its branch only: main keeps its own.
    let pr_plan = cache_entry("login", "/", "aa", &["Log in"]);
    let r = dash
        .server
        .put("/api/v1/cache/login?branch=feature/new")
        .authorization_bearer(&ci)
        .json(&pr_plan)
        .await;
    assert_eq!(r.status_code(), StatusCode::CREATED);
    assert_eq!(
        get("feature/new", "aa").await.json::<Value>()["entry"],
        pr_plan
    );
    assert_eq!(get("main", "aa").await.json::<Value>()["entry"], main_plan);
    let miss = get("main", "bb").await;
    assert_eq!(miss.status_code(), StatusCode::NOT_FOUND);
    assert_eq!(error_code(&miss.json()), "cache_miss");
    // Replacing main's plan: 200, and the old one is kept as stale evidence.
    let newer = cache_entry("login", "/", "aa", &["Sign in", "Continue"]);
    let r = dash
        .server
        .put("/api/v1/cache/login?branch=main")
        .authorization_bearer(&ci)
        .json(&newer)
        .await;
    assert_eq!(r.status_code(), StatusCode::OK);
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    let stale = dash
        .state
        .store
        .stale_entries(project.id, 10)
        .await
        .unwrap();
    assert_eq!(stale.len(), 1);
    assert_eq!(stale[0].stale_reason, "replaced");
    // Missing query fields are a clear 400.
    let r = dash
        .server
        .get("/api/v1/cache/login?branch=main")
        .authorization_bearer(&ci)
        .await;
    assert_eq!(r.status_code(), StatusCode::BAD_REQUEST);
    assert!(
        r.json::<Value>()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("start_url")
    );
    let mismatched = cache_entry("other", "/", "aa", &["x"]);
    let r = dash
        .server
        .put("/api/v1/cache/login?branch=main")
        .authorization_bearer(&ci)
        .json(&mismatched)
        .await;
    assert_eq!(error_code(&r.json()), "key_mismatch");
}

#[tokio::test]
async fn a_feature_glob_token_cannot_write_main() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let pr = dash
        .token("acme", &["cache:read", "cache:write"], Some("feature/*"))
        .await;
    let entry = cache_entry("login", "/", "aa", &["Sign in"]);
    let main = dash
        .server
        .put("/api/v1/cache/login?branch=main")
        .authorization_bearer(&pr)
        .json(&entry)
        .await;
    assert_eq!(main.status_code(), StatusCode::FORBIDDEN);
    assert_eq!(error_code(&main.json()), "branch_not_allowed");
    let feature = dash
        .server
        .put("/api/v1/cache/login?branch=feature/a")
        .authorization_bearer(&pr)
        .json(&entry)
        .await;
    assert_eq!(feature.status_code(), StatusCode::CREATED);
}

/// The Action saves a fork's plans under `fork/OWNER/REPO/BRANCH`. A scope matches the whole
/// name, so one written for the repository's own branches never covers a fork's branch of the
/// same name; one written for forks does.
#[tokio::test]
async fn a_forks_qualified_branch_needs_a_scope_written_for_forks() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let entry = cache_entry("login", "/", "aa", &["Sign in"]);
    for (scope, branch, allowed) in [
        ("feature/*", "fork/evil/app/feature/x", false),
        ("main", "fork/evil/app/main", false),
        ("fork/**", "fork/evil/app/feature/x", true),
        ("fork/**", "fork/evil/app/main", true),
        ("fork/evil/**", "fork/evil/app/main", true),
        ("fork/evil/**", "fork/other/app/main", false),
        ("feature/*", "feature/x", true),
    ] {
        let token = dash
            .token("acme", &["cache:read", "cache:write"], Some(scope))
            .await;
        let put = dash
            .server
            .put(&format!("/api/v1/cache/login?branch={branch}"))
            .authorization_bearer(&token)
            .json(&entry)
            .await;
        // 201 for a new entry, 200 for the same one again on that branch.
        let status = put.status_code();
        if allowed {
            assert!(status.is_success(), "{scope} on {branch}: {status}");
        } else {
            assert_eq!(status, StatusCode::FORBIDDEN, "{scope} on {branch}");
            assert_eq!(error_code(&put.json()), "branch_not_allowed");
        }
    }
}

#[tokio::test]
async fn oversized_bodies_get_413() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let token = dash.token("acme", &["ingest", "admin"], None).await;
    let mut big = png();
    big.resize(5 * 1024 * 1024 + 1, 0);
    let r = dash
        .server
        .put("/api/v1/runs/r-1/artifacts/big.png")
        .authorization_bearer(&token)
        .content_type("image/png")
        .bytes(big.into())
        .await;
    assert_eq!(r.status_code(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(error_code(&r.json()), "body_too_large");
    let padding = "x".repeat(1024 * 1024 + 10);
    let r = dash
        .server
        .post("/api/v1/projects")
        .authorization_bearer(&token)
        .json(&json!({"slug": "big", "padding": padding}))
        .await;
    assert_eq!(r.status_code(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(error_code(&r.json()), "body_too_large");
}

#[tokio::test]
async fn artifacts_are_pngs_stored_idempotently() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let token = dash.token("acme", &["ingest"], None).await;
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&ingest_body("r-1"))
        .await;
    assert_eq!(r.status_code(), StatusCode::CREATED);
    let put = |name: &str, body: Vec<u8>, content_type: &str| {
        dash.server
            .put(&format!("/api/v1/runs/r-1/artifacts/{name}"))
            .authorization_bearer(&token)
            .content_type(content_type)
            .bytes(body.into())
    };
    assert_eq!(
        put("login.png", png(), "image/png").await.status_code(),
        StatusCode::CREATED
    );
    assert_eq!(
        put("login.png", png(), "image/png").await.status_code(),
        StatusCode::OK
    );
    let r = put("login.png", b"GIF89a".to_vec(), "image/png").await;
    assert_eq!(r.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_code(&r.json()), "not_png");
    let r = put("login.png", png(), "text/plain").await;
    assert_eq!(error_code(&r.json()), "not_png");
    let r = put("a%20b.png", png(), "image/png").await;
    assert_eq!(error_code(&r.json()), "invalid_name");
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    assert_eq!(
        dash.state
            .store
            .artifact(project.id, "r-1", "login.png")
            .await
            .unwrap(),
        Some(png())
    );
}

/// The review's attack: an ingest token storing images under run ids that were never uploaded
/// (or are another project's), without bound. Refused with 404 before anything is stored.
#[tokio::test]
async fn an_artifact_for_a_run_the_project_does_not_have_is_refused() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    dash.project("other").await;
    let acme = dash.token("acme", &["ingest"], None).await;
    let other = dash.token("other", &["ingest"], None).await;
    let put = |token: &str, run: &str, name: &str| {
        dash.server
            .put(&format!("/api/v1/runs/{run}/artifacts/{name}"))
            .authorization_bearer(token)
            .content_type("image/png")
            .bytes(png().into())
    };
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&other)
        .json(&ingest_body("theirs"))
        .await;
    assert_eq!(r.status_code(), StatusCode::CREATED);
    for i in 0..20 {
        let r = put(&acme, &format!("made-up-{i}"), "a.png").await;
        assert_eq!(r.status_code(), StatusCode::NOT_FOUND);
        assert_eq!(error_code(&r.json()), "unknown_run");
    }
    let r = put(&acme, "theirs", "a.png").await;
    assert_eq!(
        r.status_code(),
        StatusCode::NOT_FOUND,
        "another project's run"
    );
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    for run in ["made-up-0", "theirs"] {
        assert!(
            dash.state
                .store
                .artifact_names(project.id, run)
                .await
                .unwrap()
                .is_empty(),
            "nothing stored for {run}"
        );
    }
    // Once the run is uploaded, its artifacts are taken.
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&acme)
        .json(&ingest_body("r-9"))
        .await;
    assert_eq!(r.status_code(), StatusCode::CREATED);
    assert_eq!(
        put(&acme, "r-9", "a.png").await.status_code(),
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn projects_and_tokens_through_the_api() {
    let dash = Dash::new().await;
    dash.project("ops").await;
    let admin = dash.token("ops", &["admin"], None).await;
    // No token creates projects (issue 16, finding 6): that is for instance administrators.
    let r = dash
        .server
        .post("/api/v1/projects")
        .authorization_bearer(&admin)
        .json(&json!({"slug": "shop", "default_branch": "trunk"}))
        .await;
    assert_eq!(r.status_code(), StatusCode::FORBIDDEN);
    assert_eq!(error_code(&r.json()), "instance_admin_only");
    assert!(dash.state.store.project("shop").await.unwrap().is_none());
    let r = dash
        .server
        .post("/api/v1/projects/ops/tokens")
        .authorization_bearer(&admin)
        .json(&json!({"scopes": ["ingest", "cache:write"], "branch": "feature/*"}))
        .await;
    assert_eq!(r.status_code(), StatusCode::CREATED);
    let body: Value = r.json();
    let token = body["token"].as_str().unwrap();
    assert!(token.starts_with("wdp_") && token.len() == 68, "{body}");
    assert_eq!(body["scopes"], json!(["ingest", "cache:write"]));
    let used = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(token)
        .json(&ingest_body("r-9"))
        .await;
    assert_eq!(used.status_code(), StatusCode::CREATED);
    let bad_scope = dash
        .server
        .post("/api/v1/projects/ops/tokens")
        .authorization_bearer(&admin)
        .json(&json!({"scopes": ["root"]}))
        .await;
    assert_eq!(error_code(&bad_scope.json()), "invalid_scope");
    // Only the hash is stored.
    let project = dash.state.store.project("ops").await.unwrap().unwrap();
    let hash = windup_dashboard::secret::sha256_hex(token);
    let rows = dash
        .state
        .store
        .tokens_by_lookup(windup_dashboard::secret::lookup(&hash))
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].project_id, project.id);
    assert_eq!(rows[0].sha256, hash);
    assert_ne!(rows[0].sha256, token);
}

#[tokio::test]
async fn unknown_routes_and_health() {
    let dash = Dash::new().await;
    let r = dash.server.get("/api/v1/nothing").await;
    assert_eq!(r.status_code(), StatusCode::NOT_FOUND);
    assert_eq!(error_code(&r.json()), "no_route");
    let health = dash.server.get("/healthz").await;
    assert_eq!(health.status_code(), StatusCode::OK);
    assert_eq!(health.text(), "ok");
}

#[tokio::test]
async fn a_token_matching_only_the_hash_prefix_is_refused() {
    // The database finds candidates by a hash prefix; the full hash must still match.
    let dash = Dash::new().await;
    let project = dash.project("acme").await;
    let token = format!("wdp_{}", "ab".repeat(32));
    let hash = windup_dashboard::secret::sha256_hex(&token);
    let lookup = windup_dashboard::secret::lookup(&hash);
    dash.state
        .store
        .create_token(
            project.id,
            &windup_dashboard::store::NewToken {
                lookup,
                sha256: &"0".repeat(64),
                scopes: "ingest admin",
                branch_glob: None,
                name: "",
                expires_ms: None,
                created_ms: 1,
            },
        )
        .await
        .unwrap();
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&ingest_body("r-1"))
        .await;
    assert_eq!(r.status_code(), StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&r.json()), "invalid_token");
}
