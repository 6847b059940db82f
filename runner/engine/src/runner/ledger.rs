//! One ledger record per scenario per run (`e2e/.windup/ledger.jsonl`, see `metrics`): its
//! LLM calls by purpose, tokens, cost and the time spent in each phase. Every record, a run's or
//! an authoring call's, is made by [`Ledger::spend_record`] and written by [`Ledger::write`].

use time::OffsetDateTime;
use windup_model::ledger::{LEDGER_VERSION, LedgerRecord, PhaseTimings, TokenUsage};
use windup_model::{CacheOutcome, FailureClass, GitInfo, RunReport, ScenarioStatus};

use super::Runner;
use super::schedule::Outcome;
use crate::planner::{Planner, Spend};
use crate::project::Layout;
use crate::secrets::ProjectSecrets;

/// The run ledger as the runner writes it: the project's file, the secrets masked out of every
/// record, and the planner that spent what a record counts.
pub(super) struct Ledger<'a> {
    root: &'a std::path::Path,
    secrets: &'a ProjectSecrets,
    planner: Option<&'a Planner>,
}

/// What a record says besides the spend: which scenario, when, and how it ended.
pub(super) struct RecordHead<'a> {
    pub run_id: String,
    pub scenario_id: String,
    pub started_at: OffsetDateTime,
    pub finished_at: OffsetDateTime,
    pub status: ScenarioStatus,
    pub failure_class: Option<FailureClass>,
    pub cache: CacheOutcome,
    pub git: Option<&'a GitInfo>,
}

impl Runner {
    /// The ledger of this runner's project.
    pub(super) fn ledger(&self) -> Ledger<'_> {
        Ledger {
            root: &self.config.root,
            secrets: &self.secrets,
            planner: self.planner(),
        }
    }
}

impl Ledger<'_> {
    /// One ledger record per scenario.
    pub(super) fn append(&self, report: &RunReport, outcomes: &[Outcome]) -> Vec<LedgerRecord> {
        let records = outcomes.iter().map(|o| self.record(report, o)).collect();
        self.write(records)
    }

    /// Appends `records` with every secret the run holds masked, and returns them as written.
    /// A ledger that cannot be written never changes a verdict.
    pub(super) fn write(&self, records: Vec<LedgerRecord>) -> Vec<LedgerRecord> {
        let records: Vec<LedgerRecord> = records
            .into_iter()
            .map(|r| self.secrets.redact_all(r))
            .collect();
        if let Err(e) = crate::metrics::append(self.root, &records) {
            tracing::warn!("could not append to {}: {e}", Layout::LEDGER_FILE);
        }
        records
    }

    fn record(&self, report: &RunReport, o: &Outcome) -> LedgerRecord {
        let r = &o.result;
        let head = RecordHead {
            run_id: report.run_id.clone(),
            scenario_id: r.scenario_id.clone(),
            started_at: o.started_at,
            finished_at: o.started_at + time::Duration::milliseconds(r.duration_ms as i64),
            status: r.status,
            failure_class: r.failure_class,
            cache: r.cache,
            git: report.git.as_ref(),
        };
        let timings = PhaseTimings {
            plan_ms: o.spend.llm_ms + o.spend.own_ms + o.phases.observe_ms,
            execute_ms: o.phases.execute_ms,
            verify_ms: o.phases.verify_ms,
        };
        self.spend_record(head, &o.spend, timings)
    }

    /// A record of `spend`: its calls, tokens and cost, and the provider and model that spent
    /// it (none when no call was made).
    pub(super) fn spend_record(
        &self,
        head: RecordHead<'_>,
        spend: &Spend,
        timings: PhaseTimings,
    ) -> LedgerRecord {
        let planner = self.planner.filter(|_| spend.calls.total() > 0);
        LedgerRecord {
            ledger_version: LEDGER_VERSION.to_string(),
            run_id: head.run_id,
            scenario_id: head.scenario_id,
            started_at: head.started_at,
            finished_at: head.finished_at,
            status: head.status,
            failure_class: head.failure_class,
            cache: head.cache,
            provider: planner.map(|p| p.provider().to_string()),
            model: planner.map(|p| p.model().to_string()),
            calls: spend.calls,
            tokens: TokenUsage {
                input: spend.usage.input_tokens,
                output: spend.usage.output_tokens,
                cached: spend.usage.cached_tokens,
            },
            cost_micro_usd: spend.cost_micro_usd,
            price_table_date: spend.price_date,
            timings,
            git_commit: head.git.map(|g| g.commit.clone()),
            git_branch: head.git.and_then(|g| g.branch.clone()),
        }
    }
}
