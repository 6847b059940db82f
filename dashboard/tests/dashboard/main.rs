//! The dashboard's integration tests: one binary, shared helpers in `common`.

/// Each named `async fn(Backend)` as a test on SQLite and one on PostgreSQL, in modules
/// `sqlite` and `postgres`.
macro_rules! on_both_backends {
    ($($test:ident),* $(,)?) => {
        mod sqlite {
            $(#[tokio::test]
            async fn $test() {
                super::$test(crate::common::Backend::Sqlite).await;
            })*
        }
        mod postgres {
            $(#[tokio::test]
            async fn $test() {
                super::$test(crate::common::Backend::Postgres).await;
            })*
        }
    };
}

mod api;
mod browser;
mod cli;
mod comment_repo;
mod common;
mod fake_github;
mod fake_github_oauth;
mod filmstrip;
mod github;
mod github_sign_in;
mod money;
mod pages;
mod retention;
mod roles;
mod sign_in;
mod sitemap;
mod stale_plans;
mod store_pages;
mod store_suite;
mod tokens;
mod upgrade;
