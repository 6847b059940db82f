//! The run ledger, `ledger_version: "0.1"`: one JSON line per scenario per run in
//! `e2e/.windup/ledger.jsonl`, saying what the LLM cost (calls, tokens, model, price) and how long
//! each phase took. `windup costs` totals it; the dashboard will read it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use time::{Date, OffsetDateTime, UtcOffset};

use crate::report::{CacheOutcome, FailureClass, ScenarioStatus};

/// The `ledger_version` this windup writes and reads.
pub const LEDGER_VERSION: &str = "0.1";

// Dates as `YYYY-MM-DD`, the way people and the price table write them.
time::serde::format_description!(iso_date, Date, "[year]-[month]-[day]");

/// What one scenario of one run cost. Readers tolerate unknown (newer) fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LedgerRecord {
    /// The format's version, `"0.1"`.
    pub ledger_version: String,
    /// UUID v7 of the run, as in the run report: every scenario of one run shares it.
    pub run_id: String,
    /// The scenario's `id`.
    pub scenario_id: String,
    /// When the scenario started (RFC 3339); its UTC day is the record's day.
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "String")]
    pub started_at: OffsetDateTime,
    /// When the scenario finished (RFC 3339).
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "String")]
    pub finished_at: OffsetDateTime,
    /// How the scenario ended, as in the run report.
    pub status: ScenarioStatus,
    /// Why it failed; absent unless `status` is `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<FailureClass>,
    /// Where the plan that ran came from.
    pub cache: CacheOutcome,
    /// The config name of the provider called; absent when no call was made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The model called, as sent to the provider.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// LLM calls made for the scenario, by purpose.
    pub calls: LlmCalls,
    /// Tokens billed for those calls.
    pub tokens: TokenUsage,
    /// What the calls cost, in whole micro-dollars (1 USD = 1 000 000), rounded up.
    pub cost_micro_usd: u64,
    /// `since` of the price entry used (`YYYY-MM-DD`); absent when no call was made or the
    /// model's price was unknown (then `cost_micro_usd` is 0 and `windup costs --recompute`
    /// prices it once a price is known).
    #[serde(
        default,
        with = "iso_date::option",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub price_table_date: Option<Date>,
    /// Time spent planning, executing and verifying.
    pub timings: PhaseTimings,
    /// The git commit (full hash) that ran, as the run report's `git.commit`; absent when not
    /// known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_commit: Option<String>,
    /// The git branch that ran, as the run report's `git.branch`; absent when not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git_branch: Option<String>,
}

impl LedgerRecord {
    /// The UTC day the scenario started: what prices and `--since` are reckoned by.
    pub fn day(&self) -> Date {
        self.started_at.to_offset(UtcOffset::UTC).date()
    }
}

/// LLM calls, by why they were made.
// The engine's planning purposes (plan, continue, correct, repair) map onto these counters
// (`Spend::count`); the names on disk predate that vocabulary, so a repair is `replan` there.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LlmCalls {
    /// Planning a scenario on a cache miss.
    pub planning: u32,
    /// Continuing a plan from the page reached (multi-page flows).
    pub continuation: u32,
    /// Planning again after a cached plan failed.
    #[serde(rename = "replan")]
    pub repair: u32,
    /// An opt-in failure summary and fix suggestion (`--suggest`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub suggest: u32,
    /// Writing a scenario from a rough instruction (`windup new`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub author: u32,
    /// The opt-in run debrief (`--debrief`): one call per run, counted in the record of the
    /// run's first failed scenario (by id).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub debrief: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl LlmCalls {
    /// Every call, whatever its purpose.
    pub fn total(&self) -> u32 {
        self.planning + self.continuation + self.repair + self.suggest + self.author + self.debrief
    }
}

/// Tokens billed, summed over the calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TokenUsage {
    /// Prompt tokens, the cached ones included (as both Gemini and OpenAI count them).
    pub input: u64,
    /// Generated tokens, thinking included.
    pub output: u64,
    /// The part of `input` served from the provider's prompt cache, billed at the cached rate.
    pub cached: u64,
}

impl std::ops::AddAssign for TokenUsage {
    fn add_assign(&mut self, other: TokenUsage) {
        self.input += other.input;
        self.output += other.output;
        self.cached += other.cached;
    }
}

impl std::ops::Add for TokenUsage {
    type Output = TokenUsage;
    fn add(mut self, other: TokenUsage) -> TokenUsage {
        self += other;
        self
    }
}

/// Wall-clock time of each phase of the scenario.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PhaseTimings {
    /// Waiting for the LLM (0 on a cache hit).
    pub plan_ms: u64,
    /// Running the steps.
    pub execute_ms: u64,
    /// Checking postconditions.
    pub verify_ms: u64,
}
