//! The headline a team lead reads first, on the overview and atop a project's page: the default
//! branch's state now (green or red, since when, by which commit), the scenarios failing now
//! with their triage verdict and the run they first failed in, the heals and proposals waiting
//! for a person, and the spend of the last seven days against the project's budget.

use askama::Template;
use windup_model::money::usd;
use windup_model::{RunReport, ScenarioStatus};

use super::error::PageError;
use crate::AppState;
use crate::store::{Grouping, Project, RunFilter, RunSummary};
use crate::svg;
use crate::time::{days_ago, display};

/// Failing scenarios listed, at most; the rest are counted.
const FAILING_SHOWN: usize = 10;
/// Heals and proposals read, newest first, to find those still waiting.
const REVIEWS_READ: i64 = 50;
/// Shards of the latest workflow run read for their failures.
const SHARDS_READ: i64 = 20;

pub(super) struct Failing {
    pub(super) scenario_id: String,
    /// The triage verdict (`app_changed`), else the failure class.
    pub(super) verdict: String,
    pub(super) message: String,
    /// The run it first failed in since it last passed, and when.
    pub(super) first_url: String,
    pub(super) first_run: String,
    pub(super) first_when: String,
}

pub(super) struct Review {
    pub(super) scenario_id: String,
    pub(super) branch: String,
    /// `heal` or `proposal`.
    pub(super) kind: &'static str,
    /// What changed, in one line.
    pub(super) what: String,
    pub(super) run_url: String,
    pub(super) when: String,
    /// The command that takes it into the committed cache.
    pub(super) command: String,
}

pub(super) struct Headline {
    pub(super) slug: String,
    pub(super) branch: String,
    /// `green`, `red`, or `none` (no run on the branch yet).
    pub(super) state: &'static str,
    pub(super) since: String,
    pub(super) since_url: String,
    pub(super) commit: String,
    pub(super) last_url: String,
    pub(super) last_when: String,
    pub(super) failing: Vec<Failing>,
    /// Failing scenarios beyond those listed.
    pub(super) failing_more: usize,
    pub(super) reviews: Vec<Review>,
    pub(super) week_cost: String,
    pub(super) week_calls: i64,
    pub(super) week_tokens: i64,
    /// `$5.00`, or empty when no budget is set.
    pub(super) budget: String,
    pub(super) budget_percent: i64,
    pub(super) over_budget: bool,
    /// The default branch's pass rate per day over 14 days (a sparkline), or empty.
    pub(super) trend: String,
}

fn short(commit: Option<&str>) -> String {
    commit
        .map(|c| c.chars().take(8).collect())
        .unwrap_or_default()
}

/// The project's headline.
pub(super) async fn headline(state: &AppState, project: &Project) -> Result<Headline, PageError> {
    let store = &state.store;
    let slug = &project.slug;
    let branch = &project.default_branch;
    let run_url = |id: &str| format!("/p/{slug}/runs/{id}");
    let latest = store.latest_run(project.id, branch).await?;
    let mut h = Headline {
        slug: slug.clone(),
        branch: branch.clone(),
        state: "none",
        since: String::new(),
        since_url: String::new(),
        commit: String::new(),
        last_url: String::new(),
        last_when: String::new(),
        failing: Vec::new(),
        failing_more: 0,
        reviews: Vec::new(),
        week_cost: String::new(),
        week_calls: 0,
        week_tokens: 0,
        budget: String::new(),
        budget_percent: 0,
        over_budget: false,
        trend: String::new(),
    };
    if let Some(last) = &latest {
        let group = shards(state, project.id, last).await?;
        let failing = group.iter().any(|r| r.failed > 0);
        h.state = if failing { "red" } else { "green" };
        h.commit = short(last.commit_sha.as_deref());
        h.last_url = run_url(&last.run_id);
        h.last_when = display(last.started_ms);
        if let Some(first) = store.streak_start(project.id, branch, failing).await? {
            h.since = display(first.started_ms);
            h.since_url = run_url(&first.run_id);
            if failing {
                // Red since the commit that broke it.
                h.commit = short(first.commit_sha.as_deref());
            }
        }
        let mut all = Vec::new();
        for run in group.iter().filter(|r| r.failed > 0) {
            all.extend(failures(state, project.id, &run.run_id).await?);
        }
        h.failing_more = all.len().saturating_sub(FAILING_SHOWN);
        for (scenario_id, verdict, message) in all.into_iter().take(FAILING_SHOWN) {
            let first = store
                .first_failure(project.id, &scenario_id, branch)
                .await?;
            let (first_run, first_when) =
                first.map(|(id, ms)| (id, display(ms))).unwrap_or_default();
            h.failing.push(Failing {
                scenario_id,
                verdict,
                message,
                first_url: if first_run.is_empty() {
                    String::new()
                } else {
                    run_url(&first_run)
                },
                first_run,
                first_when,
            });
        }
    }
    h.reviews = reviews(state, project).await?;
    let week = store.spend(project.id, &days_ago(6)).await?;
    let cost = week
        .iter()
        .fold(0i64, |a, r| a.saturating_add(r.cost_micro_usd));
    h.week_calls = week.iter().map(|r| r.calls).sum();
    h.week_tokens = week
        .iter()
        .map(|r| r.input_tokens.saturating_add(r.output_tokens))
        .sum();
    h.week_cost = usd(u64::try_from(cost).unwrap_or(0));
    if let Some(budget) = project.budget_micro_usd.filter(|b| *b > 0) {
        h.budget = usd(u64::try_from(budget).unwrap_or(0));
        h.budget_percent = i64::try_from(i128::from(cost) * 100 / i128::from(budget)).unwrap_or(0);
        h.over_budget = cost > budget;
    }
    let rates = store
        .pass_rates(project.id, Grouping::Branch, &days_ago(13))
        .await?;
    let days: Vec<String> = (0..14).rev().map(days_ago).collect();
    let points: Vec<(String, i64, i64)> = days
        .iter()
        .filter_map(|d| {
            let (p, t) = rates
                .iter()
                .filter(|r| r.key.as_deref() == Some(branch.as_str()) && r.day == *d)
                .fold((0, 0), |(p, t), r| (p + r.passed, t + r.total));
            (t > 0).then(|| (d.clone(), p, t))
        })
        .collect();
    if !points.is_empty() {
        h.trend = svg::sparkline(&points);
    }
    Ok(h)
}

