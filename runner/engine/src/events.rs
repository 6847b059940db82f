//! What the executor reports while it runs. Reporters, progress displays and passive site-map
//! collection (`sitemap::Collector`) subscribe; the executor knows nothing of output formats.
//!
//! It also holds the engine's one vocabulary of planning purposes ([`Purpose`]: plan, continue,
//! correct, repair), which the planner reads and `Event::Planning` carries: kept here, low, so
//! the executor's events do not depend on the planner. Names already on disk keep their
//! spelling: the ledger counts a repair as `replan` and a correction as a `continuation`.

use windup_model::{Action, ActionResult, FailureClass, ScenarioResult};

/// One thing that happened during a run, in the order it happened. Every variant but
/// `RunStarted` names its scenario, so a sink can follow scenarios that run at once.
#[derive(Debug, Clone)]
pub enum Event {
    /// A run is about to start this many scenarios.
    RunStarted {
        /// Scenarios selected for the run, skipped ones included.
        scenarios: usize,
    },
    /// A scenario starts an attempt (again on each retry).
    ScenarioStarted {
        /// The scenario's id.
        scenario_id: String,
    },
    /// The executor is about to run a step.
    ActionStarted {
        /// The scenario's id.
        scenario_id: String,
        /// The step's id in its plan.
        action_id: String,
    },
    /// A step finished, passed or failed.
    ActionFinished {
        /// The scenario's id.
        scenario_id: String,
        /// How the step went, as the run report records it.
        result: ActionResult,
    },
    /// The executor saw a page: the start page, a `goto`'s, or one a step led to.
    PageSeen {
        /// The scenario's id.
        scenario_id: String,
        /// The page's URL once loaded.
        url: String,
        /// The page's structural signature; `None` when it could not be read.
        signature: Option<String>,
        /// The document's title, when it could be read.
        title: Option<String>,
        /// Its first controls as (role, accessible name), in page order.
        controls: Vec<(String, String)>,
        /// The step that led here (as `sitemap::step_via` writes it); `None` for the start
        /// page and a `goto`.
        via: Option<String>,
    },
    /// A JavaScript dialog was accepted.
    Dialog {
        /// The scenario's id.
        scenario_id: String,
        /// The dialog's type as Chromium names it: `alert`, `confirm`, `prompt` or
        /// `beforeunload`.
        kind: String,
        /// The text the page showed in it.
        message: String,
    },
    /// An LLM planning call is about to be made, for this purpose.
    Planning {
        /// The scenario's id.
        scenario_id: String,
        /// Why the call is made.
        purpose: Purpose,
    },
    /// A new plan was proven, with no LLM, before it was cached (or refused): why each step was
    /// kept or dropped and each check dropped or added (the planning log).
    Proved {
        /// The scenario's id.
        scenario_id: String,
        /// One line per decision, credentials masked.
        notes: Vec<String>,
    },
    /// A scenario is done, once, after its retries, or skipped without starting.
    ScenarioFinished {
        /// Its final result, with credentials masked.
        result: ScenarioResult,
    },
}

/// Receives events. Implementations must be quick: they run on the executor's task.
pub trait EventSink: Send + Sync {
    /// Called once per event, in order; scenarios running at once interleave.
    fn on_event(&self, event: &Event);
}

/// Ignores everything.
pub struct NoEvents;

impl EventSink for NoEvents {
    fn on_event(&self, _: &Event) {}
}

/// Sends every event to several sinks.
pub struct Fanout(pub Vec<Box<dyn EventSink>>);

impl EventSink for Fanout {
    fn on_event(&self, event: &Event) {
        for sink in &self.0 {
            sink.on_event(event);
        }
    }
}

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
    /// it is now, or from the start page again when earlier steps of the same answer ran.
    Correct {
        /// The new step that failed.
        failure: StepFailure,
        /// The steps of the same answer that ran before it, undone by starting again from the
        /// start page (empty when the correction goes on from the page as it is).
        undone: Vec<Action>,
    },
    /// The last answer's steps left controls the task names covered (the page ended its task,
    /// something lies over them): one start again from the start page, those steps undone.
    Restart {
        /// The last answer's steps that ran.
        undone: Vec<Action>,
        /// The covered controls, as `radio "GDKkQ"`.
        covered: Vec<String>,
    },
    /// The model called the task done, but the plan does not show all of the task's own words
    /// (`planner::words`): plan what is missing, on the page as it is.
    Finish {
        /// What is unproven, one line each, in the task's own words.
        unproven: Vec<String>,
    },
    /// The steps ran and the task is done: pick the facts that prove it.
    Prove,
    /// A cached plan failed on replay: plan the rest from where it failed.
    Repair {
        /// The cached step that failed on replay.
        failure: StepFailure,
    },
}
