//! The SQL behind `Store`, written once and instantiated for SQLite and PostgreSQL. Both
//! backends accept `$N` placeholders, `RETURNING`, `ON CONFLICT` and partial indexes, and the
//! schema uses only BIGINT and TEXT (plus BLOB/BYTEA for screenshots), so one query text serves
//! both. A macro rather than generics: sqlx's executor bounds over two databases cost more to
//! read than the repetition they save. `SUM` is cast to BIGINT because PostgreSQL returns
//! NUMERIC for it.

use std::collections::BTreeMap;
use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};

use super::*;

/// The embedded default: one SQLite file, created when missing.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pool: SqlitePool,
    /// SQLite has one writer at a time. Concurrent write transactions would each wait in
    /// SQLite's busy handler, which sleeps in growing steps; queueing them here instead keeps
    /// ingest at the disk's pace when several CI jobs upload at once.
    writer: std::sync::Arc<tokio::sync::Mutex<()>>,
}

impl SqliteStore {
    pub async fn open(path: &Path) -> Result<Self> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options)
            .await?;
        sqlx::migrate!("../migrations/sqlite").run(&pool).await?;
        Ok(SqliteStore {
            pool,
            writer: Default::default(),
        })
    }

    async fn serial_writes(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        Some(self.writer.lock().await)
    }
}

/// PostgreSQL for teams (`DATABASE_URL=postgres://…`).
#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
}

impl PgStore {
    pub async fn connect(url: &str) -> Result<Self> {
        let options = sqlx::postgres::PgConnectOptions::from_str(url)?;
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options)
            .await?;
        sqlx::migrate!("../migrations/postgres").run(&pool).await?;
        Ok(PgStore { pool })
    }

    /// PostgreSQL takes concurrent writers itself.
    async fn serial_writes(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        None
    }
}

fn conflict(e: sqlx::Error, what: &str) -> StoreError {
    match &e {
        sqlx::Error::Database(db) if db.is_unique_violation() => {
            StoreError::Conflict(what.to_string())
        }
        _ => StoreError::Db(e),
    }
}

// Macros rather than consts so queries are `concat!`-ed into `&'static str`, which sqlx 0.9
// takes as SQL without an `AssertSqlSafe`: no query text here is ever built from input.
macro_rules! run_columns {
    () => {
        "SELECT run_id, started_ms, finished_ms, branch, commit_sha, workflow_run, shard, \
         scenarios, passed, failed, skipped, flaky, llm_calls, cost_micro_usd, cache_hits, duration_ms, \
         pr_repo, pr_number, comment_status FROM runs "
    };
}

macro_rules! stale_select {
    () => {
        "SELECT s.id, s.scenario_id, s.start_url, s.branch, COALESCE(s.stale_ms, 0) AS stale_ms, \
    COALESCE(s.stale_reason, '') AS stale_reason, \
    s.entry_json, r.entry_json AS replaced_json \
    FROM cache_entries s LEFT JOIN cache_entries r ON r.id = s.replaced_by \
    WHERE s.project_id = $1 AND s.active = 0 "
    };
}

macro_rules! pass_rates {
    ($column:literal) => {
        concat!(
            "SELECT ",
            $column,
            " AS key, day, CAST(SUM(passed) AS BIGINT) AS passed, \
             CAST(SUM(passed) + SUM(failed) AS BIGINT) AS total \
             FROM scenario_days WHERE project_id = $1 AND day >= $2 \
             GROUP BY ",
            $column,
            ", day ORDER BY ",
            $column,
            ", day"
        )
    };
}

/// Rows per multi-row INSERT: 14 values each stay far below SQLite's 32,766 bound parameters.
const ROWS_PER_STATEMENT: usize = 500;

