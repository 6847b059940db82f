//! The team dashboard's client, the runner's side of API v1 (`windup_model::api`): run uploads
//! with their ledger records and failure screenshots, and the branch-aware remote plan cache.
//!
//! The dashboard is never in the way of a verdict. Every request retries transient failures
//! (connection errors, time-outs, 429 with `Retry-After`, 5xx) with a capped exponential
//! back-off; an upload that still fails is written to `e2e/.windup/spool/<run_id>.json` and sent
//! again by the next `windup push` or `windup run`, which removes the file once the dashboard has
//! it (uploads are idempotent on `run_id`, so a retry never duplicates). The token comes only
//! from the environment variable named in `[dashboard] token_env`; it is never logged, never in
//! `Debug` output and never in an error.
//!
//! `settings` reads `[dashboard]`; `client` sends one request with its retries; `plans` reads and
//! writes the remote plan cache; `sitemap` the shared site map; `runs` keeps a run and uploads it (with `stale`, the plans it stopped trusting); `spool` keeps what could not
//! be delivered. The run's own hooks (restore before, save after) are in `runner/dashboard.rs`.

mod client;
mod plans;
mod runs;
mod settings;
mod sitemap;
mod spool;
mod stale;

pub use client::{Dashboard, DashboardError};
pub use plans::{RemoteEntry, prefer_remote};
pub use runs::{artifacts, keep_run, load_run};
pub use settings::{DEFAULT_TOKEN_ENV, DashboardSection, Settings, settings};
pub use spool::{
    AfterRun, Flushed, Pushed, SPOOL_VERSION, flush_spool, push, push_run, spool_path, spooled,
};
pub use stale::stale_plans;
