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

mod accounts;
mod artifacts;
mod backends;
mod cache;
mod github;
mod impl_store;
mod ingest;
mod people;
mod reads;
mod retention;
mod sitemap;
mod tokens;

pub use backends::{PgStore, SqliteStore, open};
