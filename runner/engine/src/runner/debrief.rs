//! The opt-in run debrief (`--debrief`, `[planner] debrief`): after a run with failures, one
//! budgeted call reads them all together. Advice for people only: it changes no verdict, plan,
//! cache entry or exit code.
//!
//! The ledger has one record per scenario per run, and a debrief is the run's: its calls (one,
//! or two when the first answer was cut off or not parseable) are counted in the record of the
//! run's first failed scenario (by id) under `calls.debrief`, with their tokens and cost, so
//! totals and spend stay whole. The budget gate counts them against the run's caps only, never
//! that scenario's.

use windup_model::{Debrief, ScenarioResult, ScenarioStatus};

use super::Runner;
use super::schedule::Outcome;
use super::setup::Planning;
use crate::fragments::Fragments;
use crate::planner::Spend;

impl Runner {
    /// The debrief of a run whose `outcomes` (in report order) hold failures: `None` without
    /// one; otherwise the model's reading, or why none was made (no provider, `--require-cached`,
    /// the budget, an answer still unusable after a second call), also logged as a warning.
    pub(super) async fn debrief(
        &self,
        outcomes: &mut [Outcome],
        fragments: &Fragments,
    ) -> Option<Debrief> {
        let failed: Vec<usize> = (0..outcomes.len())
            .filter(|&i| outcomes[i].result.status == ScenarioStatus::Failed)
            .collect();
        let first = *failed.first()?;
        let not_made = |why: String| {
            tracing::warn!("no run debrief: {why}");
            Some(Debrief {
                not_made: Some(why),
                ..Debrief::default()
            })
        };
        if self.config.require_cached {
            return not_made("--require-cached makes no LLM call".into());
        }
        let planner = match (&self.planning, &self.boundary) {
            (Planning::Ready(planner), Some(_)) => planner,
            (Planning::Unavailable(why), _) => return not_made(why.clone()),
            _ => return not_made("no LLM provider is configured".into()),
        };
        let project = crate::planner::Project {
            boundary: self.boundary.as_ref()?,
            fragments,
            secrets: &self.secrets,
            budget: &self.budget,
            files: &[],
        };
        let results: Vec<&ScenarioResult> = failed.iter().map(|&i| &outcomes[i].result).collect();
        let mut spend = Spend::default();
        let answer = planner.debrief(&results, &project, &mut spend).await;
        let o = &mut outcomes[first];
        o.spend.calls.debrief += spend.calls.debrief;
        o.spend.usage += spend.usage;
        o.spend.cost_micro_usd += spend.cost_micro_usd;
        o.spend.llm_ms += spend.llm_ms;
        o.spend.price_date = o.spend.price_date.or(spend.price_date);
        o.result.llm_calls = o.spend.calls.total();
        o.result.cost_micro_usd = o.spend.cost_micro_usd;
        match answer {
            Ok(d) => Some(self.secrets.redact_all(d)),
            Err(e) => not_made(self.secrets.redact(&format!("{}: {}", e.class, e.message))),
        }
    }
}
