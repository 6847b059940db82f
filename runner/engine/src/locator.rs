//! Locators: a parsed selector evaluated by the in-page engine (`injected/windup.js`).
//! The first VISIBLE match in document order is the target.

use serde_json::Value;
use windup_model::{Part, Selector, SelectorError};

use crate::browser::{BrowserError, Session, injected};

pub use crate::browser::injected::{
    Counts, Diagnosis, HealCandidate, HealCandidates, HealRule, Located,
};

/// A selector ready to send to the page.
#[derive(Debug, Clone)]
pub struct Locator {
    /// The selector as written, for messages.
    pub source: String,
    parts: Vec<Part>,
}

impl Locator {
    /// Parses a selector (`role=button[name="Save"]`, `text=…`, CSS…); the error says which part
    /// is wrong.
    pub fn parse(selector: &str) -> Result<Locator, SelectorError> {
        let parsed = Selector::parse(selector)?;
        Ok(Locator {
            source: selector.to_string(),
            parts: parsed.parts,
        })
    }

    /// The parsed selector, as the in-page engine takes it.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// Finds the target and checks that it is actionable for `action`; for `fill` and `press`
    /// the element is focused (and for `fill` its content selected) when it is.
    pub async fn locate(&self, session: &Session, action: &str) -> Result<Located, BrowserError> {
        injected::locate(session, &self.parts, action).await
    }

    /// How many visible and hidden matches the selector has now.
    pub async fn count(&self, session: &Session) -> Result<Counts, BrowserError> {
        injected::query(session, &self.parts).await
    }

    /// Chooses an option of the target `<select>` by value or label.
    pub async fn select(&self, session: &Session, value: &str) -> Result<Located, BrowserError> {
        injected::select(session, &self.parts, value).await
    }

    /// `true`, `false`, `"mixed"` or null when there is no visible match.
    pub async fn is_checked(&self, session: &Session) -> Result<Value, BrowserError> {
        injected::is_checked(session, &self.parts).await
    }

    /// Match counts and the nearest names on the page, for the message of a selector that
    /// found nothing usable.
    pub async fn diagnose(&self, session: &Session) -> Result<Diagnosis, BrowserError> {
        injected::diagnose(session, &self.parts).await
    }

    /// What the page has in place of this selector's target, when it is gone.
    pub async fn heal_candidates(&self, session: &Session) -> Result<HealCandidates, BrowserError> {
        injected::heal(session, &self.parts).await
    }
}
