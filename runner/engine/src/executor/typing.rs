//! Typing bound to its target. Keystrokes go to whatever has the focus, and a page (or a frame
//! of a third party in it) can move the focus between the check on the target and the typing.
//! So a credential is never sent as keystrokes: it is set on the target field itself, in the
//! field's own realm, with the input events typing fires, and only into a field its kind fits
//! (`secrets::fit`). A plain value is typed only while the target has the focus in a focused
//! document, checked before the keystrokes, and after them the focus must still be in that
//! document; else the step fails as `not_actionable`, naming what took the focus.

use windup_model::{Action, FailureClass, keys::parse_chord};

use super::outcome::{Failure, browser_failure, fail};
use super::steps::Runner;
use crate::browser::BrowserError;
use crate::locator::{Focus, Locator, SetValue};
use crate::secrets::FieldFacts;

/// Where a fill types: the target, the origins of its document, and what field it is.
pub(super) struct Typing<'l> {
    pub locator: &'l Locator,
    /// The frame's origin as Chromium tells it; None for the top document.
    pub frame_origin: Option<&'l str>,
    /// The origin the target's window reports.
    pub origin: &'l str,
    /// What the field is, as the page told it when the target was found.
    pub field: FieldFacts,
}

impl Runner<'_, '_> {
    /// A `fill`: a credential set on its field, or a plain value typed into it.
    pub(super) async fn fill(
        &mut self,
        action: &Action,
        to: &Typing<'_>,
        id: &str,
    ) -> Result<(), Failure> {
        match (&action.value, &action.value_ref) {
            (None, Some(name)) => self.fill_credential(name, to, id).await,
            (value, _) => {
                self.type_text(to.locator, value.as_deref().unwrap_or_default(), id)
                    .await
            }
        }
    }

    /// Sets the credential `name` on its field: only on one of its origins, only into a field its
    /// kind fits, and only on the node that was checked.
    async fn fill_credential(
        &mut self,
        name: &str,
        to: &Typing<'_>,
        id: &str,
    ) -> Result<(), Failure> {
        self.may_type(name, to.frame_origin, to.origin, id).await?;
        self.cx
            .boundary
            .fits_field(name, &to.field)
            .map_err(|m| fail(FailureClass::PlanInvalid, Some(id), m.to_string()))?;
        let text = self.cx.secrets.resolve(name).ok_or_else(|| {
            fail(
                FailureClass::PlanInvalid,
                Some(id),
                format!("no value for `{name}`: set it in the environment or in .env.local"),
            )
        })?;
        self.remember_secret(to.locator, &text).await;
        let source = &to.locator.source;
        match to.locator.set_value(self.session, &text, &to.field).await {
            Ok(SetValue::Ok) => Ok(()),
            Ok(SetValue::Changed { field }) => Err(fail(
                FailureClass::NotActionable,
                Some(id),
                format!(
                    "`{source}` became another field ({}) before `{name}` was set; nothing was typed",
                    field.tag
                ),
            )),
            Ok(SetValue::NotFound) | Err(BrowserError::ContextLost) => Err(fail(
                FailureClass::NotActionable,
                Some(id),
                format!("`{source}` went away before `{name}` was set; nothing was typed"),
            )),
            Err(e) => Err(browser_failure(e, id)),
        }
    }

    /// Types a plain value (the engine focused the field and selected its content, so typing
    /// replaces it; an empty value deletes it) while the focus is the target's.
    async fn type_text(&mut self, locator: &Locator, text: &str, id: &str) -> Result<(), Failure> {
        self.focus_held(locator, true, id).await?;
        let browser = |e| browser_failure(e, id);
        if text.is_empty() {
            let delete = parse_chord("Delete").expect("Delete is a key");
            self.session.press(&delete).await.map_err(browser)?;
        } else {
            self.session.insert_text(text).await.map_err(browser)?;
        }
        self.focus_held(locator, false, id).await
    }

    /// Fails the step when keystrokes would not land (before: `strict`) or did not stay (after)
    /// in the target's document.
    async fn focus_held(&self, locator: &Locator, strict: bool, id: &str) -> Result<(), Failure> {
        let source = &locator.source;
        match locator.focus_on(self.session, strict).await {
            Ok(Focus::Ok) => Ok(()),
            Ok(Focus::Elsewhere { took }) if strict => Err(fail(
                FailureClass::NotActionable,
                Some(id),
                format!(
                    "`{source}` does not have the focus: {took} has it, and keystrokes would go there; nothing was typed"
                ),
            )),
            Ok(Focus::Elsewhere { took }) => Err(fail(
                FailureClass::NotActionable,
                Some(id),
                format!(
                    "the focus left `{source}`'s document while typing: {took} took it, and may have received keystrokes"
                ),
            )),
            // After typing, the page may have replaced the field or started a navigation.
            Ok(Focus::NotFound) | Err(BrowserError::ContextLost) if !strict => Ok(()),
            Ok(Focus::NotFound) => Err(fail(
                FailureClass::NotActionable,
                Some(id),
                format!("`{source}` went away before typing; nothing was typed"),
            )),
            Err(e) => Err(browser_failure(e, id)),
        }
    }
}
