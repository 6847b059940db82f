//! What the pages read: runs, pass rates, flaky scenarios, spend, and the run behind a stale
//! plan.

use super::backends::{PgStore, SqliteStore};
use crate::store::{
    FlakyRow, Grouping, RateRow, Result, RunDetail, RunFilter, RunSummary, SpendRow,
};

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

/// The runs list's query with its predicates (`$part`s, one per filter) picking its index
/// (migration 0010 has one per filter, each in the list's order with the row's `id` last, so a
/// page is read, never sorted). The page's ids come from the index alone, skipping the rows
/// before it there; only the page's own rows are read whole.
macro_rules! runs_sql {
    ($($part:expr),+) => {
        concat!(
            run_columns!(),
            "WHERE id IN (SELECT id FROM runs WHERE project_id = $1",
            $(" ", $part,)+
            " ORDER BY started_ms DESC, run_id DESC LIMIT $4 OFFSET $5) \
             ORDER BY started_ms DESC, run_id DESC"
        )
    };
}

// The runs list's predicates, one per filter. Each names its parameter, as `CAST($n AS TEXT) IS
// NULL` when the filter is off, so PostgreSQL knows every parameter's type; a result is
// `failed = 0` or `failed > 0` exactly as the partial indexes have it.
macro_rules! on_branch {
    () => {
        "AND branch = CAST($2 AS TEXT)"
    };
}
macro_rules! any_branch {
    () => {
        "AND CAST($2 AS TEXT) IS NULL"
    };
}
macro_rules! passed {
    () => {
        "AND failed = 0 AND CAST($3 AS TEXT) IS NOT NULL"
    };
}
macro_rules! failed {
    () => {
        "AND failed > 0 AND CAST($3 AS TEXT) IS NOT NULL"
    };
}
macro_rules! any_result {
    () => {
        "AND CAST($3 AS TEXT) IS NULL"
    };
}
macro_rules! any_workflow {
    () => {
        "AND CAST($6 AS TEXT) IS NULL"
    };
}

