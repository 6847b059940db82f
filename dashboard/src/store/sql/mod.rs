//! The SQL behind `Store`, written once and instantiated for SQLite and PostgreSQL. Both
//! backends accept `$N` placeholders, `RETURNING`, `ON CONFLICT` and partial indexes, and the
//! schema uses only BIGINT and TEXT (plus BLOB/BYTEA for screenshots), so one query text serves
//! both. Macros rather than generics: each file below writes its queries once in a
//! `macro_rules!` and compiles it for each backend, as sqlx's executor bounds over two
//! databases cost more to read than the repetition they save. `SUM` is cast to BIGINT because
//! PostgreSQL returns NUMERIC for it.
//!
//! Shared pieces of query text are macros rather than consts, so queries are `concat!`-ed
//! into `&'static str`, which sqlx 0.9 takes as SQL without an `AssertSqlSafe`: no query text
//! here is ever built from input.

// The columns of a `RunSummary`, for every file that reads runs (a macro, to be `concat!`-ed).
macro_rules! run_columns {
    () => {
        "SELECT run_id, started_ms, finished_ms, branch, commit_sha, workflow_run, shard, \
         scenarios, passed, failed, skipped, flaky, llm_calls, cost_micro_usd, cache_hits, duration_ms, \
         pr_repo, pr_number, comment_status, healed, environment FROM runs "
    };
}

mod accounts;
mod artifacts;
mod backends;
mod cache;
mod github;
mod headline;
mod impl_store;
mod ingest;
mod migrations;
mod people;
mod reads;
mod retention;
mod sitemap;
mod tokens;

pub use backends::{PgStore, SqliteStore, open};
pub use migrations::{Dialect, migrator};
