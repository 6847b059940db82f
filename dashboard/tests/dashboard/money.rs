//! Issue 16, findings 4 and 5, on SQLite and PostgreSQL: absurd or negative amounts are
//! refused naming the field, the spend rollup stays whole numbers, and a repeated run id
//! changes nothing, its ledger records included.

use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::common::{Backend, Dash, Db, ledger, raw, report, rollup_is_integers, today};

async fn dash(backend: Backend) -> (Dash, String, String) {
    let db = Db::new(backend).await;
    let url = db.url.clone();
    let dash = Dash::on_db(db);
    dash.project("acme").await;
    let token = dash.token("acme", &["ingest"], None).await;
    (dash, token, url)
}

/// An upload dated today, so the spend page's 30 days include it.
fn upload(run_id: &str, status: &str, records: &[Value]) -> Value {
    let mut r = report(run_id, "main", "c1", &[("login", status, false)]);
    r["started_at"] = json!(today(10));
    let records: Vec<Value> = records
        .iter()
        .map(|l| {
            let mut l = l.clone();
            l["started_at"] = json!(today(10));
            l
        })
        .collect();
    json!({"report": r, "ledger": records, "pull_request": null})
}

async fn post(dash: &Dash, token: &str, body: &Value) -> axum_test::TestResponse {
    dash.server
        .post("/api/v1/runs")
        .authorization_bearer(token)
        .json(body)
        .await
}

/// (calls, input tokens, output tokens, cost) summed over the project's spend rollup.
async fn spend(dash: &Dash) -> (i64, i64, i64, i64) {
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    let rows = dash
        .state
        .store
        .spend(project.id, "2000-01-01")
        .await
        .unwrap();
    rows.iter().fold((0, 0, 0, 0), |t, r| {
        (
            t.0 + r.calls,
            t.1 + r.input_tokens,
            t.2 + r.output_tokens,
            t.3 + r.cost_micro_usd,
        )
    })
}

async fn spend_page(dash: &Dash, session: &str) -> (StatusCode, String) {
    let page = dash
        .server
        .get("/p/acme/spend")
        .add_header("cookie", session.to_string())
        .await;
    (page.status_code(), page.text())
}

async fn absurd_amounts_get_422_naming_the_field(backend: Backend) {
    let (dash, token, url) = dash(backend).await;
    let (session, _) = dash.sign_in().await;
    let fine = ledger("r-0", "login", Some("gemini"), 1, 700);
    assert_eq!(
        post(&dash, &token, &upload("r-0", "passed", &[fine]))
            .await
            .status_code(),
        StatusCode::CREATED
    );
    // The attack of the finding first: one record claiming 2^64-1 micro-dollars.
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "cost_micro_usd",
            json!(u64::MAX),
            "ledger[0].cost_micro_usd",
        ),
        (
            "cost_micro_usd",
            json!(1_000_000_000_001u64),
            "ledger[0].cost_micro_usd",
        ),
        ("cost_micro_usd", json!(-5), "ledger[0].cost_micro_usd"),
        (
            "tokens",
            json!({"input": 10_000_000_001u64, "output": 0, "cached": 0}),
            "ledger[0].tokens.input",
        ),
        (
            "tokens",
            json!({"input": 0, "output": -1, "cached": 0}),
            "ledger[0].tokens.output",
        ),
        (
            "calls",
            json!({"planning": u32::MAX, "continuation": u32::MAX, "replan": 0}),
            "ledger[0].calls.planning",
        ),
    ];
    for (field, value, named) in cases {
        let mut record = ledger("r-1", "login", Some("gemini"), 1, 0);
        record[field] = value.clone();
        let r = post(&dash, &token, &upload("r-1", "passed", &[record])).await;
        assert_eq!(
            r.status_code(),
            StatusCode::UNPROCESSABLE_ENTITY,
            "{field} = {value}"
        );
        let message = r.json::<Value>()["error"]["message"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(message.contains(named), "{field} = {value}: {message}");
    }
    let mut body = upload("r-1", "passed", &[]);
    body["report"]["totals"]["cost_micro_usd"] = json!(u64::MAX);
    let r = post(&dash, &token, &body).await;
    assert_eq!(r.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        r.text().contains("report.totals.cost_micro_usd"),
        "{}",
        r.text()
    );
    let mut body = upload("r-1", "passed", &[]);
    body["report"]["scenarios"][0]["actions"][0]["wait_ms"] = json!(u64::MAX);
    let r = post(&dash, &token, &body).await;
    assert_eq!(r.status_code(), StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        r.text().contains("report.scenarios[0].actions[0].wait_ms"),
        "{}",
        r.text()
    );
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    assert!(
        dash.state
            .store
            .run(project.id, "r-1")
            .await
            .unwrap()
            .is_none(),
        "a refused upload stores nothing"
    );
    // The most one record may claim is taken, and sums stay whole numbers.
    let max = ledger("r-2", "login", Some("gemini"), 1, 1_000_000_000_000);
    assert_eq!(
        post(&dash, &token, &upload("r-2", "passed", &[max]))
            .await
            .status_code(),
        StatusCode::CREATED
    );
    assert_eq!(spend(&dash).await.3, 1_000_000_000_700);
    let (status, text) = spend_page(&dash, &session).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    assert!(text.contains("$1000000.0007"), "{text}");
    rollup_is_integers(&url).await;
}

