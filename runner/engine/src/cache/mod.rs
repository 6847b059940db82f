//! The trajectory cache: one verified plan per scenario at `e2e/.windup/cache/<id>.json`, keyed
//! by scenario id, start path and scenario hash. Saved only after a full verified run; a failed
//! replay moves a machine-made entry to `stale/` with its evidence, while a protected one (written
//! or accepted by a person) stays, and a verified plan made in its place waits in `proposals/`
//! for `windup accept`. All writes are atomic.

mod accept;
mod proposals;
mod save;
mod store;

pub use accept::{Accepted, accept};
pub use save::{Restored, Saved, Verified};
pub use store::{Lookup, PlanCache};
