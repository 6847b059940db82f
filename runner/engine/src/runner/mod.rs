//! The run loop: for each scenario, look up the cache; replay a hit with zero LLM calls; plan a
//! miss; on a failed replay keep the old plan as stale evidence and re-plan once; verify, save,
//! report, and append one ledger record per scenario.

mod bench;
mod dashboard;
mod planning;
mod storage;

pub use bench::BenchReport;

use std::path::Path;
use std::time::Duration;

use time::OffsetDateTime;
use windup_model::report::REPORT_VERSION;
use windup_model::{
    CacheOutcome, CiInfo, FailureClass, InputError, Invalidation, Plan, Problems, RunReport,
    Scenario, ScenarioResult, ScenarioStatus, Totals,
};

use windup_model::ledger::{LEDGER_VERSION, LedgerRecord, LlmCalls, PhaseTimings, TokenUsage};

use crate::browser::{Browser, BrowserError, Session};
use crate::cache::{Lookup, PlanCache};
use crate::config::Config;
use crate::events::{Event, EventSink};
use crate::executor::{Captured, ExecContext, Execution, execute};
use crate::fragments::Fragments;
use crate::planner::{Budget, Planner, Spend, StepFailure};
use crate::project::{Layout, ScenarioFile, display, load_scenarios};
use crate::secrets::ProjectSecrets;
use planning::{Phases, Start, passed_steps};
use storage::StorageState;

/// Saved storage of the setup scenarios that passed in this run, by setup id.
type Storages = std::sync::Mutex<std::collections::HashMap<String, StorageState>>;

/// Why a run could not happen at all.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad usage, configuration or input (exit 2).
    #[error("{0}")]
    Input(Problems),
    /// The browser would not start (exit 3).
    #[error("{0}")]
    Infrastructure(BrowserError),
}

impl From<Problems> for RunError {
    fn from(p: Problems) -> Self {
        RunError::Input(p)
    }
}

impl From<InputError> for RunError {
    fn from(e: InputError) -> Self {
        RunError::Input(e.into())
    }
}

/// What every scenario of one run shares.
#[derive(Clone, Copy)]
struct RunShared<'a> {
    cache: &'a PlanCache,
    fragments: &'a Fragments,
    run_id: &'a str,
    events: &'a dyn EventSink,
    storage: &'a Storages,
}

impl RunShared<'_> {
    /// The saved storage a scenario starts with: that of every setup it needs.
    fn state_for(&self, scenario: &Scenario) -> Option<StorageState> {
        if scenario.needs.is_empty() {
            return None;
        }
        let saved = self.storage.lock().expect("storage lock");
        let mut state = StorageState::default();
        for need in &scenario.needs {
            if let Some(s) = saved.get(need) {
                state.cookies.extend(s.cookies.iter().cloned());
                state.origins.extend(s.origins.iter().cloned());
            }
        }
        Some(state)
    }

    /// Keeps a passed setup's storage for the scenarios that need it.
    async fn keep_setup_state(&self, root: &Path, scenario: &Scenario, session: &Session) {
        if !scenario.setup {
            return;
        }
        match storage::capture(session).await {
            Ok(state) => {
                if let Err(e) = storage::save(root, &scenario.id, &state) {
                    tracing::warn!("could not save the storage of setup {}: {e}", scenario.id);
                }
                self.storage
                    .lock()
                    .expect("storage lock")
                    .insert(scenario.id.clone(), state);
            }
            Err(e) => tracing::warn!("could not read the storage of setup {}: {e}", scenario.id),
        }
    }
}

/// Which scenarios a run takes, and how often it retries them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// Scenario ids; all when empty.
    pub ids: Vec<String>,
    /// Only scenarios carrying one of these tags.
    pub tags: Vec<String>,
    /// Only the scenarios that failed in the last run (`e2e/.windup/last-run.json`).
    pub failed: bool,
    /// `(i, n)`: the i-th of n stable parts of the suite, split by a hash of scenario ids.
    pub shard: Option<(u32, u32)>,
    /// Extra runs of a failed scenario; one that then passes is flaky.
    pub retries: u32,
    /// Scenarios run at once, each in its own context of one browser (0 or 1: one at a time).
    pub jobs: u32,
}

