//! Planning inside a run. A miss is planned from the start page; a broken replay is repaired
//! from the page where it failed, in the context it failed in. Planning goes step by step: a
//! call plans the steps whose targets it sees, they run, the page is read again, and what they
//! changed becomes the facts the next call (or a closing one) picks proofs from. Every plan is
//! then proven from fresh contexts (`prove`: each check false before its step and true after,
//! each step needed), held to the task's own words, and verified by one more clean run before
//! it is cached; a plan that fails any of it is never cached.

mod covered;
mod observe;
mod order;
mod proofs;
mod prove;
mod start;
mod steps;
mod tidy;
mod verify;

pub(in crate::runner) use proofs::{Planned, check_download};
pub(in crate::runner) use prove::{Prover, Strictness};
pub(in crate::runner) use start::{Phases, Start, Stop, passed_steps, plan_misfit};
pub(in crate::runner) use verify::counted;
