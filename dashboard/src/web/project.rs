//! A project's main page: its headline, the pass rate (per run, or per day once there are
//! enough days), the runs × scenarios grid, pass rates per scenario and environment over the
//! last 30 days, the runs list, and the owners' settings (the repository that gets the
//! project's PR comments, the weekly LLM budget).

use askama::Template;
use askama_web::WebTemplate;
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use serde::Deserialize;

use super::access::{Access, project_of};
use super::error::PageResult;
use super::layout::Layout;
use super::runs::{RunsPartial, RunsQuery, runs_list};
use super::session::{Person, redirect};
use crate::access::Role;
use crate::store::Grouping;
use crate::time::days_ago;
use crate::{AppState, admin};
use windup_model::money::usd;

struct ScenarioRate {
    scenario_id: String,
    passed: i64,
    total: i64,
    percent: i64,
}

#[derive(Template, WebTemplate)]
#[template(path = "project.html")]
struct ProjectPage {
    layout: Layout,
    slug: String,
    tab: &'static str,
    branches: Vec<String>,
    branch: String,
    status: String,
    headline: String,
    charts: super::charts::Charts,
    environments: Vec<(String, i64, i64, i64)>,
    scenarios: Vec<ScenarioRate>,
    runs: RunsPartial,
    /// `owner/name` that gets PR comments, or empty.
    github_repo: String,
    /// Why the repository just typed was refused, or empty.
    repo_error: String,
    /// The weekly budget in dollars as the form shows it (`5.00`), or empty.
    budget: String,
    budget_error: String,
}

const CHART_DAYS: i64 = 30;

/// The charts' days, oldest first, ending today.
pub(super) fn chart_days() -> Vec<String> {
    (0..CHART_DAYS).rev().map(days_ago).collect()
}

pub(super) async fn project_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
    Query(q): Query<RunsQuery>,
) -> PageResult {
    let access = project_of(&state, &person, &slug, Role::Viewer).await?;
    render(&state, access, &q, Refused::default()).await
}

/// A setting the owner just typed and why it was refused.
#[derive(Default)]
pub(super) struct Refused {
    repo: String,
    budget: String,
}

pub(super) async fn render(
    state: &AppState,
    access: Access,
    q: &RunsQuery,
    refused: Refused,
) -> PageResult {
    let Access { project, layout } = access;
    let days = chart_days();
    let since = days[0].clone();
    let by_branch = state
        .store
        .pass_rates(project.id, Grouping::Branch, &since)
        .await?;
    let by_scenario = state
        .store
        .pass_rates(project.id, Grouping::Scenario, &since)
        .await?;
    let mut totals: Vec<ScenarioRate> = Vec::new();
    for r in &by_scenario {
        let id = r.key.clone().unwrap_or_default();
        match totals.iter_mut().find(|t| t.scenario_id == id) {
            Some(t) => {
                t.passed += r.passed;
                t.total += r.total;
            }
            None => totals.push(ScenarioRate {
                scenario_id: id,
                passed: r.passed,
                total: r.total,
                percent: 0,
            }),
        }
    }
    for t in &mut totals {
        t.percent = if t.total > 0 {
            100 * t.passed / t.total
        } else {
            0
        };
    }
    totals.sort_by(|a, b| {
        a.percent
            .cmp(&b.percent)
            .then(a.scenario_id.cmp(&b.scenario_id))
    });
    let page = ProjectPage {
        slug: project.slug.clone(),
        tab: "runs",
        branches: state.store.branches(project.id).await?,
        branch: q.branch.clone().unwrap_or_default(),
        status: q.status.clone().unwrap_or_default(),
        headline: super::headline::headline(state, &project)
            .await?
            .html(false),
        charts: super::charts::charts(state, &project, &days, &by_branch).await?,
        environments: super::charts::environment_rates(state, &project, &since).await?,
        scenarios: totals,
        runs: runs_list(state, &project, q).await?,
        github_repo: project.github_repo.clone().unwrap_or_default(),
        repo_error: refused.repo,
        budget: project
            .budget_micro_usd
            .map(|b| {
                usd(u64::try_from(b).unwrap_or(0))
                    .trim_start_matches('$')
                    .to_string()
            })
            .unwrap_or_default(),
        budget_error: refused.budget,
        layout,
    };
    Ok(page.into_response())
}

