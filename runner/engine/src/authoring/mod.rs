//! Authoring (the spec's `authoring`): from a developer's rough instruction to a precise
//! scenario. `literals` finds credentials written into the instruction; `register` puts each in
//! the manifest under a new ENV name and its value in `.env.local`, so the instruction the model
//! sees, and the scenario written, name it only. The call itself is `planner::author`; the
//! command that ties them together is `Runner::author` (`runner/author.rs`).

pub mod literals;
pub mod register;

pub use literals::{Literal, LiteralKind, find_literals};
pub use register::{Registered, register};
