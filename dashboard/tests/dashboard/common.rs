//! Shared helpers: real SQLite and PostgreSQL stores (a fresh database per test), run reports
//! and cache entries, and a dashboard served over real HTTP on 127.0.0.1.

use std::sync::Arc;

use axum_test::TestServer;
use serde_json::{Value, json};
use sqlx::Connection;
use windup_dashboard::store::{self, Store};
use windup_dashboard::{AppState, Config, GithubConfig, admin};

pub(crate) const PASSWORD: &str = "correct horse battery";

/// A fresh SQLite file in a temporary folder (kept alive by the returned guard).
pub(crate) async fn sqlite() -> (Arc<dyn Store>, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("dashboard.db");
    let store = store::open(path.to_str().expect("utf-8 path"))
        .await
        .expect("open sqlite");
    (store, dir)
}

/// A fresh database on the real PostgreSQL named by `WINDUP_TEST_DATABASE_URL`. Fails, never
/// skips, when it is missing: CI starts the server with `scripts/postgres.sh`.
pub(crate) async fn postgres() -> Arc<dyn Store> {
    store::open(&postgres_url().await)
        .await
        .expect("open postgres")
}

/// A migrations folder (`sqlite` or `postgres`) as sqlx itself reads it at run time: the
/// reference the dashboard's embedded migrations are compared with, and how the upgrade tests
/// make an old database.
pub(crate) async fn sqlx_reads(folder: &str) -> sqlx::migrate::Migrator {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../migrations")
        .join(folder);
    sqlx::migrate::Migrator::new(dir)
        .await
        .expect("sqlx reads the migrations folder")
}

/// The URL of a fresh, empty database on the test PostgreSQL (no migrations applied).
pub(crate) async fn postgres_url() -> String {
    let url = std::env::var("WINDUP_TEST_DATABASE_URL").expect(
        "WINDUP_TEST_DATABASE_URL is not set: the dashboard's PostgreSQL tests need a real server. \
         Run `sudo bash scripts/postgres.sh` and export the URL it prints (scripts/test.sh and .ci/run do)",
    );
    let mut admin_conn = sqlx::PgConnection::connect(&url).await.unwrap_or_else(|e| {
        panic!("cannot reach PostgreSQL at WINDUP_TEST_DATABASE_URL ({e}); run scripts/postgres.sh")
    });
    let name = format!(
        "windup_test_{}",
        &windup_dashboard::secret::random_hex()[..16]
    );
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
        .execute(&mut admin_conn)
        .await
        .expect("create a fresh test database");
    let mut fresh = url::Url::parse(&url).expect("WINDUP_TEST_DATABASE_URL is a URL");
    fresh.set_path(&format!("/{name}"));
    fresh.to_string()
}

/// A store on either backend with the URL it was opened from, for tests that also look at
/// the tables themselves.
pub(crate) struct Db {
    pub store: Arc<dyn Store>,
    /// `postgres://…`, or the SQLite file's path.
    pub url: String,
    pub _dir: Option<tempfile::TempDir>,
}

impl Db {
    pub(crate) async fn new(backend: Backend) -> Db {
        match backend {
            Backend::Sqlite => {
                let dir = tempfile::tempdir().expect("temp dir");
                let url = dir.path().join("dashboard.db").display().to_string();
                let store = store::open(&url).await.expect("open sqlite");
                Db {
                    store,
                    url,
                    _dir: Some(dir),
                }
            }
            Backend::Postgres => {
                let url = postgres_url().await;
                let store = store::open(&url).await.expect("open postgres");
                Db {
                    store,
                    url,
                    _dir: None,
                }
            }
        }
    }
}

/// Runs one statement on the database at `url` beside the store: for a test to set up a state
/// the store would not write, or to see that the schema refuses it.
pub(crate) async fn raw(url: &str, sql: &str) -> Result<u64, sqlx::Error> {
    let sql = sqlx::AssertSqlSafe(sql.to_string());
    if url.starts_with("postgres") {
        let mut conn = sqlx::PgConnection::connect(url).await?;
        Ok(sqlx::raw_sql(sql).execute(&mut conn).await?.rows_affected())
    } else {
        let mut conn = sqlx::SqliteConnection::connect(url).await?;
        Ok(sqlx::raw_sql(sql).execute(&mut conn).await?.rows_affected())
    }
}

