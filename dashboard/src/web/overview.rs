//! The overview: the projects the person has a role in (every project, for an instance
//! administrator), each with its headline (its default branch's state, what fails now, its
//! trend, its spend), and for instance administrators the form that creates a project.

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
use crate::{AppState, admin};

struct ProjectRow {
    /// The project's headline, compact, as HTML.
    headline: String,
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
        projects.push(ProjectRow {
            headline: super::headline::headline(state, &p).await?.html(true),
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
