//! The plans a pushed run stopped trusting (`RunUpload::invalidations`): ingested with the run,
//! checked, shown on the Stale plans page with the run's evidence and triage verdict and the step
//! diff once a replacement exists (the run's own, or a later shared-cache save), readable by a
//! viewer, escaped, and pruned with their run. And a run's debrief on its run page.

use axum::http::StatusCode;
use serde_json::{Value, json};
use windup_dashboard::access::Role;
use windup_dashboard::{admin, retention};

use crate::common::{Backend, Dash, Db, PASSWORD, cache_entry, error_code, raw_texts, report};

/// `entry` as the runner moved it to `stale/` in run `run_id`.
fn stale(mut entry: Value, run_id: &str, message: &str) -> Value {
    entry["status"] = json!("stale");
    entry["invalidation"] = json!({
        "at": "2026-11-29T10:00:30Z",
        "reason": "replay failed",
        "failure_class": "selector_not_found",
        "failed_action_id": "s2",
        "message": message,
        "url": "http://localhost:3000/cart",
        "run_id": run_id
    });
    entry
}

async fn count(url: &str) -> i64 {
    raw_texts(url, "SELECT CAST(COUNT(*) AS TEXT) FROM stale_plans").await[0]
        .parse()
        .unwrap()
}

async fn upload(dash: &Dash, token: &str, body: &Value) -> (StatusCode, Value) {
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(token)
        .json(body)
        .await;
    (r.status_code(), r.json())
}

