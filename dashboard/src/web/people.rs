//! A project's people, for its owners: who holds which role, invitations waiting for an
//! account, GitHub teams whose members get a role, and the forms that add someone, change a
//! role or take it away, and map a team or remove the mapping.

use askama::Template;
use askama_web::WebTemplate;
use axum::Form;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde::Deserialize;

use super::access::{Access, project_of};
use super::error::{PageError, PageResult};
use super::layout::Layout;
use super::session::Person;
use crate::AppState;
use crate::access::Role;
use crate::admin::{self, Added};
use crate::error::ApiError;
use crate::time::display;

/// One row: an email (or, for a team, `org/team`), a role, and since when.
struct Line {
    email: String,
    role: String,
    since: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "people.html")]
struct PeoplePage {
    layout: Layout,
    slug: String,
    tab: &'static str,
    roles: Vec<&'static str>,
    members: Vec<Line>,
    invitations: Vec<Line>,
    teams: Vec<Line>,
    notice: String,
    error: String,
}

impl PeoplePage {
    async fn of(state: &AppState, access: Access) -> Result<PeoplePage, PageError> {
        let Access { project, layout } = access;
        let (members, invitations) = admin::people(&*state.store, &project).await?;
        let teams = state.store.team_roles(Some(project.id)).await?;
        Ok(PeoplePage {
            layout,
            slug: project.slug,
            tab: "people",
            roles: Role::ALL.iter().map(|r| r.as_str()).collect(),
            members: members
                .into_iter()
                .map(|m| Line {
                    email: m.email,
                    role: m.role,
                    since: display(m.created_ms),
                })
                .collect(),
            invitations: invitations
                .into_iter()
                .map(|i| Line {
                    email: i.email,
                    role: i.role,
                    since: display(i.created_ms),
                })
                .collect(),
            teams: teams
                .into_iter()
                .map(|t| Line {
                    email: t.name(),
                    role: t.role,
                    since: String::new(),
                })
                .collect(),
            notice: String::new(),
            error: String::new(),
        })
    }
}

pub(super) async fn people_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
) -> PageResult {
    let access = project_of(&state, &person, &slug, Role::Owner).await?;
    Ok(PeoplePage::of(&state, access).await?.into_response())
}

#[derive(Deserialize)]
pub(super) struct TeamForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    team: String,
    #[serde(default)]
    role: String,
}

/// Maps a GitHub team to a role.
pub(super) async fn map_team(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
    Form(form): Form<TeamForm>,
) -> PageResult {
    person.check_csrf(&form.csrf)?;
    let access = project_of(&state, &person, &slug, Role::Owner).await?;
    let outcome = match chosen_role(&form.role) {
        Err(e) => Err(e),
        Ok(role) => admin::map_team(&*state.store, &access.project, &form.team, role)
            .await
            .map(|m| {
                format!(
                    "Members of {} are {}s from their next sign-in with GitHub.",
                    m.name(),
                    m.role
                )
            }),
    };
    answer(&state, access, outcome).await
}

pub(super) async fn unmap_team(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
    Form(form): Form<TeamForm>,
) -> PageResult {
    person.check_csrf(&form.csrf)?;
    let access = project_of(&state, &person, &slug, Role::Owner).await?;
    let outcome = admin::unmap_team(&*state.store, &access.project, &form.team)
        .await
        .map(|()| format!("{} no longer gives a role here.", form.team.trim()));
    answer(&state, access, outcome).await
}

#[derive(Deserialize)]
pub(super) struct PersonForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    role: String,
}

/// The role a form chose, or the refusal that names the choices.
fn chosen_role(raw: &str) -> Result<Role, ApiError> {
    Role::parse(raw)
        .ok_or_else(|| ApiError::unprocessable("invalid_role", "choose a role: owner or viewer"))
}

/// The page after a change: the notice, or the refusal with its status.
async fn answer(state: &AppState, access: Access, outcome: Result<String, ApiError>) -> PageResult {
    let mut page = PeoplePage::of(state, access).await?;
    let status = match outcome {
        Ok(notice) => {
            page.notice = notice;
            StatusCode::OK
        }
        Err(e) => {
            page.error = e.message;
            e.status
        }
    };
    Ok((status, page).into_response())
}

/// Adds someone, or changes their role.
pub(super) async fn add_person(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
    Form(form): Form<PersonForm>,
) -> PageResult {
    person.check_csrf(&form.csrf)?;
    let access = project_of(&state, &person, &slug, Role::Owner).await?;
    let outcome = match chosen_role(&form.role) {
        Err(e) => Err(e),
        Ok(role) => admin::add_person(&*state.store, &access.project, &form.email, role)
            .await
            .map(|added| match added {
                Added::Member => format!("{} is now a {}.", form.email.trim(), role.as_str()),
                Added::Invited => format!(
                    "{} has no account yet: invited as a {}.",
                    form.email.trim(),
                    role.as_str()
                ),
            }),
    };
    answer(&state, access, outcome).await
}

pub(super) async fn remove_person(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
    Form(form): Form<PersonForm>,
) -> PageResult {
    person.check_csrf(&form.csrf)?;
    let access = project_of(&state, &person, &slug, Role::Owner).await?;
    let outcome = admin::remove_person(&*state.store, &access.project, &form.email)
        .await
        .map(|()| format!("{} no longer has a role here.", form.email.trim()));
    answer(&state, access, outcome).await
}
