//! An agent at the wheel (`windup mcp`): it opens an app page, reads it as an observation with
//! refs, acts on refs one step at a time, picks the facts that prove each step, and saves the
//! flow as a scenario. The steps are grounded exactly as planned ones are (a ref becomes its
//! element's selector, checked by `planner::check`), so the selector that drove the step is
//! the one that is saved: record == replay. A saved flow is replayed from a fresh context and
//! cached only when that replay passes.
//!
//! Read `state` (the `Drive` and the page it is on), `act` (one step), `prove` (postconditions),
//! `save` (the scenario and its verified plan), `recorded` (the steps so far, and undo), `notes`
//! (project memory), `log` (every action, refused or not, for the agent and the user), `watch`
//! (a screenshot, the console and the requests, none of them a step).

mod act;
mod log;
mod notes;
mod prove;
mod recorded;
mod save;
mod state;
mod watch;

pub use act::{Acted, Step, StepKind};
pub use log::LOG_FILE;
pub use save::Saved;
pub use state::{Drive, DriveError, Seen};
