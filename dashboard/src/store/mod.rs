//! Storage: one small `Store` trait, implemented for SQLite (the embedded default) and
//! PostgreSQL. Both run the same SQL text (see `sql/`); times are UTC epoch milliseconds and
//! money integer micro-dollars, never floats.

mod interface;
mod rows;
mod sql;

pub use interface::{Result, Store, StoreError};
pub use rows::{
    CachePut, CacheRow, FlakyRow, GridCell, Grouping, InvitationRow, MemberRow, NewLedger,
    NewResult, NewRun, NewStale, NewToken, Project, Pruned, RateRow, ReviewRow, RunDetail,
    RunFilter, RunStaleRow, RunSummary, SessionRow, SpendRow, StaleRow, TeamRoleRow, TokenInfo,
    TokenRow, TokenState, UserInfo, UserRow,
};
pub use sql::{Dialect, PgStore, SqliteStore, migrator, open};
