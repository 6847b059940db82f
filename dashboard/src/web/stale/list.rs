//! `/p/{slug}/stale`: both sources merged, newest first.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{Path, State};
use axum::response::IntoResponse;

use super::super::access::{Access, project_of};
use super::super::error::PageResult;
use super::super::layout::Layout;
use super::super::session::Person;
use super::detail::RUN_PREFIX;
use crate::AppState;
use crate::access::Role;
use crate::time::display;

/// Rows shown, in all.
const ROWS: i64 = 200;

struct StaleView {
    /// The id in the detail page's address.
    id: String,
    scenario_id: String,
    branch: String,
    reason: String,
    /// The failure class and the triage verdict of the failing run (empty when unknown).
    failure_class: String,
    verdict: String,
    /// "run" or "shared cache".
    source: &'static str,
    stale_ms: i64,
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

pub(in crate::web) async fn stale_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
) -> PageResult {
    let Access { project, layout } = project_of(&state, &person, &slug, Role::Viewer).await?;
    let from_runs = state.store.run_stale_entries(project.id, ROWS).await?;
    let replaced = state.store.stale_entries(project.id, ROWS).await?;
    // A run that re-planned also saved the new plan to the shared cache, which kept its old
    // entry as replaced: one event, shown once, as the run's (it has the evidence).
    let replaced: Vec<_> = replaced
        .into_iter()
        .filter(|c| {
            !from_runs.iter().any(|r| {
                r.scenario_id == c.scenario_id
                    && r.branch == c.branch
                    && r.replaced_json.is_some()
                    && r.replaced_json == c.replaced_json
            })
        })
        .collect();
    let mut rows: Vec<StaleView> = from_runs
        .into_iter()
        .map(|s| StaleView {
            id: format!("{RUN_PREFIX}{}", s.id),
            scenario_id: s.scenario_id,
            branch: s.branch,
            reason: s.reason,
            failure_class: s.failure_class.unwrap_or_default(),
            verdict: s.verdict.unwrap_or_default(),
            source: "run",
            stale_ms: s.stale_ms,
            when: display(s.stale_ms),
            replaced: s.replaced_json.is_some(),
        })
        .chain(replaced.into_iter().map(|s| StaleView {
            id: s.id.to_string(),
            scenario_id: s.scenario_id,
            branch: s.branch,
            reason: s.stale_reason,
            failure_class: String::new(),
            verdict: String::new(),
            source: "shared cache",
            stale_ms: s.stale_ms,
            when: display(s.stale_ms),
            replaced: s.replaced_json.is_some(),
        }))
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.stale_ms));
    rows.truncate(ROWS as usize);
    Ok(StalePage {
        layout,
        slug,
        tab: "stale",
        rows,
    }
    .into_response())
}
