//! The `Prover`: what proves one scenario's plans from fresh contexts, borrowed from its run.

use super::super::super::ScenarioRun;

/// Proves plans of one scenario from fresh contexts, in its run (the proving run, the runs
/// with a step left out, and `windup bench`'s mutants); it spends no LLM call and keeps no
/// state of its own.
pub(in crate::runner) struct Prover<'a> {
    pub(in crate::runner) run: &'a ScenarioRun<'a>,
}

impl ScenarioRun<'_> {
    /// The prover of this scenario's plans.
    pub(in crate::runner) fn prover(&self) -> Prover<'_> {
        Prover { run: self }
    }
}
