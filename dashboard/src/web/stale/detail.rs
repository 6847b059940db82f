//! `/p/{slug}/stale/{id}`: `run-<n>` is a plan a pushed run stopped trusting, a bare number a
//! shared-cache entry that was replaced.

use axum::extract::{Path, State};

use super::super::error::{PageResult, not_found};
use super::super::session::Person;
use crate::AppState;

/// The prefix of the ids of run-uploaded stale plans.
pub(super) const RUN_PREFIX: &str = "run-";

pub(in crate::web) async fn stale_detail(
    State(state): State<AppState>,
    person: Person,
    Path((slug, id)): Path<(String, String)>,
) -> PageResult {
    let number = |s: &str| s.parse::<i64>().map_err(|_| not_found("stale plan"));
    match id.strip_prefix(RUN_PREFIX) {
        Some(n) => super::from_run::page(&state, &person, slug, number(n)?).await,
        None => super::shared_cache::page(&state, &person, slug, number(&id)?).await,
    }
}