macro_rules! impl_store {
    ($store:ty, $db:ty) => {
        #[async_trait]
        impl Store for $store {
            async fn create_project(&self, slug: &str, default_branch: &str, now_ms: i64) -> Result<Project> {
                sqlx::query_as::<$db, Project>(
                    "INSERT INTO projects (slug, default_branch, created_ms) VALUES ($1, $2, $3) \
                     RETURNING id, slug, default_branch, created_ms",
                )
                .bind(slug)
                .bind(default_branch)
                .bind(now_ms)
                .fetch_one(&self.pool)
                .await
                .map_err(|e| conflict(e, &format!("project `{slug}`")))
            }

            async fn project(&self, slug: &str) -> Result<Option<Project>> {
                Ok(sqlx::query_as::<$db, Project>(
                    "SELECT id, slug, default_branch, created_ms FROM projects WHERE slug = $1",
                )
                .bind(slug)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn project_by_id(&self, id: i64) -> Result<Option<Project>> {
                Ok(sqlx::query_as::<$db, Project>(
                    "SELECT id, slug, default_branch, created_ms FROM projects WHERE id = $1",
                )
                .bind(id)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn projects(&self) -> Result<Vec<Project>> {
                Ok(sqlx::query_as::<$db, Project>(
                    "SELECT id, slug, default_branch, created_ms FROM projects ORDER BY slug",
                )
                .fetch_all(&self.pool)
                .await?)
            }

            async fn create_token(
                &self,
                project_id: i64,
                lookup: &str,
                sha256: &str,
                scopes: &str,
                branch_glob: Option<&str>,
                now_ms: i64,
            ) -> Result<()> {
                sqlx::query::<$db>(
                    "INSERT INTO tokens (project_id, lookup, sha256, scopes, branch_glob, created_ms) \
                     VALUES ($1, $2, $3, $4, $5, $6)",
                )
                .bind(project_id)
                .bind(lookup)
                .bind(sha256)
                .bind(scopes)
                .bind(branch_glob)
                .bind(now_ms)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn tokens_by_lookup(&self, lookup: &str) -> Result<Vec<TokenRow>> {
                Ok(sqlx::query_as::<$db, TokenRow>(
                    "SELECT id, project_id, sha256, scopes, branch_glob FROM tokens WHERE lookup = $1",
                )
                .bind(lookup)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn create_user(&self, email: &str, password_hash: &str, now_ms: i64) -> Result<()> {
                sqlx::query::<$db>("INSERT INTO users (email, password_hash, created_ms) VALUES ($1, $2, $3)")
                    .bind(email)
                    .bind(password_hash)
                    .bind(now_ms)
                    .execute(&self.pool)
                    .await
                    .map_err(|e| conflict(e, &format!("user `{email}`")))?;
                Ok(())
            }

            async fn user(&self, email: &str) -> Result<Option<UserRow>> {
                Ok(sqlx::query_as::<$db, UserRow>("SELECT id, email, password_hash FROM users WHERE email = $1")
                    .bind(email)
                    .fetch_optional(&self.pool)
                    .await?)
            }

            async fn create_session(&self, sha256: &str, user_id: i64, csrf: &str, expires_ms: i64) -> Result<()> {
                sqlx::query::<$db>("INSERT INTO sessions (sha256, user_id, csrf, expires_ms) VALUES ($1, $2, $3, $4)")
                    .bind(sha256)
                    .bind(user_id)
                    .bind(csrf)
                    .bind(expires_ms)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn session(&self, sha256: &str) -> Result<Option<SessionRow>> {
                Ok(sqlx::query_as::<$db, SessionRow>(
                    "SELECT s.user_id, u.email, s.csrf, s.expires_ms FROM sessions s \
                     JOIN users u ON u.id = s.user_id WHERE s.sha256 = $1",
                )
                .bind(sha256)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn delete_session(&self, sha256: &str) -> Result<()> {
                sqlx::query::<$db>("DELETE FROM sessions WHERE sha256 = $1")
                    .bind(sha256)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn delete_expired_sessions(&self, now_ms: i64) -> Result<()> {
                sqlx::query::<$db>("DELETE FROM sessions WHERE expires_ms < $1")
                    .bind(now_ms)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn insert_run(&self, project_id: i64, run: &NewRun, now_ms: i64) -> Result<bool> {
                let _serial = self.serial_writes().await;
                let mut tx = self.pool.begin().await?;
                let inserted: Option<(i64,)> = sqlx::query_as::<$db, (i64,)>(
                    "INSERT INTO runs (project_id, run_id, started_ms, finished_ms, branch, commit_sha, \
                     workflow_run, shard, scenarios, passed, failed, skipped, flaky, llm_calls, \
                     cost_micro_usd, cache_hits, duration_ms, report_json, pr_repo, pr_number, \
                     pr_head_sha, ingested_ms) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, \
                     $17, $18, $19, $20, $21, $22) \
                     ON CONFLICT (project_id, run_id) DO NOTHING RETURNING id",
                )
                .bind(project_id)
                .bind(&run.run_id)
                .bind(run.started_ms)
                .bind(run.finished_ms)
                .bind(&run.branch)
                .bind(&run.commit_sha)
                .bind(&run.workflow_run)
                .bind(&run.shard)
                .bind(run.scenarios)
                .bind(run.passed)
                .bind(run.failed)
                .bind(run.skipped)
                .bind(run.flaky)
                .bind(run.llm_calls)
                .bind(run.cost_micro_usd)
                .bind(run.cache_hits)
                .bind(run.duration_ms)
                .bind(&run.report_json)
                .bind(&run.pr_repo)
                .bind(run.pr_number)
                .bind(&run.pr_head_sha)
                .bind(now_ms)
                .fetch_optional(&mut *tx)
                .await?;
                if let Some((run_pk,)) = inserted {
                    let day = crate::time::day(run.started_ms);
                    let branch = run.branch.as_deref().unwrap_or("");
                    let commit = run.commit_sha.as_deref().unwrap_or("");
                    for chunk in run.results.chunks(ROWS_PER_STATEMENT) {
                        let mut q = sqlx::QueryBuilder::<$db>::new(
                            "INSERT INTO scenario_results (project_id, run_pk, scenario_id, status, passed, \
                             failed, flaky, cache, failure_class, message, branch, commit_sha, day, started_ms) ",
                        );
                        q.push_values(chunk, |mut b, r| {
                            b.push_bind(project_id)
                                .push_bind(run_pk)
                                .push_bind(r.scenario_id.as_str())
                                .push_bind(r.status.as_str())
                                .push_bind(i64::from(r.status == "passed"))
                                .push_bind(i64::from(r.status == "failed"))
                                .push_bind(i64::from(r.flaky))
                                .push_bind(r.cache.as_str())
                                .push_bind(r.failure_class.as_deref())
                                .push_bind(r.message.as_deref())
                                .push_bind(run.branch.as_deref())
                                .push_bind(run.commit_sha.as_deref())
                                .push_bind(day.as_str())
                                .push_bind(run.started_ms);
                        });
                        q.build().execute(&mut *tx).await?;
                    }
                    // One row per scenario in each rollup (a report names a scenario once; a
                    // repeat is summed here, as one statement may not touch a row twice).
                    let mut per_scenario: BTreeMap<&str, (i64, i64, i64)> = BTreeMap::new();
                    for r in &run.results {
                        let e = per_scenario.entry(r.scenario_id.as_str()).or_default();
                        e.0 += i64::from(r.status == "passed");
                        e.1 += i64::from(r.status == "failed");
                        e.2 += i64::from(r.flaky);
                    }
                    let rows: Vec<_> = per_scenario.into_iter().collect();
                    for chunk in rows.chunks(ROWS_PER_STATEMENT) {
                        let mut q = sqlx::QueryBuilder::<$db>::new(
                            "INSERT INTO scenario_days (project_id, day, branch, scenario_id, passed, failed) ",
                        );
                        q.push_values(chunk, |mut b, (id, (passed, failed, _))| {
                            b.push_bind(project_id)
                                .push_bind(day.as_str())
                                .push_bind(branch)
                                .push_bind(*id)
                                .push_bind(*passed)
                                .push_bind(*failed);
                        });
                        q.push(
                            " ON CONFLICT (project_id, day, branch, scenario_id) DO UPDATE SET \
                             passed = scenario_days.passed + excluded.passed, \
                             failed = scenario_days.failed + excluded.failed",
                        );
                        q.build().execute(&mut *tx).await?;
                        let mut q = sqlx::QueryBuilder::<$db>::new(
                            "INSERT INTO scenario_commits (project_id, scenario_id, commit_sha, passed, \
                             failed, retried, last_ms) ",
                        );
                        q.push_values(chunk, |mut b, (id, (passed, failed, retried))| {
                            b.push_bind(project_id)
                                .push_bind(*id)
                                .push_bind(commit)
                                .push_bind(*passed)
                                .push_bind(*failed)
                                .push_bind(*retried)
                                .push_bind(run.started_ms);
                        });
                        q.push(
                            " ON CONFLICT (project_id, scenario_id, commit_sha) DO UPDATE SET \
                             passed = scenario_commits.passed + excluded.passed, \
                             failed = scenario_commits.failed + excluded.failed, \
                             retried = scenario_commits.retried + excluded.retried, \
                             last_ms = CASE WHEN excluded.last_ms > scenario_commits.last_ms \
                             THEN excluded.last_ms ELSE scenario_commits.last_ms END",
                        );
                        q.build().execute(&mut *tx).await?;
                    }
                }
                // Ledger records are deduplicated by (run, scenario); only those inserted now
                // count towards the spend rollup.
                let mut spend: BTreeMap<(String, String, String), [i64; 4]> = BTreeMap::new();
                for chunk in run.ledger.chunks(ROWS_PER_STATEMENT) {
                    let mut q = sqlx::QueryBuilder::<$db>::new(
                        "INSERT INTO ledger (project_id, run_id, scenario_id, day, started_ms, provider, \
                         model, calls, input_tokens, output_tokens, cached_tokens, cost_micro_usd, record_json) ",
                    );
                    q.push_values(chunk, |mut b, l| {
                        b.push_bind(project_id)
                            .push_bind(l.run_id.as_str())
                            .push_bind(l.scenario_id.as_str())
                            .push_bind(l.day.as_str())
                            .push_bind(l.started_ms)
                            .push_bind(l.provider.as_deref())
                            .push_bind(l.model.as_deref())
                            .push_bind(l.calls)
                            .push_bind(l.input_tokens)
                            .push_bind(l.output_tokens)
                            .push_bind(l.cached_tokens)
                            .push_bind(l.cost_micro_usd)
                            .push_bind(l.record_json.as_str());
                    });
                    q.push(
                        " ON CONFLICT (project_id, run_id, scenario_id) DO NOTHING \
                         RETURNING day, COALESCE(provider, '') AS provider, COALESCE(model, '') AS model, \
                         calls, input_tokens, output_tokens, cost_micro_usd",
                    );
                    let added: Vec<(String, String, String, i64, i64, i64, i64)> =
                        q.build_query_as().fetch_all(&mut *tx).await?;
                    for (day, provider, model, calls, input, output, cost) in added {
                        let e = spend.entry((day, provider, model)).or_default();
                        e[0] += calls;
                        e[1] += input;
                        e[2] += output;
                        e[3] += cost;
                    }
                }
                let spend: Vec<_> = spend.into_iter().collect();
                for chunk in spend.chunks(ROWS_PER_STATEMENT) {
                    let mut q = sqlx::QueryBuilder::<$db>::new(
                        "INSERT INTO spend_days (project_id, day, provider, model, calls, input_tokens, \
                         output_tokens, cost_micro_usd) ",
                    );
                    q.push_values(chunk, |mut b, ((day, provider, model), sums)| {
                        b.push_bind(project_id)
                            .push_bind(day.as_str())
                            .push_bind(provider.as_str())
                            .push_bind(model.as_str())
                            .push_bind(sums[0])
                            .push_bind(sums[1])
                            .push_bind(sums[2])
                            .push_bind(sums[3]);
                    });
                    q.push(
                        " ON CONFLICT (project_id, day, provider, model) DO UPDATE SET \
                         calls = spend_days.calls + excluded.calls, \
                         input_tokens = spend_days.input_tokens + excluded.input_tokens, \
                         output_tokens = spend_days.output_tokens + excluded.output_tokens, \
                         cost_micro_usd = spend_days.cost_micro_usd + excluded.cost_micro_usd",
                    );
                    q.build().execute(&mut *tx).await?;
                }
                tx.commit().await?;
                Ok(inserted.is_some())
            }

            async fn run(&self, project_id: i64, run_id: &str) -> Result<Option<RunDetail>> {
                let sql = concat!(run_columns!(), "WHERE project_id = $1 AND run_id = $2");
                let Some(summary) = sqlx::query_as::<$db, RunSummary>(sql)
                    .bind(project_id)
                    .bind(run_id)
                    .fetch_optional(&self.pool)
                    .await?
                else {
                    return Ok(None);
                };
                let (report_json,): (String,) = sqlx::query_as::<$db, (String,)>(
                    "SELECT report_json FROM runs WHERE project_id = $1 AND run_id = $2",
                )
                .bind(project_id)
                .bind(run_id)
                .fetch_one(&self.pool)
                .await?;
                Ok(Some(RunDetail { summary, report_json }))
            }

            async fn runs(&self, project_id: i64, filter: &RunFilter) -> Result<Vec<RunSummary>> {
                let sql = concat!(
                    run_columns!(),
                    "WHERE project_id = $1 \
                     AND (CAST($2 AS TEXT) IS NULL OR branch = CAST($2 AS TEXT)) \
                     AND (CAST($3 AS TEXT) IS NULL \
                          OR (CAST($3 AS TEXT) = 'failed' AND failed > 0) \
                          OR (CAST($3 AS TEXT) = 'passed' AND failed = 0)) \
                     AND (CAST($6 AS TEXT) IS NULL OR workflow_run = CAST($6 AS TEXT)) \
                     ORDER BY started_ms DESC, run_id DESC LIMIT $4 OFFSET $5"
                );
                Ok(sqlx::query_as::<$db, RunSummary>(sql)
                    .bind(project_id)
                    .bind(&filter.branch)
                    .bind(&filter.status)
                    .bind(filter.limit)
                    .bind(filter.offset)
                    .bind(&filter.workflow_run)
                    .fetch_all(&self.pool)
                    .await?)
            }

            async fn branches(&self, project_id: i64) -> Result<Vec<String>> {
                let rows: Vec<(String,)> = sqlx::query_as::<$db, (String,)>(
                    "SELECT DISTINCT branch FROM runs WHERE project_id = $1 AND branch IS NOT NULL ORDER BY branch",
                )
                .bind(project_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(|(b,)| b).collect())
            }

            async fn set_comment_status(&self, project_id: i64, run_id: &str, status: &str) -> Result<()> {
                sqlx::query::<$db>("UPDATE runs SET comment_status = $3 WHERE project_id = $1 AND run_id = $2")
                    .bind(project_id)
                    .bind(run_id)
                    .bind(status)
                    .execute(&self.pool)
                    .await?;
                Ok(())
            }

            async fn ledger_for_run(&self, project_id: i64, run_id: &str) -> Result<Vec<String>> {
                let rows: Vec<(String,)> = sqlx::query_as::<$db, (String,)>(
                    "SELECT record_json FROM ledger WHERE project_id = $1 AND run_id = $2 ORDER BY scenario_id",
                )
                .bind(project_id)
                .bind(run_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(|(j,)| j).collect())
            }

            async fn pass_rates(&self, project_id: i64, by: Grouping, since_day: &str) -> Result<Vec<RateRow>> {
                let sql = match by {
                    Grouping::Branch => pass_rates!("NULLIF(branch, '')"),
                    Grouping::Scenario => pass_rates!("scenario_id"),
                };
                Ok(sqlx::query_as::<$db, RateRow>(sql)
                    .bind(project_id)
                    .bind(since_day)
                    .fetch_all(&self.pool)
                    .await?)
            }

            async fn flaky(&self, project_id: i64, limit: i64) -> Result<Vec<FlakyRow>> {
                Ok(sqlx::query_as::<$db, FlakyRow>(
                    "SELECT scenario_id, NULLIF(commit_sha, '') AS commit_sha, passed, failed, retried, \
                     last_ms FROM scenario_commits WHERE project_id = $1 \
                     AND ((passed > 0 AND failed > 0) OR retried > 0) \
                     ORDER BY last_ms DESC, scenario_id LIMIT $2",
                )
                .bind(project_id)
                .bind(limit)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn spend(&self, project_id: i64, since_day: &str) -> Result<Vec<SpendRow>> {
                Ok(sqlx::query_as::<$db, SpendRow>(
                    "SELECT day, NULLIF(provider, '') AS provider, NULLIF(model, '') AS model, calls, \
                     input_tokens, output_tokens, cost_micro_usd \
                     FROM spend_days WHERE project_id = $1 AND day >= $2 \
                     ORDER BY day DESC, provider, model",
                )
                .bind(project_id)
                .bind(since_day)
                .fetch_all(&self.pool)
                .await?)
            }

            async fn last_failure(
                &self,
                project_id: i64,
                scenario_id: &str,
                branch: &str,
                before_ms: i64,
            ) -> Result<Option<String>> {
                let row: Option<(String,)> = sqlx::query_as::<$db, (String,)>(
                    "SELECT r.run_id FROM scenario_results s JOIN runs r ON r.id = s.run_pk \
                     WHERE s.project_id = $1 AND s.scenario_id = $2 AND s.branch = $3 \
                     AND s.started_ms <= $4 AND (s.failed = 1 OR s.cache = 'stale_replanned') \
                     ORDER BY s.started_ms DESC LIMIT 1",
                )
                .bind(project_id)
                .bind(scenario_id)
                .bind(branch)
                .bind(before_ms)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(|(r,)| r))
            }

            async fn put_artifact(&self, project_id: i64, run_id: &str, name: &str, bytes: &[u8], now_ms: i64) -> Result<()> {
                sqlx::query::<$db>(
                    "INSERT INTO artifacts (project_id, run_id, name, bytes, created_ms) VALUES ($1, $2, $3, $4, $5) \
                     ON CONFLICT (project_id, run_id, name) DO UPDATE SET bytes = excluded.bytes",
                )
                .bind(project_id)
                .bind(run_id)
                .bind(name)
                .bind(bytes)
                .bind(now_ms)
                .execute(&self.pool)
                .await?;
                Ok(())
            }

            async fn artifact(&self, project_id: i64, run_id: &str, name: &str) -> Result<Option<Vec<u8>>> {
                let row: Option<(Vec<u8>,)> = sqlx::query_as::<$db, (Vec<u8>,)>(
                    "SELECT bytes FROM artifacts WHERE project_id = $1 AND run_id = $2 AND name = $3",
                )
                .bind(project_id)
                .bind(run_id)
                .bind(name)
                .fetch_optional(&self.pool)
                .await?;
                Ok(row.map(|(b,)| b))
            }

            async fn artifact_names(&self, project_id: i64, run_id: &str) -> Result<Vec<String>> {
                let rows: Vec<(String,)> = sqlx::query_as::<$db, (String,)>(
                    "SELECT name FROM artifacts WHERE project_id = $1 AND run_id = $2 ORDER BY name",
                )
                .bind(project_id)
                .bind(run_id)
                .fetch_all(&self.pool)
                .await?;
                Ok(rows.into_iter().map(|(n,)| n).collect())
            }

            async fn cache_get(
                &self,
                project_id: i64,
                scenario_id: &str,
                start_url: &str,
                scenario_sha: &str,
                branch: &str,
            ) -> Result<Option<CacheRow>> {
                Ok(sqlx::query_as::<$db, CacheRow>(
                    "SELECT branch, entry_json, updated_ms FROM cache_entries WHERE project_id = $1 \
                     AND scenario_id = $2 AND start_url = $3 AND scenario_sha = $4 AND branch = $5 AND active = 1",
                )
                .bind(project_id)
                .bind(scenario_id)
                .bind(start_url)
                .bind(scenario_sha)
                .bind(branch)
                .fetch_optional(&self.pool)
                .await?)
            }

            async fn cache_put(&self, project_id: i64, put: &CachePut<'_>) -> Result<bool> {
                // Reads, then writes: on SQLite a concurrent writer would fail the upgrade.
                let _serial = self.serial_writes().await;
                let mut tx = self.pool.begin().await?;
                let old: Option<(i64, String)> = sqlx::query_as::<$db, (i64, String)>(
                    "SELECT id, entry_json FROM cache_entries WHERE project_id = $1 AND scenario_id = $2 \
                     AND start_url = $3 AND branch = $4 AND active = 1",
                )
                .bind(project_id)
                .bind(put.scenario_id)
                .bind(put.start_url)
                .bind(put.branch)
                .fetch_optional(&mut *tx)
                .await?;
                if let Some((_, json)) = &old
                    && json == put.entry_json
                {
                    return Ok(false);
                }
                if let Some((old_id, _)) = &old {
                    sqlx::query::<$db>(
                        "UPDATE cache_entries SET active = 0, stale_ms = $2, stale_reason = $3 WHERE id = $1",
                    )
                    .bind(old_id)
                    .bind(put.now_ms)
                    .bind(put.stale_reason.unwrap_or("replaced"))
                    .execute(&mut *tx)
                    .await?;
                }
                let (new_id,): (i64,) = sqlx::query_as::<$db, (i64,)>(
                    "INSERT INTO cache_entries (project_id, scenario_id, start_url, scenario_sha, branch, \
                     active, entry_json, updated_ms) VALUES ($1, $2, $3, $4, $5, 1, $6, $7) RETURNING id",
                )
                .bind(project_id)
                .bind(put.scenario_id)
                .bind(put.start_url)
                .bind(put.scenario_sha)
                .bind(put.branch)
                .bind(put.entry_json)
                .bind(put.now_ms)
                .fetch_one(&mut *tx)
                .await
                .map_err(|e| conflict(e, "a concurrent cache write"))?;
                if let Some((old_id, _)) = &old {
                    sqlx::query::<$db>("UPDATE cache_entries SET replaced_by = $2 WHERE id = $1")
                        .bind(old_id)
                        .bind(new_id)
                        .execute(&mut *tx)
                        .await?;
                }
                tx.commit().await?;
                Ok(old.is_none())
            }

            async fn stale_entries(&self, project_id: i64, limit: i64) -> Result<Vec<StaleRow>> {
                let sql = concat!(stale_select!(), "ORDER BY s.stale_ms DESC, s.id DESC LIMIT $2");
                Ok(sqlx::query_as::<$db, StaleRow>(sql)
                    .bind(project_id)
                    .bind(limit)
                    .fetch_all(&self.pool)
                    .await?)
            }

            async fn stale_entry(&self, project_id: i64, id: i64) -> Result<Option<StaleRow>> {
                let sql = concat!(stale_select!(), "AND s.id = $2");
                Ok(sqlx::query_as::<$db, StaleRow>(sql)
                    .bind(project_id)
                    .bind(id)
                    .fetch_optional(&self.pool)
                    .await?)
            }
        }
    };
}

impl_store!(SqliteStore, sqlx::Sqlite);
impl_store!(PgStore, sqlx::Postgres);
