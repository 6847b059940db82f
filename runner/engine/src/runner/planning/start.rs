//! What planning starts from and ends with: where it starts (a start page, or a failed
//! replay's context), why a page cannot be read, what a planning made, the time each phase took,
//! and whether a scenario may be planned in this run at all.

use windup_model::{Action, ActionStatus, FailureClass, Scenario, ScenarioResult};

use super::super::Runner;
use super::super::results::{crashed, failed};
use super::super::setup::Planning;
use super::proofs::Planned;
use crate::browser::{BrowserError, Session};
use crate::planner::StepFailure;
use crate::project::display;

/// What planning made: the steps with their facts.
pub(in crate::runner) struct Made {
    pub(in crate::runner) steps: Vec<Planned>,
    /// The controls the pages showed while planning (for the task's implicit control names).
    pub(in crate::runner) seen: std::collections::BTreeSet<crate::planner::words::Seen>,
}

/// Where planning starts.
#[expect(
    clippy::large_enum_variant,
    reason = "one per planned scenario, moved once"
)]
pub(in crate::runner) enum Start {
    /// From the scenario's start page.
    Plan,
    /// After a failed replay: the steps that passed, the failure, and the context still on
    /// the page where it failed.
    Repair {
        done: Vec<Action>,
        failure: StepFailure,
        session: Session,
    },
}

/// Why a page could not be read for the planner.
pub(in crate::runner) enum Stop {
    /// The browser failed.
    Browser(BrowserError),
    /// The page is outside the app's origins: it never reaches the model.
    Outside(String),
}

impl Stop {
    /// The scenario's result when planning stops here.
    pub(in crate::runner) fn result(
        self,
        id: &str,
        cache: windup_model::CacheOutcome,
    ) -> ScenarioResult {
        match self {
            Stop::Browser(e) => crashed(id, cache, e),
            Stop::Outside(url) => {
                let origin = url::Url::parse(&url)
                    .map(|u| u.origin().ascii_serialization())
                    .unwrap_or_else(|_| "a page without an http(s) origin".into());
                failed(
                    id,
                    cache,
                    FailureClass::NavigationFailed,
                    format!(
                        "planning stopped: the page went to {origin}, outside the app's origins, and is never shown to the model (list the origin in windup.toml [planner] allowed_origins if the app really goes there)"
                    ),
                )
            }
        }
    }
}

/// Time a scenario spent in each phase, for its ledger record.
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::runner) struct Phases {
    pub execute_ms: u64,
    pub verify_ms: u64,
    /// Opening pages and reading them for the planner.
    pub observe_ms: u64,
}

impl Phases {
    pub(in crate::runner) fn add(&mut self, x: &crate::executor::Execution) {
        self.execute_ms += x.duration.as_millis() as u64;
        self.verify_ms += x.actions.iter().map(|a| a.verify_ms).sum::<u64>();
    }
}

/// How many of a plan's own steps passed: the index of the step that failed.
pub(in crate::runner) fn passed_steps(x: &crate::executor::Execution) -> usize {
    x.actions
        .iter()
        .filter(|a| a.fragment.is_none() && a.status == ActionStatus::Passed)
        .count()
}

/// Failures that say the plan does not fit the page (as opposed to an app or browser problem).
pub(in crate::runner) fn plan_misfit(class: FailureClass) -> bool {
    matches!(
        class,
        FailureClass::SelectorNotFound
            | FailureClass::NotActionable
            | FailureClass::PostconditionFailed
    )
}

impl Runner {
    /// Why a scenario cannot be planned in this run, if it cannot.
    pub(in crate::runner) fn planning_blocked(
        &self,
        scenario: &Scenario,
    ) -> Option<(FailureClass, String)> {
        let root = &self.config.root;
        let file = display(
            root,
            &root
                .join(crate::project::Layout::SCENARIOS_DIR)
                .join(format!("{}.yaml", scenario.id)),
        );
        // The reason alone: the caller says what it stops (a plan for a scenario with none, a
        // re-plan of one whose replay failed).
        if self.config.require_cached {
            return Some((
                FailureClass::NotCached,
                format!(
                    "--require-cached forbids LLM calls here (to plan `{}` ({file}), run it once where planning is allowed, such as a branch with a provider key, and commit {}/{}.json)",
                    scenario.id,
                    crate::project::Layout::CACHE_DIR,
                    scenario.id
                ),
            ));
        }
        match &self.planning {
            Planning::Ready(_) => None,
            Planning::Off => Some((
                FailureClass::NoPlan,
                format!(
                    "no LLM provider is configured (add a [providers.NAME] table to {} to plan here, or commit a verified plan to {}/)",
                    crate::project::Layout::CONFIG_FILE,
                    crate::project::Layout::CACHE_DIR
                ),
            )),
            Planning::Unavailable(why) => {
                Some((FailureClass::NoPlan, format!("it cannot be planned: {why}")))
            }
        }
    }
}

pub(in crate::runner) fn with_cache(
    mut r: ScenarioResult,
    cache: windup_model::CacheOutcome,
) -> ScenarioResult {
    r.cache = cache;
    r
}
