//! A project's main page: pass rates per branch and per scenario over the last 30 days, the
//! runs list, and the setting of the repository that gets the project's PR comments.

use std::collections::HashMap;

use askama::Template;
use askama_web::WebTemplate;
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::response::IntoResponse;
use serde::Deserialize;

use super::access::{Access, project_of};
use super::error::PageResult;
use super::layout::Layout;
use super::runs::{RunsPartial, RunsQuery, runs_list};
use super::session::{Person, redirect};
use crate::access::Role;
use crate::store::Grouping;
use crate::svg::{self, Series};
use crate::time::days_ago;
use crate::{AppState, admin};

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
    branch_chart: String,
    scenario_chart: String,
    scenarios: Vec<ScenarioRate>,
    runs: RunsPartial,
    /// `owner/name` that gets PR comments, or empty.
    github_repo: String,
    /// Why the repository just typed was refused, or empty.
    repo_error: String,
}

const CHART_DAYS: i64 = 30;

/// The charts' days, oldest first, ending today.
pub(super) fn chart_days() -> Vec<String> {
    (0..CHART_DAYS).rev().map(days_ago).collect()
}

fn series_from(days: &[String], rows: &[crate::store::RateRow], max: usize) -> Vec<Series> {
    let index: HashMap<&str, usize> = days
        .iter()
        .enumerate()
        .map(|(i, d)| (d.as_str(), i))
        .collect();
    // Each series with its number of scenario runs, to keep the busiest ones.
    let mut by_key: Vec<(Series, i64)> = Vec::new();
    for r in rows {
        let label = r.key.clone().unwrap_or_else(|| "(no branch)".into());
        let Some(&i) = index.get(r.day.as_str()) else {
            continue;
        };
        match by_key.iter_mut().find(|(s, _)| s.label == label) {
            Some((series, volume)) => {
                series.points.push((i, r.passed, r.total));
                *volume += r.total;
            }
            None => by_key.push((
                Series {
                    label,
                    points: vec![(i, r.passed, r.total)],
                },
                r.total,
            )),
        }
    }
    by_key.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.label.cmp(&b.0.label)));
    by_key.truncate(max);
    by_key.into_iter().map(|(series, _)| series).collect()
}

pub(super) async fn project_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
    Query(q): Query<RunsQuery>,
) -> PageResult {
    let access = project_of(&state, &person, &slug, Role::Viewer).await?;
    render(&state, access, &q, String::new()).await
}

async fn render(state: &AppState, access: Access, q: &RunsQuery, repo_error: String) -> PageResult {
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
        layout,
        slug: project.slug.clone(),
        tab: "runs",
        branches: state.store.branches(project.id).await?,
        branch: q.branch.clone().unwrap_or_default(),
        status: q.status.clone().unwrap_or_default(),
        branch_chart: svg::pass_rate_chart(&days, &series_from(&days, &by_branch, 6)),
        scenario_chart: svg::pass_rate_chart(&days, &series_from(&days, &by_scenario, 6)),
        scenarios: totals,
        runs: runs_list(state, &project, q).await?,
        github_repo: project.github_repo.clone().unwrap_or_default(),
        repo_error,
    };
    Ok(page.into_response())
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
            let mut response = render(&state, access, &RunsQuery::default(), e.message).await?;
            *response.status_mut() = e.status;
            Ok(response)
        }
    }
}
