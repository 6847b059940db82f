//! A plan-cache entry, `cache_version: "0.2"`, at `e2e/.windup/cache/<scenario_id>.json`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::plan::Plan;
use crate::report::FailureClass;

pub const CACHE_VERSION: &str = "0.2";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CacheEntry {
    pub cache_version: String,
    pub key: CacheKey,
    pub plan: Plan,
    pub status: CacheStatus,
    pub stats: CacheStats,
    /// Set on entries moved to `stale/`: why the plan stopped being trusted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalidation: Option<Invalidation>,
}

/// Environment-portable key: the start URL is a path, never a host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CacheKey {
    pub scenario_id: String,
    /// Path (with query) of the start URL.
    pub start_url: String,
    /// `Scenario::sha()` of the scenario the plan was made and verified for.
    pub scenario_sha: String,
    /// Structural signature of the start page when the plan was verified.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_sig: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CacheStatus {
    Active,
    Stale,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CacheStats {
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "String")]
    pub created_at: OffsetDateTime,
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
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "String")]
    pub at: OffsetDateTime,
    /// Short reason: "replay failed", "scenario changed", "replaced".
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<FailureClass>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_action_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The page URL when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The run that invalidated it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
}
