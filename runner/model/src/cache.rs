//! A plan-cache entry, `cache_version: "0.4"`, at `e2e/.windup/cache/<scenario_id>.json` (kept
//! in `stale/` once invalidated, and written to `proposals/` while it waits for a person).
//!
//! One rule for replacing a plan, [`CacheEntry::protected`]: a plan written or accepted by a
//! person is never replaced automatically. A verified re-plan or heal of it is kept as a
//! proposal (`status: proposed`, with its `proposal`) until `windup accept` adopts it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::baseline::Baseline;
use crate::plan::{BY_HUMAN, Plan};
use crate::report::{FailureClass, ProposalSource};

/// The `cache_version` this windup writes. 0.4 added `baseline`; 0.3 added `reviewed`, the
/// status `proposed` and its `proposal`; all optional for a reader of an older entry.
pub const CACHE_VERSION: &str = "0.4";

/// Every `cache_version` this windup reads: a 0.2 entry is read as it was (never reviewed), a
/// 0.2 or 0.3 one with no baseline (its failures' verdicts are marked unconfirmed).
pub const CACHE_VERSIONS_READ: [&str; 3] = ["0.2", "0.3", CACHE_VERSION];

/// One scenario's cached plan: replayed without an LLM while its key still matches the scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CacheEntry {
    /// The format's version, `"0.4"` (`"0.2"` and `"0.3"` are still read).
    pub cache_version: String,
    /// What the plan was verified for; a scenario that no longer matches it is a miss.
    pub key: CacheKey,
    /// The verified plan, replayed as it is.
    pub plan: Plan,
    /// `active` in `cache/`, `stale` once moved to `stale/`, `proposed` in `proposals/`.
    pub status: CacheStatus,
    /// When the plan was made and last verified, and how often it passed.
    pub stats: CacheStats,
    /// Set on entries moved to `stale/`: why the plan stopped being trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalidation: Option<Invalidation>,
    /// Set when a person accepted the plan (`windup accept`): it is protected, never replaced
    /// automatically, like a plan written by hand.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewed: Option<Reviewed>,
    /// Set on proposals (`status: proposed`): why and how the plan was proposed, and the
    /// protected plan it would replace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<Proposal>,
    /// What the app's pages did in the background on the run that verified the plan (page
    /// errors, failed requests), which triage discounts when a replay fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Baseline>,
}

impl CacheEntry {
    /// Whether the plan was written or accepted by a person (`generated_by: "human"`, or
    /// `reviewed`): then it is never replaced, moved to `stale/` or healed over automatically,
    /// only by a person's command. The one rule every road that writes the cache follows.
    pub fn protected(&self) -> bool {
        self.plan.generated_by == BY_HUMAN || self.reviewed.is_some()
    }
}

/// Environment-portable key: the start URL is a path, never a host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CacheKey {
    /// The scenario's `id`; an active entry is `cache/<scenario_id>.json`.
    pub scenario_id: String,
    /// Path (with query) of the start URL.
    pub start_url: String,
    /// `Scenario::sha()` of the scenario the plan was made and verified for.
    pub scenario_sha: String,
    /// Structural signature of the start page when the plan was verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_sig: Option<String>,
}

/// Whether an entry may be replayed: `active`, a plan trusted for replay; `stale`, a plan kept in
/// `stale/` as evidence (see `invalidation`) and never replayed; `proposed`, a verified plan in
/// `proposals/` waiting for a person to accept it in place of a protected one (see `proposal`),
/// never replayed until then.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[expect(
    missing_docs,
    reason = "a doc comment on a variant makes schemars write the enum as `oneOf` consts, which \
              loses the validator's `use one of: …` fix; the variants are described above"
)]
pub enum CacheStatus {
    Active,
    Stale,
    Proposed,
}

/// The plan's track record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CacheStats {
    /// When the plan was first saved after a verified run (RFC 3339).
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "String")]
    pub created_at: OffsetDateTime,
    /// When the plan last passed a verified run (RFC 3339).
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "String")]
    pub last_verified_at: OffsetDateTime,
    /// Verified runs of this plan, the first included.
    pub verified_runs: u64,
    /// Duration of the last verified run.
    pub last_duration_ms: u64,
}

/// Evidence kept with a stale entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Invalidation {
    /// When the entry was moved to `stale/` (RFC 3339).
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "String")]
    pub at: OffsetDateTime,
    /// Short reason: "replay failed", "scenario changed", "replaced".
    pub reason: String,
    /// How the replay failed; absent when the plan was not invalidated by a failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<FailureClass>,
    /// The plan step that failed, when one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_action_id: Option<String>,
    /// The detail, for people, with credential values masked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The page URL when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The start page's structural signature on the replay that failed, when it differed from
    /// `key.start_sig`: the page had changed since the plan was verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_sig_now: Option<String>,
    /// The run that invalidated it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
}

/// A person's acceptance of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Reviewed {
    /// When it was accepted (RFC 3339).
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "String")]
    pub at: OffsetDateTime,
    /// Who accepted it, as git's `user.name <user.email>` where the command ran; absent when
    /// git did not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// Why a plan was proposed instead of cached: the protected plan failed, and a verified re-plan
/// or heal of it is waiting for `windup accept`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Proposal {
    /// How the proposed plan was made.
    pub source: ProposalSource,
    /// What happened to the protected plan in the run that proposed this one (`reason`: "replay
    /// failed", "scenario changed", "outside the trust boundary"; the failure's class, step,
    /// message and URL when it failed; the run).
    pub why: Invalidation,
    /// The protected plan it would replace, as it was when proposed: `windup accept` refuses a
    /// proposal made against another plan than the active one.
    pub replaces: Plan,
}
