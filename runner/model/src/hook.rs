//! What a hook of windup.toml's `[hooks]` did in a run: which one, how long it took, whether it
//! passed. Reports carry these so the time spent resetting and seeding the app's data shows
//! apart from the time spent in the browser.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// When a hook runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HookName {
    /// Once, before the run's first scenario.
    BeforeAll,
    /// Before each attempt of each scenario.
    BeforeEach,
    /// After each attempt of each scenario, whatever its outcome.
    AfterEach,
}

impl HookName {
    /// The key in windup.toml's `[hooks]`, such as `before_each`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookName::BeforeAll => "before_all",
            HookName::BeforeEach => "before_each",
            HookName::AfterEach => "after_each",
        }
    }
}

/// One hook's run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HookRun {
    /// Which hook.
    pub hook: HookName,
    /// Wall-clock time from its start until it exited (or was stopped).
    pub duration_ms: u64,
    /// It exited with status 0 in time.
    pub passed: bool,
}
