//! Screenshots uploaded with a run, by file name.

use super::backends::{PgStore, SqliteStore};
use crate::store::Result;

// One text, compiled for each backend below.
macro_rules! artifacts_sql {
    ($store:ty, $db:ty) => {
        pub(crate) async fn put_artifact(store: &$store, project_id: i64, run_id: &str, name: &str, bytes: &[u8], now_ms: i64) -> Result<()> {
            sqlx::query::<$db>(
                "INSERT INTO artifacts (project_id, run_id, name, bytes, created_ms) VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (project_id, run_id, name) DO UPDATE SET bytes = excluded.bytes",
            )
            .bind(project_id)
            .bind(run_id)
            .bind(name)
            .bind(bytes)
            .bind(now_ms)
            .execute(&store.pool)
            .await?;
            Ok(())
        }

        pub(crate) async fn has_run(store: &$store, project_id: i64, run_id: &str) -> Result<bool> {
            let row: Option<(i64,)> = sqlx::query_as::<$db, (i64,)>(
                "SELECT 1 FROM runs WHERE project_id = $1 AND run_id = $2",
            )
            .bind(project_id)
            .bind(run_id)
            .fetch_optional(&store.pool)
            .await?;
            Ok(row.is_some())
        }

        pub(crate) async fn artifact(store: &$store, project_id: i64, run_id: &str, name: &str) -> Result<Option<Vec<u8>>> {
            let row: Option<(Vec<u8>,)> = sqlx::query_as::<$db, (Vec<u8>,)>(
                "SELECT bytes FROM artifacts WHERE project_id = $1 AND run_id = $2 AND name = $3",
            )
            .bind(project_id)
            .bind(run_id)
            .bind(name)
            .fetch_optional(&store.pool)
            .await?;
            Ok(row.map(|(b,)| b))
        }

        pub(crate) async fn artifact_names(store: &$store, project_id: i64, run_id: &str) -> Result<Vec<String>> {
            let rows: Vec<(String,)> = sqlx::query_as::<$db, (String,)>(
                "SELECT name FROM artifacts WHERE project_id = $1 AND run_id = $2 ORDER BY name",
            )
            .bind(project_id)
            .bind(run_id)
            .fetch_all(&store.pool)
            .await?;
            Ok(rows.into_iter().map(|(n,)| n).collect())
        }
    };
}

pub(super) mod sqlite {
    use super::*;
    artifacts_sql!(SqliteStore, sqlx::Sqlite);
}

pub(super) mod postgres {
    use super::*;
    artifacts_sql!(PgStore, sqlx::Postgres);
}
