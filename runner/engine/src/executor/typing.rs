//! Typing bound to its target. Keystrokes go to whatever has the focus, and a page (or a frame
//! of a third party in it) can move the focus between the check on the target and the typing.
//! So a credential is never sent as keystrokes: it is set on the target field itself, in the
//! field's own realm, with the input events typing fires, and only into a field its kind fits
//! (`secrets::fit`). A plain value is typed only while the target has the focus in a focused
//! document, checked before the keystrokes, and after them the focus must still be in that
//! document; else the step fails as `not_actionable`, naming what took the focus. A date, time,
//! color or range input takes no keystrokes: its value is set on it in its own form, as
//! Playwright's fill does (`value_form`).

use windup_model::{Action, FailureClass, keys::parse_chord};

use super::outcome::{Failure, browser_failure, fail};
use super::steps::Executor;
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

impl Executor<'_, '_> {
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
                let value = value.as_deref().unwrap_or_default();
                match value_form(to.field.input_type.as_deref(), value) {
                    None => self.type_text(to.locator, value, id).await,
                    Some(Ok(form)) => self.set_plain(to, &form, id).await,
                    Some(Err(why)) => {
                        Err(fail(FailureClass::PlanInvalid, Some(id), why.to_string()))
                    }
                }
            }
        }
    }

    /// Sets a date, time, color or range input's value on the field itself, as Playwright's
    /// fill does: such an input takes no keystrokes.
    async fn set_plain(&mut self, to: &Typing<'_>, form: &str, id: &str) -> Result<(), Failure> {
        let source = &to.locator.source;
        let kind = to.field.input_type.as_deref().unwrap_or("text");
        match to.locator.set_value(self.session, form, &to.field).await {
            Ok(SetValue::Ok) => Ok(()),
            Ok(SetValue::Malformed { value }) => Err(fail(
                FailureClass::PlanInvalid,
                Some(id),
                format!(
                    "`{source}` is an input of type {kind} and did not take {form:?} (it holds {value:?}): give a value of its form{}",
                    if kind == "date" {
                        " (YYYY-MM-DD, or MM/DD/YYYY)"
                    } else {
                        ""
                    }
                ),
            )),
            Ok(SetValue::Changed { field }) => Err(not_set(
                source,
                "its value",
                "nothing was set",
                Some(&field.tag),
                id,
            )),
            Ok(SetValue::NotFound) | Err(BrowserError::ContextLost) => {
                Err(not_set(source, "its value", "nothing was set", None, id))
            }
            Err(e) => Err(browser_failure(e, id)),
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
            Ok(SetValue::Changed { field }) => Err(not_set(
                source,
                &format!("`{name}`"),
                "nothing was typed",
                Some(&field.tag),
                id,
            )),
            Ok(SetValue::NotFound) | Err(BrowserError::ContextLost) => Err(not_set(
                source,
                &format!("`{name}`"),
                "nothing was typed",
                None,
                id,
            )),
            // A credential's value is never quoted back.
            Ok(SetValue::Malformed { .. }) => Err(fail(
                FailureClass::PlanInvalid,
                Some(id),
                format!("`{source}` did not take the value of `{name}` as given"),
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
            self.session.page().press(&delete).await.map_err(browser)?;
        } else {
            self.session
                .page()
                .insert_text(text)
                .await
                .map_err(browser)?;
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

/// A value set on its field itself that did not get there: the target `source` became another
/// field (its tag `changed`) or went away before `what` was set.
fn not_set(source: &str, what: &str, done: &str, changed: Option<&str>, id: &str) -> Failure {
    let how = match changed {
        Some(tag) => format!("became another field ({tag})"),
        None => "went away".to_string(),
    };
    fail(
        FailureClass::NotActionable,
        Some(id),
        format!("`{source}` {how} before {what} was set; {done}"),
    )
}

/// A value an input that takes no keystrokes cannot hold, and the form it takes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NotItsForm(String);

impl std::fmt::Display for NotItsForm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The value a fill sets on an input of `input_type` that takes no keystrokes (a date, time,
/// color or range input, as Playwright's fill), or `None` for a field typed into. A date is
/// given as the input holds it (`2011-10-11`) or as Chromium shows it in English (US),
/// `10/11/2011` (month first); a value no form fits says so.
pub(crate) fn value_form(
    input_type: Option<&str>,
    value: &str,
) -> Option<Result<String, NotItsForm>> {
    let kind = input_type?;
    if !matches!(
        kind,
        "color" | "date" | "datetime-local" | "month" | "range" | "time" | "week"
    ) {
        return None;
    }
    let value = value.trim();
    if kind != "date" || value.is_empty() {
        return Some(Ok(value.to_string()));
    }
    let numbers: Vec<&str> = value.split(['-', '/']).collect();
    let parsed: Option<Vec<u32>> = numbers.iter().map(|n| n.parse().ok()).collect();
    let (y, m, d) = match (parsed.as_deref(), value.contains('/')) {
        (Some([y, m, d]), false) if numbers[0].len() == 4 => (*y, *m, *d),
        (Some([m, d, y]), true) if numbers[2].len() == 4 => (*y, *m, *d),
        _ => {
            return Some(Err(NotItsForm(format!(
                "{value:?} is not a date a date input takes: give it as YYYY-MM-DD (or MM/DD/YYYY)"
            ))));
        }
    };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Some(Err(NotItsForm(format!(
            "{value:?} has no month {m} or day {d}: give the date as YYYY-MM-DD (or MM/DD/YYYY)"
        ))));
    }
    Some(Ok(format!("{y:04}-{m:02}-{d:02}")))
}

#[cfg(test)]
mod tests {
    use super::value_form;

    #[test]
    fn a_date_is_set_in_the_inputs_own_form() {
        let date = |v| value_form(Some("date"), v);
        assert_eq!(date("2011-10-11"), Some(Ok("2011-10-11".into())));
        assert_eq!(date("10/11/2011"), Some(Ok("2011-10-11".into())));
        assert_eq!(date(" 1/2/2020 "), Some(Ok("2020-01-02".into())));
        assert!(matches!(date("13/01/2020"), Some(Err(m)) if m.to_string().contains("YYYY-MM-DD")));
        assert!(matches!(date("tomorrow"), Some(Err(_))));
        assert_eq!(
            value_form(Some("time"), " 10:30 "),
            Some(Ok("10:30".into()))
        );
        assert_eq!(value_form(Some("text"), "10/11/2011"), None);
        assert_eq!(value_form(None, "x"), None);
    }
}
