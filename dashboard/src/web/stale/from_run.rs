//! A plan a pushed run stopped trusting: the evidence and verdict are that run's own result for
//! the scenario; the replacement is the one the run verified, else a later shared-cache save.

use super::super::access::project_of;
use super::super::error::{PageResult, not_found};
use super::super::session::Person;
use super::view::{Stale, page as stale_page};
use crate::AppState;
use crate::access::Role;

pub(super) async fn page(state: &AppState, person: &Person, slug: String, id: i64) -> PageResult {
    let access = project_of(state, person, &slug, Role::Viewer).await?;
    let row = state
        .store
        .run_stale_entry(access.project.id, id)
        .await?
        .ok_or_else(|| not_found("stale plan"))?;
    let stale = Stale {
        run_id: Some(row.run_id),
        scenario_id: row.scenario_id,
        start_url: row.start_url,
        branch: row.branch,
        reason: row.reason,
        stale_ms: row.stale_ms,
        entry_json: row.entry_json,
        replaced_json: row.replaced_json,
        source: "a pushed run",
    };
    stale_page(state, access, slug, stale).await
}
