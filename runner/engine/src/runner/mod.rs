//! The run loop: for each scenario, look up the cache; replay a hit with zero LLM calls; plan a
//! miss; on a failed replay keep the old plan as stale evidence and re-plan once; verify, save,
//! report, and append one ledger record per scenario.
//!
//! Read it in this order: `setup` (the `Runner`: config, browser, secrets, planner), `selection`
//! (which scenarios, checked before anything starts), `schedule` (a run: setups first, then the
//! rest in order or at once, with retries), `scenario` (a `ScenarioRun`: one scenario's run as a
//! pipeline of stages with typed outcomes, look up → replay → heal → repair or keep, or plan),
//! whose other stages are `heal`, `retire`, `protect` and `planning` (planning, proving with the
//! `Prover`, and the verifying run); `execute` (one plan in one browser context), `site` (the
//! site map: the planner's slice, plans at risk, what the run saw); then what a run leaves:
//! `results`, `report`, `ledger`, `suggest`, `dashboard`. `lifecycle` is every door's (`run`,
//! `replay`, the Action, `windup mcp`): the work until it ends or a stop signal, then the
//! browser closed. `replay`, `bench`, `audit` (`windup validate --prove`) and `extract`
//! (`windup fragment extract`) are the other commands that run plans; `drive` is `windup
//! mcp`'s: an agent's steps, saved as a plan.

mod audit;
mod author;
mod bench;
mod dashboard;
mod debrief;
pub mod drive;
mod error;
mod execute;
mod extract;
mod heal;
mod hooks;
mod ledger;
mod lifecycle;
mod mutants;
mod pick;
mod planning;
mod protect;
mod replay;
mod report;
mod results;
mod retire;
mod scenario;
mod schedule;
mod selection;
mod setup;
mod shared;
mod site;
mod storage;
mod suggest;

pub use audit::PlanAudit;
pub use author::Authored;
pub use bench::BenchReport;
pub use drive::Drive;
pub use error::RunError;
pub use extract::{Extract, Extracted};
pub use lifecycle::{ClosesBrowser, Ended, StopSignals, run_to_end};
pub use mutants::Mutant;
pub use pick::{Unpicked, pick};
pub use selection::{Selection, parse_shard, shard_of};
pub use setup::Runner;

// `dashboard` names it `super::Planned`.
use selection::Planned;
// The stages of one scenario's run, spread over the files of the run, name it `super::ScenarioRun`.
use scenario::ScenarioRun;