/// The first column of every row a query returns, as text.
pub(crate) async fn raw_texts(url: &str, sql: &str) -> Vec<String> {
    let sql = sqlx::AssertSqlSafe(sql.to_string());
    if url.starts_with("postgres") {
        let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
        sqlx::query_scalar::<_, String>(sql)
            .fetch_all(&mut conn)
            .await
            .unwrap()
    } else {
        let mut conn = sqlx::SqliteConnection::connect(url).await.unwrap();
        sqlx::query_scalar::<_, String>(sql)
            .fetch_all(&mut conn)
            .await
            .unwrap()
    }
}

pub(crate) fn report(
    run_id: &str,
    branch: &str,
    commit: &str,
    scenarios: &[(&str, &str, bool)],
) -> Value {
    let passed = scenarios.iter().filter(|s| s.1 == "passed").count();
    let failed = scenarios.iter().filter(|s| s.1 == "failed").count();
    let flaky = scenarios.iter().filter(|s| s.2).count();
    let results: Vec<Value> = scenarios
        .iter()
        .map(|(id, status, flaky)| {
            let mut s = json!({
                "scenario_id": id,
                "task": format!("Task of {id}"),
                "status": status,
                "cache": "hit",
                "llm_calls": 0,
                "cost_micro_usd": 0,
                "duration_ms": 1200,
                "attempts": if *flaky { 2 } else { 1 },
                "flaky": flaky,
                "actions": [
                    {"id": "s1", "type": "goto", "step": "goto /", "status": "passed", "started_ms": 0,
                     "duration_ms": 300, "wait_ms": 0, "act_ms": 250, "verify_ms": 50},
                    {"id": "s2", "type": "click", "step": "click role=button[name=\"Save\"]",
                     "status": if *status == "failed" { "failed" } else { "passed" }, "started_ms": 300,
                     "duration_ms": 900, "wait_ms": 800, "act_ms": 50, "verify_ms": 50}
                ]
            });
            if *status == "failed" {
                s["failure_class"] = json!("selector_not_found");
                s["failed_action_id"] = json!("s2");
                s["message"] = json!("no visible match for role=button[name=\"Save\"]");
                s["evidence"] = json!({
                    "url": "http://localhost:3000/settings",
                    "screenshot": format!("e2e/.windup/runs/{run_id}/{id}.png"),
                    "console_errors": ["TypeError: x is undefined"],
                    "target": "role=button[name=\"Save\"]; found button \"Store\""
                });
                s["triage"] = json!({
                    "verdict": "app_changed",
                    "facts": ["the step's target is gone; the page has close names instead: \"Store\""]
                });
                s["suggestion"] = json!({
                    "summary": "The Save button was renamed to Store.",
                    "fix": "Say \"Store\" in the scenario's task, or rename the button back.",
                    "by": "gemini/gemini-2.5-flash"
                });
            }
            s
        })
        .collect();
    json!({
        "report_version": "0.2",
        "run_id": run_id,
        "started_at": "2026-11-29T10:00:00Z",
        "finished_at": "2026-11-29T10:01:00Z",
        "windup_version": "0.1.0",
        "git": {"commit": commit, "branch": branch},
        "ci": {"provider": "github", "workflow_run": "wf-1", "shard": "1/1"},
        "totals": {"scenarios": scenarios.len(), "passed": passed, "failed": failed, "skipped": 0,
                   "llm_calls": 0, "cost_micro_usd": 0, "cache_hits": scenarios.len(), "duration_ms": 60000,
                   "flaky": flaky},
        "scenarios": results
    })
}

/// Today at 10:00 UTC, so the rows fall inside the pages' last-30-days window.
pub(crate) fn today(hour: u8) -> String {
    let now = time::OffsetDateTime::now_utc();
    format!("{}T{hour:02}:00:00Z", now.date())
}

