//! The `ScenarioRun`: one scenario's run, what it borrows and what it spends.

use windup_model::Scenario;

use super::super::Runner;
use super::super::planning::Phases;
use super::super::shared::RunShared;
use crate::planner::Spend;

/// One scenario's run: the scenario, the runner and the run's shared parts it borrows, and
/// what it spends (LLM calls, time in each phase) over all its attempts. Its stages are its
/// methods, spread over the files of the run (`scenario`, `heal`, `protect`, `retire`,
/// `planning`).
pub(in crate::runner) struct ScenarioRun<'r> {
    pub(in crate::runner) runner: &'r Runner,
    pub(in crate::runner) scenario: &'r Scenario,
    pub(in crate::runner) shared: RunShared<'r>,
    /// What planning it spent: calls, tokens, cost.
    pub(in crate::runner) spend: Spend,
    /// The time it spent in each phase, for its ledger record.
    pub(in crate::runner) phases: Phases,
}

impl<'r> ScenarioRun<'r> {
    /// A scenario's run, with nothing spent yet.
    pub(in crate::runner) fn new(
        runner: &'r Runner,
        scenario: &'r Scenario,
        shared: RunShared<'r>,
    ) -> ScenarioRun<'r> {
        ScenarioRun {
            runner,
            scenario,
            shared,
            spend: Spend::default(),
            phases: Phases::default(),
        }
    }
}