impl Selection {
    /// Scenarios at once when none is asked for: the number of cores.
    pub fn default_jobs() -> u32 {
        std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
    }
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct LastRun {
    run_id: String,
    failed: Vec<String>,
}

/// Parses `--shard i/n` (1-based).
pub fn parse_shard(raw: &str) -> Result<(u32, u32), InputError> {
    let bad = || {
        InputError::new(
            "command line",
            "--shard",
            format!("`{raw}` is not a shard"),
            "write --shard i/n with 1 <= i <= n, such as --shard 2/4",
        )
    };
    let (i, n) = raw.split_once('/').ok_or_else(bad)?;
    let (i, n): (u32, u32) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Which shard (0-based) of `n` a scenario belongs to: a hash of its id, so every machine of a
/// matrix agrees without talking, and adding a scenario moves no other.
pub fn shard_of(scenario_id: &str, n: u32) -> u32 {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(scenario_id.as_bytes());
    let head = u64::from_be_bytes(digest[..8].try_into().expect("8 bytes"));
    (head % u64::from(n)) as u32
}

/// A context being opened in the background for the next scenario.
type Prefetched = tokio::task::JoinHandle<Result<crate::browser::Session, BrowserError>>;

/// Whether this run can plan.
enum Planning {
    /// No provider is configured.
    Off,
    /// A provider is configured but cannot be used (its key is not set, say).
    Unavailable(String),
    Ready(Planner),
}

/// Runs scenarios and plans against one browser.
pub struct Runner {
    config: Config,
    browser: Browser,
    secrets: ProjectSecrets,
    planning: Planning,
    budget: Budget,
}

/// One scenario's result with what its ledger record needs.
struct Outcome {
    result: ScenarioResult,
    started_at: OffsetDateTime,
    spend: Spend,
    phases: Phases,
}

/// A scenario selected for this run, with what the cache holds for it.
struct Planned {
    file: ScenarioFile,
    lookup: Lookup,
}

impl Runner {
    /// Reads the project's secrets (`e2e/manifest.yaml`, `.env.local`) and sets up the chosen
    /// LLM provider. A provider whose key is not set leaves planning unavailable (replays still
    /// run); a model without a known price under a spend budget is a configuration error.
    pub fn new(config: Config) -> Result<Self, Problems> {
        let browser = Browser::new(config.browser.clone());
        Self::with_browser(config, browser)
    }

    /// As `new`, on a browser the caller already has (test harnesses share one).
    pub fn with_browser(config: Config, browser: Browser) -> Result<Self, Problems> {
        let secrets = ProjectSecrets::load(&config.root)?;
        let config_file = display(&config.root, &config.root.join(Layout::CONFIG_FILE));
        let prices = config.prices.clone();
        let planning = match &config.provider {
            None => Planning::Off,
            Some((name, provider)) => {
                let today = OffsetDateTime::now_utc().date();
                if config.limits.micro_usd.is_some()
                    && prices.price(&provider.model, today).is_none()
                {
                    return Err(InputError::new(
                        &config_file,
                        format!("providers.{name}.model"),
                        format!("no price is known for model `{}`, so the spend budget cannot be enforced", provider.model),
                        format!("add [prices.\"{}\"] with input_usd_per_mtok and output_usd_per_mtok (0 for a local model)", provider.model),
                    )
                    .into());
                }
                match crate::llm::client(name, provider, &config.env.as_fn()) {
                    Ok(client) => {
                        Planning::Ready(Planner::new(client, config.planner.clone(), prices))
                    }
                    Err(e) => {
                        Planning::Unavailable(format!("{}: {} ({})", e.field, e.problem, e.fix))
                    }
                }
            }
        };
        let budget = Budget::new(config.limits);
        Ok(Runner {
            config,
            browser,
            secrets,
            planning,
            budget,
        })
    }

    /// `provider/model` when a planner is ready.
    pub fn planner(&self) -> Option<&Planner> {
        match &self.planning {
            Planning::Ready(p) => Some(p),
            _ => None,
        }
    }

    fn scenario_timeout(&self, scenario: &Scenario) -> Duration {
        scenario
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.config.timeouts.scenario)
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn browser(&self) -> &Browser {
        &self.browser
    }

    /// Checks every input the run needs before anything starts.
    fn prepare(&self, selection: &Selection) -> Result<(Vec<Planned>, Fragments), RunError> {
        let ids = &selection.ids;
        let root = &self.config.root;
        let mut problems = Vec::new();
        let all = load_scenarios(root)?;
        let mut scenarios = all.clone();
        if !selection.tags.is_empty() {
            scenarios.retain(|s| s.scenario.tags.iter().any(|t| selection.tags.contains(t)));
        }
        if selection.failed {
            let path = root.join(Layout::LAST_RUN_FILE);
            let last: Option<LastRun> = std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok());
            match last {
                Some(last) => scenarios.retain(|s| last.failed.contains(&s.scenario.id)),
                None => problems.push(InputError::new(
                    display(root, &path),
                    "(file)",
                    "there is no record of a previous run, so --failed selects nothing",
                    "run the suite once without --failed",
                )),
            }
        }
        let fragments = match Fragments::load(&root.join(Layout::FRAGMENTS_DIR)) {
            Ok(f) => f,
            Err(p) => {
                problems.extend(p.0);
                Fragments::default()
            }
        };
        let mut selected = Vec::new();
        if ids.is_empty() {
            selected = scenarios;
        } else {
            for id in ids {
                match scenarios.iter().find(|s| &s.scenario.id == id) {
                    Some(s) => selected.push(s.clone()),
                    None => {
                        let known: Vec<&str> =
                            scenarios.iter().map(|s| s.scenario.id.as_str()).collect();
                        problems.push(InputError::new(
                            display(root, &root.join(Layout::SCENARIOS_DIR)),
                            id,
                            format!("no scenario `{id}`"),
                            if known.is_empty() {
                                "add e2e/scenarios/<id>.yaml".to_string()
                            } else {
                                format!("use one of: {}", known.join(", "))
                            },
                        ));
                    }
                }
            }
        }
        // The shard splits what the other filters chose, so named scenarios split across a
        // matrix too (a named scenario of another shard is that shard's, not an error).
        if let Some((i, n)) = selection.shard {
            selected.retain(|s| shard_of(&s.scenario.id, n) == i - 1);
        }
        if selected.is_empty()
            && problems.is_empty()
            && (selection.failed || selection.shard.is_some() || !selection.tags.is_empty())
        {
            // A filter that leaves nothing is not an error: a shard can be empty, and a suite
            // with no failures has nothing to re-run.
            return Ok((Vec::new(), Fragments::default()));
        }
        if selected.is_empty() && problems.is_empty() {
            problems.push(InputError::new(
                display(root, &root.join(Layout::SCENARIOS_DIR)),
                "(folder)",
                "there are no scenarios to run",
                "add a scenario file such as e2e/scenarios/sign-in.yaml, or pass --root to the project",
            ));
        }
        // A selected scenario brings the setups it needs, whatever the filters.
        let needed: Vec<String> = selected
            .iter()
            .flat_map(|s| s.scenario.needs.iter().cloned())
            .collect();
        for need in needed {
            if !selected.iter().any(|s| s.scenario.id == need)
                && let Some(setup) = all.iter().find(|s| s.scenario.id == need)
            {
                selected.push(setup.clone());
            }
        }
        let cache = PlanCache::new(root);
        let mut planned = Vec::new();
        for file in selected {
            match cache.lookup(&file.scenario) {
                Ok(lookup) => {
                    if let Lookup::Hit(entry) = &lookup {
                        problems.extend(fragments.check_uses(
                            &display(root, &cache.path(&file.scenario.id)),
                            "plan.",
                            &entry.plan,
                        ));
                    }
                    planned.push(Planned { file, lookup });
                }
                Err(p) => problems.extend(p.0),
            }
        }
        if let Err(e) = self.config.require_base_url() {
            problems.push(e);
        }
        if problems.is_empty() {
            Ok((planned, fragments))
        } else {
            Err(RunError::Input(Problems(problems)))
        }
    }

    /// `windup run`: every scenario (or those named), from the plan cache.
    pub async fn run(&self, ids: &[String], events: &dyn EventSink) -> Result<RunReport, RunError> {
        let selection = Selection {
            ids: ids.to_vec(),
            ..Selection::default()
        };
        self.run_selected(&selection, events).await
    }

    /// `windup run` with filters, sharding and retries.
    pub async fn run_selected(
        &self,
        selection: &Selection,
        events: &dyn EventSink,
    ) -> Result<RunReport, RunError> {
        let (planned, fragments) = self.prepare(selection)?;
        let planned = self.restore_plans(planned, &fragments).await;
        self.browser
            .ensure_started()
            .await
            .map_err(RunError::Infrastructure)?;
        let started_at = OffsetDateTime::now_utc();
        let run_id = uuid::Uuid::now_v7().to_string();
        let cache = PlanCache::new(&self.config.root);
        let storages = Storages::default();
        let shared = RunShared {
            cache: &cache,
            fragments: &fragments,
            run_id: &run_id,
            events,
            storage: &storages,
        };
        let jobs = selection.jobs.max(1);
        events.on_event(&Event::RunStarted {
            scenarios: planned.len(),
        });
        let scenarios: std::collections::HashMap<String, Scenario> = planned
            .iter()
            .map(|p| (p.file.scenario.id.clone(), p.file.scenario.clone()))
            .collect();
        // Setup scenarios first, one at a time; then the rest, which start with their storage.
        let (setups, rest): (Vec<Planned>, Vec<Planned>) =
            planned.into_iter().partition(|p| p.file.scenario.setup);
        let mut outcomes = Vec::new();
        for p in setups {
            outcomes.push(self.run_one(p, None, selection, &shared).await);
        }
        let failed_setups: Vec<String> = outcomes
            .iter()
            .filter(|o| o.result.status != ScenarioStatus::Passed)
            .map(|o| o.result.scenario_id.clone())
            .collect();
        let (blocked, rest): (Vec<Planned>, Vec<Planned>) = rest.into_iter().partition(|p| {
            p.file
                .scenario
                .needs
                .iter()
                .any(|n| failed_setups.contains(n))
        });
        let mut blocked_outcomes: Vec<Outcome> = blocked
            .into_iter()
            .map(|p| {
                let s = &p.file.scenario;
                let mut result = failed(
                    &s.id,
                    CacheOutcome::None,
                    FailureClass::NoPlan,
                    format!(
                        "skipped: it needs the setup {} that did not pass",
                        s.needs
                            .iter()
                            .filter(|n| failed_setups.contains(n))
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
                result.status = ScenarioStatus::Skipped;
                result.failure_class = None;
                result.task = Some(s.task.clone());
                events.on_event(&Event::ScenarioFinished {
                    result: result.clone(),
                });
                Outcome {
                    result,
                    started_at: OffsetDateTime::now_utc(),
                    spend: Spend::default(),
                    phases: Phases::default(),
                }
            })
            .collect();
        let planned = rest;
        if jobs == 1 {
            let total = planned.len();
            let mut next: Option<Prefetched> = None;
            for (i, p) in planned.into_iter().enumerate() {
                let session = next.take();
                // Without tab reuse, open the next scenario's context while this one runs: its
                // set-up then costs the next scenario no time. With reuse, the one tab is reset
                // between scenarios; a second one kept ready would cost a second renderer's
                // memory for about a tenth of a replay's time.
                if i + 1 < total && !self.config.browser.reuse_tabs {
                    let browser = self.browser.clone();
                    next = Some(tokio::spawn(async move { browser.acquire_session().await }));
                }
                outcomes.push(self.run_one(p, session, selection, &shared).await);
            }
            if let Some(spare) = next
                && let Ok(Ok(session)) = spare.await
            {
                session.close().await;
            }
        } else {
            // Concurrent scenarios, each in its own context of the one browser; results come
            // back in the suite's order whatever order they finish in.
            use futures::StreamExt;
            // The first session takes the start-up tab: open it before the others race for it.
            let opened = self.browser.acquire_session().await;
            let mut first: Option<Prefetched> = Some(tokio::spawn(async move { opened }));
            let concurrent: Vec<Outcome> = futures::stream::iter(planned)
                .map(|p| self.run_one(p, first.take(), selection, &shared))
                .buffered(jobs as usize)
                .collect()
                .await;
            outcomes.extend(concurrent);
        }
        outcomes.append(&mut blocked_outcomes);
        if self.config.suggest && !self.config.require_cached {
            self.suggest_fixes(&mut outcomes, &scenarios, &fragments)
                .await;
        }
        // Reports list scenarios in the suite's order (by id), whatever order they ran in.
        outcomes.sort_by(|a, b| a.result.scenario_id.cmp(&b.result.scenario_id));
        let report = self.report(
            run_id,
            started_at,
            outcomes.iter().map(|o| o.result.clone()).collect(),
        );
        let records = self.append_ledger(&report, &outcomes);
        let last = LastRun {
            run_id: report.run_id.clone(),
            failed: report
                .scenarios
                .iter()
                .filter(|s| s.status == ScenarioStatus::Failed)
                .map(|s| s.scenario_id.clone())
                .collect(),
        };
        if let Err(e) =
            crate::fsutil::write_json(&self.config.root.join(Layout::LAST_RUN_FILE), &last)
        {
            tracing::warn!("could not write {}: {e}", Layout::LAST_RUN_FILE);
        }
        let mut report = report;
        if let Some((i, n)) = selection.shard {
            let ci = report.ci.get_or_insert_with(|| CiInfo {
                provider: "local".into(),
                workflow_run: None,
                job: None,
                shard: None,
            });
            ci.shard = Some(format!("{i}/{n}"));
        }
        self.after_run(&report, &records).await;
        Ok(report)
    }

    /// One scenario with its retries: the result as reported, and what its ledger record needs.
    async fn run_one(
        &self,
        p: Planned,
        session: Option<Prefetched>,
        selection: &Selection,
        shared: &RunShared<'_>,
    ) -> Outcome {
        let started = OffsetDateTime::now_utc();
        let mut spend = Spend::default();
        let mut phases = Phases::default();
        let scenario = &p.file.scenario;
        let mut result = self
            .run_scenario(scenario, p.lookup, session, shared, &mut spend, &mut phases)
            .await;
        let mut attempts = 1;
        let mut first_failure = None;
        while result.status == ScenarioStatus::Failed
            && attempts <= selection.retries
            && result.failure_class.is_some_and(retryable)
        {
            first_failure.get_or_insert_with(|| result.clone());
            attempts += 1;
            let lookup = shared.cache.lookup(scenario).unwrap_or(Lookup::Miss);
            result = self
                .run_scenario(scenario, lookup, None, shared, &mut spend, &mut phases)
                .await;
        }
        result.attempts = attempts;
        if let (Some(first), ScenarioStatus::Passed) = (&first_failure, result.status) {
            // Passed on a retry: green, but flagged, with what failed first.
            result.flaky = true;
            result.message = Some(format!(
                "flaky: passed on attempt {attempts} after {}{}: {}",
                first
                    .failure_class
                    .map(|c| c.as_str())
                    .unwrap_or("a failure"),
                first
                    .failed_action_id
                    .as_deref()
                    .map(|a| format!(" at {a}"))
                    .unwrap_or_default(),
                first.message.as_deref().unwrap_or("")
            ));
        }
        let mut result = self.redacted(result);
        result.task = Some(scenario.task.clone());
        result.llm_calls = spend.calls();
        result.cost_micro_usd = spend.cost_micro_usd;
        result.duration_ms = (OffsetDateTime::now_utc() - started)
            .whole_milliseconds()
            .max(0) as u64;
        shared.events.on_event(&Event::ScenarioFinished {
            result: result.clone(),
        });
        Outcome {
            result,
            started_at: started,
            spend,
            phases,
        }
    }

    /// Opt-in: asks the planner's model about each failure. Advice only, budget-gated like
    /// every call; a call that cannot be made leaves the failure as it is.
    async fn suggest_fixes(
        &self,
        outcomes: &mut [Outcome],
        scenarios: &std::collections::HashMap<String, Scenario>,
        fragments: &Fragments,
    ) {
        let (Planning::Ready(planner), Some(base_url)) = (&self.planning, &self.config.base_url)
        else {
            return;
        };
        let project = crate::planner::Project {
            base_url,
            fragments,
            secrets: &self.secrets,
            budget: &self.budget,
        };
        for o in outcomes
            .iter_mut()
            .filter(|o| o.result.status == ScenarioStatus::Failed)
        {
            let Some(scenario) = scenarios.get(&o.result.scenario_id) else {
                continue;
            };
            match planner
                .suggest(scenario, &o.result, &project, &mut o.spend)
                .await
            {
                Ok(s) => o.result.suggestion = Some(s),
                Err(e) => tracing::warn!(
                    "no suggestion for {}: {}: {}",
                    o.result.scenario_id,
                    e.class,
                    e.message
                ),
            }
            o.result.llm_calls = o.spend.calls();
            o.result.cost_micro_usd = o.spend.cost_micro_usd;
        }
    }

    /// One ledger record per scenario. A ledger that cannot be written never changes a verdict.
    fn append_ledger(&self, report: &RunReport, outcomes: &[Outcome]) -> Vec<LedgerRecord> {
        let records: Vec<LedgerRecord> = outcomes
            .iter()
            .map(|o| self.ledger_record(report, o))
            .collect();
        if let Err(e) = crate::metrics::append(&self.config.root, &records) {
            tracing::warn!("could not append to {}: {e}", Layout::LEDGER_FILE);
        }
        records
    }

    fn ledger_record(&self, report: &RunReport, o: &Outcome) -> LedgerRecord {
        let r = &o.result;
        let planner = self.planner().filter(|_| o.spend.calls() > 0);
        LedgerRecord {
            ledger_version: LEDGER_VERSION.to_string(),
            run_id: report.run_id.clone(),
            scenario_id: r.scenario_id.clone(),
            started_at: o.started_at,
            finished_at: o.started_at + time::Duration::milliseconds(r.duration_ms as i64),
            status: r.status,
            failure_class: r.failure_class,
            cache: r.cache,
            provider: planner.map(|p| p.provider().to_string()),
            model: planner.map(|p| p.model().to_string()),
            calls: LlmCalls {
                planning: o.spend.planning,
                continuation: o.spend.continuation,
                replan: o.spend.replan,
                suggest: o.spend.suggest,
            },
            tokens: TokenUsage {
                input: o.spend.usage.input_tokens,
                output: o.spend.usage.output_tokens,
                cached: o.spend.usage.cached_tokens,
            },
            cost_micro_usd: o.spend.cost_micro_usd,
            price_table_date: o.spend.price_date,
            timings: PhaseTimings {
                plan_ms: o.spend.llm_ms + o.spend.own_ms + o.phases.observe_ms,
                execute_ms: o.phases.execute_ms,
                verify_ms: o.phases.verify_ms,
            },
            git_commit: report.git.as_ref().map(|g| g.commit.clone()),
            git_branch: report.git.as_ref().and_then(|g| g.branch.clone()),
        }
    }

    async fn run_scenario(
        &self,
        scenario: &Scenario,
        lookup: Lookup,
        prefetched: Option<Prefetched>,
        shared: &RunShared<'_>,
        spend: &mut Spend,
        phases: &mut Phases,
    ) -> ScenarioResult {
        let RunShared {
            cache,
            fragments,
            run_id,
            events,
            ..
        } = *shared;
        events.on_event(&Event::ScenarioStarted {
            scenario_id: scenario.id.clone(),
        });
        let entry = match lookup {
            Lookup::Hit(entry) => entry,
            Lookup::Changed(old) => {
                let moved = cache.invalidate(
                    &old,
                    Invalidation {
                        at: OffsetDateTime::now_utc(),
                        reason: "scenario changed".into(),
                        failure_class: None,
                        failed_action_id: None,
                        message: Some(
                            "the scenario's task, hints or start URL changed since the plan was verified"
                                .into(),
                        ),
                        url: None,
                        run_id: Some(run_id.to_string()),
                    },
                );
                if let Err(e) = moved {
                    tracing::warn!(
                        "could not move the outdated plan of {} to stale: {e}",
                        scenario.id
                    );
                }
                return self
                    .plan_or_refuse(scenario, shared, spend, phases, "the scenario changed since its plan was verified (the old plan is kept in e2e/.windup/cache/stale/)")
                    .await;
            }
            Lookup::Miss => {
                return self
                    .plan_or_refuse(scenario, shared, spend, phases, "no plan is cached")
                    .await;
            }
        };
        let timeout = self.scenario_timeout(scenario);
        let (execution, session) = match self
            .execute_open(
                &scenario.id,
                &entry.plan,
                timeout,
                fragments,
                prefetched,
                events,
                shared.state_for(scenario).as_ref(),
            )
            .await
        {
            Ok(x) => x,
            Err(e) => return crashed(&scenario.id, CacheOutcome::Hit, e),
        };
        phases.add(&execution);
        if execution.passed() {
            shared
                .keep_setup_state(&self.config.root, scenario, &session)
                .await;
        }
        let Some(failure) = execution
            .failure
            .clone()
            .filter(|f| f.class.invalidates_plan())
        else {
            session.close().await;
            return self.scenario_result(run_id, &scenario.id, CacheOutcome::Hit, execution);
        };
        let moved = cache.invalidate(
            &entry,
            Invalidation {
                at: OffsetDateTime::now_utc(),
                reason: "replay failed".into(),
                failure_class: Some(failure.class),
                failed_action_id: failure.action_id.clone(),
                message: Some(self.secrets.redact(&failure.message)),
                url: execution.final_url.clone(),
                run_id: Some(run_id.to_string()),
            },
        );
        if let Err(e) = moved {
            tracing::warn!(
                "could not move the failed plan of {} to stale: {e}",
                scenario.id
            );
        }
        let k = passed_steps(&execution);
        let repairable = planning::plan_misfit(failure.class) && k < entry.plan.actions.len();
        if self.planning_blocked(scenario).is_some() || !repairable {
            session.close().await;
            let mut result =
                self.scenario_result(run_id, &scenario.id, CacheOutcome::Hit, execution);
            if let Some((_, why)) = self.planning_blocked(scenario) {
                result.message = result.message.map(|m| {
                    format!("{m} (the plan is kept as stale evidence; not re-planned: {why})")
                });
            }
            return result;
        }
        // Re-plan once, from the page where the replay failed, with the failure in the prompt.
        let page = match self.observe(&session, phases).await {
            Ok(p) => p,
            Err(e) => {
                session.close().await;
                return crashed(&scenario.id, CacheOutcome::StaleReplanned, e);
            }
        };
        session.close().await;
        let replay_evidence = execution
            .evidence
            .clone()
            .map(|c| self.stored_evidence(run_id, &format!("{}.replay", scenario.id), c));
        let replay_message = self.secrets.redact(&failure.message);
        let start = Start::Repair {
            done: entry.plan.actions[..k].to_vec(),
            failure: StepFailure {
                action: entry.plan.actions[k].clone(),
                class: failure.class,
                message: replay_message.clone(),
            },
            page: Box::new(page),
        };
        let mut result = self
            .plan_scenario(
                scenario,
                start,
                CacheOutcome::StaleReplanned,
                shared,
                spend,
                phases,
            )
            .await;
        let replay = format!(
            "the cached plan failed at {} ({}: {replay_message}) and was re-planned",
            failure.action_id.as_deref().unwrap_or("its start"),
            failure.class
        );
        result.message = Some(match result.message {
            Some(m) => format!("{replay}; the new plan failed too: {m}"),
            None => replay,
        });
        // A re-planned plan that passed leaves the failed replay's evidence: the stale plan's.
        if result.status == ScenarioStatus::Passed {
            result.evidence = replay_evidence;
        }
        result
    }

    /// A scenario without a usable plan: planned when this run may, else failed saying why.
    async fn plan_or_refuse(
        &self,
        scenario: &Scenario,
        shared: &RunShared<'_>,
        spend: &mut Spend,
        phases: &mut Phases,
        why: &str,
    ) -> ScenarioResult {
        if let Some((class, blocked)) = self.planning_blocked(scenario) {
            return failed(
                &scenario.id,
                CacheOutcome::Miss,
                class,
                format!("{why}: {blocked}"),
            );
        }
        self.plan_scenario(
            scenario,
            Start::Fresh,
            CacheOutcome::Miss,
            shared,
            spend,
            phases,
        )
        .await
    }

    /// Runs one plan in a fresh context and closes it.
    pub async fn execute_plan(
        &self,
        scenario_id: &str,
        plan: &Plan,
        timeout: Duration,
        fragments: &Fragments,
        prefetched: Option<Prefetched>,
        events: &dyn EventSink,
    ) -> Result<Execution, BrowserError> {
        let (execution, session) = self
            .execute_open(
                scenario_id,
                plan,
                timeout,
                fragments,
                prefetched,
                events,
                None,
            )
            .await?;
        let closing = std::time::Instant::now();
        session.close().await;
        tracing::debug!(scenario_id, "context closed in {:?}", closing.elapsed());
        Ok(execution)
    }

    /// Runs one plan in a fresh context and hands the context back, so a failure's page can
    /// still be read.
    #[allow(clippy::too_many_arguments)]
    async fn execute_open(
        &self,
        scenario_id: &str,
        plan: &Plan,
        timeout: Duration,
        fragments: &Fragments,
        prefetched: Option<Prefetched>,
        events: &dyn EventSink,
        state: Option<&StorageState>,
    ) -> Result<(Execution, Session), BrowserError> {
        let base_url = self
            .config
            .base_url
            .as_ref()
            .expect("prepare checked the base URL");
        let opened = std::time::Instant::now();
        let ready = match prefetched {
            Some(handle) => match handle.await {
                Ok(Ok(session)) if session.is_alive() => Some(session),
                Ok(Ok(stale)) => {
                    stale.close().await;
                    None
                }
                _ => None,
            },
            None => None,
        };
        let mut session = match ready {
            Some(s) => s,
            None => self.browser.acquire_session().await?,
        };
        tracing::debug!(scenario_id, "context opened in {:?}", opened.elapsed());
        if let Some(state) = state
            && let Err(e) = storage::apply(&session, state).await
        {
            session.close().await;
            return Err(e);
        }
        let cx = ExecContext {
            scenario_id,
            base_url,
            timeouts: self.config.timeouts,
            scenario_timeout: timeout,
            fragments,
            secrets: &self.secrets,
            events,
            screenshots: self.config.screenshots,
        };
        let execution = execute(&mut session, plan, &cx).await;
        Ok((execution, session))
    }

    /// `windup replay PLAN.json`: one plan, no LLM. With `save`, a plan that passes becomes the
    /// cached plan of the project's scenario with the plan's `scenario_id` (how hand-written
    /// plans enter the cache: verified first, like every cached plan).
    pub async fn replay(
        &self,
        plan: &Plan,
        save: bool,
        events: &dyn EventSink,
    ) -> Result<RunReport, RunError> {
        self.config.require_base_url()?;
        let scenario = if save {
            let scenarios = load_scenarios(&self.config.root)?;
            let found = scenarios
                .into_iter()
                .find(|s| s.scenario.id == plan.scenario_id)
                .ok_or_else(|| {
                    InputError::new(
                        "plan",
                        "scenario_id",
                        format!(
                            "no scenario `{}` in {}",
                            plan.scenario_id,
                            display(
                                &self.config.root,
                                &self.config.root.join(Layout::SCENARIOS_DIR)
                            )
                        ),
                        "add e2e/scenarios/<id>.yaml for the plan, or replay without --save",
                    )
                })?;
            if found.scenario.start_url != plan.start_url {
                return Err(InputError::new(
                    "plan",
                    "start_url",
                    format!(
                        "the plan starts at `{}` but the scenario at `{}`",
                        plan.start_url, found.scenario.start_url
                    ),
                    "make them the same path",
                )
                .into());
            }
            Some(found.scenario)
        } else {
            None
        };
        let fragments = Fragments::load(&self.config.root.join(Layout::FRAGMENTS_DIR))?;
        let problems = fragments.check_uses("plan", "", plan);
        if !problems.is_empty() {
            return Err(RunError::Input(Problems(problems)));
        }
        self.browser
            .ensure_started()
            .await
            .map_err(RunError::Infrastructure)?;
        let started_at = OffsetDateTime::now_utc();
        let run_id = uuid::Uuid::now_v7().to_string();
        events.on_event(&Event::ScenarioStarted {
            scenario_id: plan.scenario_id.clone(),
        });
        let timeout = scenario
            .as_ref()
            .and_then(|s| s.timeout_ms)
            .map(Duration::from_millis)
            .unwrap_or(self.config.timeouts.scenario);
        let result = match self
            .execute_plan(&plan.scenario_id, plan, timeout, &fragments, None, events)
            .await
        {
            Ok(x) => {
                if let (Some(scenario), None) = (&scenario, &x.failure) {
                    let cache = PlanCache::new(&self.config.root);
                    if let Err(e) = cache.save_verified(
                        scenario,
                        plan,
                        x.start_sig.clone(),
                        x.duration.as_millis() as u64,
                        &run_id,
                    ) {
                        tracing::error!("could not save the verified plan: {e}");
                    }
                }
                self.scenario_result(&run_id, &plan.scenario_id, CacheOutcome::None, x)
            }
            Err(e) => crashed(&plan.scenario_id, CacheOutcome::None, e),
        };
        let mut result = self.redacted(result);
        result.task = Some(plan.task.clone());
        events.on_event(&Event::ScenarioFinished {
            result: result.clone(),
        });
        Ok(self.report(run_id, started_at, vec![result]))
    }

    fn report(
        &self,
        run_id: String,
        started_at: OffsetDateTime,
        scenarios: Vec<ScenarioResult>,
    ) -> RunReport {
        let finished_at = OffsetDateTime::now_utc();
        let mut totals = Totals {
            scenarios: scenarios.len() as u32,
            duration_ms: (finished_at - started_at).whole_milliseconds().max(0) as u64,
            ..Totals::default()
        };
        for s in &scenarios {
            match s.status {
                ScenarioStatus::Passed => totals.passed += 1,
                ScenarioStatus::Failed => totals.failed += 1,
                ScenarioStatus::Skipped => totals.skipped += 1,
            }
            totals.llm_calls += s.llm_calls;
            totals.cost_micro_usd += s.cost_micro_usd;
            if s.cache == CacheOutcome::Hit {
                totals.cache_hits += 1;
            }
            if s.flaky {
                totals.flaky += 1;
            }
        }
        RunReport {
            report_version: REPORT_VERSION.to_string(),
            run_id,
            started_at,
            finished_at,
            windup_version: env!("CARGO_PKG_VERSION").to_string(),
            base_url: self.config.base_url.as_ref().map(|u| u.to_string()),
            git: crate::ci::git_info(&self.config.root, &self.config.env),
            ci: crate::ci::ci_info(&self.config.env),
            totals,
            scenarios,
        }
    }

    /// A scenario's result from its execution; its screenshot (a failure's, or a pass's with
    /// `screenshots = "on"`) is stored under `e2e/.windup/runs/<run_id>/` and its evidence text
    /// masked for credentials.
    fn scenario_result(
        &self,
        run_id: &str,
        id: &str,
        cache: CacheOutcome,
        mut x: Execution,
    ) -> ScenarioResult {
        let captured = x.evidence.take();
        let passed_png = x.screenshot.take();
        let mut result = plain_result(id, cache, x);
        result.evidence = captured.map(|c| self.stored_evidence(run_id, id, c));
        result.screenshot = passed_png
            .as_deref()
            .and_then(|png| self.store_screenshot(run_id, id, png));
        result
    }

    /// Failure evidence with its screenshot stored as `e2e/.windup/runs/<run_id>/<name>.png`.
    fn stored_evidence(&self, run_id: &str, name: &str, c: Captured) -> windup_model::Evidence {
        let mut evidence = c.evidence;
        evidence.screenshot = c
            .screenshot
            .as_deref()
            .and_then(|png| self.store_screenshot(run_id, name, png));
        evidence
    }

    fn store_screenshot(&self, run_id: &str, name: &str, png: &[u8]) -> Option<String> {
        let rel = format!("{}/{run_id}/{name}.png", Layout::RUNS_DIR);
        match crate::fsutil::write_atomic(&self.config.root.join(&rel), png) {
            Ok(()) => Some(rel),
            Err(e) => {
                tracing::warn!("could not store the screenshot {rel}: {e}");
                None
            }
        }
    }

    pub async fn close(&self) {
        self.browser.close().await;
    }

    /// A message can quote what the page showed, such as a field's value: every credential
    /// value is masked before a result is shown, reported or kept as evidence.
    fn redacted(&self, mut result: ScenarioResult) -> ScenarioResult {
        if let Some(m) = &result.message {
            result.message = Some(self.secrets.redact(m));
        }
        if let Some(e) = &mut result.evidence {
            let mask = |t: &mut String| *t = self.secrets.redact(t);
            e.url.iter_mut().for_each(mask);
            e.snapshot.iter_mut().for_each(mask);
            e.target.iter_mut().for_each(mask);
            e.console_errors.iter_mut().for_each(mask);
            e.failed_requests.iter_mut().for_each(mask);
        }
        for a in &mut result.actions {
            if let Some(e) = &a.error {
                a.error = Some(self.secrets.redact(e));
            }
        }
        result
    }
}

/// Failures worth a retry: the app, the browser or the timing may behave differently next time.
/// Planning outcomes (no plan, budget, rejected plans, --require-cached) would not.
fn retryable(class: FailureClass) -> bool {
    !matches!(
        class,
        FailureClass::NoPlan
            | FailureClass::NotCached
            | FailureClass::BudgetExceeded
            | FailureClass::PlanRejected
            | FailureClass::PlanInvalid
    )
}

fn plain_result(id: &str, cache: CacheOutcome, x: Execution) -> ScenarioResult {
    let (status, class, action, message) = match x.failure {
        None => (ScenarioStatus::Passed, None, None, None),
        Some(f) => (
            ScenarioStatus::Failed,
            Some(f.class),
            f.action_id,
            Some(f.message),
        ),
    };
    ScenarioResult {
        scenario_id: id.to_string(),
        task: None,
        status,
        failure_class: class,
        failed_action_id: action,
        message,
        cache,
        llm_calls: 0,
        cost_micro_usd: 0,
        duration_ms: x.duration.as_millis() as u64,
        final_url: x.final_url,
        attempts: 1,
        flaky: false,
        evidence: None,
        screenshot: None,
        suggestion: None,
        actions: x.actions,
    }
}

fn failed(id: &str, cache: CacheOutcome, class: FailureClass, message: String) -> ScenarioResult {
    ScenarioResult {
        scenario_id: id.to_string(),
        task: None,
        status: ScenarioStatus::Failed,
        failure_class: Some(class),
        failed_action_id: None,
        message: Some(message),
        cache,
        llm_calls: 0,
        cost_micro_usd: 0,
        duration_ms: 0,
        final_url: None,
        attempts: 1,
        flaky: false,
        evidence: None,
        screenshot: None,
        suggestion: None,
        actions: Vec::new(),
    }
}

fn crashed(id: &str, cache: CacheOutcome, e: BrowserError) -> ScenarioResult {
    failed(id, cache, FailureClass::BrowserCrashed, e.to_string())
}
