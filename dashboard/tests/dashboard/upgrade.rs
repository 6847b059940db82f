//! An existing database upgrades cleanly: one made by migrations 0001-0002, holding data and
//! the damage of issue 16's finding 4 (a ledger record of 2^63-1 micro-dollars, and on SQLite
//! the spend rollup turned REAL), is opened by today's dashboard, which migrates it.

use serde_json::json;
use sqlx::ConnectOptions;
use windup_dashboard::store;

use crate::common::{
    Backend, Dash, Db, ledger, postgres_url, raw, report, rollup_is_integers, sqlx_reads, today,
};

/// A database at schema version 2, empty; its URL and the folder holding a SQLite file.
async fn at_version_2(backend: Backend) -> (String, Option<tempfile::TempDir>) {
    match backend {
        Backend::Sqlite => {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("dashboard.db");
            let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
                .filename(&path)
                .create_if_missing(true)
                .connect()
                .await
                .unwrap();
            sqlx_reads("sqlite")
                .await
                .run_to(2, &mut conn)
                .await
                .unwrap();
            (path.display().to_string(), Some(dir))
        }
        Backend::Postgres => {
            let url = postgres_url().await;
            let mut conn = <sqlx::PgConnection as sqlx::Connection>::connect(&url)
                .await
                .unwrap();
            sqlx_reads("postgres")
                .await
                .run_to(2, &mut conn)
                .await
                .unwrap();
            (url, None)
        }
    }
}

/// The migrations compiled into the dashboard are the files, as sqlx reads them: a database
/// migrated by an older build (whose `sqlx::migrate!` read them the same way) is recognised, not
/// refused for a changed checksum or migrated twice.
#[tokio::test]
async fn the_embedded_migrations_are_the_folders_as_sqlx_reads_them() {
    let fields = |m: &sqlx::migrate::Migrator| {
        m.iter()
            .map(|m| {
                let sql = m.sql.as_str().to_owned();
                (
                    m.version,
                    m.description.to_string(),
                    m.migration_type,
                    m.checksum.to_vec(),
                    m.no_tx,
                    sql,
                )
            })
            .collect::<Vec<_>>()
    };
    for (folder, dialect) in [
        ("sqlite", store::Dialect::Sqlite),
        ("postgres", store::Dialect::Postgres),
    ] {
        let reference = fields(&sqlx_reads(folder).await);
        assert!(
            reference.len() >= 10,
            "{folder}: {} migrations",
            reference.len()
        );
        assert_eq!(fields(&store::migrator(dialect)), reference, "{folder}");
    }
}

fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

