//! One run: its scenarios with their steps, timelines, traces, evidence and suggestions, its
//! LLM ledger, and the state of its PR comment.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use windup_model::money::usd;
use windup_model::{RunReport, ScenarioStatus};

use super::access::{Access, project_of};
use super::artifacts::screenshot_url;
use super::error::{PageError, PageResult, not_found};
use super::layout::Layout;
use super::runs::{RunView, run_view};
use super::session::Person;
use super::step_view::{status_text, step_text};
use crate::AppState;
use crate::access::Role;
use crate::svg::{self, Step};
use crate::time::display;

struct ActionView {
    id: String,
    step: String,
    status: String,
    started_ms: u64,
    duration_ms: u64,
    error: String,
}

struct ScenarioView {
    scenario_id: String,
    task: String,
    status: String,
    ok: bool,
    flaky: bool,
    attempts: u32,
    cache: String,
    llm_calls: u32,
    cost: String,
    duration_ms: u64,
    failure_class: String,
    message: String,
    suggestion_summary: String,
    suggestion_fix: String,
    suggestion_by: String,
    /// The triage verdict (empty unless failed) and the facts that decided it.
    triage: String,
    triage_facts: Vec<String>,
    evidence_url: String,
    evidence_target: String,
    console_errors: Vec<String>,
    failed_requests: Vec<String>,
    screenshot: String,
    timeline: String,
    actions: Vec<ActionView>,
    /// The trace (`--trace`), as a filmstrip.
    frames: Vec<super::filmstrip::FrameView>,
    /// Of a scenario that passed healed: the step, its old and new target, the rule.
    heal: Option<HealView>,
    /// Of a failed scenario whose person's plan was kept: the plan proposed beside it.
    proposal: Option<ProposalView>,
    /// Where its trace viewer is, when it has a trace.
    trace_url: String,
}

struct HealView {
    action_id: String,
    from: String,
    to: String,
    rule: String,
}

struct ProposalView {
    file: String,
    source: String,
    headline: String,
    /// `~ a → b`, `- x`, `+ y`, with the row's kind for its colour.
    lines: Vec<(&'static str, String)>,
    command: String,
}

struct LedgerView {
    scenario_id: String,
    provider: String,
    model: String,
    calls: u32,
    input_tokens: u64,
    output_tokens: u64,
    cost: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "run.html")]
struct RunPage {
    layout: Layout,
    slug: String,
    tab: &'static str,
    run: RunView,
    workflow_run: String,
    finished: String,
    pull_request: String,
    comment_status: String,
    windup_version: String,
    base_url: String,
    scenarios: Vec<ScenarioView>,
    ledger: Vec<LedgerView>,
    /// The run debrief (`--debrief`), when the run sent one.
    debrief: Option<windup_model::Debrief>,
    /// Scenarios that passed healed: the run is green, but not silently.
    healed: Vec<String>,
    environment: String,
}

/// The steps in the order they ran, each with its start on one clock. Steps run one after
/// another, so a step that starts before the one before it ended is on another clock: the
/// steps run after a heal are timed from the healed run's own start, near 0. From such a step
/// on, starts are moved to follow the step before. A `use` step is listed after its fragment's
/// steps but started before them: it is left as it is.
fn in_order(actions: &[windup_model::ActionResult]) -> Vec<(&windup_model::ActionResult, u64)> {
    let mut out = Vec::with_capacity(actions.len());
    let (mut offset, mut prev_end) = (0u64, 0u64);
    for a in actions {
        let mut start = a.started_ms.saturating_add(offset);
        if a.kind != windup_model::ActionType::Use {
            if start < prev_end {
                offset = offset.saturating_add(prev_end - start);
                start = prev_end;
            }
            prev_end = start.saturating_add(a.duration_ms);
        }
        out.push((a, start));
    }
    out
}

/// A run of the project and its report as stored; a 404 when there is no such run.
pub(super) async fn stored_run(
    state: &AppState,
    project_id: i64,
    run_id: &str,
) -> Result<(crate::store::RunDetail, RunReport), PageError> {
    let run = state
        .store
        .run(project_id, run_id)
        .await?
        .ok_or_else(|| not_found("run"))?;
    let report: RunReport = serde_json::from_str(&run.report_json).map_err(|e| {
        PageError(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("stored report unreadable: {e}"),
        )
    })?;
    Ok((run, report))
}

