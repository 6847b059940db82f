//! Planning logic, provider-agnostic: one page, the task and what is known go in; a validated
//! segment of plan comes out. Structured output; two retry levels: transient ones inside the
//! `llm` client, semantic ones here (the problems go back in one more call). Every call passes
//! the budget gate first and is counted, priced and timed.
//!
//! `observation` is the page as the model sees it (elements with refs); `facts` what steps
//! changed on it, the only postconditions a plan gets; `plan` holds the `Planner` and its
//! questions; `prompt` what it says; `answer` the schema it asks for, built per observation;
//! `check` how an answer is grounded and validated; `call` the budget gate; `spend` what the
//! calls cost; `suggest` the opt-in advice on a failure; `debrief` the opt-in reading of all a run's failures; `author` `windup new`'s scenario writing; `words` the task's own words, which a finished plan must show.

mod answer;
mod ask;
pub mod author;
mod budget;
mod call;
pub mod check;
mod debrief;
pub mod facts;
pub mod observation;
mod plan;
pub mod prompt;
mod settings;
mod spend;
mod suggest;
mod targets;
pub mod verbs;
pub mod words;

pub use crate::events::{Purpose, StepFailure};
pub use ask::Ask;
pub(crate) use budget::Budget;
pub use budget::Limits;
pub use check::Segment;
pub use observation::Observation;
pub(crate) use plan::{PlanFailure, Planner, Project};
pub use settings::Settings;
pub(crate) use spend::Spend;
