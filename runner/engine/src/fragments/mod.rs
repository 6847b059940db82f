//! Fragments: reusable, tested sub-trajectories committed in `e2e/fragments/<id>.json`.
//!
//! `catalogue` reads them (`Fragments`) and checks the plans that `use` them; `start` says where
//! each may be used (its `start` route against the page's path) and how the planner's catalogue
//! shows it; `extract` turns verified steps of a cached plan into a fragment, and the plan into
//! one that uses it (pure: the runner verifies both before anything is written).

mod catalogue;
pub mod extract;
mod start;

pub use catalogue::Fragments;
pub use start::{catalogue_line, page_path, proves};
