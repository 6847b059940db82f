//! Locators: a parsed selector evaluated by the in-page engine (`injected/windup.js`).
//! The first VISIBLE match in document order is the target.

use serde::Deserialize;
use serde_json::{Value, json};
use windup_model::{Selector, SelectorError};

use crate::browser::{BrowserError, Session};

/// What the in-page engine found for an action's target.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Located {
    /// The document is being replaced; try again on the new one.
    Navigating,
    NotFound {
        #[serde(default)]
        hidden: u32,
    },
    NotActionable {
        reason: String,
    },
    Ok {
        x: f64,
        y: f64,
        #[serde(default)]
        describe: String,
        #[serde(default)]
        checked: Option<Value>,
    },
}

/// Visible and hidden match counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct Counts {
    pub visible: u32,
    pub hidden: u32,
}

/// What the engine can say about a selector that found nothing usable.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Diagnosis {
    pub visible: u32,
    pub hidden: u32,
    #[serde(default)]
    pub nearest: Vec<String>,
}

impl Diagnosis {
    /// `0 visible matches; 1 hidden match; nearest names: "Save changes"`.
    pub fn describe(&self) -> String {
        let plural =
            |n: u32, what: &str| format!("{n} {what} match{}", if n == 1 { "" } else { "es" });
        let mut text = format!(
            "{}; {}",
            plural(self.visible, "visible"),
            plural(self.hidden, "hidden")
        );
        if !self.nearest.is_empty() {
            let names: Vec<String> = self.nearest.iter().map(|n| format!("{n:?}")).collect();
            text.push_str(&format!("; nearest names: {}", names.join(", ")));
        }
        text
    }
}

/// A selector ready to send to the page.
#[derive(Debug, Clone)]
pub struct Locator {
    pub source: String,
    parts: Value,
}

impl Locator {
    pub fn parse(selector: &str) -> Result<Locator, SelectorError> {
        let parsed = Selector::parse(selector)?;
        Ok(Locator {
            source: selector.to_string(),
            parts: serde_json::to_value(&parsed.parts).expect("parts serialise"),
        })
    }

    pub fn parts(&self) -> &Value {
        &self.parts
    }

    /// Finds the target and checks that it is actionable for `action`; for `fill` and `press`
    /// the element is focused (and for `fill` its content selected) when it is.
    pub async fn locate(&self, session: &Session, action: &str) -> Result<Located, BrowserError> {
        session
            .call("locate", &[self.parts.clone(), json!(action)])
            .await
    }

    pub async fn count(&self, session: &Session) -> Result<Counts, BrowserError> {
        session
            .call("query", std::slice::from_ref(&self.parts))
            .await
    }

    /// Chooses an option of the target `<select>` by value or label.
    pub async fn select(&self, session: &Session, value: &str) -> Result<Located, BrowserError> {
        session
            .call("select", &[self.parts.clone(), json!(value)])
            .await
    }

    /// `true`, `false`, `"mixed"` or null when there is no visible match.
    pub async fn is_checked(&self, session: &Session) -> Result<Value, BrowserError> {
        session
            .call("isChecked", std::slice::from_ref(&self.parts))
            .await
    }

    pub async fn diagnose(&self, session: &Session) -> Result<Diagnosis, BrowserError> {
        session
            .call("diagnose", std::slice::from_ref(&self.parts))
            .await
    }
}
