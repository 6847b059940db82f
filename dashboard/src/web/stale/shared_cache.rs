//! A shared-cache entry a newer plan replaced: the evidence is the last run on its branch that
//! failed or re-planned the scenario before it went stale.

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
        .stale_entry(access.project.id, id)
        .await?
        .ok_or_else(|| not_found("stale plan"))?;
    let run_id = state
        .store
        .last_failure(
            access.project.id,
            &row.scenario_id,
            &row.branch,
            row.stale_ms,
        )
        .await?;
    let stale = Stale {
        run_id,
        scenario_id: row.scenario_id,
        start_url: row.start_url,
        branch: row.branch,
        reason: row.stale_reason,
        stale_ms: row.stale_ms,
        entry_json: row.entry_json,
        replaced_json: row.replaced_json,
        source: "the shared cache",
    };
    stale_page(state, access, slug, stale).await
}