pub(crate) fn ledger(
    run_id: &str,
    scenario: &str,
    provider: Option<&str>,
    calls: u32,
    cost: u64,
) -> Value {
    let mut l = json!({
        "ledger_version": "0.1",
        "run_id": run_id,
        "scenario_id": scenario,
        "started_at": "2026-11-29T10:00:00Z",
        "finished_at": "2026-11-29T10:00:30Z",
        "status": "passed",
        "cache": if calls == 0 { "hit" } else { "miss" },
        "calls": {"planning": calls, "continuation": 0, "replan": 0},
        "tokens": {"input": 1000 * u64::from(calls), "output": 200 * u64::from(calls), "cached": 0},
        "cost_micro_usd": cost,
        "timings": {"plan_ms": 0, "execute_ms": 1000, "verify_ms": 100}
    });
    if let Some(p) = provider {
        l["provider"] = json!(p);
        l["model"] = json!("gemini-2.5-flash");
        l["price_table_date"] = json!("2026-06-01");
    }
    l
}

pub(crate) fn cache_entry(scenario: &str, start_url: &str, sha: &str, steps: &[&str]) -> Value {
    let actions: Vec<Value> = steps
        .iter()
        .enumerate()
        .map(|(i, label)| {
            json!({"id": format!("s{}", i + 1), "type": "click",
                   "target": {"selector": format!("role=button[name=\"{label}\"]")}})
        })
        .collect();
    json!({
        "cache_version": "0.2",
        "key": {"scenario_id": scenario, "start_url": start_url, "scenario_sha": sha},
        "plan": {"plan_version": "0.1", "scenario_id": scenario, "task": "do it", "start_url": start_url,
                 "generated_by": "gemini/gemini-2.5-flash", "actions": actions},
        "status": "active",
        "stats": {"created_at": "2026-11-29T10:00:00Z", "last_verified_at": "2026-11-29T10:00:00Z",
                  "verified_runs": 1, "last_duration_ms": 1000}
    })
}

pub(crate) fn png() -> Vec<u8> {
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    bytes.extend_from_slice(b"not really pixels, but the signature is what the API checks");
    bytes
}

pub(crate) struct Dash {
    pub server: TestServer,
    pub state: AppState,
    pub _dir: Option<tempfile::TempDir>,
}

/// Which store a [`Dash`] runs on.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Backend {
    Sqlite,
    Postgres,
}

impl Dash {
    pub(crate) async fn new() -> Dash {
        Dash::with_github(None).await
    }

    pub(crate) async fn with_github(github: Option<GithubConfig>) -> Dash {
        Dash::start(Backend::Sqlite, github, |state| state).await
    }

    pub(crate) async fn on(backend: Backend) -> Dash {
        Dash::start(backend, None, |state| state).await
    }

    /// A dashboard on a store opened elsewhere (a database the CLI wrote).
    pub(crate) async fn with_store(store: Arc<dyn Store>) -> Dash {
        Dash::serve(store, None, None, |state| state)
    }

    /// A dashboard on `backend`, its state shaped by `shape` (sign-in limits, say), served over
    /// real HTTP with each request's peer address (`ConnectInfo`), as `launch` serves it.
    pub(crate) async fn start(
        backend: Backend,
        github: Option<GithubConfig>,
        shape: impl FnOnce(AppState) -> AppState,
    ) -> Dash {
        let (store, dir) = match backend {
            Backend::Sqlite => {
                let (store, dir) = sqlite().await;
                (store, Some(dir))
            }
            Backend::Postgres => (postgres().await, None),
        };
        Dash::serve(store, dir, github, shape)
    }

    /// A dashboard on a store of either backend, opened by the test (which also looks at its
    /// tables).
    pub(crate) fn on_db(db: Db) -> Dash {
        Dash::serve(db.store, db._dir, None, |state| state)
    }

    fn serve(
        store: Arc<dyn Store>,
        dir: Option<tempfile::TempDir>,
        github: Option<GithubConfig>,
        shape: impl FnOnce(AppState) -> AppState,
    ) -> Dash {
        let config = Config {
            public_url: "http://dash.test".into(),
            secure_cookies: true,
            github,
        };
        let state = shape(AppState::new(store, config));
        let server = TestServer::builder().http_transport().build(
            windup_dashboard::app(state.clone())
                .into_make_service_with_connect_info::<std::net::SocketAddr>(),
        );
        Dash {
            server,
            state,
            _dir: dir,
        }
    }

    pub(crate) async fn project(&self, slug: &str) -> windup_dashboard::store::Project {
        admin::create_project(&*self.state.store, slug, None)
            .await
            .expect("create project")
    }

