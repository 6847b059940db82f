//! The pages: sessions, CSRF, escaping, CSP, and what each page shows.

use axum::http::StatusCode;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::common::{Dash, cache_entry, ledger, png, report, set_cookie_header, today};

async fn ingest(dash: &Dash, token: &str, mut body: Value) {
    body["report"]["started_at"] = json!(today(0));
    if let Some(records) = body["ledger"].as_array_mut() {
        for l in records {
            l["started_at"] = json!(today(0));
        }
    }
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(token)
        .json(&body)
        .await;
    assert!(r.status_code().is_success(), "{}", r.text());
}

/// A project with a failing run (screenshot uploaded), a replay-only run, a flaky scenario, and
/// a plan replaced after the failure.
async fn seeded() -> (Dash, String) {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let token = dash
        .token("acme", &["ingest", "cache:read", "cache:write"], None)
        .await;
    ingest(
        &dash,
        &token,
        json!({"report": report("run-fail", "main", "c1", &[("login", "passed", false), ("cart", "failed", false)]),
               "ledger": [ledger("run-fail", "cart", Some("gemini"), 2, 4200)], "pull_request": null}),
    )
    .await;
    let r = dash
        .server
        .put("/api/v1/runs/run-fail/artifacts/cart.png")
        .authorization_bearer(&token)
        .content_type("image/png")
        .bytes(png().into())
        .await;
    assert_eq!(r.status_code(), StatusCode::CREATED);
    ingest(
        &dash,
        &token,
        json!({"report": report("run-replay", "main", "c1", &[("login", "passed", true), ("cart", "passed", false)]),
               "ledger": [ledger("run-replay", "login", None, 0, 0)], "pull_request": null}),
    )
    .await;
    let old = cache_entry("cart", "/cart", "aa", &["Open cart", "Save"]);
    let new = cache_entry("cart", "/cart", "aa", &["Open cart", "Store"]);
    for entry in [old, new] {
        let r = dash
            .server
            .put("/api/v1/cache/cart?branch=main")
            .authorization_bearer(&token)
            .json(&entry)
            .await;
        assert!(r.status_code().is_success());
    }
    (dash, token)
}

#[tokio::test]
async fn pages_need_a_session_and_never_take_an_api_token() {
    let (dash, token) = seeded().await;
    for path in [
        "/",
        "/p/acme",
        "/p/acme/runs",
        "/p/acme/runs/run-fail",
        "/p/acme/spend",
        "/p/acme/flaky",
        "/p/acme/stale",
        "/p/acme/tokens",
        "/p/acme/runs/run-fail/artifacts/cart.png",
    ] {
        let anonymous = dash.server.get(path).await;
        assert_eq!(anonymous.status_code(), StatusCode::SEE_OTHER, "{path}");
        assert_eq!(anonymous.header("location"), "/login");
        let with_token = dash.server.get(path).authorization_bearer(&token).await;
        assert_eq!(
            with_token.status_code(),
            StatusCode::SEE_OTHER,
            "{path} must not accept a bearer token"
        );
    }
    let forged = dash
        .server
        .get("/")
        .add_header("cookie", "windup_session=deadbeef")
        .await;
    assert_eq!(forged.status_code(), StatusCode::SEE_OTHER);
}

#[tokio::test]
async fn sign_in_sets_a_secure_httponly_samesite_cookie() {
    let dash = Dash::new().await;
    windup_dashboard::admin::create_user(
        &*dash.state.store,
        "ada@example.com",
        crate::common::PASSWORD,
    )
    .await
    .unwrap();
    let page = dash.server.get("/login").await;
    let login_cookie = crate::common::set_cookie_pair(&page, "windup_login_csrf");
    let csrf = login_cookie.split_once('=').unwrap().1.to_string();
    let wrong = dash
        .server
        .post("/login")
        .add_header("cookie", login_cookie.clone())
        .form(&[
            ("email", "ada@example.com"),
            ("password", "wrong password!"),
            ("csrf", csrf.as_str()),
        ])
        .await;
    assert_eq!(wrong.status_code(), StatusCode::UNAUTHORIZED);
    assert!(wrong.text().contains("Wrong email or password"));
    let no_csrf = dash
        .server
        .post("/login")
        .form(&[
            ("email", "ada@example.com"),
            ("password", crate::common::PASSWORD),
        ])
        .await;
    assert_eq!(
        no_csrf.status_code(),
        StatusCode::FORBIDDEN,
        "the sign-in form needs its CSRF token"
    );
    let ok = dash
        .server
        .post("/login")
        .add_header("cookie", login_cookie)
        .form(&[
            ("email", "ada@example.com"),
            ("password", crate::common::PASSWORD),
            ("csrf", csrf.as_str()),
        ])
        .await;
    assert_eq!(ok.status_code(), StatusCode::SEE_OTHER);
    let cookie = set_cookie_header(&ok, "windup_session");
    for attribute in ["HttpOnly", "SameSite=Lax", "Secure", "Path=/"] {
        assert!(
            cookie.contains(attribute),
            "{attribute} missing from {cookie}"
        );
    }
}

