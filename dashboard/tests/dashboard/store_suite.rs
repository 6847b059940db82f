//! One store suite, run on SQLite and on a real PostgreSQL (a fresh database per test).

use std::sync::Arc;

use windup_dashboard::ingest::to_new_run;
use windup_dashboard::store::{
    CachePut, Grouping, NewToken, RunFilter, Store, StoreError, TokenState,
};

use crate::common::{self, cache_entry, ledger, report};

fn run(
    run_id: &str,
    branch: &str,
    commit: &str,
    scenarios: &[(&str, &str, bool)],
    ledger_records: &[serde_json::Value],
) -> windup_dashboard::store::NewRun {
    let mut r = report(run_id, branch, commit, scenarios);
    r["started_at"] = serde_json::json!(common::today(10));
    let report = serde_json::from_value(r).expect("report fixture fits RunReport");
    let ledger: Vec<windup_model::LedgerRecord> = ledger_records
        .iter()
        .map(|l| {
            let mut l = l.clone();
            l["started_at"] = serde_json::json!(common::today(10));
            serde_json::from_value(l).expect("ledger fixture fits")
        })
        .collect();
    to_new_run(&report, &ledger, None).expect("valid run")
}

async fn projects_are_unique(store: Arc<dyn Store>) {
    let p = store.create_project("acme", "main", 1).await.unwrap();
    assert_eq!(p.slug, "acme");
    assert_eq!(store.project("acme").await.unwrap(), Some(p.clone()));
    assert_eq!(store.project_by_id(p.id).await.unwrap(), Some(p));
    assert!(matches!(
        store.create_project("acme", "dev", 2).await,
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(store.projects().await.unwrap().len(), 1);
    assert_eq!(store.project("nope").await.unwrap(), None);
}

async fn ingest_is_idempotent_ledger_included(store: Arc<dyn Store>) {
    let p = store.create_project("acme", "main", 1).await.unwrap();
    let first = run(
        "r1",
        "main",
        "c1",
        &[("login", "passed", false)],
        &[ledger("r1", "login", Some("gemini"), 2, 1500)],
    );
    assert!(store.insert_run(p.id, &first, 10).await.unwrap());
    // A retried upload with another report and more ledger records is the same run: nothing
    // of it is added.
    let again = run(
        "r1",
        "main",
        "c1",
        &[("login", "failed", false)],
        &[
            ledger("r1", "login", Some("gemini"), 2, 1500),
            ledger("r1", "logout", Some("gemini"), 4, 9000),
        ],
    );
    assert!(!store.insert_run(p.id, &again, 11).await.unwrap());
    assert!(!store.insert_run(p.id, &again, 12).await.unwrap());
    let runs = store
        .runs(
            p.id,
            &RunFilter {
                limit: 10,
                ..RunFilter::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(store.ledger_for_run(p.id, "r1").await.unwrap().len(), 1);
    let spend = store.spend(p.id, "2000-01-01").await.unwrap();
    let total: i64 = spend.iter().map(|s| s.cost_micro_usd).sum();
    assert_eq!(total, 1500, "money is summed as integers: {spend:?}");
    assert_eq!(spend.iter().map(|s| s.calls).sum::<i64>(), 2);
    let detail = store.run(p.id, "r1").await.unwrap().expect("stored");
    assert!(detail.report_json.contains("\"run_id\":\"r1\""));
    assert_eq!(detail.summary.passed, 1);
}

async fn runs_filter_and_page(store: Arc<dyn Store>) {
    let p = store.create_project("acme", "main", 1).await.unwrap();
    for i in 0..5 {
        let status = if i % 2 == 0 { "passed" } else { "failed" };
        let branch = if i < 3 { "main" } else { "feature/x" };
        let mut r = run(&format!("r{i}"), branch, "c", &[("s", status, false)], &[]);
        r.started_ms += i64::from(i) * 1000;
        store.insert_run(p.id, &r, 1).await.unwrap();
    }
    let all = |filter: RunFilter| {
        let store = store.clone();
        async move {
            store
                .runs(p.id, &filter)
                .await
                .unwrap()
                .into_iter()
                .map(|r| r.run_id)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        all(RunFilter {
            limit: 10,
            ..Default::default()
        })
        .await,
        ["r4", "r3", "r2", "r1", "r0"]
    );
    assert_eq!(
        all(RunFilter {
            limit: 2,
            offset: 2,
            ..Default::default()
        })
        .await,
        ["r2", "r1"]
    );
    assert_eq!(
        all(RunFilter {
            branch: Some("main".into()),
            status: Some("failed".into()),
            limit: 10,
            ..Default::default()
        })
        .await,
        ["r1"]
    );
    // SQL metacharacters are data.
    assert!(
        all(RunFilter {
            branch: Some("main' OR '1'='1".into()),
            limit: 10,
            ..Default::default()
        })
        .await
        .is_empty()
    );
    assert_eq!(store.branches(p.id).await.unwrap(), ["feature/x", "main"]);
    let wf = RunFilter {
        workflow_run: Some("wf-1".into()),
        limit: 10,
        ..Default::default()
    };
    assert_eq!(all(wf).await.len(), 5);
}

async fn pass_rates_and_flaky(store: Arc<dyn Store>) {
    let p = store.create_project("acme", "main", 1).await.unwrap();
    store
        .insert_run(
            p.id,
            &run(
                "a",
                "main",
                "c1",
                &[("login", "passed", false), ("cart", "failed", false)],
                &[],
            ),
            1,
        )
        .await
        .unwrap();
    store
        .insert_run(
            p.id,
            &run(
                "b",
                "main",
                "c1",
                &[("login", "passed", false), ("cart", "passed", false)],
                &[],
            ),
            1,
        )
        .await
        .unwrap();
    store
        .insert_run(
            p.id,
            &run("c", "dev", "c2", &[("login", "passed", true)], &[]),
            1,
        )
        .await
        .unwrap();
    // A retried upload of run "a" changes no count (the pages read rollups kept at ingest).
    let again = run(
        "a",
        "main",
        "c1",
        &[("login", "passed", false), ("cart", "failed", false)],
        &[],
    );
    assert!(!store.insert_run(p.id, &again, 2).await.unwrap());
    let by_branch = store
        .pass_rates(p.id, Grouping::Branch, "2000-01-01")
        .await
        .unwrap();
    let main = by_branch
        .iter()
        .find(|r| r.key.as_deref() == Some("main"))
        .unwrap();
    assert_eq!((main.passed, main.total), (3, 4));
    let by_scenario = store
        .pass_rates(p.id, Grouping::Scenario, "2000-01-01")
        .await
        .unwrap();
    let cart = by_scenario
        .iter()
        .find(|r| r.key.as_deref() == Some("cart"))
        .unwrap();
    assert_eq!((cart.passed, cart.total), (1, 2));
    let flaky = store.flaky(p.id, 10).await.unwrap();
    let ids: Vec<(&str, &str)> = flaky
        .iter()
        .map(|f| {
            (
                f.scenario_id.as_str(),
                f.commit_sha.as_deref().unwrap_or(""),
            )
        })
        .collect();
    assert!(
        ids.contains(&("cart", "c1")),
        "passed and failed on one commit: {flaky:?}"
    );
    assert!(ids.contains(&("login", "c2")), "passed on retry: {flaky:?}");
    assert_eq!(flaky.len(), 2);
    assert_eq!(
        store
            .last_failure(p.id, "cart", "main", i64::MAX)
            .await
            .unwrap()
            .as_deref(),
        Some("a")
    );
    assert_eq!(
        store
            .last_failure(p.id, "login", "main", i64::MAX)
            .await
            .unwrap(),
        None
    );
}

async fn cache_is_branch_scoped_and_keeps_replaced(store: Arc<dyn Store>) {
    let p = store.create_project("acme", "main", 1).await.unwrap();
    let put_why = |branch: &'static str, json: String, now_ms: i64, why: Option<&'static str>| {
        let store = store.clone();
        async move {
            store
                .cache_put(
                    p.id,
                    &CachePut {
                        branch,
                        scenario_id: "login",
                        start_url: "/",
                        scenario_sha: "aa",
                        entry_json: &json,
                        now_ms,
                        stale_reason: why,
                    },
                )
                .await
                .unwrap()
        }
    };
    let put = |branch: &'static str, json: String, now_ms: i64| put_why(branch, json, now_ms, None);
    let v1 = cache_entry("login", "/", "aa", &["Sign in"]).to_string();
    let v2 = cache_entry("login", "/", "aa", &["Log in"]).to_string();
    assert!(put("main", v1.clone(), 100).await, "first write creates");
    assert!(
        !put("main", v1.clone(), 101).await,
        "an identical repeat changes nothing"
    );
    assert!(store.stale_entries(p.id, 10).await.unwrap().is_empty());
    assert!(!put("main", v2.clone(), 200).await, "a new plan replaces");
    let got = store
        .cache_get(p.id, "login", "/", "aa", "main")
        .await
        .unwrap()
        .expect("active");
    assert_eq!(got.entry_json, v2);
    assert_eq!(got.updated_ms, 200);
    assert!(
        store
            .cache_get(p.id, "login", "/", "bb", "main")
            .await
            .unwrap()
            .is_none(),
        "exact sha only"
    );
    assert!(
        store
            .cache_get(p.id, "login", "/", "aa", "dev")
            .await
            .unwrap()
            .is_none(),
        "branches are apart"
    );
    let stale = store.stale_entries(p.id, 10).await.unwrap();
    assert_eq!(stale.len(), 1);
    assert_eq!(stale[0].stale_reason, "replaced");
    assert_eq!(stale[0].entry_json, v1);
    let v3 = cache_entry("login", "/", "aa", &["Enter"]).to_string();
    put_why(
        "main",
        v3,
        300,
        Some("replay failed: selector_not_found at a1"),
    )
    .await;
    let stale = store.stale_entries(p.id, 10).await.unwrap();
    assert!(
        stale
            .iter()
            .any(|s| s.entry_json == v2
                && s.stale_reason == "replay failed: selector_not_found at a1"),
        "the runner's reason is kept"
    );
    let stale: Vec<_> = stale.into_iter().filter(|s| s.entry_json == v1).collect();
    assert_eq!(stale[0].replaced_json.as_deref(), Some(v2.as_str()));
    assert_eq!(
        store
            .stale_entry(p.id, stale[0].id)
            .await
            .unwrap()
            .map(|s| s.stale_ms),
        Some(200)
    );
    let other = store.create_project("other", "main", 1).await.unwrap();
    assert!(
        store
            .stale_entry(other.id, stale[0].id)
            .await
            .unwrap()
            .is_none(),
        "projects are apart"
    );
}

async fn tokens_sessions_artifacts(store: Arc<dyn Store>) {
    let p = store.create_project("acme", "main", 1).await.unwrap();
    let token = |lookup, name, expires_ms| NewToken {
        lookup,
        sha256: "abcdef",
        scopes: "ingest cache:read",
        branch_glob: Some("feature/*"),
        name,
        expires_ms,
        created_ms: 1,
    };
    let first = store
        .create_token(p.id, &token("abcd", "ci", None))
        .await
        .unwrap();
    let tokens = store.tokens_by_lookup("abcd").await.unwrap();
    assert_eq!(tokens.len(), 1);
    assert_eq!(tokens[0].id, first);
    assert_eq!(tokens[0].branch_glob.as_deref(), Some("feature/*"));
    assert_eq!((tokens[0].revoked_ms, tokens[0].expires_ms), (None, None));
    assert!(store.tokens_by_lookup("zzzz").await.unwrap().is_empty());
    // Listed, touched, revoked once (a second revocation keeps the first time), per project.
    let second = store
        .create_token(p.id, &token("efgh", "", Some(500)))
        .await
        .unwrap();
    store.touch_token(first, 42).await.unwrap();
    let listed = store.tokens(p.id).await.unwrap();
    assert_eq!(
        listed.iter().map(|t| t.id).collect::<Vec<_>>(),
        [first, second]
    );
    assert_eq!(listed[0].name, "ci");
    assert_eq!(listed[0].last_used_ms, Some(42));
    assert_eq!(listed[1].expires_ms, Some(500));
    assert_eq!(listed[1].state(499), TokenState::Active);
    assert_eq!(listed[1].state(500), TokenState::Expired);
    let other = store.create_project("other", "main", 1).await.unwrap();
    assert!(
        store
            .revoke_token(other.id, first, 7)
            .await
            .unwrap()
            .is_none()
    );
    assert!(store.tokens(other.id).await.unwrap().is_empty());
    let revoked = store.revoke_token(p.id, first, 7).await.unwrap().unwrap();
    assert_eq!(
        (revoked.revoked_ms, revoked.state(8)),
        (Some(7), TokenState::Revoked)
    );
    let again = store.revoke_token(p.id, first, 9).await.unwrap().unwrap();
    assert_eq!(again.revoked_ms, Some(7));
    assert_eq!(
        store.tokens_by_lookup("abcd").await.unwrap()[0].revoked_ms,
        Some(7)
    );
    store
        .create_user("ada@example.com", "$argon2id$x", 1)
        .await
        .unwrap();
    assert!(matches!(
        store.create_user("ada@example.com", "h", 1).await,
        Err(StoreError::Conflict(_))
    ));
    let user = store.user("ada@example.com").await.unwrap().unwrap();
    store
        .create_session("s1", user.id, "csrf1", 99)
        .await
        .unwrap();
    assert_eq!(
        store
            .session("s1")
            .await
            .unwrap()
            .map(|s| (s.email, s.csrf)),
        Some(("ada@example.com".into(), "csrf1".into()))
    );
    store.delete_session("s1").await.unwrap();
    assert!(store.session("s1").await.unwrap().is_none());
    store.create_session("old", user.id, "c", 50).await.unwrap();
    store
        .create_session("new", user.id, "c", 150)
        .await
        .unwrap();
    store.delete_expired_sessions(100).await.unwrap();
    assert!(store.session("old").await.unwrap().is_none());
    assert!(store.session("new").await.unwrap().is_some());
    store
        .put_artifact(p.id, "r1", "login.png", b"one", 1)
        .await
        .unwrap();
    store
        .put_artifact(p.id, "r1", "login.png", b"two", 2)
        .await
        .unwrap();
    assert_eq!(
        store
            .artifact(p.id, "r1", "login.png")
            .await
            .unwrap()
            .as_deref(),
        Some(&b"two"[..])
    );
    assert_eq!(
        store.artifact_names(p.id, "r1").await.unwrap(),
        ["login.png"]
    );
    store
        .insert_run(
            p.id,
            &run("r1", "main", "c", &[("s", "passed", false)], &[]),
            1,
        )
        .await
        .unwrap();
    store
        .set_comment_status(p.id, "r1", "created comment")
        .await
        .unwrap();
    let summary = store.run(p.id, "r1").await.unwrap().unwrap().summary;
    assert_eq!(summary.comment_status.as_deref(), Some("created comment"));
}

macro_rules! suite {
    ($backend:ident, $open:expr) => {
        mod $backend {
            use super::*;

            #[tokio::test]
            async fn projects_are_unique() {
                let (store, _guard) = $open;
                super::projects_are_unique(store).await;
            }

            #[tokio::test]
            async fn ingest_is_idempotent_ledger_included() {
                let (store, _guard) = $open;
                super::ingest_is_idempotent_ledger_included(store).await;
            }

            #[tokio::test]
            async fn runs_filter_and_page() {
                let (store, _guard) = $open;
                super::runs_filter_and_page(store).await;
            }

            #[tokio::test]
            async fn pass_rates_and_flaky() {
                let (store, _guard) = $open;
                super::pass_rates_and_flaky(store).await;
            }

            #[tokio::test]
            async fn cache_is_branch_scoped_and_keeps_replaced() {
                let (store, _guard) = $open;
                super::cache_is_branch_scoped_and_keeps_replaced(store).await;
            }

            #[tokio::test]
            async fn tokens_sessions_artifacts() {
                let (store, _guard) = $open;
                super::tokens_sessions_artifacts(store).await;
            }
        }
    };
}

suite!(sqlite, {
    let (store, dir) = common::sqlite().await;
    (store, Some(dir))
});
suite!(
    postgres,
    (common::postgres().await, None::<tempfile::TempDir>)
);
