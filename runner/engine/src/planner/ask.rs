//! One question to the planner: the scenario, the page as the prompt shows it, what the steps
//! so far did, and why the call is made.

use windup_model::{Action, Scenario};

use super::Purpose;
use super::facts::StepFacts;
use super::observation::Observation;

/// One question to the planner.
pub struct Ask<'a> {
    /// The scenario being planned: its task and hints.
    pub scenario: &'a Scenario,
    /// The page the browser is on, as the prompt shows it: its refs are the only targets.
    pub page: &'a Observation,
    /// What the steps since the last call changed, numbered across steps in the prompt.
    pub facts: &'a [StepFacts],
    /// Steps already executed, in order.
    pub done: &'a [Action],
    /// The ids of those after which the page showed no change at all (a click on a heading):
    /// the prompt says so, so the model does not lean on them.
    pub unchanged: &'a [String],
    /// Why the call is made; a failed step comes with it.
    pub purpose: Purpose,
    /// The catalogue of the fragments that may be used on this page, one line each: id, start
    /// page, what it proves, description (`Fragments::catalogue`).
    pub fragments: &'a [String],
    /// Seam for the site map's slice of known pages (a later issue).
    pub site_map: Option<&'a str>,
}