#[tokio::test]
async fn forms_without_the_csrf_token_are_refused() {
    let dash = Dash::new().await;
    let (session, csrf) = dash.sign_in().await;
    let missing = dash
        .server
        .post("/projects")
        .add_header("cookie", session.clone())
        .form(&[("slug", "shop")])
        .await;
    assert_eq!(missing.status_code(), StatusCode::FORBIDDEN);
    let wrong = dash
        .server
        .post("/projects")
        .add_header("cookie", session.clone())
        .form(&[("slug", "shop"), ("csrf", "0".repeat(64).as_str())])
        .await;
    assert_eq!(wrong.status_code(), StatusCode::FORBIDDEN);
    assert!(dash.state.store.project("shop").await.unwrap().is_none());
    let logout = dash
        .server
        .post("/logout")
        .add_header("cookie", session.clone())
        .form(&[("x", "y")])
        .await;
    assert_eq!(logout.status_code(), StatusCode::FORBIDDEN);
    let made = dash
        .server
        .post("/projects")
        .add_header("cookie", session.clone())
        .form(&[
            ("slug", "shop"),
            ("default_branch", "trunk"),
            ("csrf", csrf.as_str()),
        ])
        .await;
    assert_eq!(made.status_code(), StatusCode::SEE_OTHER);
    assert_eq!(
        dash.state
            .store
            .project("shop")
            .await
            .unwrap()
            .unwrap()
            .default_branch,
        "trunk"
    );
    let token_form = dash
        .server
        .post("/p/shop/tokens")
        .add_header("cookie", session.clone())
        .form(&[("scope", "ingest"), ("scope", "cache:read")])
        .await;
    assert_eq!(token_form.status_code(), StatusCode::FORBIDDEN);
    // Signing out ends the session.
    let out = dash
        .server
        .post("/logout")
        .add_header("cookie", session.clone())
        .form(&[("csrf", csrf.as_str())])
        .await;
    assert_eq!(out.status_code(), StatusCode::SEE_OTHER);
    assert_eq!(
        dash.server
            .get("/")
            .add_header("cookie", session)
            .await
            .status_code(),
        StatusCode::SEE_OTHER
    );
}

#[tokio::test]
async fn tokens_made_on_the_page_are_shown_once_and_work() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let (session, csrf) = dash.sign_in().await;
    let r = dash
        .server
        .post("/p/acme/tokens")
        .add_header("cookie", session.clone())
        .form(&[
            ("csrf", csrf.as_str()),
            ("scope", "ingest"),
            ("scope", "cache:write"),
            ("branch", "feature/*"),
        ])
        .await;
    assert_eq!(r.status_code(), StatusCode::OK);
    let html = r.text();
    let start = html.find("wdp_").expect("the new token is shown");
    let token = &html[start..start + 68];
    assert!(html.contains("ingest cache:write"));
    let used = dash
        .server
        .put("/api/v1/cache/login?branch=main")
        .authorization_bearer(token)
        .json(&cache_entry("login", "/", "aa", &["x"]))
        .await;
    assert_eq!(
        used.status_code(),
        StatusCode::FORBIDDEN,
        "the page's branch pattern applies"
    );
    let again = dash
        .server
        .get("/p/acme/tokens")
        .add_header("cookie", session)
        .await;
    assert!(!again.text().contains(token), "shown once");
}

