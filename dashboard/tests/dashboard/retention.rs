//! Retention (`serve --retain-days N`) on SQLite and PostgreSQL: old runs go with their
//! results, ledger records and screenshots; the rollups' totals and the plan cache stay; a
//! pruned run's id stays taken.

use std::sync::Arc;

use serde_json::json;
use windup_dashboard::ingest::to_new_run;
use windup_dashboard::retention;
use windup_dashboard::store::{CachePut, Grouping, NewRun, Pruned, Store};
use windup_dashboard::time::now_ms;

use crate::common::{Backend, Db, cache_entry, ledger, raw_texts, report};

const DAY_MS: i64 = 86_400_000;

/// A run started `days_ago` days before now, with one ledger record per scenario.
fn run_at(run_id: &str, days_ago: i64, scenarios: &[(&str, &str, bool)]) -> NewRun {
    let started = time::OffsetDateTime::now_utc() - time::Duration::days(days_ago);
    let at = started
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let mut r = report(run_id, "main", &format!("c-{run_id}"), scenarios);
    r["started_at"] = json!(at);
    r["finished_at"] = json!(at);
    let records: Vec<windup_model::LedgerRecord> = scenarios
        .iter()
        .map(|(id, _, _)| {
            let mut l = ledger(run_id, id, Some("gemini"), 1, 250);
            l["started_at"] = json!(at);
            serde_json::from_value(l).unwrap()
        })
        .collect();
    to_new_run(&serde_json::from_value(r).unwrap(), &records, None).unwrap()
}

/// What the pages total: pass rates per scenario, flaky rows, spend, summed.
async fn totals(store: &Arc<dyn Store>, project: i64) -> (i64, i64, usize, i64, i64) {
    let rates = store
        .pass_rates(project, Grouping::Scenario, "2000-01-01")
        .await
        .unwrap();
    let flaky = store.flaky(project, 100).await.unwrap();
    let spend = store.spend(project, "2000-01-01").await.unwrap();
    (
        rates.iter().map(|r| r.passed).sum(),
        rates.iter().map(|r| r.total).sum(),
        flaky.len(),
        spend.iter().map(|s| s.calls).sum(),
        spend.iter().map(|s| s.cost_micro_usd).sum(),
    )
}

async fn count(url: &str, table: &str) -> i64 {
    raw_texts(url, &format!("SELECT CAST(COUNT(*) AS TEXT) FROM {table}")).await[0]
        .parse()
        .unwrap()
}

async fn old_rows_go_and_totals_and_the_plan_cache_stay(backend: Backend) {
    let db = Db::new(backend).await;
    let store = db.store.clone();
    let p = store.create_project("acme", "main", 1).await.unwrap();
    let now = now_ms();
    let old = run_at(
        "old",
        40,
        &[("login", "passed", true), ("cart", "failed", false)],
    );
    let recent = run_at("recent", 2, &[("login", "passed", false)]);
    assert!(
        store
            .insert_run(p.id, &old, now - 40 * DAY_MS)
            .await
            .unwrap()
    );
    assert!(store.insert_run(p.id, &recent, now).await.unwrap());
    store
        .put_artifact(p.id, "old", "cart.png", b"\x89PNG old", now - 40 * DAY_MS)
        .await
        .unwrap();
    store
        .put_artifact(p.id, "recent", "login.png", b"\x89PNG new", now)
        .await
        .unwrap();
    // A screenshot whose run never arrived.
    store
        .put_artifact(p.id, "lost", "x.png", b"\x89PNG", now - 31 * DAY_MS)
        .await
        .unwrap();
    // Plans cached long ago: one active, one replaced (stale evidence).
    for (steps, at) in [(&["Open cart"][..], 45), (&["Open basket"][..], 41)] {
        let entry = cache_entry("cart", "/cart", "aa", steps).to_string();
        store
            .cache_put(
                p.id,
                &CachePut {
                    branch: "main",
                    scenario_id: "cart",
                    start_url: "/cart",
                    scenario_sha: "aa",
                    entry_json: &entry,
                    now_ms: now - at * DAY_MS,
                    stale_reason: Some("replay failed"),
                },
            )
            .await
            .unwrap();
    }
    let before = totals(&store, p.id).await;
    assert_eq!(before, (2, 3, 1, 3, 750));

    let pruned = retention::prune(&*store, 30, now).await.unwrap();
    assert_eq!(
        pruned,
        Pruned {
            runs: 1,
            artifacts: 2
        }
    );
    assert!(store.run(p.id, "old").await.unwrap().is_none());
    assert!(store.ledger_for_run(p.id, "old").await.unwrap().is_empty());
    assert!(
        store
            .artifact(p.id, "old", "cart.png")
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .artifact(p.id, "lost", "x.png")
            .await
            .unwrap()
            .is_none()
    );
    assert!(store.run(p.id, "recent").await.unwrap().is_some());
    assert_eq!(store.ledger_for_run(p.id, "recent").await.unwrap().len(), 1);
    assert!(
        store
            .artifact(p.id, "recent", "login.png")
            .await
            .unwrap()
            .is_some()
    );
    assert_eq!(
        count(&db.url, "scenario_results").await,
        1,
        "the old run's results went"
    );
    assert_eq!(count(&db.url, "ledger").await, 1);
    assert_eq!(
        totals(&store, p.id).await,
        before,
        "the rollups' totals stay"
    );
    let active = store
        .cache_get(p.id, "cart", "/cart", "aa", "main")
        .await
        .unwrap();
    assert!(active.is_some(), "the plan cache stays");
    assert_eq!(store.stale_entries(p.id, 10).await.unwrap().len(), 1);

    // A late retry of the pruned run is the same run: nothing is counted again.
    assert!(!store.insert_run(p.id, &old, now).await.unwrap());
    assert!(store.run(p.id, "old").await.unwrap().is_none());
    assert_eq!(totals(&store, p.id).await, before);
    assert_eq!(
        retention::prune(&*store, 30, now).await.unwrap(),
        Pruned::default()
    );
    // Nothing is old enough for a longer retention.
    assert_eq!(
        retention::prune(&*store, 365, now).await.unwrap(),
        Pruned::default()
    );
}

async fn a_large_first_pass_goes_in_batches(backend: Backend) {
    let db = Db::new(backend).await;
    let store = db.store.clone();
    let p = store.create_project("acme", "main", 1).await.unwrap();
    for n in 0..1001 {
        let run = run_at(&format!("r{n}"), 50, &[("login", "passed", false)]);
        store.insert_run(p.id, &run, 1).await.unwrap();
    }
    let before = totals(&store, p.id).await;
    let pruned = retention::prune(&*store, 30, now_ms()).await.unwrap();
    assert_eq!(pruned.runs, 1001);
    assert_eq!(count(&db.url, "runs").await, 0);
    assert_eq!(count(&db.url, "pruned_runs").await, 1001);
    assert_eq!(totals(&store, p.id).await, before);
}

on_both_backends!(
    old_rows_go_and_totals_and_the_plan_cache_stay,
    a_large_first_pass_goes_in_batches,
);
