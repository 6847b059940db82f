//! People and their roles: instance administrators, each project's members, and invitations
//! waiting for an account of their email. Roles are stored as text (`owner`, `viewer`); what
//! each may do is `crate::access`'s to say.

use super::backends::{PgStore, SqliteStore};
use crate::store::{InvitationRow, MemberRow, Project, Result, UserInfo};

// One text, compiled for each backend below.
macro_rules! people_sql {
    ($store:ty, $db:ty) => {
        pub(crate) async fn set_instance_admin(
            store: &$store,
            email: &str,
            admin: bool,
        ) -> Result<bool> {
            let done = sqlx::query::<$db>("UPDATE users SET instance_admin = $2 WHERE email = $1")
                .bind(email)
                .bind(i64::from(admin))
                .execute(&store.pool)
                .await?;
            Ok(done.rows_affected() > 0)
        }

        pub(crate) async fn users(store: &$store) -> Result<Vec<UserInfo>> {
            Ok(sqlx::query_as::<$db, UserInfo>(
                "SELECT id, email, instance_admin, created_ms FROM users ORDER BY email",
            )
            .fetch_all(&store.pool)
            .await?)
        }

        pub(crate) async fn role(
            store: &$store,
            project_id: i64,
            user_id: i64,
        ) -> Result<Option<String>> {
            let row: Option<(String,)> = sqlx::query_as::<$db, (String,)>(
                "SELECT role FROM memberships WHERE project_id = $1 AND user_id = $2",
            )
            .bind(project_id)
            .bind(user_id)
            .fetch_optional(&store.pool)
            .await?;
            Ok(row.map(|(role,)| role))
        }

        pub(crate) async fn member_projects(store: &$store, user_id: i64) -> Result<Vec<Project>> {
            Ok(sqlx::query_as::<$db, Project>(
                "SELECT p.id, p.slug, p.default_branch, p.created_ms, p.github_repo, \
                 p.budget_micro_usd FROM projects p \
                 JOIN memberships m ON m.project_id = p.id WHERE m.user_id = $1 ORDER BY p.slug",
            )
            .bind(user_id)
            .fetch_all(&store.pool)
            .await?)
        }

        pub(crate) async fn members(store: &$store, project_id: i64) -> Result<Vec<MemberRow>> {
            Ok(sqlx::query_as::<$db, MemberRow>(
                "SELECT m.user_id, u.email, m.role, m.created_ms FROM memberships m \
                 JOIN users u ON u.id = m.user_id WHERE m.project_id = $1 ORDER BY u.email",
            )
            .bind(project_id)
            .fetch_all(&store.pool)
            .await?)
        }

        pub(crate) async fn set_role(
            store: &$store,
            project_id: i64,
            user_id: i64,
            role: &str,
            now_ms: i64,
        ) -> Result<()> {
            sqlx::query::<$db>(
                "INSERT INTO memberships (project_id, user_id, role, created_ms) \
                 VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (project_id, user_id) DO UPDATE SET role = excluded.role, team = NULL",
            )
            .bind(project_id)
            .bind(user_id)
            .bind(role)
            .bind(now_ms)
            .execute(&store.pool)
            .await?;
            Ok(())
        }

        pub(crate) async fn remove_member(
            store: &$store,
            project_id: i64,
            user_id: i64,
        ) -> Result<bool> {
            let done =
                sqlx::query::<$db>("DELETE FROM memberships WHERE project_id = $1 AND user_id = $2")
                    .bind(project_id)
                    .bind(user_id)
                    .execute(&store.pool)
                    .await?;
            Ok(done.rows_affected() > 0)
        }

        pub(crate) async fn invite(
            store: &$store,
            project_id: i64,
            email: &str,
            role: &str,
            now_ms: i64,
        ) -> Result<()> {
            sqlx::query::<$db>(
                "INSERT INTO invitations (project_id, email, role, created_ms) \
                 VALUES ($1, $2, $3, $4) \
                 ON CONFLICT (project_id, email) DO UPDATE SET role = excluded.role",
            )
            .bind(project_id)
            .bind(email)
            .bind(role)
            .bind(now_ms)
            .execute(&store.pool)
            .await?;
            Ok(())
        }

        pub(crate) async fn invitations(
            store: &$store,
            project_id: i64,
        ) -> Result<Vec<InvitationRow>> {
            Ok(sqlx::query_as::<$db, InvitationRow>(
                "SELECT email, role, created_ms FROM invitations WHERE project_id = $1 \
                 ORDER BY email",
            )
            .bind(project_id)
            .fetch_all(&store.pool)
            .await?)
        }

        pub(crate) async fn cancel_invitation(
            store: &$store,
            project_id: i64,
            email: &str,
        ) -> Result<bool> {
            let done =
                sqlx::query::<$db>("DELETE FROM invitations WHERE project_id = $1 AND email = $2")
                    .bind(project_id)
                    .bind(email)
                    .execute(&store.pool)
                    .await?;
            Ok(done.rows_affected() > 0)
        }

        pub(crate) async fn claim_invitations(
            store: &$store,
            user_id: i64,
            email: &str,
            now_ms: i64,
        ) -> Result<u64> {
            let _serial = store.serial_writes().await;
            let mut tx = store.pool.begin().await?;
            // A role the person already has is kept (WHERE keeps SQLite's parser from reading
            // ON CONFLICT as a join's ON).
            let added = sqlx::query::<$db>(
                "INSERT INTO memberships (project_id, user_id, role, created_ms) \
                 SELECT project_id, $1, role, $3 FROM invitations WHERE email = $2 \
                 ON CONFLICT (project_id, user_id) DO NOTHING",
            )
            .bind(user_id)
            .bind(email)
            .bind(now_ms)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            sqlx::query::<$db>("DELETE FROM invitations WHERE email = $1")
                .bind(email)
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(added)
        }
    };
}

pub(super) mod sqlite {
    use super::*;
    people_sql!(SqliteStore, sqlx::Sqlite);
}

pub(super) mod postgres {
    use super::*;
    people_sql!(PgStore, sqlx::Postgres);
}