async fn a_pushed_runs_stale_plans_show_with_evidence_verdict_and_diff(backend: Backend) {
    let db = Db::new(backend).await;
    let url = db.url.clone();
    let dash = Dash::on_db(db);
    let acme = dash.project("acme").await;
    let token = dash.token("acme", &["ingest", "cache:write"], None).await;
    let mut r = report(
        "run-stale",
        "main",
        "c1",
        &[("cart", "failed", false), ("login", "failed", false)],
    );
    r["started_at"] = json!(crate::common::today(0));
    let hostile = "no match for <script>alert(1)</script>";
    let cart_old = stale(
        cache_entry("cart", "/cart", "aa", &["Open cart", "Save"]),
        "run-stale",
        hostile,
    );
    let login_old = stale(
        cache_entry("login", "/login", "bb", &["Email", "Sign in"]),
        "run-stale",
        "gone",
    );
    let login_new = cache_entry("login", "/login", "bb", &["Work email", "Sign in"]);

    // Refused whole, naming the field: an invalidation of another run, a replacement not active.
    let mut wrong = cart_old.clone();
    wrong["invalidation"]["run_id"] = json!("run-other");
    let (status, body) = upload(
        &dash,
        &token,
        &json!({"report": r, "invalidations": [{"entry": wrong}]}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(error_code(&body), "invalid_invalidation");
    assert!(
        body.to_string()
            .contains("invalidations[0].entry.invalidation.run_id"),
        "{body}"
    );
    let (status, body) = upload(
        &dash,
        &token,
        &json!({"report": r, "invalidations": [{"entry": login_old, "replacement": login_old}]}),
    )
    .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{body}");
    assert!(body.to_string().contains("invalidations[0].replacement"));
    assert_eq!(count(&url).await, 0, "nothing of a refused upload is kept");

    let (status, body) = upload(
        &dash,
        &token,
        &json!({"report": r, "invalidations": [
            {"entry": cart_old},
            {"entry": login_old, "replacement": login_new}
        ]}),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    assert_eq!(count(&url).await, 2);
    // A retried upload adds nothing.
    let (status, _) = upload(
        &dash,
        &token,
        &json!({"report": r, "invalidations": [{"entry": cart_old}]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(count(&url).await, 2);

    // The run page shows the run's debrief, escaped.
    let mut with_debrief = r.clone();
    with_debrief["run_id"] = json!("run-debrief");
    with_debrief["debrief"] = json!({
        "shared_cause": "Both <i>Save</i> buttons were renamed.",
        "look_first": ["cart"],
        "notes": "Check the release notes.",
        "by": "fake/gpt-4.1-mini"
    });
    let (status, body) = upload(&dash, &token, &json!({"report": with_debrief})).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");

    // A viewer reads the page; the list has both, with their failure and verdict.
    let st = &*dash.state.store;
    admin::create_user(st, "vic@example.com", PASSWORD)
        .await
        .unwrap();
    admin::add_person(st, &acme, "vic@example.com", Role::Viewer)
        .await
        .unwrap();
    let (vic, _) = dash.sign_in_as("vic@example.com").await;
    let get = |path: String| dash.server.get(&path).add_header("cookie", vic.clone());
    let run = get("/p/acme/runs/run-debrief".into()).await.text();
    assert!(
        run.contains("Shared cause: Both &#60;i&#62;Save&#60;/i&#62; buttons were renamed."),
        "{run}"
    );
    assert!(run.contains("Look first at: <code>cart</code>"), "{run}");
    assert!(run.contains("by fake/gpt-4.1-mini"), "{run}");
    let list = get("/p/acme/stale".into()).await.text();
    assert!(!list.contains("None yet"), "{list}");
    assert_eq!(
        list.matches("<td>selector_not_found</td>").count(),
        2,
        "{list}"
    );
    assert_eq!(
        list.matches("<td class=\"verdict\">app_changed</td>")
            .count(),
        2,
        "{list}"
    );
    let links: Vec<String> = list
        .match_indices("/p/acme/stale/run-")
        .map(|(i, _)| list[i..i + list[i..].find('"').unwrap()].to_string())
        .collect();
    assert_eq!(links.len(), 2, "{list}");

    // Without a replacement: the evidence, the verdict and the old plan's steps, escaped.
    let cart = get(link_of(&links, &list, "cart")).await.text();
    assert!(cart.contains("Stale plan: cart"), "{cart}");
    assert!(
        cart.contains("<dd class=\"bad\">selector_not_found</dd>"),
        "{cart}"
    );
    assert!(cart.contains("<dd class=\"verdict\">app_changed"), "{cart}");
    assert!(cart.contains("the step&#39;s target is gone"), "{cart}");
    assert!(
        cart.contains("TypeError: x is undefined"),
        "the run's evidence"
    );
    assert!(cart.contains("Steps (nothing replaced it yet)"), "{cart}");
    assert!(!cart.contains("<script>alert(1)"), "escaped");
    assert!(
        cart.contains("&#60;script&#62;alert(1)&#60;/script&#62;"),
        "{cart}"
    );

    // With the run's replacement: the step diff.
    let login = get(link_of(&links, &list, "login")).await.text();
    assert!(login.contains("Step-by-step diff"), "{login}");
    assert!(login.contains("<tr class=\"removed\">"), "{login}");
    assert!(login.contains("<tr class=\"added\">"), "{login}");
    assert!(
        login.contains("Work email"),
        "the replacing plan's step: {login}"
    );

    // The cart's replacement arrives later through the shared cache: the diff shows.
    let cart_new = cache_entry("cart", "/cart", "aa", &["Open cart", "Store"]);
    let put = dash
        .server
        .put("/api/v1/cache/cart?branch=main")
        .authorization_bearer(&token)
        .json(&cart_new)
        .await;
    assert!(put.status_code().is_success());
    let cart = get(link_of(&links, &list, "cart")).await.text();
    assert!(cart.contains("<tr class=\"added\">"), "{cart}");
    assert!(cart.contains("Store"), "{cart}");

    // Someone without a role sees nothing; a bad id is a 404.
    admin::create_user(st, "eve@example.com", PASSWORD)
        .await
        .unwrap();
    let (eve, _) = dash.sign_in_as("eve@example.com").await;
    let r = dash.server.get(&links[0]).add_header("cookie", eve).await;
    assert_eq!(r.status_code(), StatusCode::NOT_FOUND);
    assert_eq!(
        get("/p/acme/stale/run-x".into()).await.status_code(),
        StatusCode::NOT_FOUND
    );

    // Retention prunes them with their run.
    let now = time::OffsetDateTime::now_utc().unix_timestamp() * 1000;
    let pruned = retention::prune(st, 0, now + 1000).await.unwrap();
    assert_eq!(pruned.runs, 2);
    assert_eq!(count(&url).await, 0);
    let list = get("/p/acme/stale".into()).await.text();
    assert!(!list.contains("/p/acme/stale/run-"), "{list}");
}

/// The link in `list` whose row names `scenario`.
/// The one of `links` whose row in the list page `list` is `scenario`'s.
fn link_of(links: &[String], list: &str, scenario: &str) -> String {
    links
        .iter()
        .find(|link| {
            let at = list.find(&format!("\"{link}\"")).unwrap();
            let row = &list[list[..at].rfind("<tr>").unwrap()..at];
            row.contains(&format!("<td>{scenario}</td>"))
        })
        .unwrap()
        .clone()
}

on_both_backends!(a_pushed_runs_stale_plans_show_with_evidence_verdict_and_diff);
