//! What a scenario's LLM calls cost: counted by purpose, tokens, micro-dollars and time, for
//! its result and its ledger record.

use time::Date;
use windup_model::ledger::LlmCalls;

use super::Purpose;
use crate::llm::Usage;

/// What a scenario's planning cost, for its result and its ledger record.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Spend {
    /// Calls made, by purpose, as the ledger counts them.
    pub calls: LlmCalls,
    /// Tokens billed over every call.
    pub usage: Usage,
    /// What the calls cost, in micro-dollars.
    pub cost_micro_usd: u64,
    /// The `since` of the price used, for the ledger; `None` before a priced call.
    pub price_date: Option<Date>,
    /// Time spent in planning calls, provider latency included.
    pub llm_ms: u64,
    /// Time spent building prompts and checking answers.
    pub own_ms: u64,
}

impl Spend {
    /// Counts a planning call under the ledger's counter for its purpose: a correction is a
    /// continuation there (so is a closing call that picks the proofs), and a repair is `replan` on disk.
    pub(super) fn count(&mut self, purpose: &Purpose) {
        let counter = match purpose {
            Purpose::Plan => &mut self.calls.planning,
            Purpose::Continue { .. }
            | Purpose::Correct { .. }
            | Purpose::Restart { .. }
            | Purpose::Finish { .. }
            | Purpose::Prove => &mut self.calls.continuation,
            Purpose::Repair { .. } => &mut self.calls.repair,
        };
        *counter += 1;
    }
}
