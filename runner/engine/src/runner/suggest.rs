//! Opt-in fix suggestions (`suggest = true`): after the run, the planner's model reads each
//! failure and its evidence and proposes a fix. Advice for people only: nothing here changes a
//! verdict, a plan or the cache.

use std::collections::HashMap;

use windup_model::{Scenario, ScenarioStatus};

use super::Runner;
use super::schedule::Outcome;
use super::setup::Planning;
use crate::fragments::Fragments;

impl Runner {
    /// Opt-in: asks the planner's model about each failure. Advice only, budget-gated like
    /// every call; a call that cannot be made leaves the failure as it is.
    pub(super) async fn suggest_fixes(
        &self,
        outcomes: &mut [Outcome],
        scenarios: &HashMap<String, Scenario>,
        fragments: &Fragments,
    ) {
        let (Planning::Ready(planner), Some(boundary)) = (&self.planning, &self.boundary) else {
            return;
        };
        let project = crate::planner::Project {
            boundary,
            fragments,
            secrets: &self.secrets,
            budget: &self.budget,
            files: &[],
        };
        for o in outcomes
            .iter_mut()
            .filter(|o| o.result.status == ScenarioStatus::Failed)
        {
            let Some(scenario) = scenarios.get(&o.result.scenario_id) else {
                continue;
            };
            match planner
                .suggest(scenario, &o.result, &project, &mut o.spend)
                .await
            {
                Ok(s) => o.result.suggestion = Some(s),
                Err(e) => tracing::warn!(
                    "no suggestion for {}: {}: {}",
                    o.result.scenario_id,
                    e.class,
                    e.message
                ),
            }
            o.result.llm_calls = o.spend.calls.total();
            o.result.cost_micro_usd = o.spend.cost_micro_usd;
        }
    }
}
