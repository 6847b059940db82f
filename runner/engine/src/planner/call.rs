//! The one gate every LLM call passes: the budget is asked first (a call whose worst case could
//! overshoot is never made), then the call is timed and priced into the scenario's `Spend`
//! whatever its outcome.

use std::time::Instant;

use time::Date;
use windup_model::FailureClass;
use windup_model::ledger::TokenUsage;

use super::{PlanFailure, Planner, Project, Spend};
use crate::costs::{DatedPrice, worst_case_micro_usd};
use crate::llm::{Completion, LlmError, LlmRequest, Usage};

impl Planner {
    fn price(&self) -> Option<DatedPrice> {
        self.prices.price(self.client.model(), today())
    }

    /// One call through the budget gate: refused before it is made when its worst case could
    /// overshoot; timed and priced into `spend` whatever its outcome. The caller counts it under
    /// its purpose.
    pub(super) async fn call(
        &self,
        request: &LlmRequest,
        project: &Project<'_>,
        spend: &mut Spend,
    ) -> Result<Result<Completion, LlmError>, PlanFailure> {
        let price = self.price();
        let worst = price
            .as_ref()
            .map(|p| {
                worst_case_micro_usd(
                    p,
                    estimate_tokens(request),
                    u64::from(request.max_output_tokens),
                )
            })
            .unwrap_or(0);
        let reservation = project
            .budget
            .admit(spend.calls.total(), worst)
            .map_err(|why| PlanFailure {
                class: FailureClass::BudgetExceeded,
                message: format!("no LLM call was made: {why}"),
            })?;
        let called = Instant::now();
        let result = self.client.complete(request).await;
        spend.llm_ms += called.elapsed().as_millis() as u64;
        let usage = match &result {
            Ok(c) => c.usage,
            Err(e) => e.usage(),
        };
        spend.usage += usage;
        let cost = price
            .as_ref()
            .and_then(|_| {
                self.prices
                    .cost(self.client.model(), today(), tokens(usage))
            })
            .map(|(micro, date)| {
                spend.price_date = Some(date);
                micro
            })
            .unwrap_or(0);
        spend.cost_micro_usd += cost;
        project.budget.settle(reservation, cost);
        Ok(result)
    }
}

/// An upper estimate of a request's prompt tokens: two bytes per token is above what real
/// tokenizers give for English and code, and about right for non-Latin scripts.
fn estimate_tokens(r: &LlmRequest) -> u64 {
    let bytes = r.system.len() + r.user.len() + r.schema.to_string().len();
    (bytes as u64).div_ceil(2)
}

fn tokens(u: Usage) -> TokenUsage {
    TokenUsage {
        input: u.input_tokens,
        output: u.output_tokens,
        cached: u.cached_tokens,
    }
}

/// Today's date in UTC, which picks the price in force.
fn today() -> Date {
    time::OffsetDateTime::now_utc().date()
}