/// Whether a request is htmx swapping a fragment in, rather than a page load (a link, a reload,
/// or htmx restoring a page of its history, which needs the whole page).
pub(super) fn wants_fragment(headers: &HeaderMap) -> bool {
    headers.contains_key("hx-request") && !headers.contains_key("hx-history-restore-request")
}

/// The runs list alone, for htmx to swap into the project page; the project page with this
/// filter when opened as a page.
pub(super) async fn runs_partial(
    State(state): State<AppState>,
    person: Person,
    headers: HeaderMap,
    Path(slug): Path<String>,
    Query(q): Query<RunsQuery>,
) -> PageResult {
    let access = project_of(&state, &person, &slug, Role::Viewer).await?;
    if !wants_fragment(&headers) {
        return render(&state, access, &q, Refused::default()).await;
    }
    let Access { project, .. } = access;
    Ok(runs_list(&state, &project, &q).await?.into_response())
}

#[derive(Deserialize)]
pub(super) struct RepoForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    repo: String,
}

/// The repository form: `owner/name`, or blank to stop commenting. Back to the project page;
/// a refused name is shown there with why.
pub(super) async fn set_repo(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
    Form(form): Form<RepoForm>,
) -> PageResult {
    person.check_csrf(&form.csrf)?;
    // A project setting: owners only.
    let access = project_of(&state, &person, &slug, Role::Owner).await?;
    match admin::set_repo(&*state.store, &access.project, &form.repo).await {
        Ok(_) => Ok(redirect(&format!("/p/{}", access.project.slug))),
        Err(e) => {
            let refused = Refused {
                repo: e.message,
                ..Refused::default()
            };
            let mut response = render(&state, access, &RunsQuery::default(), refused).await?;
            *response.status_mut() = e.status;
            Ok(response)
        }
    }
}

#[derive(Deserialize)]
pub(super) struct BudgetForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    budget: String,
}

/// The weekly LLM budget in dollars (`5`, `12.50`), or blank for none: micro-dollars, or why not.
fn parse_budget(text: &str) -> Result<Option<i64>, String> {
    let text = text.trim().trim_start_matches('$');
    if text.is_empty() {
        return Ok(None);
    }
    let (whole, frac) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    if !digits(whole) || !(frac.is_empty() || digits(frac)) || frac.len() > 6 || whole.len() > 9 {
        return Err(format!(
            "`{text}` is not an amount in dollars: write it like 25 or 12.50 (at most $999,999,999)"
        ));
    }
    let micro = whole.parse::<i64>().unwrap_or(0) * 1_000_000
        + format!("{frac:0<6}").parse::<i64>().unwrap_or(0);
    Ok(Some(micro))
}

/// The budget form: dollars per week, or blank to set none. Back to the project page.
pub(super) async fn set_budget(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
    Form(form): Form<BudgetForm>,
) -> PageResult {
    person.check_csrf(&form.csrf)?;
    let access = project_of(&state, &person, &slug, Role::Owner).await?;
    match parse_budget(&form.budget) {
        Ok(micro) => {
            state.store.set_budget(access.project.id, micro).await?;
            Ok(redirect(&format!("/p/{}", access.project.slug)))
        }
        Err(why) => {
            let refused = Refused {
                budget: why,
                ..Refused::default()
            };
            let mut response = render(&state, access, &RunsQuery::default(), refused).await?;
            *response.status_mut() = axum::http::StatusCode::UNPROCESSABLE_ENTITY;
            Ok(response)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_budget;

    #[test]
    fn budgets_are_dollars_to_the_micro_dollar() {
        assert_eq!(parse_budget(" $12.50 "), Ok(Some(12_500_000)));
        assert_eq!(parse_budget("5"), Ok(Some(5_000_000)));
        assert_eq!(parse_budget(""), Ok(None));
        for bad in ["-1", "1e3", "1.2345678", "ten", ".5", "9999999999"] {
            assert!(parse_budget(bad).is_err(), "{bad}");
        }
    }
}
