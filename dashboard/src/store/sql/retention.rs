//! Retention: runs that started before a cutoff go, with their scenario results, ledger
//! records, screenshots and the stale plans they uploaded (whose evidence is the run), and so
//! do screenshots uploaded before it. The rollups (pass rates, flakiness, spend) and the shared
//! plan cache, its replaced entries included, are never touched: the pages' totals outlive the
//! rows they were summed from.
//!
//! A pruned run's id is kept in `pruned_runs`, committed before the run is deleted, and ingest
//! takes such an id as present: a spooled retry arriving after the pruning cannot count the
//! run a second time.

use super::backends::{PgStore, SqliteStore};
use crate::store::{Pruned, Result};

/// Runs deleted per transaction, so a large first pass never holds SQLite's one writer long.
const RUNS_PER_BATCH: i64 = 500;

// One text, compiled for each backend below.
macro_rules! retention_sql {
    ($store:ty, $db:ty) => {
        pub(crate) async fn prune_runs(store: &$store, before_ms: i64, now_ms: i64) -> Result<Pruned> {
            let mut pruned = Pruned::default();
            loop {
                let batch: Vec<(i64, i64, String)> = sqlx::query_as::<$db, (i64, i64, String)>(
                    "SELECT id, project_id, run_id FROM runs WHERE started_ms < $1 ORDER BY id LIMIT $2",
                )
                .bind(before_ms)
                .bind(RUNS_PER_BATCH)
                .fetch_all(&store.pool)
                .await?;
                if batch.is_empty() {
                    break;
                }
                {
                    let _serial = store.serial_writes().await;
                    let mut q = sqlx::QueryBuilder::<$db>::new(
                        "INSERT INTO pruned_runs (project_id, run_id, pruned_ms) ",
                    );
                    q.push_values(&batch, |mut b, (_, project_id, run_id)| {
                        b.push_bind(*project_id).push_bind(run_id.as_str()).push_bind(now_ms);
                    });
                    q.push(" ON CONFLICT (project_id, run_id) DO NOTHING");
                    q.build().execute(&store.pool).await?;
                }
                let _serial = store.serial_writes().await;
                let mut tx = store.pool.begin().await?;
                let mut q = sqlx::QueryBuilder::<$db>::new("DELETE FROM scenario_results WHERE run_pk IN (");
                let mut ids = q.separated(", ");
                for (id, _, _) in &batch {
                    ids.push_bind(*id);
                }
                q.push(")");
                q.build().execute(&mut *tx).await?;
                let mut q = sqlx::QueryBuilder::<$db>::new("DELETE FROM stale_plans WHERE run_pk IN (");
                let mut ids = q.separated(", ");
                for (id, _, _) in &batch {
                    ids.push_bind(*id);
                }
                q.push(")");
                q.build().execute(&mut *tx).await?;
                let mut q = sqlx::QueryBuilder::<$db>::new("DELETE FROM ledger WHERE (project_id, run_id) IN (");
                q.push_values(&batch, |mut b, (_, project_id, run_id)| {
                    b.push_bind(*project_id).push_bind(run_id.as_str());
                });
                q.push(")");
                q.build().execute(&mut *tx).await?;
                let mut q = sqlx::QueryBuilder::<$db>::new("DELETE FROM artifacts WHERE (project_id, run_id) IN (");
                q.push_values(&batch, |mut b, (_, project_id, run_id)| {
                    b.push_bind(*project_id).push_bind(run_id.as_str());
                });
                q.push(")");
                pruned.artifacts += q.build().execute(&mut *tx).await?.rows_affected();
                let mut q = sqlx::QueryBuilder::<$db>::new("DELETE FROM runs WHERE id IN (");
                let mut ids = q.separated(", ");
                for (id, _, _) in &batch {
                    ids.push_bind(*id);
                }
                q.push(")");
                let runs = q.build().execute(&mut *tx).await?.rows_affected();
                tx.commit().await?;
                pruned.runs += runs;
                if batch.len() < RUNS_PER_BATCH as usize || runs == 0 {
                    break;
                }
            }
            // Screenshots whose run never arrived, or arrived under another id.
            let _serial = store.serial_writes().await;
            pruned.artifacts += sqlx::query::<$db>("DELETE FROM artifacts WHERE created_ms < $1")
                .bind(before_ms)
                .execute(&store.pool)
                .await?
                .rows_affected();
            Ok(pruned)
        }
    };
}

pub(super) mod sqlite {
    use super::*;
    retention_sql!(SqliteStore, sqlx::Sqlite);
}

pub(super) mod postgres {
    use super::*;
    retention_sql!(PgStore, sqlx::Postgres);
}
