//! The run report, `report_version: "0.2"`: what one `windup run` did, for people and machines.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::diff::StepDiff;
use crate::plan::ActionType;
pub use crate::triage::{Triage, Verdict};

/// 0.2 added, all optional for readers of 0.1: `totals.flaky`, and per scenario `task`,
/// `attempts`, `flaky`, `evidence` and `suggestion`, and per action `step`; later, still as
/// optional fields of 0.2: per scenario `triage`, `heal` and `proposal`, per action `trace` and
/// `download`, the run's `debrief` and `environment`; and the cache outcome `healed`.
pub const REPORT_VERSION: &str = "0.3";

/// Why a scenario failed. One meaning each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailureClass {
    /// No visible match for the target when the action's timeout ran out.
    SelectorNotFound,
    /// The target matched but never became actionable (hidden, moving, disabled, covered).
    NotActionable,
    /// An `expect` did not hold in time.
    PostconditionFailed,
    /// A page did not load.
    NavigationFailed,
    /// The whole scenario ran out of its time budget.
    ScenarioTimeout,
    /// The browser died or stopped answering.
    BrowserCrashed,
    /// The plan failed validation.
    PlanInvalid,
    /// Nothing cached and no LLM provider configured.
    NoPlan,
    /// The LLM provider failed after its retries.
    LlmError,
    /// The LLM's plan was still invalid after the retries.
    PlanRejected,
    /// The plan's steps ran, but they do not prove the task: a string it quotes, a number it
    /// states, a control it names or a step it asks for shows nowhere in the plan, or no step
    /// is proven by a check it changes.
    PlanIncomplete,
    /// A call could have overshot the spend budget, so it was not made.
    BudgetExceeded,
    /// `--require-cached` and no cached plan.
    NotCached,
    /// Something outside the browser that the scenario depends on failed: a hook of
    /// windup.toml's `[hooks]` (resetting or seeding the app's data) exited non-zero, could
    /// not start or ran out of time.
    Environment,
}

impl FailureClass {
    /// Failures that mean the plan no longer fits the app: a failed replay with one moves its
    /// plan to `stale/`. A crashed browser, an app that is down or a slow run say nothing about
    /// the plan, so they keep it.
    pub fn invalidates_plan(self) -> bool {
        matches!(
            self,
            FailureClass::SelectorNotFound
                | FailureClass::NotActionable
                | FailureClass::PostconditionFailed
                | FailureClass::PlanInvalid
        )
    }

    /// The name used in reports, such as `selector_not_found`.
    pub fn as_str(self) -> &'static str {
        match self {
            FailureClass::SelectorNotFound => "selector_not_found",
            FailureClass::NotActionable => "not_actionable",
            FailureClass::PostconditionFailed => "postcondition_failed",
            FailureClass::NavigationFailed => "navigation_failed",
            FailureClass::ScenarioTimeout => "scenario_timeout",
            FailureClass::BrowserCrashed => "browser_crashed",
            FailureClass::PlanInvalid => "plan_invalid",
            FailureClass::NoPlan => "no_plan",
            FailureClass::LlmError => "llm_error",
            FailureClass::PlanRejected => "plan_rejected",
            FailureClass::PlanIncomplete => "plan_incomplete",
            FailureClass::BudgetExceeded => "budget_exceeded",
            FailureClass::NotCached => "not_cached",
            FailureClass::Environment => "environment",
        }
    }
}

impl std::fmt::Display for FailureClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one `windup run` did: when, where, and each scenario's result with its steps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RunReport {
    /// The format's version, `"0.2"`.
    pub report_version: String,
    /// UUID v7: sortable by time.
    pub run_id: String,
    /// When the run started (RFC 3339).
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "String")]
    pub started_at: OffsetDateTime,
    /// When the run finished (RFC 3339).
    #[serde(with = "time::serde::rfc3339")]
    #[schemars(with = "String")]
    pub finished_at: OffsetDateTime,
    /// The windup version that ran.
    pub windup_version: String,
    /// The base URL of the app under test; absent when none was configured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The environment the run tested, by name (`--environment`, the Action's `environment`
    /// input): `staging`, `pr-preview`. Not the base URL, whose random ports would make every
    /// run its own environment. Absent when none was named. See [`check_environment`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// The commit that ran; absent when none is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<GitInfo>,
    /// The CI system the run was in (or the shard of a local sharded run); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<CiInfo>,
    /// Counts and sums over `scenarios`.
    pub totals: Totals,
    /// One result per scenario the run selected, the skipped ones included.
    pub scenarios: Vec<ScenarioResult>,
    /// The opt-in run debrief (`--debrief`), when the run had failures; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub debrief: Option<Debrief>,
    /// The `before_all` hook, when windup.toml's `[hooks]` has one (report 0.3).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<crate::hook::HookRun>,
}

