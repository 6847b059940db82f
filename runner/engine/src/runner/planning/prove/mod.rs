//! Proving a plan before it is cached, with no LLM. A check proves its step only when it is
//! false just before the step and true after; a step is kept only when leaving it out makes a
//! check fail. Both are found by running the plan from fresh contexts:
//!
//! - the proving run: every check (and every fact planning saw the step change) is read just
//!   before its step; one that already holds is no proof and is dropped; a fact that is false
//!   before and true after may later become a check;
//! - one run per step that changes the page, with that step left out (its own checks still read
//!   where it would have run, except those that restate its own input: a typed value, a ticked
//!   box); a check or a later step that then fails proves the step. When nothing fails, a second
//!   run looks for a fact of the step (or of a later one) that the omission leaves false, and
//!   makes it a check. A step nothing proves that changed nothing at all (a click on a heading)
//!   is idle: dropped (planning), refused (an agent's flow), or reported (`windup validate
//!   --prove`). One that changed only its own target (a typed value no check needs, a ticked
//!   box the page ignores) stays, since the server or a later scenario may need it, but it is
//!   unproven: its typed value shows none of the task's words.
//!
//! Every wait for a check that should fail takes the step's whole time: a check that would
//! come true on its own a little later is then never taken for a proof.

mod context;
mod omit;
mod pipeline;
mod prover;
mod run;
mod step;

pub(in crate::runner) use prover::Prover;
pub(in crate::runner) use step::{Proven, Strictness};
