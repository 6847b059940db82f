//! A plan a pushed run stopped trusting: the evidence and verdict are that run's own result for
//! the scenario; the replacement is the one the run verified, else a later shared-cache save.

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
        .run_stale_entry(project.id, id)
        .await?
        .ok_or_else(|| not_found("stale plan"))?;
    let old = entry(&row.entry_json)?;
    let new: Option<CacheEntry> = row
        .replaced_json
        .as_deref()
        .and_then(|j| serde_json::from_str(j).ok());
    let mut found = None;
    if let Some(run) = state.store.run(project.id, &row.run_id).await?
        && let Ok(report) = serde_json::from_str::<RunReport>(&run.report_json)
        && let Some(s) = report
            .scenarios
            .iter()
            .find(|s| s.scenario_id == row.scenario_id)
    {
        let names = state.store.artifact_names(project.id, &row.run_id).await?;
        found = Some(evidence(&slug, row.run_id.clone(), s, &old, &names));
    }
    let page = StaleDetailPage {
        layout,
        slug,
        tab: "stale",
        scenario_id: row.scenario_id,
        start_url: row.start_url,
        branch: row.branch,
        reason: row.reason,
        when: display(row.stale_ms),
        source: "a pushed run",
        invalidation: invalidation(&old),
        evidence: found,
        diff: diff(&old, new.as_ref()),
        replaced: new.is_some(),
    };
    Ok(page.into_response())
}
