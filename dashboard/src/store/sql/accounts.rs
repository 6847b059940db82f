//! Projects, users, sign-in sessions and the GitHub sign-ins under way: who may read.

use super::backends::{PgStore, SqliteStore, conflict};
use crate::store::{Project, Result, SessionRow, UserRow};

// One text, compiled for each backend below.
macro_rules! accounts_sql {
    ($store:ty, $db:ty) => {
        pub(crate) async fn create_project(
            store: &$store,
            slug: &str,
            default_branch: &str,
            now_ms: i64,
        ) -> Result<Project> {
            sqlx::query_as::<$db, Project>(
                "INSERT INTO projects (slug, default_branch, created_ms) VALUES ($1, $2, $3) \
                 RETURNING id, slug, default_branch, created_ms, github_repo, budget_micro_usd",
            )
            .bind(slug)
            .bind(default_branch)
            .bind(now_ms)
            .fetch_one(&store.pool)
            .await
            .map_err(|e| conflict(e, &format!("project `{slug}`")))
        }

        pub(crate) async fn project(store: &$store, slug: &str) -> Result<Option<Project>> {
            Ok(sqlx::query_as::<$db, Project>(
                "SELECT id, slug, default_branch, created_ms, github_repo, budget_micro_usd FROM projects WHERE slug = $1",
            )
            .bind(slug)
            .fetch_optional(&store.pool)
            .await?)
        }

        pub(crate) async fn project_by_id(store: &$store, id: i64) -> Result<Option<Project>> {
            Ok(sqlx::query_as::<$db, Project>(
                "SELECT id, slug, default_branch, created_ms, github_repo, budget_micro_usd FROM projects WHERE id = $1",
            )
            .bind(id)
            .fetch_optional(&store.pool)
            .await?)
        }

        pub(crate) async fn projects(store: &$store) -> Result<Vec<Project>> {
            Ok(sqlx::query_as::<$db, Project>(
                "SELECT id, slug, default_branch, created_ms, github_repo, budget_micro_usd FROM projects ORDER BY slug",
            )
            .fetch_all(&store.pool)
            .await?)
        }

        pub(crate) async fn set_project_repo(
            store: &$store,
            project_id: i64,
            github_repo: Option<&str>,
        ) -> Result<()> {
            sqlx::query::<$db>("UPDATE projects SET github_repo = $2 WHERE id = $1")
                .bind(project_id)
                .bind(github_repo)
                .execute(&store.pool)
                .await?;
            Ok(())
        }

        pub(crate) async fn create_user(
            store: &$store,
            email: &str,
            password_hash: &str,
            now_ms: i64,
        ) -> Result<i64> {
            let (id,) = sqlx::query_as::<$db, (i64,)>(
                "INSERT INTO users (email, password_hash, created_ms) VALUES ($1, $2, $3) \
                 RETURNING id",
            )
            .bind(email)
            .bind(password_hash)
            .bind(now_ms)
            .fetch_one(&store.pool)
            .await
            .map_err(|e| conflict(e, &format!("user `{email}`")))?;
            Ok(id)
        }

        pub(crate) async fn user(store: &$store, email: &str) -> Result<Option<UserRow>> {
            Ok(sqlx::query_as::<$db, UserRow>(
                "SELECT id, email, password_hash, instance_admin, github_id FROM users WHERE email = $1",
            )
            .bind(email)
            .fetch_optional(&store.pool)
            .await?)
        }

        pub(crate) async fn create_session(
            store: &$store,
            sha256: &str,
            user_id: i64,
            csrf: &str,
            expires_ms: i64,
        ) -> Result<()> {
            sqlx::query::<$db>(
                "INSERT INTO sessions (sha256, user_id, csrf, expires_ms) VALUES ($1, $2, $3, $4)",
            )
            .bind(sha256)
            .bind(user_id)
            .bind(csrf)
            .bind(expires_ms)
            .execute(&store.pool)
            .await?;
            Ok(())
        }

        pub(crate) async fn session(store: &$store, sha256: &str) -> Result<Option<SessionRow>> {
            Ok(sqlx::query_as::<$db, SessionRow>(
                "SELECT s.user_id, u.email, s.csrf, s.expires_ms, u.instance_admin FROM sessions s \
                 JOIN users u ON u.id = s.user_id WHERE s.sha256 = $1",
            )
            .bind(sha256)
            .fetch_optional(&store.pool)
            .await?)
        }

        pub(crate) async fn delete_session(store: &$store, sha256: &str) -> Result<()> {
            sqlx::query::<$db>("DELETE FROM sessions WHERE sha256 = $1")
                .bind(sha256)
                .execute(&store.pool)
                .await?;
            Ok(())
        }

        pub(crate) async fn delete_expired_sessions(store: &$store, now_ms: i64) -> Result<()> {
            sqlx::query::<$db>("DELETE FROM sessions WHERE expires_ms < $1")
                .bind(now_ms)
                .execute(&store.pool)
                .await?;
            Ok(())
        }

        pub(crate) async fn create_oauth_state(store: &$store, sha256: &str, expires_ms: i64, now_ms: i64) -> Result<()> {
            sqlx::query::<$db>("DELETE FROM oauth_states WHERE expires_ms < $1")
                .bind(now_ms)
                .execute(&store.pool)
                .await?;
            sqlx::query::<$db>("INSERT INTO oauth_states (sha256, expires_ms) VALUES ($1, $2)")
                .bind(sha256)
                .bind(expires_ms)
                .execute(&store.pool)
                .await?;
            Ok(())
        }

        pub(crate) async fn take_oauth_state(store: &$store, sha256: &str, now_ms: i64) -> Result<bool> {
            // One statement: of two callbacks racing with the same state, one deletes the row.
            let done = sqlx::query::<$db>("DELETE FROM oauth_states WHERE sha256 = $1 AND expires_ms >= $2")
                .bind(sha256)
                .bind(now_ms)
                .execute(&store.pool)
                .await?;
            Ok(done.rows_affected() == 1)
        }
    };
}

pub(super) mod sqlite {
    use super::*;
    accounts_sql!(SqliteStore, sqlx::Sqlite);
}

pub(super) mod postgres {
    use super::*;
    accounts_sql!(PgStore, sqlx::Postgres);
}
