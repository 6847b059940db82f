//! Windup's machine-readable formats and their rules.
//!
//! Every on-disk format but the scenario carries a version field. To change a format: bump its
//! version constant, keep reading the previous version or say clearly that it is not read,
//! regenerate `schemas/` (`cargo test -p windup-model` fails until you do), and update the
//! formats table in ARCHITECTURE.md ("Changing a format").
//!
//! The feature `validate` (on by default) adds reading files against the JSON Schemas
//! (`validate`, `schema`, with `jsonschema`). The dashboard turns it off: it receives the types
//! over its API and reads no files.

#![warn(missing_docs)]

pub mod api;
pub mod baseline;
pub mod cache;
pub mod diff;
pub mod exit;
pub mod fragment;
pub mod hook;
pub mod keys;
pub mod ledger;
pub mod limits;
pub mod markdown;
pub mod money;
pub mod plan;
pub mod reason;
pub mod report;
pub mod scenario;
#[cfg(feature = "validate")]
pub mod schema;
pub mod selector;
pub mod sitemap;
pub mod triage;
#[cfg(feature = "validate")]
pub mod validate;

pub use baseline::Baseline;
pub use cache::{CacheEntry, CacheKey, CacheStats, CacheStatus, Invalidation, Proposal, Reviewed};
pub use diff::StepDiff;
pub use exit::ExitCode;
pub use fragment::Fragment;
pub use hook::{HookName, HookRun};
pub use ledger::{LEDGER_VERSION, LedgerRecord, LlmCalls, PhaseTimings, TokenUsage};
pub use plan::{
    Action, ActionType, CountExpect, DownloadExpect, Expect, Plan, Target, ValueExpect,
};
pub use report::{
    ActionResult, ActionStatus, CacheOutcome, CiInfo, Debrief, Downloaded, Evidence, FailureClass,
    GitInfo, Heal, HealRule, ProposalSource, ProposedPlan, Rect, RunReport, ScenarioResult,
    ScenarioStatus, Suggestion, Totals, TraceFrame, Triage, Verdict, check_environment,
};
pub use scenario::Scenario;
pub use selector::{FrameBy, Part, Selector, SelectorError};
#[cfg(feature = "validate")]
pub use validate::{InputError, Problems};
