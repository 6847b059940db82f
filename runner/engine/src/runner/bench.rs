//! `windup bench`: the validation protocol for one scenario, in a scratch plan cache so the
//! project's committed plans are never touched. Five generations (at least four verified), ten
//! replays (all with zero calls and $0), replay at least five times faster than the first run,
//! recovery from a broken selector (the replay fails, the re-plan passes, the stale entry is
//! kept), and "break the app" (`mutants`: the verified plan fails whenever one step's events
//! never reach the app). Every call is recorded in the ledger like any other.

use serde::Serialize;
use time::OffsetDateTime;
use windup_model::{CacheOutcome, FailureClass, ScenarioResult, ScenarioStatus};

use super::schedule::Outcome;
use super::shared::{RunShared, Storages};
use super::{RunError, Runner, ScenarioRun, Selection};
use crate::cache::{Lookup, PlanCache};
use crate::events::EventSink;

/// The version of the bench report's JSON, written as its `bench_version`.
const BENCH_VERSION: &str = "0.1";
/// Fresh plannings of the scenario, of which at least four must be verified.
const GENERATIONS: usize = 5;
/// Replays of the verified plan, every one of which must pass with no LLM call.
const REPLAYS: usize = 10;

/// One fresh planning of the scenario.
#[derive(Debug, Clone, Serialize)]
pub struct Generation {
    /// The planner produced a plan that passed validation.
    pub valid: bool,
    /// That plan then passed its verifying run.
    pub verified: bool,
    /// LLM calls this planning made, semantic retries and continuations included.
    pub calls: u32,
    /// Prompt tokens billed over those calls.
    pub input_tokens: u64,
    /// Output tokens billed over those calls.
    pub output_tokens: u64,
    /// What the calls cost, in micro-dollars.
    pub cost_micro_usd: u64,
    /// Time in planning calls, provider latency included.
    pub llm_ms: u64,
    /// The planner's own time: prompts and checks.
    pub planner_ms: u64,
    /// The whole scenario run in milliseconds: planning and the verifying run.
    pub total_ms: u64,
    /// Why the run failed, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_class: Option<FailureClass>,
    /// The failure's message, when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// One run of the verified plan from the scratch cache.
#[derive(Debug, Clone, Serialize)]
pub struct Replay {
    /// It passed as a cache hit (a re-planned pass does not count).
    pub passed: bool,
    /// LLM calls it made; a replay should make none.
    pub calls: u32,
    /// What those calls cost, in micro-dollars.
    pub cost_micro_usd: u64,
    /// The run's duration in milliseconds.
    pub duration_ms: u64,
}

/// Corrupting one selector of the verified plan, then running again.
#[derive(Debug, Clone, Serialize)]
pub struct Recovery {
    /// The id of the step whose selector was broken; empty when none could be.
    pub broken_action: String,
    /// The broken plan's replay failed and the scenario was re-planned.
    pub replay_failed: bool,
    /// The re-planned scenario passed.
    pub replanned_and_passed: bool,
    /// The broken plan was kept as a stale entry, as evidence.
    pub stale_kept: bool,
    /// LLM calls the recovery made.
    pub calls: u32,
    /// What those calls cost, in micro-dollars.
    pub cost_micro_usd: u64,
    /// Why the recovery could not be tried, or the run's failure message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The protocol's verdicts.
#[derive(Debug, Clone, Serialize)]
pub struct Checks {
    /// At least 4 of 5 generations verified (a valid plan that failed its verifying run does
    /// not count).
    pub generations: bool,
    /// 10 of 10 replays passed with 0 calls.
    pub replays: bool,
    /// The first run took at least 5 times the median replay.
    pub speedup: bool,
    /// Replays cost nothing.
    pub free_replays: bool,
    /// The broken plan failed, the re-plan passed and the stale entry was kept.
    pub recovery: bool,
    /// The verified plan failed on every mutant of the app (each step's events kept from it):
    /// its checks see what every step does.
    pub mutants: bool,
}

/// What `windup bench` found for one scenario, printed as a table or written as JSON.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    /// The format version of this JSON, so a reader can tell an older report.
    pub bench_version: String,
    /// The scenario benched.
    pub scenario_id: String,
    /// The configured provider's name, as in `[providers.NAME]`.
    pub provider: String,
    /// The model that planned.
    pub model: String,
    /// Each fresh planning, in order.
    pub generations: Vec<Generation>,
    /// The first verified generation's whole time in milliseconds: planning and its verifying
    /// run. `None` when no generation was verified.
    pub first_run_ms: Option<u64>,
    /// Each replay of the verified plan, in order.
    pub replays: Vec<Replay>,
    /// The median replay's duration in milliseconds; `None` without replays.
    pub replay_median_ms: Option<u64>,
    /// first_run_ms / replay_median_ms.
    pub speedup: Option<f64>,
    /// The broken-selector recovery; `None` when there was no verified plan to break.
    pub recovery: Option<Recovery>,
    /// "Break the app": the verified plan run once per step with that step's element deaf to
    /// the app; each must fail. Empty when there was no verified plan.
    pub mutants: Vec<super::Mutant>,
    /// The protocol's verdict on each criterion.
    pub checks: Checks,
    /// Every check held.
    pub passed: bool,
}

impl Runner {
    /// Runs the validation protocol on one scenario.
    pub async fn bench(
        &self,
        scenario_id: &str,
        events: &dyn EventSink,
    ) -> Result<BenchReport, RunError> {
        let (planned, fragments) = self.prepare(&Selection {
            ids: vec![scenario_id.to_string()],
            ..Default::default()
        })?;
        let scenario = planned
            .into_iter()
            .next()
            .expect("prepare found the scenario")
            .file
            .scenario;
        let Some(planner) = self.planner() else {
            let why = self
                .planning_blocked(&scenario)
                .map(|(_, why)| why)
                .unwrap_or_default();
            return Err(windup_model::InputError::new(
                "windup.toml",
                "providers",
                format!("bench needs a planner: {why}"),
                "configure a [providers.NAME] table and set its key, and do not pass --require-cached",
            )
            .into());
        };
        if self.config.require_cached {
            return Err(windup_model::InputError::new(
                "--require-cached",
                "(flag)",
                "bench plans on purpose",
                "run bench without --require-cached",
            )
            .into());
        }
        self.browser
            .ensure_started()
            .await
            .map_err(RunError::from)?;
        let run_id = uuid::Uuid::now_v7().to_string();
        let started_at = OffsetDateTime::now_utc();
        let mut outcomes = Vec::new();
        let storages = Storages::default();
        let scratch = |what: &str| {
            tempfile::Builder::new()
                .prefix(&format!("windup-bench-{what}-"))
                .tempdir()
                .map_err(|e| {
                    RunError::Input(
                        windup_model::InputError::new(
                            std::env::temp_dir().display().to_string(),
                            "(folder)",
                            format!("cannot create a scratch folder: {e}"),
                            "free some disk space or set TMPDIR",
                        )
                        .into(),
                    )
                })
        };

        let site = super::site::Site::none(&self.config.root);
        // A scenario run against `cache`, recorded for the ledger.
        let once = async |cache: &PlanCache, outcomes: &mut Vec<Outcome>| -> ScenarioResult {
            let lookup = cache.lookup(&scenario).unwrap_or(Lookup::Miss);
            let shared = RunShared {
                storage: &storages,
                cache,
                fragments: &fragments,
                run_id: &run_id,
                events,
                site: &site,
            };
            let started = OffsetDateTime::now_utc();
            let mut run = ScenarioRun::new(self, &scenario, shared);
            let result = run.run(lookup, None).await;
            let ScenarioRun { spend, phases, .. } = run;
            let mut result = self.results().redacted(result);
            result.task = Some(scenario.task.clone());
            result.llm_calls = spend.calls.total();
            result.cost_micro_usd = spend.cost_micro_usd;
            result.duration_ms = (OffsetDateTime::now_utc() - started)
                .whole_milliseconds()
                .max(0) as u64;
            outcomes.push(Outcome {
                result: result.clone(),
                started_at: started,
                spend,
                phases,
            });
            result
        };

        let mut generations = Vec::new();
        let mut verified_dir = None;
        let mut first_run_ms = None;
        for _ in 0..GENERATIONS {
            let dir = scratch("plan")?;
            let cache = PlanCache::new(dir.path());
            let r = once(&cache, &mut outcomes).await;
            let spend = &outcomes.last().expect("recorded").spend;
            let valid = r.status == ScenarioStatus::Passed
                || !matches!(
                    r.failure_class,
                    Some(
                        FailureClass::PlanRejected
                            | FailureClass::LlmError
                            | FailureClass::BudgetExceeded
                            | FailureClass::NoPlan
                            | FailureClass::NotCached
                            | FailureClass::NavigationFailed
                            | FailureClass::BrowserCrashed
                    )
                );
            let verified = r.status == ScenarioStatus::Passed;
            generations.push(Generation {
                valid,
                verified,
                calls: spend.calls.total(),
                input_tokens: spend.usage.input_tokens,
                output_tokens: spend.usage.output_tokens,
                cost_micro_usd: spend.cost_micro_usd,
                llm_ms: spend.llm_ms,
                planner_ms: spend.own_ms,
                total_ms: r.duration_ms,
                failure_class: r.failure_class,
                message: r.message.clone(),
            });
            if verified && verified_dir.is_none() {
                first_run_ms = Some(r.duration_ms);
                verified_dir = Some(dir);
            }
        }

        let mut replays = Vec::new();
        let mut recovery = None;
        let mut mutants = Vec::new();
        if let Some(dir) = &verified_dir {
            let cache = PlanCache::new(dir.path());
            if let Ok(Some(entry)) = cache.load(&scenario.id) {
                let shared = RunShared {
                    storage: &storages,
                    cache: &cache,
                    fragments: &fragments,
                    run_id: &run_id,
                    events,
                    site: &site,
                };
                mutants = ScenarioRun::new(self, &scenario, shared)
                    .prover()
                    .break_app(&entry.plan)
                    .await;
            }
            for _ in 0..REPLAYS {
                let r = once(&cache, &mut outcomes).await;
                replays.push(Replay {
                    passed: r.status == ScenarioStatus::Passed && r.cache == CacheOutcome::Hit,
                    calls: r.llm_calls,
                    cost_micro_usd: r.cost_micro_usd,
                    duration_ms: r.duration_ms,
                });
            }
            recovery = Some(
                break_and_recover(&cache, &scenario, async |c| once(c, &mut outcomes).await).await,
            );
        }

        let verified = generations.iter().filter(|g| g.verified).count();
        let mut durations: Vec<u64> = replays.iter().map(|r| r.duration_ms).collect();
        durations.sort_unstable();
        let replay_median_ms = (!durations.is_empty()).then(|| durations[durations.len() / 2]);
        let speedup = match (first_run_ms, replay_median_ms) {
            (Some(f), Some(m)) => Some(f as f64 / m.max(1) as f64),
            _ => None,
        };
        let checks = Checks {
            generations: verified * 5 >= GENERATIONS * 4,
            replays: replays.len() == REPLAYS && replays.iter().all(|r| r.passed && r.calls == 0),
            speedup: speedup.is_some_and(|s| s >= 5.0),
            free_replays: !replays.is_empty() && replays.iter().all(|r| r.cost_micro_usd == 0),
            recovery: recovery
                .as_ref()
                .is_some_and(|r| r.replay_failed && r.replanned_and_passed && r.stale_kept),
            mutants: !mutants.is_empty() && mutants.iter().all(|m| m.caught),
        };
        let passed = checks.generations
            && checks.replays
            && checks.speedup
            && checks.free_replays
            && checks.recovery
            && checks.mutants;
        let report = self.report(
            run_id,
            started_at,
            outcomes.iter().map(|o| o.result.clone()).collect(),
        );
        self.ledger().append(&report, &outcomes);
        Ok(BenchReport {
            bench_version: BENCH_VERSION.to_string(),
            scenario_id: scenario.id.clone(),
            provider: planner.provider().to_string(),
            model: planner.model().to_string(),
            generations,
            first_run_ms,
            replays,
            replay_median_ms,
            speedup,
            recovery,
            mutants,
            checks,
            passed,
        })
    }
}

/// Corrupts the first target selector of the cached plan, then runs once more.
async fn break_and_recover(
    cache: &PlanCache,
    scenario: &windup_model::Scenario,
    mut run: impl AsyncFnMut(&PlanCache) -> ScenarioResult,
) -> Recovery {
    let stale_before = cache.stale_entries(&scenario.id).len();
    let mut broken_action = String::new();
    let broke = match cache.load(&scenario.id) {
        Ok(Some(mut entry)) => match entry.plan.actions.iter_mut().find(|a| a.target.is_some()) {
            Some(a) => {
                broken_action = a.id.clone();
                if let Some(t) = a.target.as_mut() {
                    t.selector = "css=[data-windup-bench-broken]".to_string();
                }
                crate::fsutil::write_json(&cache.path(&scenario.id), &entry).is_ok()
            }
            None => false,
        },
        _ => false,
    };
    if !broke {
        return Recovery {
            broken_action,
            replay_failed: false,
            replanned_and_passed: false,
            stale_kept: false,
            calls: 0,
            cost_micro_usd: 0,
            message: Some("the verified plan has no step with a target to break".into()),
        };
    }
    let r = run(cache).await;
    Recovery {
        broken_action,
        replay_failed: r.cache == CacheOutcome::StaleReplanned,
        replanned_and_passed: r.cache == CacheOutcome::StaleReplanned
            && r.status == ScenarioStatus::Passed,
        stale_kept: cache.stale_entries(&scenario.id).len() > stale_before,
        calls: r.llm_calls,
        cost_micro_usd: r.cost_micro_usd,
        message: r.message,
    }
}
