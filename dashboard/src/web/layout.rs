//! What every signed-in page shows around its content (`base.html`): who is signed in, and
//! the CSRF token that the sign-out form and every other form carry, and which of the pages
//! that only owners or instance administrators use to offer.

use super::session::Person;

pub(super) struct Layout {
    pub(super) email: String,
    pub(super) csrf: String,
    /// The person owns the project the page is about: its owners' tabs (tokens, people) show.
    pub(super) owner: bool,
    /// An instance administrator: the overview offers to create projects.
    pub(super) admin: bool,
}

impl Person {
    /// The frame of a page outside any project; a project's pages take theirs from
    /// [`super::access::project_of`].
    pub(super) fn layout(&self) -> Layout {
        Layout {
            email: self.email.clone(),
            csrf: self.csrf.clone(),
            owner: false,
            admin: self.instance_admin,
        }
    }
}