#[tokio::test]
async fn script_in_scenario_names_and_tasks_renders_inert() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let token = dash.token("acme", &["ingest"], None).await;
    let mut body = json!({"report": report("xss", "<script>alert(1)</script>", "c1",
                                          &[("<script>alert(2)</script>", "failed", false)]),
                          "ledger": [], "pull_request": null});
    body["report"]["scenarios"][0]["task"] =
        json!("<script>alert(3)</script><img src=x onerror=alert(4)>");
    ingest(&dash, &token, body).await;
    let (session, _) = dash.sign_in().await;
    for path in [
        "/p/acme/runs/xss",
        "/p/acme",
        "/p/acme/flaky",
        "/p/acme/spend",
    ] {
        let page = dash
            .server
            .get(path)
            .add_header("cookie", session.clone())
            .await;
        assert_eq!(page.status_code(), StatusCode::OK, "{path}");
        let html = page.text();
        assert!(
            !html.contains("<script>alert"),
            "{path} rendered a live script"
        );
        assert!(!html.contains("<img src=x"), "{path} rendered a live tag");
        if path.ends_with("xss") {
            assert!(
                html.contains("&lt;script&gt;alert(2)&lt;/script&gt;")
                    || html.contains("&#60;script&#62;alert(2)"),
                "{path}: {html}"
            );
        }
        // The only scripts are ours, from our own origin.
        assert_eq!(html.matches("<script").count(), 1, "{path}");
        assert!(html.contains("<script src=\"/static/htmx-2.0.11.min.js\"></script>"));
        let csp = page.header("content-security-policy");
        assert!(csp.to_str().unwrap().contains("script-src 'self'"));
    }
}

#[tokio::test]
async fn sql_metacharacters_in_filters_are_harmless() {
    let (dash, _) = seeded().await;
    let (session, _) = dash.sign_in().await;
    for value in [
        "' OR '1'='1",
        "main'; DROP TABLE runs; --",
        "%",
        "_",
        "\\",
        "\"",
        "main\0",
    ] {
        let encoded: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
        for path in [
            format!("/p/acme/runs?branch={encoded}&status={encoded}&page=0"),
            format!("/p/acme?branch={encoded}"),
        ] {
            let page = dash
                .server
                .get(&path)
                .add_header("cookie", session.clone())
                .await;
            assert_eq!(page.status_code(), StatusCode::OK, "{path}");
            assert!(page.text().contains("No runs match"), "{path} matched runs");
        }
    }
    let all = dash
        .server
        .get("/p/acme/runs")
        .add_header("cookie", session)
        .await;
    assert!(all.text().contains("run-fail"), "the runs are still there");
}

#[tokio::test]
async fn overview_project_and_run_pages_show_the_history() {
    let (dash, _) = seeded().await;
    let (session, _) = dash.sign_in().await;
    let get = |path: &'static str| dash.server.get(path).add_header("cookie", session.clone());
    let overview = get("/").await.text();
    assert!(overview.contains("href=\"/p/acme\""));
    // Both runs are shards of one workflow run, one with `cart` failing: main is red.
    assert!(
        overview.contains("main is red") && overview.contains(">cart<"),
        "the headline: {overview}"
    );
    let project = get("/p/acme").await.text();
    assert!(project.contains("<svg class=\"chart\""));
    assert!(
        project.contains("Workflow run wf-1: 2 shard(s), 3 passed, 1 failed"),
        "{project}"
    );
    assert!(project.contains("hx-trigger=\"every 15s\""), "live refresh");
    let cart_rate = project.find("<td>cart</td><td>1</td><td>2</td><td>50%</td>");
    assert!(cart_rate.is_some(), "per-scenario pass rate: {project}");
    let failed_only = get("/p/acme/runs?status=failed")
        .add_header("hx-request", "true")
        .await
        .text();
    assert!(failed_only.contains("run-fail") && !failed_only.contains("run-replay"));
    let run = get("/p/acme/runs/run-fail").await.text();
    assert!(run.contains("selector_not_found"));
    assert!(
        run.contains("Triage: app_changed"),
        "the run page shows the triage verdict"
    );
    assert!(
        run.contains("Say &#34;Store&#34; in the scenario")
            || run.contains("Say &quot;Store&quot; in the scenario"),
        "{run}"
    );
    assert!(
        run.contains("src=\"/p/acme/runs/run-fail/artifacts/cart.png\""),
        "the screenshot is shown"
    );
    assert!(
        run.contains("class=\"chart timeline\""),
        "the per-action timeline"
    );
    assert!(run.contains("TypeError: x is undefined"));
    let shot = get("/p/acme/runs/run-fail/artifacts/cart.png").await;
    assert_eq!(shot.header("content-type"), "image/png");
    assert_eq!(shot.as_bytes().to_vec(), png());
}

