//! Planning logic, provider-agnostic: one page, the task and what is known go in; a validated
//! segment of plan comes out. Structured output; two retry levels: transient ones inside the
//! `llm` client, semantic ones here (the problems go back in one more call). Every call passes
//! the budget gate first and is counted, priced and timed.
//!
//! `plan` holds the `Planner` and its question; `prompt` what it
//! says; `answer` the schema it asks for; `check` how an answer is validated; `call` the budget
//! gate; `spend` what the calls cost; `suggest` the opt-in advice on a failure.

mod answer;
mod budget;
mod call;
pub mod check;
pub mod page;
mod plan;
pub mod prompt;
mod settings;
mod spend;
mod suggest;

pub use crate::events::{Purpose, StepFailure};
pub(crate) use budget::Budget;
pub use budget::Limits;
pub use check::Segment;
pub use page::PageView;
pub use plan::Ask;
pub(crate) use plan::{PlanFailure, Planner, Project};
pub use settings::Settings;
pub(crate) use spend::Spend;