/// Why `name` is not an environment name, if it is not: 1 to 64 characters of `A-Z a-z 0-9 . _
/// -`, starting with a letter or digit (`staging`, `pr-preview`, `eu.prod`).
pub fn check_environment(name: &str) -> Result<(), String> {
    let ok_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if name.is_empty() || name.len() > 64 {
        return Err(format!(
            "`{name}` is not an environment name: use 1 to 64 characters"
        ));
    }
    if !name.chars().all(ok_char) || !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(format!(
            "`{name}` is not an environment name: use letters, digits, `.`, `_` and `-`, \
             starting with a letter or digit (such as `staging`)"
        ));
    }
    Ok(())
}

/// The run debrief: one LLM call over every failure of the run together, saying what they share
/// and what to look at first. Advice for people: it never changes a verdict or the exit code.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Debrief {
    /// What the failures have in common, if anything.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub shared_cause: String,
    /// Failed scenarios to look at first, by id, the most telling first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub look_first: Vec<String>,
    /// Anything else worth knowing.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub notes: String,
    /// The model that wrote it (`provider/model`); absent when none did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// Why there is no debrief (no provider, the budget refused the call, an unusable answer);
    /// absent when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_made: Option<String>,
}

/// The commit a run tested.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GitInfo {
    /// The full commit hash: git's `HEAD`, else `GITHUB_SHA`.
    pub commit: String,
    /// The branch: a pull request's head branch on GitHub, else the pushed ref's, else git's
    /// current branch; absent on a detached `HEAD`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
}

/// The CI run a report came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CiInfo {
    /// `github`, `gitlab`, … or `ci` when only `CI` is set.
    pub provider: String,
    /// The CI run's id (`GITHUB_RUN_ID`, `CI_PIPELINE_ID`); the shards of one run share it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow_run: Option<String>,
    /// The job's name (`GITHUB_JOB`, `CI_JOB_NAME`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<String>,
    /// `i/n` when the suite was split across machines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
}

/// Counts and sums over a run's scenarios.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Totals {
    /// Scenarios in the report: `passed + failed + skipped`.
    pub scenarios: u32,
    /// Scenarios that passed, the flaky ones included.
    pub passed: u32,
    /// Scenarios that failed.
    pub failed: u32,
    /// Scenarios that did not run (a setup they need failed).
    pub skipped: u32,
    /// LLM calls made, for every purpose.
    pub llm_calls: u32,
    /// What those calls cost, in micro-dollars (1 USD = 1 000 000).
    pub cost_micro_usd: u64,
    /// Scenarios whose cached plan replayed (`cache: hit`).
    pub cache_hits: u32,
    /// Wall-clock time of the whole run.
    pub duration_ms: u64,
    /// Scenarios that failed, then passed on a retry (counted in `passed` too).
    #[serde(default)]
    pub flaky: u32,
    /// Scenarios that passed after a step was healed without an LLM (`cache: healed`; counted
    /// in `passed` too).
    #[serde(default)]
    pub healed: u32,
}

/// How a scenario ended: `passed`, `failed`, or `skipped` (not run, because a setup scenario it
/// needs did not pass).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[expect(
    missing_docs,
    reason = "a doc comment on a variant makes schemars write the enum as `oneOf` consts; the \
              published schemas keep the plain `enum` of names, and the variants are described \
              above"
)]
pub enum ScenarioStatus {
    Passed,
    Failed,
    Skipped,
}

impl ScenarioStatus {
    /// The status as the report spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ScenarioStatus::Passed => "passed",
            ScenarioStatus::Failed => "failed",
            ScenarioStatus::Skipped => "skipped",
        }
    }
}

/// Where the plan that ran came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CacheOutcome {
    /// A cached plan replayed.
    Hit,
    /// A cached plan replayed on a start page whose structural signature differs from the one
    /// it was verified on (a control was added or removed): the replay still ran first.
    HitChangedPage,
    /// No usable cached plan: planned afresh.
    Miss,
    /// The cached plan failed, was kept as stale evidence, and a new plan replaced it.
    StaleReplanned,
    /// The cached plan failed on a step whose target was renamed or moved; the step was healed
    /// without an LLM (see `heal`), the rest of the plan verified, and the healed plan replaced
    /// the old one, which is kept as stale evidence.
    Healed,
    /// No cache involved (`windup replay`, or a scenario that never got a plan).
    None,
}

