//! What the headline and the runs × scenarios grid read: a branch's latest run and the first
//! run of its current state, a failing scenario's first failure since its last pass, the heals
//! and proposals waiting for a person, a project's weekly budget. Each reads an index of
//! migrations 0009 and 0010, so the answer costs the same at 100,000 runs as at ten.

use super::backends::{PgStore, SqliteStore};
use crate::store::{GridCell, Result, ReviewRow, RunSummary};

// One text, compiled for each backend below.
macro_rules! headline_sql {
    ($store:ty, $db:ty) => {
        pub(crate) async fn latest_run(store: &$store, project_id: i64, branch: &str) -> Result<Option<RunSummary>> {
            let sql = concat!(
                run_columns!(),
                "WHERE project_id = $1 AND branch = $2 ORDER BY started_ms DESC, run_id DESC LIMIT 1"
            );
            Ok(sqlx::query_as::<$db, RunSummary>(sql)
                .bind(project_id)
                .bind(branch)
                .fetch_optional(&store.pool)
                .await?)
        }

        pub(crate) async fn streak_start(
            store: &$store,
            project_id: i64,
            branch: &str,
            failing: bool,
        ) -> Result<Option<RunSummary>> {
            // The last run of the other state, then the first run after it.
            let other = if failing {
                "SELECT MAX(started_ms) FROM runs WHERE project_id = $1 AND branch = $2 AND failed = 0"
            } else {
                "SELECT MAX(started_ms) FROM runs WHERE project_id = $1 AND branch = $2 AND failed > 0"
            };
            let (last,): (Option<i64>,) = sqlx::query_as::<$db, (Option<i64>,)>(other)
                .bind(project_id)
                .bind(branch)
                .fetch_one(&store.pool)
                .await?;
            let sql = concat!(
                run_columns!(),
                "WHERE project_id = $1 AND branch = $2 AND started_ms > $3 \
                 ORDER BY started_ms, run_id LIMIT 1"
            );
            Ok(sqlx::query_as::<$db, RunSummary>(sql)
                .bind(project_id)
                .bind(branch)
                .bind(last.unwrap_or(i64::MIN))
                .fetch_optional(&store.pool)
                .await?)
        }

        pub(crate) async fn first_failure(
            store: &$store,
            project_id: i64,
            scenario_id: &str,
            branch: &str,
        ) -> Result<Option<(String, i64)>> {
            let (last_pass,): (Option<i64>,) = sqlx::query_as::<$db, (Option<i64>,)>(
                "SELECT MAX(started_ms) FROM scenario_results WHERE project_id = $1 \
                 AND scenario_id = $2 AND branch = $3 AND passed = 1",
            )
            .bind(project_id)
            .bind(scenario_id)
            .bind(branch)
            .fetch_one(&store.pool)
            .await?;
            Ok(sqlx::query_as::<$db, (String, i64)>(
                "SELECT r.run_id, s.started_ms FROM scenario_results s JOIN runs r ON r.id = s.run_pk \
                 WHERE s.project_id = $1 AND s.scenario_id = $2 AND s.branch = $3 AND s.passed = 0 \
                 AND s.failed = 1 AND s.started_ms > $4 ORDER BY s.started_ms LIMIT 1",
            )
            .bind(project_id)
            .bind(scenario_id)
            .bind(branch)
            .bind(last_pass.unwrap_or(i64::MIN))
            .fetch_optional(&store.pool)
            .await?)
        }

        pub(crate) async fn reviews(store: &$store, project_id: i64, limit: i64) -> Result<Vec<ReviewRow>> {
            Ok(sqlx::query_as::<$db, ReviewRow>(
                "SELECT r.run_id, s.scenario_id, COALESCE(s.branch, '') AS branch, s.heal, s.proposal, \
                 s.started_ms FROM scenario_results s JOIN runs r ON r.id = s.run_pk \
                 WHERE s.project_id = $1 AND (s.heal IS NOT NULL OR s.proposal IS NOT NULL) \
                 ORDER BY s.started_ms DESC LIMIT $2",
            )
            .bind(project_id)
            .bind(limit)
            .fetch_all(&store.pool)
            .await?)
        }

        pub(crate) async fn replayed_since(
            store: &$store,
            project_id: i64,
            scenario_id: &str,
            branch: &str,
            after_ms: i64,
        ) -> Result<bool> {
            let row: Option<(i64,)> = sqlx::query_as::<$db, (i64,)>(
                "SELECT 1 FROM scenario_results WHERE project_id = $1 AND scenario_id = $2 \
                 AND branch = $3 AND passed = 1 AND started_ms > $4 \
                 AND cache IN ('hit', 'hit_changed_page') AND heal IS NULL AND proposal IS NULL LIMIT 1",
            )
            .bind(project_id)
            .bind(scenario_id)
            .bind(branch)
            .bind(after_ms)
            .fetch_optional(&store.pool)
            .await?;
            Ok(row.is_some())
        }

        pub(crate) async fn grid(
            store: &$store,
            project_id: i64,
            branch: Option<&str>,
            runs: i64,
        ) -> Result<Vec<GridCell>> {
            // One text per case, so the index is chosen (behind `$2 IS NULL OR …` it is not).
            macro_rules! grid_sql {
                ($where:literal) => {
                    concat!(
                        "SELECT r.run_id, r.started_ms, s.scenario_id, s.status, s.flaky, s.cache \
                         FROM (SELECT id, run_id, started_ms FROM runs WHERE project_id = $1 ",
                        $where,
                        " ORDER BY started_ms DESC, run_id DESC LIMIT $3) r \
                         JOIN scenario_results s ON s.run_pk = r.id \
                         ORDER BY r.started_ms, r.run_id, s.scenario_id"
                    )
                };
            }
            let sql = if branch.is_some() {
                grid_sql!("AND branch = CAST($2 AS TEXT)")
            } else {
                grid_sql!("AND CAST($2 AS TEXT) IS NULL")
            };
            Ok(sqlx::query_as::<$db, GridCell>(sql)
                .bind(project_id)
                .bind(branch)
                .bind(runs)
                .fetch_all(&store.pool)
                .await?)
        }

        pub(crate) async fn set_budget(store: &$store, project_id: i64, micro_usd: Option<i64>) -> Result<()> {
            sqlx::query::<$db>("UPDATE projects SET budget_micro_usd = $2 WHERE id = $1")
                .bind(project_id)
                .bind(micro_usd)
                .execute(&store.pool)
                .await?;
            Ok(())
        }
    };
}

pub(super) mod sqlite {
    use super::*;
    headline_sql!(SqliteStore, sqlx::Sqlite);
}

pub(super) mod postgres {
    use super::*;
    headline_sql!(PgStore, sqlx::Postgres);
}
