//! What arrives with a run: the run, its scenario results and LLM ledger, folded into the
//! daily pass-rate, per-commit flakiness and spend rollups in one transaction; and later the
//! outcome of its PR comment.

use std::collections::BTreeMap;

use super::backends::{PgStore, SqliteStore};
use crate::store::{NewRun, Result};

/// Rows per multi-row INSERT: 16 values each stay far below SQLite's 32,766 bound parameters.
const ROWS_PER_STATEMENT: usize = 500;

/// The most a spend rollup column holds (CHECK-ed by migration 0003): sums stop there rather
/// than overflow. SQLite turns an overflowing integer sum into a REAL, which the pages then
/// cannot read; PostgreSQL fails the statement. Ingest bounds each record far below this
/// (`ingest::MAX_COST_MICRO_USD`), so only millions of absurd uploads could reach it.
const ROLLUP_MAX: i64 = 1_000_000_000_000_000_000;

/// `column = table.column + excluded.column`, held at [`ROLLUP_MAX`] without ever computing a
/// sum past it (a macro, to be `concat!`-ed; see `sql/mod.rs`).
macro_rules! add_capped {
    ($table:literal, $column:literal) => {
        concat!(
            $column,
            " = CASE WHEN ",
            $table,
            ".",
            $column,
            " > 1000000000000000000 - excluded.",
            $column,
            " THEN 1000000000000000000 ELSE ",
            $table,
            ".",
            $column,
            " + excluded.",
            $column,
            " END"
        )
    };
}