#[tokio::test]
async fn spend_flaky_and_stale_pages() {
    let (dash, _) = seeded().await;
    let (session, _) = dash.sign_in().await;
    let get = |path: &'static str| dash.server.get(path).add_header("cookie", session.clone());
    let spend = get("/p/acme/spend").await.text();
    assert!(
        spend.contains("last 30 days: 2 calls, 2400 tokens, $0.0042"),
        "{spend}"
    );
    assert!(
        spend.contains(
            "<td>gemini</td><td>gemini-2.5-flash</td><td>2</td><td>2000</td><td>400</td><td>$0.0042</td>"
        ),
        "{spend}"
    );
    let replay_row = spend
        .find("run-replay</a>")
        .expect("the replay-only run is listed");
    assert!(
        spend[replay_row..].contains("<td>0</td><td>$0.0000</td>"),
        "a replay-only run costs $0"
    );
    let flaky = get("/p/acme/flaky").await.text();
    assert!(flaky.contains("<td>login</td>"), "passed on retry: {flaky}");
    assert!(
        flaky.contains("<td>cart</td>"),
        "passed and failed on c1: {flaky}"
    );
    let stale = get("/p/acme/stale").await.text();
    let link_start = stale.find("/p/acme/stale/").expect("a stale entry");
    let link_end = stale[link_start..].find('"').unwrap() + link_start;
    let link = stale[link_start..link_end].to_string();
    assert!(stale.contains("replaced"));
    let detail = dash
        .server
        .get(&link)
        .add_header("cookie", session.clone())
        .await
        .text();
    assert!(
        detail.contains("selector_not_found"),
        "the failure from the run: {detail}"
    );
    assert!(
        detail.contains("s2: click role=button[name=&#34;Save&#34;]")
            || detail.contains("s2: click role=button[name=&quot;Save&quot;]"),
        "the failing step: {detail}"
    );
    assert!(detail.contains("<tr class=\"removed\">"), "{detail}");
    assert!(detail.contains("<tr class=\"added\">"), "{detail}");
    assert!(detail.contains("Store"), "the replacing plan's step");
    assert!(
        detail.contains("src=\"/p/acme/runs/run-fail/artifacts/cart.png\""),
        "the evidence screenshot"
    );
}

#[tokio::test]
async fn htmx_is_vendored_with_its_checksum_and_csp_is_strict() {
    let dash = Dash::new().await;
    let js = dash.server.get("/static/htmx-2.0.11.min.js").await;
    assert_eq!(js.status_code(), StatusCode::OK);
    let digest = hex::encode(Sha256::digest(js.as_bytes()));
    assert_eq!(
        digest,
        "d6fdc75f204e6bdefa99b69bf1e6d4ac69b8a364f77929f45c13476b4000f717"
    );
    let vendored = include_str!("../../static/VENDORED.md");
    assert!(vendored.contains(&digest), "VENDORED.md names the checksum");
    let login = dash.server.get("/login").await;
    let csp = login
        .header("content-security-policy")
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains("default-src 'none'")
            && csp.contains("script-src 'self'")
            && !csp.contains("unsafe"),
        "{csp}"
    );
    assert_eq!(login.header("x-frame-options"), "DENY");
    assert!(login.text().contains("name=\"csrf\""));
}

