//! What the pages' indexed queries answer (migration 0010), against an order and windows the
//! test computes itself from the runs it stored: the runs list paged across its boundaries
//! under every filter with ties on the start time, the branch list, a branch's streak, the
//! spend window's first and last day. On both backends.

use windup_dashboard::store::{NewLedger, NewRun, RunFilter, Store};

use crate::common::{Backend, Db};

/// A run of `passed`/`failed` scenarios started at `started_ms`, on `branch` (`None`: no branch).
fn run(run_id: &str, branch: Option<&str>, started_ms: i64, failed: i64) -> NewRun {
    NewRun {
        run_id: run_id.into(),
        started_ms,
        finished_ms: started_ms + 1,
        branch: branch.map(str::to_string),
        workflow_run: Some(format!("wf-{run_id}")),
        scenarios: 2,
        passed: 2 - failed,
        failed,
        report_json: "{}".into(),
        ..NewRun::default()
    }
}

/// Twelve runs on two branches and none, passing and failing, several started in the same
/// millisecond (the run id orders those).
fn runs() -> Vec<NewRun> {
    let t = 1_800_000_000_000;
    [
        ("a", Some("main"), t, 0),
        ("b", Some("main"), t, 1),
        ("c", Some("dev"), t, 0),
        ("d", Some("main"), t + 5, 2),
        ("e", None, t + 5, 0),
        ("f", Some("dev"), t + 5, 1),
        ("g", Some("main"), t + 9, 0),
        ("h", Some("main"), t + 9, 0),
        ("i", Some("dev"), t + 12, 1),
        ("j", Some("main"), t + 20, 1),
        ("k", None, t + 20, 1),
        ("l", Some("main"), t + 31, 0),
    ]
    .into_iter()
    .map(|(id, branch, started, failed)| run(id, branch, started, failed))
    .collect()
}

async fn listed(store: &dyn Store, project_id: i64, filter: RunFilter) -> Vec<String> {
    store
        .runs(project_id, &filter)
        .await
        .expect("runs")
        .into_iter()
        .map(|r| r.run_id)
        .collect()
}

async fn runs_pages_meet_at_their_boundaries_under_every_filter(backend: Backend) {
    let db = Db::new(backend).await;
    let store = &*db.store;
    let p = store.create_project("acme", "main", 1).await.unwrap();
    let stored = runs();
    for r in &stored {
        assert!(store.insert_run(p.id, r, 1).await.unwrap());
    }
    for branch in [None, Some("main"), Some("dev")] {
        for status in [None, Some("passed"), Some("failed")] {
            // The list's order, from the stored runs: newest first, ties by run id, descending.
            let mut expected: Vec<&NewRun> = stored
                .iter()
                .filter(|r| branch.is_none() || r.branch.as_deref() == branch)
                .filter(|r| match status {
                    Some("passed") => r.failed == 0,
                    Some("failed") => r.failed > 0,
                    _ => true,
                })
                .collect();
            expected.sort_by(|a, b| {
                b.started_ms
                    .cmp(&a.started_ms)
                    .then(b.run_id.cmp(&a.run_id))
            });
            let expected: Vec<String> = expected.iter().map(|r| r.run_id.clone()).collect();
            let filter = |limit, offset| RunFilter {
                branch: branch.map(str::to_string),
                status: status.map(str::to_string),
                workflow_run: None,
                limit,
                offset,
            };
            let what = format!("branch {branch:?}, status {status:?}");
            assert_eq!(
                listed(store, p.id, filter(100, 0)).await,
                expected,
                "{what}"
            );
            // Pages of 2 and of 3, each ending where the next begins, and the page past the end.
            for size in [2, 3] {
                let mut paged = Vec::new();
                let mut offset = 0;
                loop {
                    let page = listed(store, p.id, filter(size, offset)).await;
                    assert!(page.len() <= size as usize, "{what}");
                    if page.is_empty() {
                        break;
                    }
                    paged.extend(page);
                    offset += size;
                }
                assert_eq!(paged, expected, "{what}, pages of {size}");
            }
        }
    }
    // A result that is neither matches no run, as before the filter had an index.
    assert!(
        listed(
            store,
            p.id,
            RunFilter {
                status: Some("flaky".into()),
                limit: 100,
                ..RunFilter::default()
            }
        )
        .await
        .is_empty()
    );
    // A CI workflow run's shards, with the branch and result filters too.
    let shards = RunFilter {
        workflow_run: Some("wf-j".into()),
        branch: Some("main".into()),
        status: Some("failed".into()),
        limit: 20,
        ..RunFilter::default()
    };
    assert_eq!(listed(store, p.id, shards.clone()).await, ["j"]);
    let passed = RunFilter {
        status: Some("passed".into()),
        ..shards
    };
    assert!(listed(store, p.id, passed).await.is_empty());
    // Another project's runs are never listed.
    let other = store.create_project("other", "main", 1).await.unwrap();
    store
        .insert_run(other.id, &run("z", Some("main"), 1_900_000_000_000, 0), 1)
        .await
        .unwrap();
    let all = RunFilter {
        limit: 100,
        ..RunFilter::default()
    };
    assert_eq!(listed(store, p.id, all.clone()).await.len(), stored.len());
    assert_eq!(listed(store, other.id, all).await, ["z"]);
    // The branch list: each branch once, in order, no run without a branch as one.
    assert_eq!(store.branches(p.id).await.unwrap(), ["dev", "main"]);
    assert_eq!(store.branches(other.id).await.unwrap(), ["main"]);
    let empty = store.create_project("empty", "main", 1).await.unwrap();
    assert!(store.branches(empty.id).await.unwrap().is_empty());
}