impl CacheOutcome {
    /// The name as serialised (`stale_replanned`).
    pub fn as_str(self) -> &'static str {
        match self {
            CacheOutcome::Hit => "hit",
            CacheOutcome::HitChangedPage => "hit_changed_page",
            CacheOutcome::Miss => "miss",
            CacheOutcome::StaleReplanned => "stale_replanned",
            CacheOutcome::Healed => "healed",
            CacheOutcome::None => "none",
        }
    }
}

/// What one scenario did in a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ScenarioResult {
    /// The scenario's `id`.
    pub scenario_id: String,
    /// The scenario's task, for reports people read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// How the scenario ended.
    pub status: ScenarioStatus,
    /// Why it failed; absent unless `status` is `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<FailureClass>,
    /// The `id` of the step that failed; absent when the failure was not at a step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_action_id: Option<String>,
    /// For people: what went wrong, why the scenario was skipped, or what failed before a flaky
    /// pass; credential values masked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Where the plan that ran came from.
    pub cache: CacheOutcome,
    /// LLM calls made for the scenario, for every purpose.
    pub llm_calls: u32,
    /// What those calls cost, in micro-dollars (1 USD = 1 000 000).
    pub cost_micro_usd: u64,
    /// Wall-clock time of the scenario, planning and retries included.
    pub duration_ms: u64,
    /// The page URL when the scenario ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub final_url: Option<String>,
    /// Runs of the scenario in this run: 1, plus the retries used (`--retries`).
    #[serde(default = "one")]
    pub attempts: u32,
    /// Failed, then passed on a retry: passed, but never silently green.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flaky: bool,
    /// What the page looked like at the failing step: of a failed scenario, or of the failed
    /// replay of a scenario that passed re-planned (`cache: stale_replanned`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// A PNG of the viewport when a passing scenario ended, as a path relative to the project
    /// root (`e2e/.windup/runs/<run_id>/<scenario_id>.png`); only with `screenshots = "on"`.
    /// A failure's screenshot is in its evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
    /// Opt-in (`--suggest`): an LLM's reading of the failure and a fix to consider. Advice
    /// for people; never applied to a plan or the cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<Suggestion>,
    /// Of a failed scenario: what kind of failure it is, read from its evidence by rules, with
    /// no LLM.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triage: Option<Triage>,
    /// Of a scenario that passed healed (`cache: healed`): the step that was mended, and how.
    /// Passed, but never silently green: every report flags it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heal: Option<Heal>,
    /// Of a failed scenario whose protected plan (written or accepted by a person) was kept:
    /// the verified re-plan or heal written beside it as a proposal, for `windup accept`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<ProposedPlan>,
    /// The steps of the last attempt, in the order they finished; a fragment's steps come
    /// before its `use` step.
    pub actions: Vec<ActionResult>,
    /// The `before_each` and `after_each` hooks of the last attempt (report 0.3); their time is
    /// part of `duration_ms`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<crate::hook::HookRun>,
}

fn one() -> u32 {
    1
}

/// A step mended without an LLM: its target was gone, exactly one element on the page fitted
/// the rule, and the rest of the plan verified with it, every postcondition unchanged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Heal {
    /// The step whose target changed.
    pub action_id: String,
    /// Which rule found the new target.
    pub rule: HealRule,
    /// The target's selector in the old plan.
    pub from: String,
    /// The selector the healed plan uses.
    pub to: String,
}

impl Heal {
    /// `a4: role=button[name="Archive"] → role=button[name="Move to archive"] (renamed)`.
    pub fn describe(&self) -> String {
        format!(
            "{}: {} \u{2192} {} ({})",
            self.action_id,
            self.from,
            self.to,
            self.rule.as_str()
        )
    }
}

/// A verified plan written as a proposal instead of replacing a protected plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProposedPlan {
    /// The proposal file, relative to the project root
    /// (`e2e/.windup/cache/proposals/<scenario_id>.json`).
    pub file: String,
    /// How it was made.
    pub source: ProposalSource,
    /// What it changes in the protected plan.
    pub diff: StepDiff,
}

/// How a proposed plan was made: `planned` (a verified re-plan, by a model or an agent) or
/// `healed` (a step healed without an LLM, the rest of the plan verified unchanged).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[expect(
    missing_docs,
    reason = "a doc comment on a variant makes schemars write the enum as `oneOf` consts; the \
              variants are described above"
)]
pub enum ProposalSource {
    Planned,
    Healed,
}