// One text, compiled for each backend below.
macro_rules! reads_sql {
    ($store:ty, $db:ty) => {
        pub(crate) async fn run(store: &$store, project_id: i64, run_id: &str) -> Result<Option<RunDetail>> {
            let sql = concat!(run_columns!(), "WHERE project_id = $1 AND run_id = $2");
            let Some(summary) = sqlx::query_as::<$db, RunSummary>(sql)
                .bind(project_id)
                .bind(run_id)
                .fetch_optional(&store.pool)
                .await?
            else {
                return Ok(None);
            };
            let (report_json,): (String,) = sqlx::query_as::<$db, (String,)>(
                "SELECT report_json FROM runs WHERE project_id = $1 AND run_id = $2",
            )
            .bind(project_id)
            .bind(run_id)
            .fetch_one(&store.pool)
            .await?;
            Ok(Some(RunDetail { summary, report_json }))
        }

        pub(crate) async fn runs(store: &$store, project_id: i64, filter: &RunFilter) -> Result<Vec<RunSummary>> {
            // The predicate that picks the index is written out per filter: behind a
            // `$n IS NULL OR …` the planner cannot use an index, and sorted all of a project's
            // runs (over 200 ms at 100,000 runs on SQLite). A result other than passed or
            // failed matches no run.
            let sql = match (
                filter.workflow_run.is_some(),
                filter.branch.is_some(),
                filter.status.as_deref(),
            ) {
                (_, _, Some(s)) if s != "passed" && s != "failed" => return Ok(Vec::new()),
                (true, _, _) => runs_sql!("AND workflow_run = CAST($6 AS TEXT) \
                    AND (CAST($2 AS TEXT) IS NULL OR branch = CAST($2 AS TEXT)) \
                    AND (CAST($3 AS TEXT) IS NULL OR (CAST($3 AS TEXT) = 'failed' AND failed > 0) \
                      OR (CAST($3 AS TEXT) = 'passed' AND failed = 0))"),
                (false, true, Some("passed")) => runs_sql!(on_branch!(), passed!(), any_workflow!()),
                (false, true, Some(_)) => runs_sql!(on_branch!(), failed!(), any_workflow!()),
                (false, true, None) => runs_sql!(on_branch!(), any_result!(), any_workflow!()),
                (false, false, Some("passed")) => runs_sql!(any_branch!(), passed!(), any_workflow!()),
                (false, false, Some(_)) => runs_sql!(any_branch!(), failed!(), any_workflow!()),
                (false, false, None) => runs_sql!(any_branch!(), any_result!(), any_workflow!()),
            };
            Ok(sqlx::query_as::<$db, RunSummary>(sql)
                .bind(project_id)
                .bind(&filter.branch)
                .bind(&filter.status)
                .bind(filter.limit)
                .bind(filter.offset)
                .bind(&filter.workflow_run)
                .fetch_all(&store.pool)
                .await?)
        }

        pub(crate) async fn branches(store: &$store, project_id: i64) -> Result<Vec<String>> {
            // A loose index scan: one index seek per branch, however many runs each has (a
            // `DISTINCT` reads every run's index entry on PostgreSQL).
            let rows: Vec<(String,)> = sqlx::query_as::<$db, (String,)>(
                "WITH RECURSIVE b(branch) AS ( \
                   SELECT MIN(branch) FROM runs WHERE project_id = $1 \
                   UNION ALL \
                   SELECT (SELECT MIN(branch) FROM runs WHERE project_id = $1 AND branch > b.branch) \
                   FROM b WHERE b.branch IS NOT NULL) \
                 SELECT branch FROM b WHERE branch IS NOT NULL ORDER BY branch",
            )
            .bind(project_id)
            .fetch_all(&store.pool)
            .await?;
            Ok(rows.into_iter().map(|(b,)| b).collect())
        }

        pub(crate) async fn ledger_for_run(store: &$store, project_id: i64, run_id: &str) -> Result<Vec<String>> {
            let rows: Vec<(String,)> = sqlx::query_as::<$db, (String,)>(
                "SELECT record_json FROM ledger WHERE project_id = $1 AND run_id = $2 ORDER BY scenario_id",
            )
            .bind(project_id)
            .bind(run_id)
            .fetch_all(&store.pool)
            .await?;
            Ok(rows.into_iter().map(|(j,)| j).collect())
        }

        pub(crate) async fn pass_rates(store: &$store, project_id: i64, by: Grouping, since_day: &str) -> Result<Vec<RateRow>> {
            let sql = match by {
                Grouping::Branch => pass_rates!("NULLIF(branch, '')"),
                Grouping::Scenario => pass_rates!("scenario_id"),
                Grouping::Environment => pass_rates!("NULLIF(environment, '')"),
            };
            Ok(sqlx::query_as::<$db, RateRow>(sql)
                .bind(project_id)
                .bind(since_day)
                .fetch_all(&store.pool)
                .await?)
        }

        pub(crate) async fn flaky(store: &$store, project_id: i64, limit: i64) -> Result<Vec<FlakyRow>> {
            Ok(sqlx::query_as::<$db, FlakyRow>(
                "SELECT scenario_id, NULLIF(commit_sha, '') AS commit_sha, \
                 NULLIF(environment, '') AS environment, passed, failed, retried, \
                 last_ms FROM scenario_commits WHERE project_id = $1 \
                 AND ((passed > 0 AND failed > 0) OR retried > 0) \
                 ORDER BY last_ms DESC, scenario_id LIMIT $2",
            )
            .bind(project_id)
            .bind(limit)
            .fetch_all(&store.pool)
            .await?)
        }

        pub(crate) async fn spend(store: &$store, project_id: i64, since_day: &str) -> Result<Vec<SpendRow>> {
            Ok(sqlx::query_as::<$db, SpendRow>(
                "SELECT day, NULLIF(provider, '') AS provider, NULLIF(model, '') AS model, calls, \
                 input_tokens, output_tokens, cost_micro_usd \
                 FROM spend_days WHERE project_id = $1 AND day >= $2 \
                 ORDER BY day DESC, provider, model",
            )
            .bind(project_id)
            .bind(since_day)
            .fetch_all(&store.pool)
            .await?)
        }

        pub(crate) async fn last_failure(
            store: &$store,
            project_id: i64,
            scenario_id: &str,
            branch: &str,
            before_ms: i64,
        ) -> Result<Option<String>> {
            let row: Option<(String,)> = sqlx::query_as::<$db, (String,)>(
                "SELECT r.run_id FROM scenario_results s JOIN runs r ON r.id = s.run_pk \
                 WHERE s.project_id = $1 AND s.scenario_id = $2 AND s.branch = $3 \
                 AND s.started_ms <= $4 AND (s.failed = 1 OR s.cache IN ('stale_replanned', 'healed')) \
                 ORDER BY s.started_ms DESC LIMIT 1",
            )
            .bind(project_id)
            .bind(scenario_id)
            .bind(branch)
            .bind(before_ms)
            .fetch_optional(&store.pool)
            .await?;
            Ok(row.map(|(r,)| r))
        }
    };
}

pub(super) mod sqlite {
    use super::*;
    reads_sql!(SqliteStore, sqlx::Sqlite);
}

pub(super) mod postgres {
    use super::*;
    reads_sql!(PgStore, sqlx::Postgres);
}