async fn a_branch_s_streak_starts_after_its_last_run_of_the_other_state(backend: Backend) {
    let db = Db::new(backend).await;
    let store = &*db.store;
    let p = store.create_project("acme", "main", 1).await.unwrap();
    let start = |failing| {
        let store = db.store.clone();
        async move {
            store
                .streak_start(p.id, "main", failing)
                .await
                .unwrap()
                .map(|r| r.run_id)
        }
    };
    assert_eq!(start(true).await, None);
    // main: pass, fail (2 failures), fail; dev's pass in between is another branch's.
    for r in [
        run("p1", Some("main"), 100, 0),
        run("f1", Some("main"), 200, 2),
        run("d1", Some("dev"), 250, 0),
        run("f2", Some("main"), 300, 1),
    ] {
        store.insert_run(p.id, &r, 1).await.unwrap();
    }
    assert_eq!(start(true).await.as_deref(), Some("f1"));
    store
        .insert_run(p.id, &run("p2", Some("main"), 400, 0), 1)
        .await
        .unwrap();
    store
        .insert_run(p.id, &run("p3", Some("main"), 500, 0), 1)
        .await
        .unwrap();
    assert_eq!(start(false).await.as_deref(), Some("p2"));
}

async fn spend_counts_its_first_day_and_not_the_day_before(backend: Backend) {
    let db = Db::new(backend).await;
    let store = &*db.store;
    let p = store.create_project("acme", "main", 1).await.unwrap();
    let record = |run_id: &str, day: &str, calls: i64| NewLedger {
        run_id: run_id.into(),
        scenario_id: "login".into(),
        day: day.into(),
        provider: Some("openai".into()),
        model: Some("gpt-4.1-mini".into()),
        calls,
        input_tokens: 100 * calls,
        output_tokens: 10 * calls,
        cost_micro_usd: 1000 * calls,
        record_json: "{}".into(),
        ..NewLedger::default()
    };
    for (id, day, calls) in [
        ("r1", "2026-11-01", 1),
        ("r2", "2026-11-02", 2),
        ("r3", "2026-11-02", 3),
        ("r4", "2026-11-30", 4),
    ] {
        let mut r = run(id, Some("main"), 1_000, 0);
        r.ledger = vec![record(id, day, calls)];
        assert!(store.insert_run(p.id, &r, 1).await.unwrap());
    }
    let days = |since: &'static str| {
        let store = db.store.clone();
        async move {
            store
                .spend(p.id, since)
                .await
                .unwrap()
                .into_iter()
                .map(|r| (r.day, r.calls, r.cost_micro_usd))
                .collect::<Vec<_>>()
        }
    };
    let window = days("2026-11-02").await;
    assert_eq!(
        window,
        [
            ("2026-11-30".to_string(), 4, 4000),
            ("2026-11-02".to_string(), 5, 5000)
        ],
        "newest day first, the first day's two runs summed, the day before left out"
    );
    assert_eq!(days("2026-12-01").await, []);
    assert_eq!(days("2026-11-01").await.len(), 3);
}

on_both_backends!(
    runs_pages_meet_at_their_boundaries_under_every_filter,
    a_branch_s_streak_starts_after_its_last_run_of_the_other_state,
    spend_counts_its_first_day_and_not_the_day_before,
);
