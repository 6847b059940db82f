//! The overview: the projects the person has a role in (every project, for an instance
//! administrator) with their last run, and for instance administrators the form that creates a
//! project.

use askama::Template;
use askama_web::WebTemplate;
use axum::Form;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde::Deserialize;

use super::error::{PageError, PageResult};
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
    let visible = if person.instance_admin {
        state.store.projects().await?
    } else {
        state.store.member_projects(person.user_id).await?
    };
    for p in visible {
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
    if !person.instance_admin {
        return Err(PageError(
            StatusCode::FORBIDDEN,
            "Only instance administrators create projects.".into(),
        ));
    }
    let branch = Some(form.default_branch.trim()).filter(|b| !b.is_empty());
    let slug = form.slug.trim();
    match admin::create_project_owned_by(&*state.store, slug, branch, person.user_id).await {
        Ok(p) => Ok(redirect(&format!("/p/{}", p.slug))),
        Err(e) => {
            let mut response = overview_with(&state, &person, e.message).await?;
            *response.status_mut() = e.status;
            Ok(response)
        }
    }
}
