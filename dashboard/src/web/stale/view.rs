//! What a stale plan's page shows, whichever source it came from: the facts, the failing run's
//! evidence and triage verdict, and the step diff against the plan that replaced it.

use askama::Template;
use askama_web::WebTemplate;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use windup_model::{CacheEntry, RunReport, ScenarioResult};

use super::super::access::Access;
use super::super::artifacts::screenshot_url;
use super::super::error::{PageError, PageResult};
use super::super::layout::Layout;
use crate::AppState;
use crate::time::display;
use windup_model::diff::diff_steps;

/// A stale plan as either source stores it, with the run whose result is its evidence.
pub(super) struct Stale {
    pub scenario_id: String,
    pub start_url: String,
    pub branch: String,
    pub reason: String,
    pub stale_ms: i64,
    pub entry_json: String,
    pub replaced_json: Option<String>,
    /// "a pushed run" or "the shared cache".
    pub source: &'static str,
    /// The run whose result for the scenario is the evidence, when there is one.
    pub run_id: Option<String>,
}

/// The page of a stale plan: its facts, the evidence run's result, the diff to its replacement.
pub(super) async fn page(
    state: &AppState,
    Access { project, layout }: Access,
    slug: String,
    stale: Stale,
) -> PageResult {
    let old = entry(&stale.entry_json)?;
    let new: Option<CacheEntry> = stale
        .replaced_json
        .as_deref()
        .and_then(|j| serde_json::from_str(j).ok());
    let mut found = None;
    if let Some(run_id) = stale.run_id
        && let Some(run) = state.store.run(project.id, &run_id).await?
        && let Ok(report) = serde_json::from_str::<RunReport>(&run.report_json)
        && let Some(s) = report
            .scenarios
            .iter()
            .find(|s| s.scenario_id == stale.scenario_id)
    {
        let names = state.store.artifact_names(project.id, &run_id).await?;
        found = Some(evidence(&slug, run_id, s, &old, &names));
    }
    let page = StaleDetailPage {
        layout,
        slug,
        tab: "stale",
        scenario_id: stale.scenario_id,
        start_url: stale.start_url,
        branch: stale.branch,
        reason: stale.reason,
        when: display(stale.stale_ms),
        source: stale.source,
        invalidation: invalidation(&old),
        evidence: found,
        diff: diff(&old, new.as_ref()),
        replaced: new.is_some(),
    };
    Ok(page.into_response())
}

/// The failing run's evidence.
#[derive(Default)]
pub(super) struct EvidenceView {
    pub run_id: String,
    pub run_url: String,
    pub failure_class: String,
    /// The triage verdict of the failed result (empty when it has none) and its facts.
    pub verdict: String,
    pub verdict_facts: Vec<String>,
    pub message: String,
    pub failing_step: String,
    pub url: String,
    pub target: String,
    pub console_errors: Vec<String>,
    pub failed_requests: Vec<String>,
    pub screenshot: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "stale_detail.html")]
pub(super) struct StaleDetailPage {
    pub layout: Layout,
    pub slug: String,
    pub tab: &'static str,
    pub scenario_id: String,
    pub start_url: String,
    pub branch: String,
    pub reason: String,
    pub when: String,
    /// Where it comes from: "a pushed run" or "the shared cache".
    pub source: &'static str,
    pub invalidation: String,
    pub evidence: Option<EvidenceView>,
    pub diff: Vec<DiffRow>,
    pub replaced: bool,
}

/// A stored entry, read back; unreadable is the dashboard's fault (it checked it on the way in).
fn entry(json: &str) -> Result<CacheEntry, PageError> {
    serde_json::from_str(json).map_err(|e| {
        PageError(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("stored entry unreadable: {e}"),
        )
    })
}

fn steps(entry: &CacheEntry) -> Vec<String> {
    entry
        .plan
        .actions
        .iter()
        .map(|a| format!("{}: {}", a.id, a.summary()))
        .collect()
}

/// One row of the step diff as the page shows it: numbered from 1, blank where absent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct DiffRow {
    /// `same`, `removed` (only in the old plan) or `added` (only in the new one).
    pub kind: &'static str,
    pub old_no: String,
    pub new_no: String,
    pub text: String,
}

/// The old plan's steps against the new one's, or the old plan alone while nothing replaced it.
fn diff(old: &CacheEntry, new: Option<&CacheEntry>) -> Vec<DiffRow> {
    let old_steps = steps(old);
    let rows = match new {
        Some(n) => diff_steps(&old_steps, &steps(n)),
        None => diff_steps(&old_steps, &old_steps),
    };
    let no = |i: Option<usize>| i.map(|i| (i + 1).to_string()).unwrap_or_default();
    rows.into_iter()
        .map(|r| DiffRow {
            kind: r.kind.as_str(),
            old_no: no(r.old),
            new_no: no(r.new),
            text: r.text,
        })
        .collect()
}

/// The invalidation's reason and message, one line.
fn invalidation(old: &CacheEntry) -> String {
    old.invalidation
        .as_ref()
        .map(|i| format!("{} {}", i.reason, i.message.clone().unwrap_or_default()))
        .unwrap_or_default()
}

/// The evidence of scenario result `s` of run `run_id`, its failing step named in the old plan.
fn evidence(
    slug: &str,
    run_id: String,
    s: &ScenarioResult,
    old: &CacheEntry,
    artifact_names: &[String],
) -> EvidenceView {
    let ev = s.evidence.clone().unwrap_or_default();
    let why = old.invalidation.as_ref();
    let failing = s
        .failed_action_id
        .clone()
        .or_else(|| why.and_then(|i| i.failed_action_id.clone()))
        .or_else(|| ev.action_id.clone())
        .unwrap_or_default();
    let failure_class = s
        .failure_class
        .or_else(|| why.and_then(|i| i.failure_class))
        .map(|c| c.as_str().to_string());
    // What replaced the failed replay: a heal (no LLM) or a re-plan; each said as what it was.
    let recovered = match (&s.heal, s.cache) {
        (Some(h), _) => format!("healed without an LLM ({}) and passed", h.describe()),
        (None, windup_model::CacheOutcome::Healed) => "healed without an LLM and passed".into(),
        _ => "re-planned and passed".into(),
    };
    let recovered_in_run = s.failure_class.is_none();
    EvidenceView {
        run_url: format!("/p/{slug}/runs/{run_id}"),
        failure_class: match (failure_class, recovered_in_run) {
            (Some(c), false) => c,
            (Some(c), true) => format!("{c} on replay; {recovered}"),
            (None, _) => format!("replay failed; {recovered}"),
        },
        verdict: s
            .triage
            .as_ref()
            .map(|t| t.verdict.as_str().to_string())
            .unwrap_or_default(),
        verdict_facts: s
            .triage
            .as_ref()
            .map(|t| t.facts.clone())
            .unwrap_or_default(),
        message: s
            .message
            .clone()
            .or_else(|| why.and_then(|i| i.message.clone()))
            .unwrap_or_default(),
        failing_step: old
            .plan
            .actions
            .iter()
            .find(|a| a.id == failing)
            .map(|a| format!("{}: {}", a.id, a.summary()))
            .unwrap_or(failing),
        url: ev
            .url
            .clone()
            .or_else(|| why.and_then(|i| i.url.clone()))
            .unwrap_or_default(),
        target: ev.target.clone().unwrap_or_default(),
        console_errors: ev.console_errors.clone(),
        failed_requests: ev.failed_requests.clone(),
        screenshot: screenshot_url(slug, &run_id, ev.screenshot.as_deref(), artifact_names),
        run_id,
    }
}
