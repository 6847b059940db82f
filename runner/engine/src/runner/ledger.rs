//! One ledger record per scenario per run (`e2e/.windup/ledger.jsonl`, see `metrics`): its
//! LLM calls by purpose, tokens, cost and the time spent in each phase.

use windup_model::RunReport;
use windup_model::ledger::{LEDGER_VERSION, LedgerRecord, PhaseTimings, TokenUsage};

use super::Runner;
use super::schedule::Outcome;
use crate::project::Layout;

impl Runner {
    /// One ledger record per scenario. A ledger that cannot be written never changes a verdict.
    pub(super) fn append_ledger(
        &self,
        report: &RunReport,
        outcomes: &[Outcome],
    ) -> Vec<LedgerRecord> {
        let records: Vec<LedgerRecord> = outcomes
            .iter()
            .map(|o| self.secrets.redact_all(self.ledger_record(report, o)))
            .collect();
        if let Err(e) = crate::metrics::append(&self.config.root, &records) {
            tracing::warn!("could not append to {}: {e}", Layout::LEDGER_FILE);
        }
        records
    }

    fn ledger_record(&self, report: &RunReport, o: &Outcome) -> LedgerRecord {
        let r = &o.result;
        let planner = self.planner().filter(|_| o.spend.calls.total() > 0);
        LedgerRecord {
            ledger_version: LEDGER_VERSION.to_string(),
            run_id: report.run_id.clone(),
            scenario_id: r.scenario_id.clone(),
            started_at: o.started_at,
            finished_at: o.started_at + time::Duration::milliseconds(r.duration_ms as i64),
            status: r.status,
            failure_class: r.failure_class,
            cache: r.cache,
            provider: planner.map(|p| p.provider().to_string()),
            model: planner.map(|p| p.model().to_string()),
            calls: o.spend.calls,
            tokens: TokenUsage {
                input: o.spend.usage.input_tokens,
                output: o.spend.usage.output_tokens,
                cached: o.spend.usage.cached_tokens,
            },
            cost_micro_usd: o.spend.cost_micro_usd,
            price_table_date: o.spend.price_date,
            timings: PhaseTimings {
                plan_ms: o.spend.llm_ms + o.spend.own_ms + o.phases.observe_ms,
                execute_ms: o.phases.execute_ms,
                verify_ms: o.phases.verify_ms,
            },
            git_commit: report.git.as_ref().map(|g| g.commit.clone()),
            git_branch: report.git.as_ref().and_then(|g| g.branch.clone()),
        }
    }
}
