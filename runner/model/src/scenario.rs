//! A scenario: the human-written description of one end-to-end flow, `e2e/scenarios/<id>.yaml`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One scenario file. Unknown fields are rejected: a typo must not silently change a test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Stable identifier; also the file name (`<id>.yaml`) and the plan-cache key.
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9._-]*$"), length(min = 1, max = 100))]
    pub id: String,
    /// What the flow does, in plain language.
    #[schemars(length(min = 1))]
    pub task: String,
    /// Where the flow starts: a path on the base URL, such as `/` or `/login?next=/admin`.
    #[schemars(regex(pattern = r"^/"))]
    pub start_url: String,
    /// Extra guidance for the planner.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hints: Vec<String>,
    /// Labels for selecting scenarios (`--tag`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Budget for the whole scenario in milliseconds; the config's default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1))]
    pub timeout_ms: Option<u64>,
    /// A setup scenario (signing in, say): it runs before the scenarios that need it, and its
    /// browser storage (cookies, localStorage) is saved when it passes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub setup: bool,
    /// Setup scenarios whose saved storage this one starts with, like Playwright's setup
    /// projects: sign in once per run, not once per scenario.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs: Vec<String>,
}

/// Collapses runs of whitespace and trims, so re-wrapping a line is not an edit.
pub fn normalize_text(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

impl Scenario {
    /// SHA-256 over the normalised task, hints and start URL: what the plan was made from.
    /// Editing any of them changes the hash, so the cached plan is a miss, never a silent replay.
    pub fn sha(&self) -> String {
        let mut hasher = Sha256::new();
        hasher.update(b"windup-scenario-v1\0");
        hasher.update(normalize_text(&self.task).as_bytes());
        hasher.update(b"\0");
        for hint in &self.hints {
            hasher.update(normalize_text(hint).as_bytes());
            hasher.update(b"\x1f");
        }
        hasher.update(b"\0");
        hasher.update(self.start_url.trim().as_bytes());
        // What the scenario starts with is part of what its plan was made for.
        if !self.needs.is_empty() {
            hasher.update(b"\0needs");
            for n in &self.needs {
                hasher.update(b"\x1f");
                hasher.update(n.as_bytes());
            }
        }
        hex::encode(hasher.finalize())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenario(task: &str) -> Scenario {
        Scenario {
            id: "a".into(),
            task: task.into(),
            start_url: "/".into(),
            hints: vec![],
            tags: vec![],
            timeout_ms: None,
            setup: false,
            needs: vec![],
        }
    }

    #[test]
    fn sha_ignores_whitespace_but_not_words() {
        let a = scenario("add  a todo\n and complete it");
        let b = scenario("add a todo and complete it");
        let c = scenario("add a todo and delete it");
        assert_eq!(a.sha(), b.sha());
        assert_ne!(a.sha(), c.sha());
    }

    #[test]
    fn sha_covers_hints_and_start_url() {
        let base = scenario("x");
        let mut hinted = base.clone();
        hinted.hints.push("use the sidebar".into());
        let mut moved = base.clone();
        moved.start_url = "/other".into();
        let mut tagged = base.clone();
        tagged.tags.push("smoke".into());
        assert_ne!(base.sha(), hinted.sha());
        assert_ne!(base.sha(), moved.sha());
        assert_eq!(
            base.sha(),
            tagged.sha(),
            "tags do not change what is planned"
        );
    }
}