// One text, compiled for each backend below.
macro_rules! ingest_sql {
    ($store:ty, $db:ty) => {
        pub(crate) async fn insert_run(store: &$store, project_id: i64, run: &NewRun, now_ms: i64) -> Result<bool> {
            let _serial = store.serial_writes().await;
            let mut tx = store.pool.begin().await?;
            // A run id that retention pruned stays taken (`pruned_runs`), so a late retry of
            // it cannot count it a second time. One statement, so the check and the insert see
            // one snapshot: retention commits a tombstone before it deletes its run.
            let inserted: Option<(i64,)> = sqlx::query_as::<$db, (i64,)>(
                "INSERT INTO runs (project_id, run_id, started_ms, finished_ms, branch, commit_sha, \
                 workflow_run, shard, scenarios, passed, failed, skipped, flaky, llm_calls, \
                 cost_micro_usd, cache_hits, duration_ms, report_json, pr_repo, pr_number, \
                 pr_head_sha, ingested_ms, healed, environment) \
                 SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, \
                 $17, $18, $19, $20, $21, $22, $23, $24 \
                 WHERE NOT EXISTS (SELECT 1 FROM pruned_runs WHERE project_id = $1 AND run_id = $2) \
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
            .bind(run.healed)
            .bind(&run.environment)
            .fetch_optional(&mut *tx)
            .await?;
            // A run already there (or pruned) changes nothing: not its report, not its
            // rollups, not the ledger. A retry carrying other records is the same run.
            let Some((run_pk,)) = inserted else {
                return Ok(false);
            };
            let day = crate::time::day(run.started_ms);
            let branch = run.branch.as_deref().unwrap_or("");
            let environment = run.environment.as_deref().unwrap_or("");
            let commit = run.commit_sha.as_deref().unwrap_or("");
            for chunk in run.results.chunks(ROWS_PER_STATEMENT) {
                let mut q = sqlx::QueryBuilder::<$db>::new(
                    "INSERT INTO scenario_results (project_id, run_pk, scenario_id, status, passed, \
                     failed, flaky, cache, failure_class, message, branch, commit_sha, day, started_ms, \
                     heal, proposal) ",
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
                        .push_bind(run.started_ms)
                        .push_bind(r.heal.as_deref())
                        .push_bind(r.proposal.as_deref());
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
                    "INSERT INTO scenario_days (project_id, day, branch, scenario_id, passed, failed, \
                     environment) ",
                );
                q.push_values(chunk, |mut b, (id, (passed, failed, _))| {
                    b.push_bind(project_id)
                        .push_bind(day.as_str())
                        .push_bind(branch)
                        .push_bind(*id)
                        .push_bind(*passed)
                        .push_bind(*failed)
                        .push_bind(environment);
                });
                q.push(
                    " ON CONFLICT (project_id, day, branch, scenario_id, environment) DO UPDATE SET \
                     passed = scenario_days.passed + excluded.passed, \
                     failed = scenario_days.failed + excluded.failed",
                );
                q.build().execute(&mut *tx).await?;
                let mut q = sqlx::QueryBuilder::<$db>::new(
                    "INSERT INTO scenario_commits (project_id, scenario_id, commit_sha, passed, \
                     failed, retried, last_ms, environment) ",
                );
                q.push_values(chunk, |mut b, (id, (passed, failed, retried))| {
                    b.push_bind(project_id)
                        .push_bind(*id)
                        .push_bind(commit)
                        .push_bind(*passed)
                        .push_bind(*failed)
                        .push_bind(*retried)
                        .push_bind(run.started_ms)
                        .push_bind(environment);
                });
                q.push(
                    " ON CONFLICT (project_id, scenario_id, commit_sha, environment) DO UPDATE SET \
                     passed = scenario_commits.passed + excluded.passed, \
                     failed = scenario_commits.failed + excluded.failed, \
                     retried = scenario_commits.retried + excluded.retried, \
                     last_ms = CASE WHEN excluded.last_ms > scenario_commits.last_ms \
                     THEN excluded.last_ms ELSE scenario_commits.last_ms END",
                );
                q.build().execute(&mut *tx).await?;
            }
            // Ledger records are deduplicated by (run, scenario) within the upload; each
            // counts towards the spend rollup once.
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
                    for (sum, n) in e.iter_mut().zip([calls, input, output, cost]) {
                        *sum = sum.saturating_add(n).min(ROLLUP_MAX);
                    }
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
                q.push(concat!(
                    " ON CONFLICT (project_id, day, provider, model) DO UPDATE SET ",
                    add_capped!("spend_days", "calls"),
                    ", ",
                    add_capped!("spend_days", "input_tokens"),
                    ", ",
                    add_capped!("spend_days", "output_tokens"),
                    ", ",
                    add_capped!("spend_days", "cost_micro_usd"),
                ));
                q.build().execute(&mut *tx).await?;
            }
            // The plans the run stopped trusting, under the run's branch (as its cache saves).
            for chunk in run.stale.chunks(ROWS_PER_STATEMENT) {
                let mut q = sqlx::QueryBuilder::<$db>::new(
                    "INSERT INTO stale_plans (project_id, run_pk, run_id, scenario_id, start_url, \
                     branch, stale_ms, reason, failure_class, verdict, entry_json, replacement_json) ",
                );
                q.push_values(chunk, |mut b, p| {
                    b.push_bind(project_id)
                        .push_bind(run_pk)
                        .push_bind(run.run_id.as_str())
                        .push_bind(p.scenario_id.as_str())
                        .push_bind(p.start_url.as_str())
                        .push_bind(branch)
                        .push_bind(p.stale_ms)
                        .push_bind(p.reason.as_str())
                        .push_bind(p.failure_class.as_deref())
                        .push_bind(p.verdict.as_deref())
                        .push_bind(p.entry_json.as_str())
                        .push_bind(p.replacement_json.as_deref());
                });
                q.build().execute(&mut *tx).await?;
            }
            tx.commit().await?;
            Ok(true)
        }

        pub(crate) async fn set_comment_status(store: &$store, project_id: i64, run_id: &str, status: &str) -> Result<()> {
            sqlx::query::<$db>("UPDATE runs SET comment_status = $3 WHERE project_id = $1 AND run_id = $2")
                .bind(project_id)
                .bind(run_id)
                .bind(status)
                .execute(&store.pool)
                .await?;
            Ok(())
        }
    };
}

pub(super) mod sqlite {
    use super::*;
    ingest_sql!(SqliteStore, sqlx::Sqlite);
}

pub(super) mod postgres {
    use super::*;
    ingest_sql!(PgStore, sqlx::Postgres);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_capped_sum_caps_at_the_rollup_bound() {
        let sql = add_capped!("spend_days", "calls");
        assert_eq!(sql.matches(&ROLLUP_MAX.to_string()).count(), 2, "{sql}");
        let migration = include_str!("../../../../migrations/sqlite/0003_repo_spend_retention.sql");
        assert!(
            migration.contains(&ROLLUP_MAX.to_string()),
            "0003 checks the same bound"
        );
    }
}
