//! One scenario, once: the flow every plan goes through, as a pipeline of stages with typed
//! outcomes (`ScenarioRun::run`). The cache is looked up (`Looked`); a hit is replayed with
//! zero LLM calls (`Replayed`); a replay that failed on a target that moved is healed without
//! an LLM when it can be (`heal`); a plan made for an earlier text of the scenario moves to
//! `stale/` and the scenario is planned afresh; a miss is planned. A replay failure that
//! invalidates the plan keeps its evidence in `stale/`; when the plan no longer fits the page
//! and this run may plan, it is repaired once, from the page where it failed. The failed plan
//! leaves the cache only for a verified plan that replaces it, or with `--invalidate`:
//! otherwise it stays, and the next run replays it again. A protected plan (written or accepted
//! by a person) never moves: its scenario fails, and what planning or healing made in its place
//! is proposed (`protect`).
//!
//! Read `run` (the type) and `pipeline` first, with `outcome` (the stages' typed outcomes), then
//! `replay` (the replay, and what follows a failed one) and `replan` (the roads to a new plan).
//! Planning itself, and the verifying run every new plan passes before it is cached, live in
//! `planning`; `heal`, `protect` and `retire` are the other stages.

mod outcome;
mod pipeline;
mod replan;
mod replay;
mod run;

pub(super) use outcome::{FailedReplay, Healed, Unhealed};
pub(super) use run::ScenarioRun;
