//! How the planner behaves: `[planner]` in windup.toml, with its defaults.

/// How the planner behaves; `[planner]` in windup.toml.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Characters of the page's observation a prompt may carry.
    pub page_chars: usize,
    /// Elements (controls and texts) an observation lists at most (150 at most).
    pub max_elements: usize,
    /// Extra calls with the validation problems after a rejected answer.
    pub semantic_retries: u32,
    /// Continuation calls per scenario: each goes on from the page the steps so far led to.
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
            page_chars: 4_000,
            max_elements: crate::planner::observation::MAX_ITEMS,
            semantic_retries: 1,
            max_continuations: 5,
            allowed_origins: Vec::new(),
            max_output_tokens: 800,
            temperature: Some(0.0),
        }
    }
}

impl Settings {
    /// These settings as one provider uses them: its own `temperature` replaces the planner's,
    /// and its `max_output_tokens` caps the planner's (a local model's lower cap holds).
    pub fn for_provider(mut self, provider: &crate::llm::ProviderConfig) -> Settings {
        if let Some(t) = provider.temperature {
            self.temperature = Some(t);
        }
        if let Some(cap) = provider.max_output_tokens {
            self.max_output_tokens = self.max_output_tokens.min(cap);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_providers_own_temperature_and_lower_output_cap_apply() {
        let provider: crate::llm::ProviderConfig = serde_json::from_value(serde_json::json!({
            "kind": "openai", "model": "m", "temperature": 0.5, "max_output_tokens": 300
        }))
        .unwrap();
        let s = Settings::default().for_provider(&provider);
        assert_eq!((s.temperature, s.max_output_tokens), (Some(0.5), 300));
        let generous: crate::llm::ProviderConfig = serde_json::from_value(serde_json::json!({
            "kind": "openai", "model": "m", "max_output_tokens": 100_000
        }))
        .unwrap();
        let s = Settings::default().for_provider(&generous);
        assert_eq!((s.temperature, s.max_output_tokens), (Some(0.0), 800));
    }
}
