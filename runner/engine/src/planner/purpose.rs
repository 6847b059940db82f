//! Why a planning call is made, and the failed step it may carry: the engine's one vocabulary
//! of planning purposes (plan, continue, correct, repair). Names already on disk keep their
//! spelling: the ledger counts a repair as `replan` and a correction as a `continuation`.

use windup_model::{Action, FailureClass};

/// A step that failed, as the prompt reports it.
#[derive(Debug, Clone)]
pub struct StepFailure {
    /// The step as planned.
    pub action: Action,
    /// How it failed.
    pub class: FailureClass,
    /// What the executor reported about the failure.
    pub message: String,
}

/// Why a planning call is made: the one vocabulary of planning purposes. The prompt reads it,
/// `Event::Planning` carries it, and `Spend::count` maps it onto the ledger's counters.
#[derive(Debug, Clone)]
pub enum Purpose {
    /// A fresh plan from the start page.
    Plan,
    /// The plan reached a page it was not planned on (and, when given, failed there).
    Continue {
        /// The step that failed on the new page, if one did.
        failure: Option<StepFailure>,
    },
    /// A new step failed on the very page it was planned on: one correction, from the page as
    /// it is now.
    Correct {
        /// The new step that failed.
        failure: StepFailure,
    },
    /// A cached plan failed on replay: plan the rest from where it failed.
    Repair {
        /// The cached step that failed on replay.
        failure: StepFailure,
    },
}
