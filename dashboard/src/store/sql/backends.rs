//! The two backends: a pool each, their migrations, and how each takes concurrent writes.
//! The SQL they run is in the sibling files, once for both.

use std::path::Path;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};

use super::migrations::{Dialect, migrator};
use crate::store::{Result, Store, StoreError};

/// Opens the store a URL names and applies its migrations: `postgres://…` or
/// `postgresql://…` for PostgreSQL, anything else a SQLite file (`sqlite://path` or a path).
pub async fn open(url: &str) -> Result<Arc<dyn Store>> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(PgStore::connect(url).await?))
    } else {
        let path = url.strip_prefix("sqlite://").unwrap_or(url);
        Ok(Arc::new(SqliteStore::open(Path::new(path)).await?))
    }
}

/// The embedded default: one SQLite file, created when missing.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    pub(super) pool: SqlitePool,
    /// SQLite has one writer at a time. Concurrent write transactions would each wait in
    /// SQLite's busy handler, which sleeps in growing steps; queueing them here instead keeps
    /// ingest at the disk's pace when several CI jobs upload at once.
    writer: std::sync::Arc<tokio::sync::Mutex<()>>,
}

impl SqliteStore {
    pub async fn open(path: &Path) -> Result<Self> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .busy_timeout(Duration::from_secs(5))
            .foreign_keys(true);
        let pool = SqlitePoolOptions::new()
            .max_connections(8)
            .connect_with(options)
            .await?;
        migrator(Dialect::Sqlite).run(&pool).await?;
        Ok(SqliteStore {
            pool,
            writer: Default::default(),
        })
    }

    pub(super) async fn serial_writes(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        Some(self.writer.lock().await)
    }
}

/// PostgreSQL for teams (`DATABASE_URL=postgres://…`).
#[derive(Debug, Clone)]
pub struct PgStore {
    pub(super) pool: PgPool,
}

impl PgStore {
    pub async fn connect(url: &str) -> Result<Self> {
        // A plan for each query's own parameters: the pages' queries turn on them (a LIMIT and
        // OFFSET, a filter most or no runs match), and the generic plan PostgreSQL switches a
        // prepared statement to after five runs guesses a LIMIT parameter keeps a tenth of the
        // rows, then scans and hashes every run (50 ms for a page of 25 at 100,000 runs). Set
        // once connected, not as a startup option, which a pooler such as PgBouncer refuses.
        let options = sqlx::postgres::PgConnectOptions::from_str(url)?;
        let pool = PgPoolOptions::new()
            .max_connections(16)
            .acquire_timeout(Duration::from_secs(10))
            .after_connect(|conn, _| {
                Box::pin(async move {
                    sqlx::Executor::execute(&mut *conn, "SET plan_cache_mode = force_custom_plan")
                        .await?;
                    Ok(())
                })
            })
            .connect_with(options)
            .await?;
        migrator(Dialect::Postgres).run(&pool).await?;
        Ok(PgStore { pool })
    }

    /// PostgreSQL takes concurrent writers itself.
    pub(super) async fn serial_writes(&self) -> Option<tokio::sync::MutexGuard<'_, ()>> {
        None
    }
}

/// A unique-key violation as `Conflict`, naming what already exists.
pub(super) fn conflict(e: sqlx::Error, what: &str) -> StoreError {
    match &e {
        sqlx::Error::Database(db) if db.is_unique_violation() => {
            StoreError::Conflict(what.to_string())
        }
        _ => StoreError::Db(e),
    }
}
