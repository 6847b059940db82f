//! GitHub sign-in's storage: the GitHub account linked to a person, and the team mappings
//! (members of `org/team` get a role in a project) with the roles they granted, which a later
//! sign-in takes back when the person has left the team.

use super::backends::{PgStore, SqliteStore, conflict};
use crate::store::{Result, TeamRoleRow, UserRow};

// One text, compiled for each backend below.
macro_rules! github_sql {
    ($store:ty, $db:ty) => {
        pub(crate) async fn user_by_github(
            store: &$store,
            github_id: i64,
        ) -> Result<Option<UserRow>> {
            Ok(sqlx::query_as::<$db, UserRow>(
                "SELECT id, email, password_hash, instance_admin, github_id FROM users \
                 WHERE github_id = $1",
            )
            .bind(github_id)
            .fetch_optional(&store.pool)
            .await?)
        }

        pub(crate) async fn link_github(
            store: &$store,
            user_id: i64,
            github_id: i64,
            login: &str,
        ) -> Result<()> {
            sqlx::query::<$db>("UPDATE users SET github_id = $2, github_login = $3 WHERE id = $1")
                .bind(user_id)
                .bind(github_id)
                .bind(login)
                .execute(&store.pool)
                .await
                .map_err(|e| conflict(e, &format!("a link to GitHub account {github_id}")))?;
            Ok(())
        }

        pub(crate) async fn invited(store: &$store, email: &str) -> Result<bool> {
            let row: Option<(i64,)> = sqlx::query_as::<$db, (i64,)>(
                "SELECT project_id FROM invitations WHERE email = $1 LIMIT 1",
            )
            .bind(email)
            .fetch_optional(&store.pool)
            .await?;
            Ok(row.is_some())
        }

        pub(crate) async fn team_roles(
            store: &$store,
            project_id: Option<i64>,
        ) -> Result<Vec<TeamRoleRow>> {
            Ok(sqlx::query_as::<$db, TeamRoleRow>(
                "SELECT project_id, org, team, role FROM team_roles \
                 WHERE $1 IS NULL OR project_id = $1 ORDER BY project_id, org, team",
            )
            .bind(project_id)
            .fetch_all(&store.pool)
            .await?)
        }

        pub(crate) async fn set_team_role(
            store: &$store,
            mapping: &TeamRoleRow,
            now_ms: i64,
        ) -> Result<()> {
            sqlx::query::<$db>(
                "INSERT INTO team_roles (project_id, org, team, role, created_ms) \
                 VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (project_id, org, team) DO UPDATE SET role = excluded.role",
            )
            .bind(mapping.project_id)
            .bind(&mapping.org)
            .bind(&mapping.team)
            .bind(&mapping.role)
            .bind(now_ms)
            .execute(&store.pool)
            .await?;
            Ok(())
        }

        pub(crate) async fn remove_team_role(
            store: &$store,
            project_id: i64,
            org: &str,
            team: &str,
        ) -> Result<bool> {
            let _serial = store.serial_writes().await;
            let mut tx = store.pool.begin().await?;
            let removed = sqlx::query::<$db>(
                "DELETE FROM team_roles WHERE project_id = $1 AND org = $2 AND team = $3",
            )
            .bind(project_id)
            .bind(org)
            .bind(team)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            sqlx::query::<$db>("DELETE FROM memberships WHERE project_id = $1 AND team = $2")
                .bind(project_id)
                .bind(format!("{org}/{team}"))
                .execute(&mut *tx)
                .await?;
            tx.commit().await?;
            Ok(removed > 0)
        }

        pub(crate) async fn membership(
            store: &$store,
            project_id: i64,
            user_id: i64,
        ) -> Result<Option<(String, Option<String>)>> {
            Ok(sqlx::query_as::<$db, (String, Option<String>)>(
                "SELECT role, team FROM memberships WHERE project_id = $1 AND user_id = $2",
            )
            .bind(project_id)
            .bind(user_id)
            .fetch_optional(&store.pool)
            .await?)
        }

        pub(crate) async fn set_team_membership(
            store: &$store,
            project_id: i64,
            user_id: i64,
            role: &str,
            team: &str,
            now_ms: i64,
        ) -> Result<()> {
            sqlx::query::<$db>(
                "INSERT INTO memberships (project_id, user_id, role, created_ms, team) \
                 VALUES ($1, $2, $3, $4, $5) \
                 ON CONFLICT (project_id, user_id) DO UPDATE SET role = excluded.role, \
                 team = excluded.team",
            )
            .bind(project_id)
            .bind(user_id)
            .bind(role)
            .bind(now_ms)
            .bind(team)
            .execute(&store.pool)
            .await?;
            Ok(())
        }

        pub(crate) async fn remove_team_membership(
            store: &$store,
            project_id: i64,
            user_id: i64,
            team: &str,
        ) -> Result<bool> {
            let done = sqlx::query::<$db>(
                "DELETE FROM memberships WHERE project_id = $1 AND user_id = $2 AND team = $3",
            )
            .bind(project_id)
            .bind(user_id)
            .bind(team)
            .execute(&store.pool)
            .await?;
            Ok(done.rows_affected() > 0)
        }
    };
}

pub(super) mod sqlite {
    use super::*;
    github_sql!(SqliteStore, sqlx::Sqlite);
}

pub(super) mod postgres {
    use super::*;
    github_sql!(PgStore, sqlx::Postgres);
}
