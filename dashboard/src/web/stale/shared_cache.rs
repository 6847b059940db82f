//! A shared-cache entry a newer plan replaced: the evidence is the last run on its branch that
//! failed or re-planned the scenario before it went stale.

use axum::response::IntoResponse;
use windup_model::{CacheEntry, RunReport};

use super::super::access::{Access, project_of};
use super::super::error::{PageResult, not_found};
use super::super::session::Person;
use super::view::{StaleDetailPage, diff, entry, evidence, invalidation};
use crate::AppState;
use crate::access::Role;
use crate::time::display;

pub(super) async fn page(state: &AppState, person: &Person, slug: String, id: i64) -> PageResult {
    let Access { project, layout } = project_of(state, person, &slug, Role::Viewer).await?;
    let row = state
        .store
        .stale_entry(project.id, id)
        .await?
        .ok_or_else(|| not_found("stale plan"))?;
    let old = entry(&row.entry_json)?;
    let new: Option<CacheEntry> = row
        .replaced_json
        .as_deref()
        .and_then(|j| serde_json::from_str(j).ok());
    let mut found = None;
    if let Some(run_id) = state
        .store
        .last_failure(project.id, &row.scenario_id, &row.branch, row.stale_ms)
        .await?
        && let Some(run) = state.store.run(project.id, &run_id).await?
        && let Ok(report) = serde_json::from_str::<RunReport>(&run.report_json)
        && let Some(s) = report
            .scenarios
            .iter()
            .find(|s| s.scenario_id == row.scenario_id)
    {
        let names = state.store.artifact_names(project.id, &run_id).await?;
        found = Some(evidence(&slug, run_id, s, &old, &names));
    }
    let page = StaleDetailPage {
        layout,
        slug,
        tab: "stale",
        scenario_id: row.scenario_id,
        start_url: row.start_url,
        branch: row.branch,
        reason: row.stale_reason,
        when: display(row.stale_ms),
        source: "the shared cache",
        invalidation: invalidation(&old),
        evidence: found,
        diff: diff(&old, new.as_ref()),
        replaced: new.is_some(),
    };
    Ok(page.into_response())
}
