//! What a signed-in person reaches in a project: the role they hold there (an instance
//! administrator owns every project), checked before a page reads anything. A project the
//! person has no role in answers 404, as if it did not exist; an owners' page (tokens, people)
//! answers 403 to a viewer.

use axum::http::StatusCode;

use super::error::{PageError, not_found};
use super::layout::Layout;
use super::session::Person;
use crate::AppState;
use crate::access::Role;
use crate::store::Project;

/// The project a page's path names, as the person may reach it.
pub(super) struct Access {
    pub(super) project: Project,
    /// The page's frame, with the owners' tabs when the person is an owner.
    pub(super) layout: Layout,
}

/// The project `slug` if `person` holds at least `need` in it.
pub(super) async fn project_of(
    state: &AppState,
    person: &Person,
    slug: &str,
    need: Role,
) -> Result<Access, PageError> {
    let project = state
        .store
        .project(slug)
        .await?
        .ok_or_else(|| not_found("project"))?;
    let stored = if person.instance_admin {
        None
    } else {
        state.store.role(project.id, person.user_id).await?
    };
    let role = Role::effective(person.instance_admin, stored.as_deref())
        .ok_or_else(|| not_found("project"))?;
    if role < need {
        return Err(PageError(
            StatusCode::FORBIDDEN,
            format!(
                "Only owners of {} manage its tokens, people and settings; you are a {}.",
                project.slug,
                role.as_str()
            ),
        ));
    }
    let mut layout = person.layout();
    layout.owner = role.manages();
    Ok(Access { project, layout })
}
