//! What an execution is given besides the page: the scenario, its base URL and time budgets,
//! fragments, secrets, where events go, and when to take a screenshot.

use std::time::Duration;

use crate::events::EventSink;
use crate::fragments::Fragments;
use crate::secrets::SecretSource;
use crate::timeouts::Timeouts;

/// Everything an execution needs besides the page.
pub struct ExecContext<'a> {
    pub scenario_id: &'a str,
    pub base_url: &'a url::Url,
    pub timeouts: Timeouts,
    /// The whole scenario's budget.
    pub scenario_timeout: Duration,
    pub fragments: &'a Fragments,
    pub secrets: &'a dyn SecretSource,
    pub events: &'a dyn EventSink,
    /// Which executions end with a screenshot of the page.
    pub screenshots: Screenshots,
}

/// When an execution ends with a screenshot (`[browser] screenshots`, `--screenshots`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Screenshots {
    /// Never.
    Off,
    /// A failed execution's evidence has one (the default).
    #[default]
    OnlyOnFailure,
    /// Every execution: a passing one ends with one too.
    On,
}

impl std::str::FromStr for Screenshots {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(Screenshots::Off),
            "only-on-failure" => Ok(Screenshots::OnlyOnFailure),
            "on" => Ok(Screenshots::On),
            other => Err(format!(
                "`{other}` is not a screenshots setting: use off, only-on-failure or on"
            )),
        }
    }
}
