//! A failed scenario's triage as the report carries it: the verdict, the facts that decided
//! it, and the background evidence left out because the plan's baseline holds it too.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A failure's kind, read from its evidence by rules (no LLM), with the facts that decided it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Triage {
    /// The kind of failure.
    pub verdict: Verdict,
    /// The facts of the evidence that decided it, for people.
    pub facts: Vec<String>,
    /// Evidence left out because the run that verified the plan saw it too (the app's usual
    /// background noise), each as "also seen when this plan was verified: …".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub discounted: Vec<String>,
    /// The plan has no baseline to tell the app's usual noise from a new failure.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unconfirmed: bool,
}

/// What kind of failure a scenario had: `app_changed` (the target or the page moved on:
/// a renamed or moved control, a changed page, a route gone), `app_broken` (the app failed: a
/// 5xx answer, an uncaught page error), `test_outdated` (the steps worked but a postcondition's
/// text or URL no longer holds), `environment` (the browser, the network, time or the planner,
/// not the app) or `unknown`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[expect(
    missing_docs,
    reason = "a doc comment on a variant makes schemars write the enum as `oneOf` consts; the \
              variants are described above"
)]
pub enum Verdict {
    AppChanged,
    AppBroken,
    TestOutdated,
    Environment,
    Unknown,
}

impl Verdict {
    /// The name as written in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::AppChanged => "app_changed",
            Verdict::AppBroken => "app_broken",
            Verdict::TestOutdated => "test_outdated",
            Verdict::Environment => "environment",
            Verdict::Unknown => "unknown",
        }
    }
}

impl Triage {
    /// The facts for people, in one line: those that decided the verdict, then how much of the
    /// evidence was the app's usual noise, or that no baseline could tell.
    pub fn facts_line(&self) -> String {
        let mut line = self.facts.join("; ");
        if !self.discounted.is_empty() {
            line.push_str(&format!(
                " ({} left out: also seen when this plan was verified)",
                self.discounted.len()
            ));
        }
        if self.unconfirmed {
            line.push_str(" (unconfirmed: the plan has no baseline of the app's usual errors)");
        }
        line
    }
}
