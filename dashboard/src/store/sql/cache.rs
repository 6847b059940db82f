//! The shared plan cache: one active entry per (scenario, start URL, branch); a replaced
//! entry is kept, inactive, as stale-plan evidence linked to its successor.

use super::backends::{PgStore, SqliteStore, conflict};
use crate::store::{CachePut, CacheRow, Result, RunStaleRow, StaleRow};

// A macro, not a const, to be `concat!`-ed (see `sql/mod.rs`).
macro_rules! stale_select {
    () => {
        "SELECT s.id, s.scenario_id, s.start_url, s.branch, COALESCE(s.stale_ms, 0) AS stale_ms, \
    COALESCE(s.stale_reason, '') AS stale_reason, \
    s.entry_json, r.entry_json AS replaced_json \
    FROM cache_entries s LEFT JOIN cache_entries r ON r.id = s.replaced_by \
    WHERE s.project_id = $1 AND s.active = 0 "
    };
}

// A run's stale plan, its replacement the run's own or else the branch's active shared entry
// for the key saved after it went stale.
macro_rules! run_stale_select {
    () => {
        "SELECT p.id, p.run_id, p.scenario_id, p.start_url, p.branch, p.stale_ms, p.reason, \
    p.failure_class, p.verdict, p.entry_json, \
    COALESCE(p.replacement_json, (SELECT c.entry_json FROM cache_entries c \
    WHERE c.project_id = p.project_id AND c.scenario_id = p.scenario_id \
    AND c.start_url = p.start_url AND c.branch = p.branch AND c.active = 1 \
    AND c.updated_ms >= p.stale_ms ORDER BY c.id DESC LIMIT 1)) AS replaced_json \
    FROM stale_plans p WHERE p.project_id = $1 "
    };
}

// One text, compiled for each backend below.
macro_rules! cache_sql {
    ($store:ty, $db:ty) => {
        pub(crate) async fn cache_get(
            store: &$store,
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
            .fetch_optional(&store.pool)
            .await?)
        }

        pub(crate) async fn cache_put(store: &$store, project_id: i64, put: &CachePut<'_>) -> Result<bool> {
            // Reads, then writes: on SQLite a concurrent writer would fail the upgrade.
            let _serial = store.serial_writes().await;
            let mut tx = store.pool.begin().await?;
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

        pub(crate) async fn stale_entries(store: &$store, project_id: i64, limit: i64) -> Result<Vec<StaleRow>> {
            let sql = concat!(stale_select!(), "ORDER BY s.stale_ms DESC, s.id DESC LIMIT $2");
            Ok(sqlx::query_as::<$db, StaleRow>(sql)
                .bind(project_id)
                .bind(limit)
                .fetch_all(&store.pool)
                .await?)
        }

        pub(crate) async fn stale_entry(store: &$store, project_id: i64, id: i64) -> Result<Option<StaleRow>> {
            let sql = concat!(stale_select!(), "AND s.id = $2");
            Ok(sqlx::query_as::<$db, StaleRow>(sql)
                .bind(project_id)
                .bind(id)
                .fetch_optional(&store.pool)
                .await?)
        }

        pub(crate) async fn run_stale_entries(store: &$store, project_id: i64, limit: i64) -> Result<Vec<RunStaleRow>> {
            let sql = concat!(run_stale_select!(), "ORDER BY p.stale_ms DESC, p.id DESC LIMIT $2");
            Ok(sqlx::query_as::<$db, RunStaleRow>(sql)
                .bind(project_id)
                .bind(limit)
                .fetch_all(&store.pool)
                .await?)
        }

        pub(crate) async fn run_stale_entry(store: &$store, project_id: i64, id: i64) -> Result<Option<RunStaleRow>> {
            let sql = concat!(run_stale_select!(), "AND p.id = $2");
            Ok(sqlx::query_as::<$db, RunStaleRow>(sql)
                .bind(project_id)
                .bind(id)
                .fetch_optional(&store.pool)
                .await?)
        }
    };
}

pub(super) mod sqlite {
    use super::*;
    cache_sql!(SqliteStore, sqlx::Sqlite);
}

pub(super) mod postgres {
    use super::*;
    cache_sql!(PgStore, sqlx::Postgres);
}