pub(super) async fn run_page(
    State(state): State<AppState>,
    person: Person,
    Path((slug, run_id)): Path<(String, String)>,
) -> PageResult {
    let Access { project, layout } = project_of(&state, &person, &slug, Role::Viewer).await?;
    let (run, report) = stored_run(&state, project.id, &run_id).await?;
    let names = state.store.artifact_names(project.id, &run_id).await?;
    let scenarios = report
        .scenarios
        .iter()
        .map(|s| {
            let ev = s.evidence.clone().unwrap_or_default();
            let sug = s.suggestion.clone().unwrap_or_default();
            ScenarioView {
                scenario_id: s.scenario_id.clone(),
                task: s.task.clone().unwrap_or_default(),
                status: crate::ingest::status_str(s.status).to_string(),
                ok: s.status != ScenarioStatus::Failed,
                flaky: s.flaky,
                attempts: s.attempts,
                cache: crate::ingest::cache_str(s.cache).to_string(),
                llm_calls: s.llm_calls,
                cost: usd(s.cost_micro_usd),
                duration_ms: s.duration_ms,
                failure_class: s
                    .failure_class
                    .map(|c| c.as_str().to_string())
                    .unwrap_or_default(),
                message: s.message.clone().unwrap_or_default(),
                triage: s
                    .triage
                    .as_ref()
                    .map(|t| t.verdict.as_str().to_string())
                    .unwrap_or_default(),
                triage_facts: s
                    .triage
                    .as_ref()
                    .map(|t| t.facts.clone())
                    .unwrap_or_default(),
                suggestion_summary: sug.summary,
                suggestion_fix: sug.fix,
                suggestion_by: sug.by,
                evidence_url: ev.url.clone().unwrap_or_default(),
                evidence_target: ev.target.clone().unwrap_or_default(),
                console_errors: ev.console_errors.clone(),
                failed_requests: ev.failed_requests.clone(),
                screenshot: screenshot_url(&slug, &run_id, ev.screenshot.as_deref(), &names),
                timeline: svg::timeline(
                    &in_order(&s.actions)
                        .into_iter()
                        .map(|(a, started_ms)| Step {
                            label: a
                                .step
                                .clone()
                                .unwrap_or_else(|| format!("{} {}", a.id, a.kind.as_str())),
                            started_ms,
                            wait_ms: a.wait_ms,
                            act_ms: a.act_ms,
                            verify_ms: a.verify_ms,
                            failed: a.status == windup_model::ActionStatus::Failed,
                        })
                        .collect::<Vec<_>>(),
                ),
                actions: in_order(&s.actions)
                    .into_iter()
                    .map(|(a, started_ms)| ActionView {
                        id: a.id.clone(),
                        step: step_text(a),
                        status: if s.heal.as_ref().is_some_and(|h| h.action_id == a.id) {
                            format!("{} healed", status_text(a))
                        } else {
                            status_text(a)
                        },
                        started_ms,
                        duration_ms: a.duration_ms,
                        error: a.error.clone().unwrap_or_default(),
                    })
                    .collect(),
                frames: super::filmstrip::frames(&slug, &run_id, s, &names),
                heal: s.heal.as_ref().map(|h| HealView {
                    action_id: h.action_id.clone(),
                    from: h.from.clone(),
                    to: h.to.clone(),
                    rule: h.rule.as_str().to_string(),
                }),
                proposal: s.proposal.as_ref().map(|p| ProposalView {
                    file: p.file.clone(),
                    source: p.source.as_str().to_string(),
                    headline: p.diff.headline(),
                    lines: p
                        .diff
                        .lines()
                        .into_iter()
                        .map(|l| {
                            let kind = match l.chars().next() {
                                Some('+') => "added",
                                Some('-') => "removed",
                                _ => "changed",
                            };
                            (kind, l)
                        })
                        .collect(),
                    command: format!("windup run {id} && windup accept {id}", id = s.scenario_id),
                }),
                trace_url: if s.actions.iter().any(|a| a.trace.is_some()) {
                    format!("/p/{slug}/runs/{run_id}/trace/{}", s.scenario_id)
                } else {
                    String::new()
                },
            }
        })
        .collect();
    let ledger = state
        .store
        .ledger_for_run(project.id, &run_id)
        .await?
        .iter()
        .filter_map(|j| serde_json::from_str::<windup_model::LedgerRecord>(j).ok())
        .map(|l| LedgerView {
            scenario_id: l.scenario_id,
            provider: l.provider.unwrap_or_default(),
            model: l.model.unwrap_or_default(),
            calls: l.calls.total(),
            input_tokens: l.tokens.input,
            output_tokens: l.tokens.output,
            cost: usd(l.cost_micro_usd),
        })
        .collect();
    let s = &run.summary;
    let healed: Vec<String> = report
        .scenarios
        .iter()
        .filter(|s| s.heal.is_some() || s.cache == windup_model::CacheOutcome::Healed)
        .map(|s| s.scenario_id.clone())
        .collect();
    let page = RunPage {
        healed,
        environment: report.environment.clone().unwrap_or_default(),
        layout,
        slug: slug.clone(),
        tab: "runs",
        run: run_view(&slug, s),
        workflow_run: s.workflow_run.clone().unwrap_or_default(),
        finished: display(s.finished_ms),
        pull_request: match (&s.pr_repo, s.pr_number) {
            (Some(repo), Some(n)) => format!("{repo}#{n}"),
            _ => String::new(),
        },
        comment_status: s.comment_status.clone().unwrap_or_default(),
        windup_version: report.windup_version.clone(),
        base_url: report.base_url.clone().unwrap_or_default(),
        scenarios,
        ledger,
        debrief: report.debrief.clone(),
    };
    Ok(page.into_response())
}
