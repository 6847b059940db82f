//! How the planner behaves: `[planner]` in windup.toml, with its defaults.

/// How the planner behaves; `[planner]` in windup.toml.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Characters of the page (elements and snapshot) a prompt may carry.
    pub page_chars: usize,
    /// Interactive elements a prompt lists at most.
    pub max_elements: usize,
    /// Extra calls with the validation problems after a rejected answer.
    pub semantic_retries: u32,
    /// Continuation calls per scenario when a plan reaches a page it was not planned on.
    pub max_continuations: u32,
    /// Origins a `goto` may reach besides the base URL's.
    pub allowed_origins: Vec<url::Origin>,
    /// Output tokens a planning call may generate; the budget gate prices all of them.
    pub max_output_tokens: u32,
    /// Sampling temperature of planning calls: 0 by default, for repeatable plans.
    pub temperature: Option<f32>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            page_chars: 6_000,
            max_elements: 80,
            semantic_retries: 1,
            max_continuations: 3,
            allowed_origins: Vec::new(),
            max_output_tokens: 2_048,
            temperature: Some(0.0),
        }
    }
}
