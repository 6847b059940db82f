//! Project tokens: created (only the hash stored), found by the indexed prefix of their hash,
//! listed, revoked, and stamped with their last use.

use super::backends::{PgStore, SqliteStore};
use crate::store::{NewToken, Result, TokenInfo, TokenRow};

/// A token as the lists show it: no hash.
macro_rules! token_info_columns {
    () => {
        "id, name, scopes, branch_glob, created_ms, last_used_ms, expires_ms, revoked_ms"
    };
}

// One text, compiled for each backend below.
macro_rules! tokens_sql {
    ($store:ty, $db:ty) => {
        pub(crate) async fn create_token(
            store: &$store,
            project_id: i64,
            token: &NewToken<'_>,
        ) -> Result<i64> {
            let (id,) = sqlx::query_as::<$db, (i64,)>(
                "INSERT INTO tokens (project_id, lookup, sha256, scopes, branch_glob, created_ms, \
                 name, expires_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
            )
            .bind(project_id)
            .bind(token.lookup)
            .bind(token.sha256)
            .bind(token.scopes)
            .bind(token.branch_glob)
            .bind(token.created_ms)
            .bind(token.name)
            .bind(token.expires_ms)
            .fetch_one(&store.pool)
            .await?;
            Ok(id)
        }

        pub(crate) async fn tokens_by_lookup(
            store: &$store,
            lookup: &str,
        ) -> Result<Vec<TokenRow>> {
            Ok(sqlx::query_as::<$db, TokenRow>(
                "SELECT id, project_id, sha256, scopes, branch_glob, expires_ms, revoked_ms, \
                 last_used_ms FROM tokens WHERE lookup = $1",
            )
            .bind(lookup)
            .fetch_all(&store.pool)
            .await?)
        }

        pub(crate) async fn tokens(store: &$store, project_id: i64) -> Result<Vec<TokenInfo>> {
            Ok(sqlx::query_as::<$db, TokenInfo>(concat!(
                "SELECT ",
                token_info_columns!(),
                " FROM tokens WHERE project_id = $1 ORDER BY id"
            ))
            .bind(project_id)
            .fetch_all(&store.pool)
            .await?)
        }

        pub(crate) async fn revoke_token(
            store: &$store,
            project_id: i64,
            id: i64,
            now_ms: i64,
        ) -> Result<Option<TokenInfo>> {
            let _serial = store.serial_writes().await;
            Ok(sqlx::query_as::<$db, TokenInfo>(concat!(
                "UPDATE tokens SET revoked_ms = COALESCE(revoked_ms, $3) \
                 WHERE project_id = $1 AND id = $2 RETURNING ",
                token_info_columns!()
            ))
            .bind(project_id)
            .bind(id)
            .bind(now_ms)
            .fetch_optional(&store.pool)
            .await?)
        }

        pub(crate) async fn touch_token(store: &$store, id: i64, now_ms: i64) -> Result<()> {
            let _serial = store.serial_writes().await;
            sqlx::query::<$db>("UPDATE tokens SET last_used_ms = $2 WHERE id = $1")
                .bind(id)
                .bind(now_ms)
                .execute(&store.pool)
                .await?;
            Ok(())
        }
    };
}

pub(super) mod sqlite {
    use super::*;
    tokens_sql!(SqliteStore, sqlx::Sqlite);
}

pub(super) mod postgres {
    use super::*;
    tokens_sql!(PgStore, sqlx::Postgres);
}