async fn the_spend_rollup_stops_at_its_bound_and_refuses_fractions(backend: Backend) {
    let (dash, token, url) = dash(backend).await;
    let (session, _) = dash.sign_in().await;
    let first = ledger("r-1", "login", Some("gemini"), 1, 1);
    post(&dash, &token, &upload("r-1", "passed", &[first])).await;
    // A day already near the bound (millions of maximal records would take it there).
    raw(
        &url,
        "UPDATE spend_days SET cost_micro_usd = 999999999999999999, calls = 999999999999999999",
    )
    .await
    .unwrap();
    let more = ledger("r-2", "login", Some("gemini"), 3, 1_000_000_000_000);
    assert_eq!(
        post(&dash, &token, &upload("r-2", "passed", &[more]))
            .await
            .status_code(),
        StatusCode::CREATED
    );
    let (calls, _, _, cost) = spend(&dash).await;
    assert_eq!(
        (calls, cost),
        (1_000_000_000_000_000_000, 1_000_000_000_000_000_000)
    );
    rollup_is_integers(&url).await;
    let (status, text) = spend_page(&dash, &session).await;
    assert_eq!(status, StatusCode::OK, "{text}");
    // The schema itself refuses what the finding's upload left behind on SQLite.
    let mut refused_values = vec!["9.3e18", "1000000000000000001", "-1"];
    if !url.starts_with("postgres") {
        // PostgreSQL rounds a fraction into a BIGINT column; SQLite would keep it as a REAL.
        refused_values.push("2.5");
    }
    for value in refused_values {
        let refused = raw(
            &url,
            &format!("UPDATE spend_days SET cost_micro_usd = {value}"),
        )
        .await;
        assert!(refused.is_err(), "{value} was stored");
    }
}

async fn a_repeated_run_id_changes_nothing_not_even_the_ledger(backend: Backend) {
    let (dash, token, _url) = dash(backend).await;
    let (session, _) = dash.sign_in().await;
    let first = upload(
        "r-1",
        "passed",
        &[ledger("r-1", "login", Some("gemini"), 2, 1500)],
    );
    assert_eq!(
        post(&dash, &token, &first).await.status_code(),
        StatusCode::CREATED
    );
    let before = spend(&dash).await;
    let (_, page_before) = spend_page(&dash, &session).await;
    // The replay of the finding: the same run id, another report, more and dearer records.
    let again = upload(
        "r-1",
        "failed",
        &[
            ledger("r-1", "login", Some("gemini"), 9, 900_000),
            ledger("r-1", "cart", Some("gemini"), 5, 50_000),
            ledger("r-1", "logout", Some("openai"), 1, 7),
        ],
    );
    let r = post(&dash, &token, &again).await;
    assert_eq!(r.status_code(), StatusCode::OK);
    assert_eq!(
        r.json::<Value>(),
        json!({"run_id": "r-1", "url": "http://dash.test/p/acme/runs/r-1", "created": false})
    );
    assert_eq!(spend(&dash).await, before, "spend unchanged");
    assert_eq!(before, (2, 2000, 400, 1500));
    let (status, page_after) = spend_page(&dash, &session).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(page_after, page_before);
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    let records = dash
        .state
        .store
        .ledger_for_run(project.id, "r-1")
        .await
        .unwrap();
    assert_eq!(records.len(), 1, "{records:?}");
    let run = dash
        .state
        .store
        .run(project.id, "r-1")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (run.summary.passed, run.summary.failed),
        (1, 0),
        "the first report stays"
    );
    let rates = dash
        .state
        .store
        .pass_rates(
            project.id,
            windup_dashboard::store::Grouping::Scenario,
            "2000-01-01",
        )
        .await
        .unwrap();
    assert_eq!(rates.iter().map(|r| r.total).sum::<i64>(), 1);
}

on_both_backends!(
    absurd_amounts_get_422_naming_the_field,
    the_spend_rollup_stops_at_its_bound_and_refuses_fractions,
    a_repeated_run_id_changes_nothing_not_even_the_ledger,
);
