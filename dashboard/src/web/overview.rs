//! The overview: every project with its last run, and the form that creates a project.

use askama::Template;
use askama_web::WebTemplate;
use axum::Form;
use axum::extract::State;
use axum::response::IntoResponse;
use serde::Deserialize;

use super::error::PageResult;
use super::layout::Layout;
use super::session::{Person, redirect};
use crate::store::RunFilter;
use crate::time::display;
use crate::{AppState, admin};

struct ProjectRow {
    slug: String,
    default_branch: String,
    last_run: String,
    last_result: String,
    ok: bool,
}

#[derive(Template, WebTemplate)]
#[template(path = "overview.html")]
struct OverviewPage {
    layout: Layout,
    projects: Vec<ProjectRow>,
    error: String,
}

async fn overview_with(state: &AppState, person: &Person, error: String) -> PageResult {
    let mut projects = Vec::new();
    for p in state.store.projects().await? {
        let last = state
            .store
            .runs(
                p.id,
                &RunFilter {
                    limit: 1,
                    ..RunFilter::default()
                },
            )
            .await?;
        let (last_run, last_result, ok) = match last.first() {
            Some(r) => (
                display(r.started_ms),
                format!("{} passed, {} failed", r.passed, r.failed),
                r.failed == 0,
            ),
            None => ("no runs yet".into(), String::new(), true),
        };
        projects.push(ProjectRow {
            slug: p.slug,
            default_branch: p.default_branch,
            last_run,
            last_result,
            ok,
        });
    }
    Ok(OverviewPage {
        layout: person.layout(),
        projects,
        error,
    }
    .into_response())
}

pub(super) async fn overview(State(state): State<AppState>, person: Person) -> PageResult {
    overview_with(&state, &person, String::new()).await
}

#[derive(Deserialize)]
pub(super) struct ProjectForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    slug: String,
    #[serde(default)]
    default_branch: String,
}

pub(super) async fn create_project(
    State(state): State<AppState>,
    person: Person,
    Form(form): Form<ProjectForm>,
) -> PageResult {
    person.check_csrf(&form.csrf)?;
    let branch = Some(form.default_branch.trim()).filter(|b| !b.is_empty());
    match admin::create_project(&*state.store, form.slug.trim(), branch).await {
        Ok(p) => Ok(redirect(&format!("/p/{}", p.slug))),
        Err(e) => {
            let mut response = overview_with(&state, &person, e.message).await?;
            *response.status_mut() = e.status;
            Ok(response)
        }
    }
}