    pub(crate) async fn token(&self, slug: &str, scopes: &[&str], branch: Option<&str>) -> String {
        let project = self
            .state
            .store
            .project(slug)
            .await
            .unwrap()
            .expect("project exists");
        let scopes: Vec<String> = scopes.iter().map(|s| s.to_string()).collect();
        admin::create_token(&*self.state.store, &project, &scopes, branch)
            .await
            .expect("create token")
            .token
    }

    /// Signs in an instance administrator (who owns every project) through the real form;
    /// returns the session cookie and the page's CSRF token.
    pub(crate) async fn sign_in(&self) -> (String, String) {
        if self
            .state
            .store
            .user("ada@example.com")
            .await
            .unwrap()
            .is_none()
        {
            admin::create_person(&*self.state.store, "ada@example.com", Some(PASSWORD), true)
                .await
                .expect("create user");
        }
        self.sign_in_as("ada@example.com").await
    }

    /// Signs in the person `email` (an account with [`PASSWORD`], made when missing, with no
    /// role anywhere) through the real form; returns the session cookie and the CSRF token.
    pub(crate) async fn sign_in_as(&self, email: &str) -> (String, String) {
        if self.state.store.user(email).await.unwrap().is_none() {
            admin::create_user(&*self.state.store, email, PASSWORD)
                .await
                .expect("create user");
        }
        let page = self.server.get("/login").await;
        let login_cookie = set_cookie_pair(&page, "windup_login_csrf");
        let csrf = login_cookie.split_once('=').unwrap().1.to_string();
        let response = self
            .server
            .post("/login")
            .add_header("cookie", login_cookie.clone())
            .form(&[
                ("email", email),
                ("password", PASSWORD),
                ("csrf", csrf.as_str()),
            ])
            .await;
        assert_eq!(
            response.status_code(),
            303,
            "sign-in failed: {}",
            response.text()
        );
        let session = set_cookie_pair(&response, "windup_session");
        let home = self
            .server
            .get("/")
            .add_header("cookie", session.clone())
            .await;
        let page_csrf = hidden_csrf(&home.text());
        (session, page_csrf)
    }
}

/// `name=value` of a `Set-Cookie` header in the response.
pub(crate) fn set_cookie_pair(response: &axum_test::TestResponse, name: &str) -> String {
    response
        .iter_headers_by_name("set-cookie")
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{name}=")))
        .map(|v| v.split(';').next().unwrap().to_string())
        .unwrap_or_else(|| panic!("no {name} cookie set"))
}

pub(crate) fn set_cookie_header(response: &axum_test::TestResponse, name: &str) -> String {
    response
        .iter_headers_by_name("set-cookie")
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.starts_with(&format!("{name}=")))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no {name} cookie set"))
}

pub(crate) fn hidden_csrf(html: &str) -> String {
    let marker = "name=\"csrf\" value=\"";
    let start = html
        .find(marker)
        .unwrap_or_else(|| panic!("no csrf field on the page: {html}"))
        + marker.len();
    html[start..start + 64].to_string()
}

/// Every value in the spend rollup is stored as an integer (SQLite could hold a REAL there).
pub(crate) async fn rollup_is_integers(url: &str) {
    if url.starts_with("postgres") {
        let types = raw_texts(
            url,
            "SELECT DISTINCT data_type::TEXT FROM information_schema.columns \
             WHERE table_name = 'spend_days' AND column_name IN \
             ('calls', 'input_tokens', 'output_tokens', 'cost_micro_usd')",
        )
        .await;
        assert_eq!(types, ["bigint"]);
    } else {
        let types = raw_texts(
            url,
            "SELECT DISTINCT typeof(calls) || typeof(input_tokens) || typeof(output_tokens) || \
             typeof(cost_micro_usd) FROM spend_days",
        )
        .await;
        assert_eq!(types, ["integerintegerintegerinteger"]);
    }
}

/// The `code` of an API error body.
pub(crate) fn error_code(body: &Value) -> &str {
    body["error"]["code"]
        .as_str()
        .unwrap_or_else(|| panic!("not an API error: {body}"))
}

const BIN: &str = env!("CARGO_BIN_EXE_windup-dashboard");

/// `windup-dashboard --database DATABASE ARGS…`: its exit code, stdout and stderr.
pub(crate) fn cli(database: &str, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(BIN)
        .args(["--database", database])
        .args(args)
        .env("WINDUP_TEST_PASSWORD", PASSWORD)
        .output()
        .expect("run windup-dashboard");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
