//! Stale plans: cached plans the cache stopped trusting, and for each the evidence of the run
//! that failed it and a diff against the plan that replaced it.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use windup_model::{CacheEntry, RunReport};

use super::access::{Access, project_of};
use super::artifacts::screenshot_url;
use super::error::{PageError, PageResult, not_found};
use super::layout::Layout;
use super::session::Person;
use crate::AppState;
use crate::access::Role;
use crate::diff::{DiffRow, diff_steps};
use crate::time::display;

struct StaleView {
    id: i64,
    scenario_id: String,
    branch: String,
    reason: String,
    when: String,
    replaced: bool,
}

#[derive(Template, WebTemplate)]
#[template(path = "stale.html")]
struct StalePage {
    layout: Layout,
    slug: String,
    tab: &'static str,
    rows: Vec<StaleView>,
}

pub(super) async fn stale_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
) -> PageResult {
    let Access { project, layout } = project_of(&state, &person, &slug, Role::Viewer).await?;
    let rows = state
        .store
        .stale_entries(project.id, 200)
        .await?
        .into_iter()
        .map(|s| StaleView {
            id: s.id,
            scenario_id: s.scenario_id,
            branch: s.branch,
            reason: s.stale_reason,
            when: display(s.stale_ms),
            replaced: s.replaced_json.is_some(),
        })
        .collect();
    Ok(StalePage {
        layout,
        slug,
        tab: "stale",
        rows,
    }
    .into_response())
}

#[derive(Default)]
struct EvidenceView {
    run_id: String,
    run_url: String,
    failure_class: String,
    message: String,
    failing_step: String,
    url: String,
    target: String,
    console_errors: Vec<String>,
    failed_requests: Vec<String>,
    screenshot: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "stale_detail.html")]
struct StaleDetailPage {
    layout: Layout,
    slug: String,
    tab: &'static str,
    scenario_id: String,
    start_url: String,
    branch: String,
    reason: String,
    when: String,
    invalidation: String,
    evidence: Option<EvidenceView>,
    diff: Vec<DiffRow>,
    replaced: bool,
}

fn steps(entry: &CacheEntry) -> Vec<String> {
    entry
        .plan
        .actions
        .iter()
        .map(|a| format!("{}: {}", a.id, a.summary()))
        .collect()
}

pub(super) async fn stale_detail(
    State(state): State<AppState>,
    person: Person,
    Path((slug, id)): Path<(String, i64)>,
) -> PageResult {
    let Access { project, layout } = project_of(&state, &person, &slug, Role::Viewer).await?;
    let row = state
        .store
        .stale_entry(project.id, id)
        .await?
        .ok_or_else(|| not_found("stale plan"))?;
    let old: CacheEntry = serde_json::from_str(&row.entry_json).map_err(|e| {
        PageError(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("stored entry unreadable: {e}"),
        )
    })?;
    let new: Option<CacheEntry> = row
        .replaced_json
        .as_deref()
        .and_then(|j| serde_json::from_str(j).ok());
    let old_steps = steps(&old);
    let diff = match &new {
        Some(n) => diff_steps(&old_steps, &steps(n)),
        None => diff_steps(&old_steps, &old_steps),
    };
    let invalidation = old
        .invalidation
        .as_ref()
        .map(|i| format!("{} {}", i.reason, i.message.clone().unwrap_or_default()))
        .unwrap_or_default();
    let mut evidence = None;
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
        let ev = s.evidence.clone().unwrap_or_default();
        let failing = s
            .failed_action_id
            .clone()
            .or_else(|| ev.action_id.clone())
            .unwrap_or_default();
        evidence = Some(EvidenceView {
            run_url: format!("/p/{slug}/runs/{run_id}"),
            failure_class: match s.failure_class {
                Some(c) => c.as_str().to_string(),
                None => "replay failed; re-planned and passed".to_string(),
            },
            message: s.message.clone().unwrap_or_default(),
            failing_step: old
                .plan
                .actions
                .iter()
                .find(|a| a.id == failing)
                .map(|a| format!("{}: {}", a.id, a.summary()))
                .unwrap_or(failing),
            url: ev.url.clone().unwrap_or_default(),
            target: ev.target.clone().unwrap_or_default(),
            console_errors: ev.console_errors.clone(),
            failed_requests: ev.failed_requests.clone(),
            screenshot: screenshot_url(&slug, &run_id, ev.screenshot.as_deref(), &names),
            run_id,
        });
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
        invalidation,
        evidence,
        diff,
        replaced: new.is_some(),
    };
    Ok(page.into_response())
}