/// The run and the other shards of its CI workflow run.
async fn shards(
    state: &AppState,
    project_id: i64,
    last: &RunSummary,
) -> Result<Vec<RunSummary>, PageError> {
    let Some(workflow_run) = &last.workflow_run else {
        return Ok(vec![last.clone()]);
    };
    let group = state
        .store
        .runs(
            project_id,
            &RunFilter {
                workflow_run: Some(workflow_run.clone()),
                branch: last.branch.clone(),
                limit: SHARDS_READ,
                ..RunFilter::default()
            },
        )
        .await?;
    Ok(if group.is_empty() {
        vec![last.clone()]
    } else {
        group
    })
}

/// The failed scenarios of a run: id, verdict (else failure class) and message.
async fn failures(
    state: &AppState,
    project_id: i64,
    run_id: &str,
) -> Result<Vec<(String, String, String)>, PageError> {
    let Some(run) = state.store.run(project_id, run_id).await? else {
        return Ok(Vec::new());
    };
    let Ok(report) = serde_json::from_str::<RunReport>(&run.report_json) else {
        return Ok(Vec::new());
    };
    Ok(report
        .scenarios
        .into_iter()
        .filter(|s| s.status == ScenarioStatus::Failed)
        .map(|s| {
            let verdict = s
                .triage
                .map(|t| t.verdict.as_str().to_string())
                .or(s.failure_class.map(|c| c.as_str().to_string()))
                .unwrap_or_default();
            (s.scenario_id, verdict, s.message.unwrap_or_default())
        })
        .collect())
}

/// Heals and proposals not yet taken into the committed plans: the newest per scenario and
/// branch, unless a plain replay of that scenario passed there since.
pub(super) async fn reviews(state: &AppState, project: &Project) -> Result<Vec<Review>, PageError> {
    let rows = state.store.reviews(project.id, REVIEWS_READ).await?;
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut out = Vec::new();
    for r in rows {
        let key = (r.scenario_id.clone(), r.branch.clone());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        if state
            .store
            .replayed_since(project.id, &r.scenario_id, &r.branch, r.started_ms)
            .await?
        {
            continue;
        }
        let (kind, what, command) = match (&r.proposal, &r.heal) {
            (Some(p), _) => (
                "proposal",
                {
                    let (source, file) = p.split_once(' ').unwrap_or((p.as_str(), ""));
                    format!("a verified {source} plan beside the person's plan: {file}")
                },
                format!("windup run {id} && windup accept {id}", id = r.scenario_id),
            ),
            (None, Some(h)) => (
                "heal",
                h.clone(),
                format!(
                    "windup run {id}   # heals it again locally; commit the plan it writes",
                    id = r.scenario_id
                ),
            ),
            (None, None) => continue,
        };
        out.push(Review {
            scenario_id: r.scenario_id,
            branch: r.branch,
            kind,
            what,
            run_url: format!("/p/{}/runs/{}", project.slug, r.run_id),
            when: display(r.started_ms),
            command,
        });
    }
    Ok(out)
}

/// The headline as HTML, for a page to place (`compact` on the overview: no reviewers' list).
#[derive(Template)]
#[template(path = "headline.html")]
pub(super) struct HeadlineView<'a> {
    pub(super) h: &'a Headline,
    pub(super) compact: bool,
}

impl Headline {
    pub(super) fn html(&self, compact: bool) -> String {
        HeadlineView { h: self, compact }
            .render()
            .unwrap_or_default()
    }
}
