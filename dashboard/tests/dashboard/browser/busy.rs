//! A project with 100,000 runs in a real browser: the pages a team lead opens answer as they do
//! for a handful (the headline from the latest run, the runs list paged to its oldest run,
//! spend and flaky), with no console error.

use serde_json::json;

use super::harness::Browser;
use super::{no_errors, serve, sign_in, store_runs};

/// Runs written through the store, the latest ones; the rest are copies older than them.
const STORED: i64 = 40;
const RUNS: i64 = 100_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_thousand_runs_page_like_a_handful() {
    let (dash, _token, base) = serve().await;
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    let now = windup_dashboard::time::now_ms();
    store_runs(&dash, project.id, STORED, 60 * 60_000, now).await;
    // The other 99,960, a minute apart before the oldest stored one, copied from it in SQL (as
    // `bench/dashboard-load.py` grows its database): ingest would take minutes for them.
    let path = dash._dir.as_ref().unwrap().path().join("dashboard.db");
    let url = format!("sqlite://{}", path.display());
    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    let copies = RUNS - STORED;
    let sql = format!(
        "WITH RECURSIVE n(k) AS (SELECT 1 UNION ALL SELECT k + 1 FROM n WHERE k < {copies})
         INSERT INTO runs (project_id, run_id, started_ms, finished_ms, branch, commit_sha,
           scenarios, passed, failed, skipped, flaky, llm_calls, cost_micro_usd, cache_hits,
           duration_ms, report_json, ingested_ms)
         SELECT r.project_id, printf('old-%06d', n.k), r.started_ms - n.k * 60000,
           r.finished_ms - n.k * 60000, r.branch, r.commit_sha, r.scenarios, r.passed, r.failed,
           r.skipped, r.flaky, r.llm_calls, r.cost_micro_usd, r.cache_hits, r.duration_ms,
           r.report_json, r.ingested_ms
         FROM n, (SELECT * FROM runs WHERE run_id = 'run-000') r;
         ANALYZE;"
    );
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
        .execute(&pool)
        .await
        .unwrap();
    let (count,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM runs")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(count, RUNS);
    pool.close().await;

    tokio::task::block_in_place(|| {
        let mut b = Browser::start();
        sign_in(&mut b, &base);
        // Every run failed a scenario (17 divides i + n for some n under 20), so main has been
        // red since the oldest run, a copy of run 0 made 99,960 minutes before it.
        b.open(&format!("{base}/p/acme"));
        let headline = b.text("document.querySelector('section.headline').innerText");
        assert!(headline.contains("main is red"), "{headline}");
        let oldest = now - STORED * 60 * 60_000 - (RUNS - STORED) * 60_000;
        let since = windup_dashboard::time::display(oldest);
        assert!(
            headline.contains(&format!("since\n{since}")),
            "{since}: {headline}"
        );
        // The runs list: the latest first, and its last page (100,000 / 25) ends at the oldest.
        let ids = "[...document.querySelectorAll('#runs tbody tr')].map(r => r.innerText)";
        b.open(&format!("{base}/p/acme/runs"));
        let first = b.eval(ids);
        assert!(first[0].as_str().unwrap().contains("run-039"), "{first}");
        b.open(&format!("{base}/p/acme/runs?page=3999"));
        let last = b.eval(ids);
        assert_eq!(last.as_array().unwrap().len(), 25, "{last}");
        assert!(last[0].as_str().unwrap().contains("old-099936"), "{last}");
        assert!(last[24].as_str().unwrap().contains("old-099960"), "{last}");
        assert_eq!(
            b.eval("[...document.querySelectorAll('#runs .paging a')].map(a => a.innerText)"),
            json!(["Newer"]),
            "no page after the last"
        );
        for page in ["/", "/p/acme/spend", "/p/acme/flaky"] {
            b.open(&format!("{base}{page}"));
        }
        no_errors(&mut b, "the pages of a project with 100,000 runs");
    });
}
