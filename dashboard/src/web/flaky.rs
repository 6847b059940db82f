//! Flaky scenarios: passed and failed on one commit in one environment, or passed only on a
//! retry. The environment is the name a run gave (`--environment`), so the same scenario against
//! staging and production is two rows.

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{Path, State};
use axum::response::IntoResponse;

use super::access::{Access, project_of};
use super::error::PageResult;
use super::layout::Layout;
use super::session::Person;
use crate::AppState;
use crate::access::Role;
use crate::time::display;

struct FlakyView {
    scenario_id: String,
    commit: String,
    environment: String,
    passed: i64,
    failed: i64,
    retried: i64,
    last: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "flaky.html")]
struct FlakyPage {
    layout: Layout,
    slug: String,
    tab: &'static str,
    rows: Vec<FlakyView>,
}

pub(super) async fn flaky_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
) -> PageResult {
    let Access { project, layout } = project_of(&state, &person, &slug, Role::Viewer).await?;
    let rows = state
        .store
        .flaky(project.id, 200)
        .await?
        .into_iter()
        .map(|f| FlakyView {
            scenario_id: f.scenario_id,
            commit: f
                .commit_sha
                .map(|c| c.chars().take(8).collect())
                .unwrap_or_default(),
            environment: f.environment.unwrap_or_default(),
            passed: f.passed,
            failed: f.failed,
            retried: f.retried,
            last: display(f.last_ms),
        })
        .collect();
    Ok(FlakyPage {
        layout,
        slug,
        tab: "flaky",
        rows,
    }
    .into_response())
}
