//! The pages people read: askama templates (auto-escaped), htmx vendored and served from the
//! binary, charts as inline SVG, a strict CSP. A session cookie is required; API tokens are
//! never accepted here. Every form carries a CSRF token.
//!
//! One file per page (`overview`, `project`, `runs`, `run_detail`, `flaky`, `spend`, `stale`,
//! `tokens`, `people`), beside what the pages share: the signed-in `session` (and sign-in with
//! `github`), the role it holds in a project (`access`), `csrf`, the page `layout`, page
//! `error`s, uploaded `artifacts` (the run page's trace `filmstrip` and its `trace_view`), static `assets`, the
//! `headline` and the project page's `charts`, and the `routes` that name them all.

mod access;
mod artifacts;
mod assets;
mod charts;
mod cookies;
mod csrf;
mod error;
mod filmstrip;
mod flaky;
mod github;
mod headline;
mod layout;
mod overview;
mod people;
mod project;
mod routes;
mod run_detail;
mod runs;
mod session;
mod spend;
mod stale;
mod step_view;
mod tokens;
mod trace_view;

pub use assets::HTMX_PATH;
pub use error::PageError;
pub use routes::routes;
pub use session::Person;
