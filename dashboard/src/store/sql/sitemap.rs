//! The shared site map: one merged map per (project, branch). A merge reads the stored map and
//! its `version`, and writes only over that version, retrying when another write came first:
//! concurrent uploads from parallel CI jobs both land, on either backend.

use super::backends::{PgStore, SqliteStore};
use crate::store::{Result, StoreError};

/// Attempts of a merge that keeps losing to concurrent writers.
const ATTEMPTS: usize = 8;

macro_rules! sitemap_sql {
    ($store:ty, $db:ty) => {
        pub(crate) async fn sitemap_get(
            store: &$store,
            project_id: i64,
            branch: &str,
        ) -> Result<Option<String>> {
            Ok(sqlx::query_as::<$db, (String,)>(
                "SELECT map_json FROM sitemaps WHERE project_id = $1 AND branch = $2",
            )
            .bind(project_id)
            .bind(branch)
            .fetch_optional(&store.pool)
            .await?
            .map(|(json,)| json))
        }

        pub(crate) async fn sitemap_merge(
            store: &$store,
            project_id: i64,
            branch: &str,
            merge: &(dyn for<'m> Fn(Option<&'m str>) -> String + Send + Sync),
            now_ms: i64,
        ) -> Result<String> {
            for _ in 0..ATTEMPTS {
                let _serial = store.serial_writes().await;
                let old = sqlx::query_as::<$db, (String, i64)>(
                    "SELECT map_json, version FROM sitemaps WHERE project_id = $1 AND branch = $2",
                )
                .bind(project_id)
                .bind(branch)
                .fetch_optional(&store.pool)
                .await?;
                let merged = merge(old.as_ref().map(|(json, _)| json.as_str()));
                let written = match &old {
                    Some((_, version)) => sqlx::query::<$db>(
                        "UPDATE sitemaps SET map_json = $3, version = version + 1, updated_ms = $4 \
                         WHERE project_id = $1 AND branch = $2 AND version = $5",
                    )
                    .bind(project_id)
                    .bind(branch)
                    .bind(&merged)
                    .bind(now_ms)
                    .bind(version)
                    .execute(&store.pool)
                    .await?
                    .rows_affected(),
                    None => sqlx::query::<$db>(
                        "INSERT INTO sitemaps (project_id, branch, map_json, version, updated_ms) \
                         VALUES ($1, $2, $3, 1, $4) ON CONFLICT (project_id, branch) DO NOTHING",
                    )
                    .bind(project_id)
                    .bind(branch)
                    .bind(&merged)
                    .bind(now_ms)
                    .execute(&store.pool)
                    .await?
                    .rows_affected(),
                };
                if written == 1 {
                    return Ok(merged);
                }
            }
            Err(StoreError::Conflict(
                "a newer site map (written concurrently)".into(),
            ))
        }
    };
}

pub(super) mod sqlite {
    use super::*;
    sitemap_sql!(SqliteStore, sqlx::Sqlite);
}

pub(super) mod postgres {
    use super::*;
    sitemap_sql!(PgStore, sqlx::Postgres);
}
