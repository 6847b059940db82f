//! The dashboard's integration tests: one binary, shared helpers in `common`.

mod api;
mod cli;
mod common;
mod fake_github_oauth;
mod github;
mod github_sign_in;
mod pages;
mod roles;
mod sign_in;
mod store_suite;
mod tokens;
