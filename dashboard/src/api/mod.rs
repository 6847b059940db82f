//! The JSON API under `/api/v1` (documented in docs/dashboard.md, "Dashboard API"). Machines only:
//! a bearer project token, never a session cookie.

mod auth;
mod body;
mod cache;
mod projects;
mod routes;
mod runs;
mod sitemap;
mod tokens;

pub use auth::ApiAuth;
pub use body::{ARTIFACT_LIMIT, DEFAULT_LIMIT, JsonBody, RUN_LIMIT};
pub use routes::routes;
