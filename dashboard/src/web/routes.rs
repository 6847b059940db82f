//! Every page's address and handler, and the body limit for the forms posted to them.

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

use super::artifacts::artifact;
use super::assets::{self, HTMX_PATH};
use super::flaky::flaky_page;
use super::github;
use super::overview::{create_project, overview};
use super::people::{add_person, map_team, people_page, remove_person, unmap_team};
use super::project::{project_page, runs_partial, set_budget, set_repo};
use super::run_detail::run_page;
use super::session::{login, login_page, logout};
use super::spend::spend_page;
use super::stale::{stale_detail, stale_page};
use super::tokens::{create_token, revoke_token, tokens_page};
use super::trace_view::trace_page;
use crate::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/login", get(login_page).post(login))
        .route("/logout", post(logout))
        .route("/auth/github", get(github::start))
        .route("/auth/github/callback", get(github::callback))
        .route("/", get(overview))
        .route("/projects", post(create_project))
        .route("/p/{slug}", get(project_page))
        .route("/p/{slug}/repo", post(set_repo))
        .route("/p/{slug}/budget", post(set_budget))
        .route("/p/{slug}/runs", get(runs_partial))
        .route("/p/{slug}/runs/{run_id}", get(run_page))
        .route("/p/{slug}/runs/{run_id}/artifacts/{name}", get(artifact))
        .route(
            "/p/{slug}/runs/{run_id}/trace/{scenario_id}",
            get(trace_page),
        )
        .route("/p/{slug}/flaky", get(flaky_page))
        .route("/p/{slug}/spend", get(spend_page))
        .route("/p/{slug}/stale", get(stale_page))
        .route("/p/{slug}/stale/{id}", get(stale_detail))
        .route("/p/{slug}/tokens", get(tokens_page).post(create_token))
        .route("/p/{slug}/tokens/{id}/revoke", post(revoke_token))
        .route("/p/{slug}/people", get(people_page).post(add_person))
        .route("/p/{slug}/people/remove", post(remove_person))
        .route("/p/{slug}/people/teams", post(map_team))
        .route("/p/{slug}/people/teams/remove", post(unmap_team))
        .route(HTMX_PATH, get(assets::htmx))
        .route("/static/app.css", get(assets::css))
        .route("/static/favicon.svg", get(assets::favicon))
        .route("/static/trace.js", get(assets::trace_js))
        .route("/favicon.ico", get(assets::favicon))
        .layer(DefaultBodyLimit::max(64 * 1024))
}