#[tokio::test]
async fn runs_page_through_htmx_and_plain_links() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let token = dash.token("acme", &["ingest"], None).await;
    for n in 0..27 {
        let mut body = json!({"report": report(&format!("run-{n:02}"), "main", "c1", &[("login", "passed", false)]),
                              "ledger": [], "pull_request": null});
        body["report"]["ci"]["workflow_run"] = json!(format!("wf-{n}"));
        ingest(&dash, &token, body).await;
    }
    let (session, _) = dash.sign_in().await;
    let first = dash
        .server
        .get("/p/acme/runs?branch=main")
        .add_header("cookie", session.clone())
        .add_header("hx-request", "true")
        .await
        .text()
        .replace("&#38;", "&amp;"); // askama writes `&` as `&#38;`
    assert_eq!(
        first.matches("href=\"/p/acme/runs/run-").count(),
        25,
        "a page holds 25 runs"
    );
    assert!(
        first.contains(
            "href=\"/p/acme?branch=main&amp;page=1\" hx-get=\"/p/acme/runs?branch=main&amp;page=1\""
        ),
        "{first}"
    );
    assert!(!first.contains("Newer"));
    let second = dash
        .server
        .get("/p/acme/runs?branch=main&page=1")
        .add_header("cookie", session.clone())
        .add_header("hx-request", "true")
        .await
        .text();
    assert!(!second.contains("<header"), "htmx gets the fragment");
    // The same address opened as a page (a link, a reload, htmx restoring its history): the
    // whole project page with that filter.
    for restore in [false, true] {
        let mut request = dash
            .server
            .get("/p/acme/runs?branch=main&page=1")
            .add_header("cookie", session.clone());
        if restore {
            request = request
                .add_header("hx-request", "true")
                .add_header("hx-history-restore-request", "true");
        }
        let page = request.await.text();
        assert!(
            page.contains("<header class=\"top\">") && page.contains("<h2>Runs</h2>"),
            "{page}"
        );
        let list = &page[page.find("<div id=\"runs\"").expect("the runs list")..];
        assert_eq!(list.matches("href=\"/p/acme/runs/run-").count(), 2);
    }
    assert_eq!(second.matches("href=\"/p/acme/runs/run-").count(), 2);
    assert!(second.contains("Newer") && !second.contains("Older"));
    let plain = dash
        .server
        .get("/p/acme?branch=main&page=1")
        .add_header("cookie", session)
        .await
        .text();
    let list = &plain[plain.find("<div id=\"runs\"").expect("the runs list")..];
    assert!(
        plain.contains("<h2>Runs</h2>") && list.contains("run-00") && !list.contains("run-26"),
        "the full page at page 1"
    );
}

/// The same scenario against two environments on one commit is two flaky rows' worth of
/// history, not one: passing on staging and failing on production is not flakiness.
#[tokio::test]
async fn flakiness_and_pass_rates_are_kept_per_environment() {
    let dash = Dash::new().await;
    dash.project("acme").await;
    let token = dash.token("acme", &["ingest"], None).await;
    for (id, env, status) in [
        ("e1", "staging", "passed"),
        ("e2", "production", "failed"),
        ("e3", "staging", "failed"),
    ] {
        let mut body = json!({"report": report(id, "main", "c1", &[("cart", status, false)]),
                              "ledger": [], "pull_request": null});
        body["report"]["environment"] = json!(env);
        body["report"]["ci"]["workflow_run"] = json!(id);
        ingest(&dash, &token, body).await;
    }
    let mut bad = json!({"report": report("e4", "main", "c1", &[("cart", "passed", false)]),
                         "ledger": [], "pull_request": null});
    bad["report"]["environment"] = json!("http://127.0.0.1:41235");
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&bad)
        .await;
    assert_eq!(r.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(r.text().contains("report.environment"), "{}", r.text());
    let (session, _) = dash.sign_in().await;
    let get = |path: &'static str| dash.server.get(path).add_header("cookie", session.clone());
    let flaky = get("/p/acme/flaky").await.text();
    assert!(flaky.contains("<td>staging</td>"), "{flaky}");
    assert!(!flaky.contains("<td>production</td>"), "{flaky}");
    let project = get("/p/acme").await.text();
    assert!(
        project.contains("<td>production</td><td>0</td><td>1</td><td>0%</td>")
            && project.contains("<td>staging</td><td>1</td><td>2</td><td>50%</td>"),
        "{project}"
    );
}