impl ProposalSource {
    /// The name as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalSource::Planned => "planned",
            ProposalSource::Healed => "healed",
        }
    }
}

/// How a healed step's new target was found: `renamed` (the same role under the same container,
/// with a close name) or `moved` (the same test id, label or placeholder, its container gone).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[expect(
    missing_docs,
    reason = "a doc comment on a variant makes schemars write the enum as `oneOf` consts; the \
              variants are described above"
)]
pub enum HealRule {
    Renamed,
    Moved,
}

impl HealRule {
    /// The name as serialised.
    pub fn as_str(self) -> &'static str {
        match self {
            HealRule::Renamed => "renamed",
            HealRule::Moved => "moved",
        }
    }
}

/// An LLM's reading of one failure, for people.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Suggestion {
    /// What went wrong, in a sentence or two.
    pub summary: String,
    /// What to change: the scenario's task or hints, the app, or nothing (re-plan).
    pub fix: String,
    /// `provider/model` that wrote it.
    pub by: String,
}

/// Captured at the failing step, with every credential value masked (in text) or covered (in
/// the screenshot).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Evidence {
    /// The failing step's id (for a re-planned scenario that passed, the failed replay's step).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_id: Option<String>,
    /// The page URL at the failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A PNG of the viewport, as a path relative to the project root
    /// (`e2e/.windup/runs/<run_id>/<scenario_id>.png`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
    /// The page's accessibility snapshot, trimmed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<String>,
    /// Uncaught errors and `console.error` messages of the page.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub console_errors: Vec<String>,
    /// Requests that failed: `STATUS URL` for 4xx/5xx, `failed URL` for network errors.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_requests: Vec<String>,
    /// The failing step's target and what was found instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// How a step ended: `passed`, `failed`, or `skipped` (not run, because an earlier step failed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[expect(
    missing_docs,
    reason = "a doc comment on a variant makes schemars write the enum as `oneOf` consts; the \
              published schemas keep the plain `enum` of names, and the variants are described \
              above"
)]
pub enum ActionStatus {
    Passed,
    Failed,
    Skipped,
}

/// What one step did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ActionResult {
    /// The step's `id` in its plan or fragment.
    pub id: String,
    /// The step's type.
    #[serde(rename = "type")]
    pub kind: ActionType,
    /// For steps inside a fragment: the `use` step's id and the fragment's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fragment: Option<String>,
    /// The step as one readable line (`click role=button[name="Save"]`); credentials by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    /// How the step ended.
    pub status: ActionStatus,
    /// Milliseconds from the scenario's start to the step's start.
    pub started_ms: u64,
    /// Wall-clock time of the step: waiting, acting and checking.
    pub duration_ms: u64,
    /// Waiting for the target to be found and actionable.
    pub wait_ms: u64,
    /// Performing the input.
    pub act_ms: u64,
    /// Checking the postconditions.
    pub verify_ms: u64,
    /// Why the step failed, credential values masked; absent unless it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// For a `download` step: where the downloaded file was saved, relative to the project root
    /// (`e2e/.windup/runs/<run_id>/downloads/<scenario>/report.csv`), and its size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download: Option<Downloaded>,
    /// With `--trace on` (or `on-failure`, for a scenario that failed): the page after the
    /// step. Absent for steps that never ran and `use` steps (their fragment's steps have
    /// their own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<TraceFrame>,
}

/// One frame of a scenario's trace: the page right after a step, for the filmstrip.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TraceFrame {
    /// The page's URL after the step, credential values masked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A small JPEG of the viewport (at most 320 px wide) with every credential covered, as a
    /// path relative to the project root
    /// (`e2e/.windup/runs/<run_id>/<scenario_id>.trace-<n>.jpg`); absent when it was not kept,
    /// and `note` says why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<String>,
    /// Why there is no screenshot: over the trace's size bound, or a credential that could not
    /// be covered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The viewport the screenshot shows, in CSS pixels.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewport: Option<Rect>,
    /// The step's target as it was when the step acted on it, in the viewport's CSS pixels;
    /// absent for steps without a target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_box: Option<Rect>,
}

/// A rectangle in CSS pixels, rounded to whole pixels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Rect {
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// A file a `download` step saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Downloaded {
    /// The saved file, relative to the project root.
    pub path: String,
    /// Its name as the site suggested it.
    pub name: String,
    /// Its size in bytes.
    pub size: u64,
}
