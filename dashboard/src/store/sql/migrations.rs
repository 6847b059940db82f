//! The schema's migrations, embedded when the crate compiles (`build.rs` lists
//! `../migrations/{sqlite,postgres}`) and run by sqlx's `Migrator` when a store opens.

use std::borrow::Cow;

use sqlx::SqlSafeStr;
use sqlx::migrate::{Migration, MigrationType, Migrator};

include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

/// Which folder of migrations: each backend has its own, in its own dialect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// `migrations/sqlite`.
    Sqlite,
    /// `migrations/postgres`.
    Postgres,
}

/// The migrations of one backend, as `sqlx::migrate!` built them: same versions, descriptions,
/// checksums (SHA-384 of the text) and `-- no-transaction` opt-outs.
pub fn migrator(dialect: Dialect) -> Migrator {
    let files = match dialect {
        Dialect::Sqlite => SQLITE,
        Dialect::Postgres => POSTGRES,
    };
    Migrator::with_migrations(
        files
            .iter()
            .map(|&(version, description, sql)| {
                Migration::new(
                    version,
                    Cow::Borrowed(description),
                    MigrationType::Simple,
                    sql.into_sql_str(),
                    sql.starts_with("-- no-transaction"),
                )
            })
            .collect(),
    )
}
