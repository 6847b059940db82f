//! What every signed-in page shows around its content (`base.html`): who is signed in, and
//! the CSRF token that the sign-out form and every other form carry.

use super::session::Person;

pub(super) struct Layout {
    pub(super) email: String,
    pub(super) csrf: String,
}

impl Person {
    pub(super) fn layout(&self) -> Layout {
        Layout {
            email: self.email.clone(),
            csrf: self.csrf.clone(),
        }
    }
}
