//! Windup's machine-readable formats and their rules.
//!
//! Every on-disk format carries a version field. To change a format: bump its version constant,
//! keep reading the previous version or say clearly that it is not read, regenerate `schemas/`
//! (`cargo test -p windup-model` fails until you do), and note the change in ARCHITECTURE.md.

#![warn(missing_docs)]

pub mod cache;
pub mod exit;
pub mod fragment;
pub mod keys;
pub mod ledger;
pub mod markdown;
pub mod money;
pub mod plan;
pub mod report;
pub mod scenario;
pub mod schema;
pub mod selector;
pub mod validate;

pub use cache::{CacheEntry, CacheKey, CacheStats, CacheStatus, Invalidation};
pub use exit::ExitCode;
pub use fragment::Fragment;
pub use ledger::{LEDGER_VERSION, LedgerRecord, LlmCalls, PhaseTimings, TokenUsage};
pub use plan::{Action, ActionType, CountExpect, Expect, Plan, Target, ValueExpect};
pub use report::{
    ActionResult, ActionStatus, CacheOutcome, CiInfo, Evidence, FailureClass, GitInfo, RunReport,
    ScenarioResult, ScenarioStatus, Suggestion, Totals,
};
pub use scenario::Scenario;
pub use selector::{Part, Selector, SelectorError};
pub use validate::{InputError, Problems};