async fn a_version_2_database_with_data_upgrades(backend: Backend) {
    let (url, dir) = at_version_2(backend).await;
    let mut r = report("old-1", "main", "c1", &[("login", "passed", false)]);
    r["started_at"] = json!(today(9));
    let started_ms =
        time::OffsetDateTime::parse(&today(9), &time::format_description::well_known::Rfc3339)
            .unwrap()
            .unix_timestamp()
            * 1000;
    let day = &today(9)[..10];
    let mut sane = ledger("old-1", "login", Some("gemini"), 2, 1500);
    sane["started_at"] = json!(today(9));
    let mut attack = ledger("old-1", "cart", Some("gemini"), 1, 0);
    attack["started_at"] = json!(today(9));
    attack["cost_micro_usd"] = json!(u64::MAX);
    // The spend rollup as the attack left it: a REAL on SQLite; on PostgreSQL the attack's
    // first upload stored 2^63-1 (its next failed).
    let damaged = match backend {
        Backend::Sqlite => "9.223372036854777e18",
        Backend::Postgres => "9223372036854775807",
    };
    let project = "(SELECT id FROM projects WHERE slug = 'acme')";
    let statements = [
        "INSERT INTO projects (slug, default_branch, created_ms) VALUES ('acme', 'main', 1)"
            .to_string(),
        format!(
            "INSERT INTO tokens (project_id, lookup, sha256, scopes, branch_glob, created_ms) \
             VALUES ({project}, 'abcd', 'abcdef', 'ingest cache:read', 'feature/*', 1)"
        ),
        "INSERT INTO users (email, password_hash, created_ms) VALUES ('old@example.com', '$argon2id$x', 1)"
            .to_string(),
        format!(
            "INSERT INTO runs (project_id, run_id, started_ms, finished_ms, branch, commit_sha, \
             workflow_run, shard, scenarios, passed, failed, skipped, flaky, llm_calls, \
             cost_micro_usd, cache_hits, duration_ms, report_json, pr_repo, pr_number, \
             pr_head_sha, comment_status, ingested_ms) VALUES ({project}, 'old-1', {started_ms}, \
             {started_ms}, 'main', 'c1', 'wf-1', '1/1', 1, 1, 0, 0, 0, 3, 9223372036854775807, 1, \
             60000, {}, 'victim/other', 12, 'c1', 'created comment on victim/other#12', 1)",
            quoted(&r.to_string())
        ),
        format!(
            "INSERT INTO scenario_results (project_id, run_pk, scenario_id, status, passed, failed, \
             flaky, cache, branch, commit_sha, day, started_ms) VALUES ({project}, \
             (SELECT id FROM runs WHERE run_id = 'old-1'), 'login', 'passed', 1, 0, 0, 'hit', \
             'main', 'c1', '{day}', {started_ms})"
        ),
        format!(
            "INSERT INTO scenario_days (project_id, day, branch, scenario_id, passed, failed) \
             VALUES ({project}, '{day}', 'main', 'login', 1, 0)"
        ),
        format!(
            "INSERT INTO ledger (project_id, run_id, scenario_id, day, started_ms, provider, model, \
             calls, input_tokens, output_tokens, cached_tokens, cost_micro_usd, record_json) VALUES \
             ({project}, 'old-1', 'login', '{day}', {started_ms}, 'gemini', 'gemini-2.5-flash', \
             2, 2000, 400, 0, 1500, {}), \
             ({project}, 'old-1', 'cart', '{day}', {started_ms}, 'gemini', 'gemini-2.5-flash', \
             1, 1000, 200, 0, 9223372036854775807, {})",
            quoted(&sane.to_string()),
            quoted(&attack.to_string())
        ),
        format!(
            "INSERT INTO spend_days (project_id, day, provider, model, calls, input_tokens, \
             output_tokens, cost_micro_usd) VALUES ({project}, '{day}', 'gemini', \
             'gemini-2.5-flash', 3, 3000, 600, {damaged})"
        ),
    ];
    for sql in &statements {
        raw(&url, sql)
            .await
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
    }

    // Today's dashboard opens it, running the newer migrations.
    let store = store::open(&url).await.expect("the upgrade applies");
    let acme = store.project("acme").await.unwrap().expect("projects kept");
    assert_eq!(
        acme.github_repo, None,
        "no repository is carried over from uploads"
    );
    assert_eq!(store.tokens_by_lookup("abcd").await.unwrap().len(), 1);
    assert!(store.user("old@example.com").await.unwrap().is_some());
    let run = store
        .run(acme.id, "old-1")
        .await
        .unwrap()
        .expect("runs kept");
    assert_eq!(run.summary.passed, 1);
    assert_eq!(
        store.ledger_for_run(acme.id, "old-1").await.unwrap().len(),
        2
    );
    let spend = store.spend(acme.id, "2000-01-01").await.unwrap();
    assert_eq!(spend.len(), 1, "{spend:?}");
    assert_eq!(
        (
            spend[0].calls,
            spend[0].input_tokens,
            spend[0].output_tokens,
            spend[0].cost_micro_usd
        ),
        (2, 2000, 400, 1500),
        "the rollup refilled from the records today's ingest accepts"
    );
    rollup_is_integers(&url).await;
    // A retried upload of the old run changes nothing; a new run counts.
    let old: windup_model::RunReport = serde_json::from_value(r.clone()).unwrap();
    let again = windup_dashboard::ingest::to_new_run(&old, &[], None).unwrap();
    assert!(!store.insert_run(acme.id, &again, 2).await.unwrap());

    let dash = Dash::on_db(Db {
        store,
        url: url.clone(),
        _dir: dir,
    });
    let token = dash.token("acme", &["ingest"], None).await;
    let mut fresh = report("new-1", "main", "c2", &[("login", "passed", false)]);
    fresh["started_at"] = json!(today(10));
    let mut record = ledger("new-1", "login", Some("gemini"), 1, 500);
    record["started_at"] = json!(today(10));
    let posted = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(&token)
        .json(&json!({"report": fresh, "ledger": [record], "pull_request": null}))
        .await;
    assert_eq!(posted.status_code(), 201, "{}", posted.text());
    let (session, _) = dash.sign_in().await;
    for page in [
        "/p/acme/spend",
        "/p/acme",
        "/p/acme/runs/old-1",
        "/p/acme/flaky",
    ] {
        let r = dash
            .server
            .get(page)
            .add_header("cookie", session.clone())
            .await;
        assert_eq!(r.status_code(), 200, "{page}: {}", r.text());
    }
    let spend = dash.state.store.spend(acme.id, "2000-01-01").await.unwrap();
    assert_eq!(spend.iter().map(|s| s.cost_micro_usd).sum::<i64>(), 2000);
    rollup_is_integers(&url).await;
}

on_both_backends!(a_version_2_database_with_data_upgrades);
