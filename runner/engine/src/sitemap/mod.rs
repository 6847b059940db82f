//! The site map (`e2e/.windup/sitemap.json`, the format in `windup_model::sitemap`): what runs
//! and scans learned of the app's pages, used to give the planner a slice of known pages and to
//! mark cached plans at risk before they replay.
//!
//! `store` reads and writes the file (atomically, and only when a fact changed); `collect`
//! listens to the executor's `PageSeen` events and turns them into `execution` facts; `slice`
//! is the planner's short, untrusted view of it; `risk` checks a cached plan against it.

mod collect;
mod notes;
mod risk;
mod slice;
mod store;

pub use collect::{Collector, Seen, learn};
pub use notes::{Memory, Recalled};
pub use risk::{AtRisk, at_risk};
pub use slice::{SLICE_CHARS, slice};
pub use store::{SiteMapFile, render};
