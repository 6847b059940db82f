//! The run loop: for each scenario, look up the cache, replay, verify, save or invalidate, and
//! build the run report. Planning on a miss arrives with the planner; until then a miss fails
//! with `no_plan`.

use std::path::Path;
use std::time::Duration;

use time::OffsetDateTime;
use windup_model::report::REPORT_VERSION;
use windup_model::{
    CacheOutcome, CiInfo, FailureClass, GitInfo, InputError, Invalidation, Plan, Problems,
    RunReport, Scenario, ScenarioResult, ScenarioStatus, Totals,
};

use crate::browser::{Browser, BrowserError};
use crate::cache::{Lookup, PlanCache};
use crate::config::Config;
use crate::events::{Event, EventSink};
use crate::executor::{ExecContext, Execution, execute};
use crate::fragments::Fragments;
use crate::project::{FRAGMENTS_DIR, ScenarioFile, display, load_scenarios};
use crate::secrets::ProjectSecrets;

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
}

/// A context being opened in the background for the next scenario.
type Prefetched = tokio::task::JoinHandle<Result<crate::browser::Session, BrowserError>>;

/// Runs scenarios and plans against one browser.
pub struct Runner {
    config: Config,
    browser: Browser,
    secrets: ProjectSecrets,
}

/// A scenario selected for this run, with what the cache holds for it.
struct Planned {
    file: ScenarioFile,
    lookup: Lookup,
}

impl Runner {
    /// Reads the project's secrets (`e2e/manifest.yaml`, `.env.local`) as well.
    pub fn new(config: Config) -> Result<Self, Problems> {
        let secrets = ProjectSecrets::load(&config.root)?;
        let browser = Browser::new(config.browser.clone());
        Ok(Runner {
            config,
            browser,
            secrets,
        })
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn browser(&self) -> &Browser {
        &self.browser
    }

    /// Checks every input the run needs before anything starts.
    fn prepare(&self, ids: &[String]) -> Result<(Vec<Planned>, Fragments), RunError> {
        let root = &self.config.root;
        let mut problems = Vec::new();
        let scenarios = load_scenarios(root)?;
        let fragments = match Fragments::load(&root.join(FRAGMENTS_DIR)) {
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
                            display(root, &root.join(crate::project::SCENARIOS_DIR)),
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
        if selected.is_empty() && problems.is_empty() {
            problems.push(InputError::new(
                display(root, &root.join(crate::project::SCENARIOS_DIR)),
                "(folder)",
                "there are no scenarios to run",
                "add a scenario file such as e2e/scenarios/sign-in.yaml, or pass --root to the project",
            ));
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
        let (planned, fragments) = self.prepare(ids)?;
        self.browser
            .ensure_started()
            .await
            .map_err(RunError::Infrastructure)?;
        let started_at = OffsetDateTime::now_utc();
        let run_id = uuid::Uuid::now_v7().to_string();
        let cache = PlanCache::new(&self.config.root);
        let mut results = Vec::new();
        let total = planned.len();
        let mut next: Option<Prefetched> = None;
        for (i, p) in planned.into_iter().enumerate() {
            let session = next.take();
            // Open the next scenario's context while this one runs: context set-up is the
            // largest fixed cost of a replay.
            if i + 1 < total {
                let browser = self.browser.clone();
                next = Some(tokio::spawn(async move { browser.new_session().await }));
            }
            let shared = RunShared {
                cache: &cache,
                fragments: &fragments,
                run_id: &run_id,
                events,
            };
            let result = self
                .run_scenario(&p.file.scenario, p.lookup, session, &shared)
                .await;
            let result = self.redacted(result);
            events.on_event(&Event::ScenarioFinished {
                result: result.clone(),
            });
            results.push(result);
        }
        if let Some(spare) = next
            && let Ok(Ok(session)) = spare.await
        {
            session.close().await;
        }
        Ok(self.report(run_id, started_at, results))
    }

    async fn run_scenario(
        &self,
        scenario: &Scenario,
        lookup: Lookup,
        prefetched: Option<Prefetched>,
        shared: &RunShared<'_>,
    ) -> ScenarioResult {
        let RunShared {
            cache,
            fragments,
            run_id,
            events,
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
                return no_plan(
                    scenario,
                    CacheOutcome::Miss,
                    "the scenario changed since its plan was verified (the old plan is kept in e2e/.windup/cache/stale/), and no LLM provider is configured to plan it again",
                );
            }
            Lookup::Miss => {
                return no_plan(
                    scenario,
                    CacheOutcome::Miss,
                    "no cached plan and no LLM provider configured; commit a verified plan to e2e/.windup/cache/ or configure a provider",
                );
            }
        };
        let timeout = scenario
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.config.timeouts.scenario);
        let execution = match self
            .execute_plan(
                &scenario.id,
                &entry.plan,
                timeout,
                fragments,
                prefetched,
                events,
            )
            .await
        {
            Ok(x) => x,
            Err(e) => return crashed(&scenario.id, CacheOutcome::Hit, e),
        };
        if let Some(failure) = &execution.failure
            && invalidates(failure.class)
        {
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
        }
        scenario_result(&scenario.id, CacheOutcome::Hit, execution)
    }

    /// Runs one plan in a fresh context.
    pub async fn execute_plan(
        &self,
        scenario_id: &str,
        plan: &Plan,
        timeout: Duration,
        fragments: &Fragments,
        prefetched: Option<Prefetched>,
        events: &dyn EventSink,
    ) -> Result<Execution, BrowserError> {
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
            None => self.browser.new_session().await?,
        };
        tracing::debug!(scenario_id, "context opened in {:?}", opened.elapsed());
        let cx = ExecContext {
            scenario_id,
            base_url,
            timeouts: self.config.timeouts,
            scenario_timeout: timeout,
            fragments,
            secrets: &self.secrets,
            events,
        };
        let execution = execute(&mut session, plan, &cx).await;
        let closing = std::time::Instant::now();
        session.close().await;
        tracing::debug!(scenario_id, "context closed in {:?}", closing.elapsed());
        Ok(execution)
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
                                &self.config.root.join(crate::project::SCENARIOS_DIR)
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
        let fragments = Fragments::load(&self.config.root.join(FRAGMENTS_DIR))?;
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
                scenario_result(&plan.scenario_id, CacheOutcome::None, x)
            }
            Err(e) => crashed(&plan.scenario_id, CacheOutcome::None, e),
        };
        let result = self.redacted(result);
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
        }
        RunReport {
            report_version: REPORT_VERSION.to_string(),
            run_id,
            started_at,
            finished_at,
            windup_version: env!("CARGO_PKG_VERSION").to_string(),
            base_url: self.config.base_url.as_ref().map(|u| u.to_string()),
            git: git_info(&self.config.root),
            ci: ci_info(),
            totals,
            scenarios,
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
        for a in &mut result.actions {
            if let Some(e) = &a.error {
                a.error = Some(self.secrets.redact(e));
            }
        }
        result
    }
}

/// Failures that mean the plan no longer fits the app. A crashed browser, an app that is down
/// or a slow run say nothing about the plan, so they keep it.
fn invalidates(class: FailureClass) -> bool {
    matches!(
        class,
        FailureClass::SelectorNotFound
            | FailureClass::NotActionable
            | FailureClass::PostconditionFailed
            | FailureClass::PlanInvalid
    )
}

fn scenario_result(id: &str, cache: CacheOutcome, x: Execution) -> ScenarioResult {
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
        status,
        failure_class: class,
        failed_action_id: action,
        message,
        cache,
        llm_calls: 0,
        cost_micro_usd: 0,
        duration_ms: x.duration.as_millis() as u64,
        final_url: x.final_url,
        actions: x.actions,
    }
}

fn failed(id: &str, cache: CacheOutcome, class: FailureClass, message: String) -> ScenarioResult {
    ScenarioResult {
        scenario_id: id.to_string(),
        status: ScenarioStatus::Failed,
        failure_class: Some(class),
        failed_action_id: None,
        message: Some(message),
        cache,
        llm_calls: 0,
        cost_micro_usd: 0,
        duration_ms: 0,
        final_url: None,
        actions: Vec::new(),
    }
}

fn no_plan(s: &Scenario, cache: CacheOutcome, message: &str) -> ScenarioResult {
    failed(&s.id, cache, FailureClass::NoPlan, message.to_string())
}

fn crashed(id: &str, cache: CacheOutcome, e: BrowserError) -> ScenarioResult {
    failed(id, cache, FailureClass::BrowserCrashed, e.to_string())
}

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// The commit and branch, when the project is in a git repository.
pub fn git_info(root: &Path) -> Option<GitInfo> {
    let commit = git(root, &["rev-parse", "HEAD"])?;
    let branch = std::env::var("GITHUB_HEAD_REF")
        .ok()
        .filter(|b| !b.is_empty())
        .or_else(|| git(root, &["rev-parse", "--abbrev-ref", "HEAD"]).filter(|b| b != "HEAD"));
    Some(GitInfo { commit, branch })
}

/// The CI system, when the run is in one.
pub fn ci_info() -> Option<CiInfo> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if var("GITHUB_ACTIONS").is_some() {
        Some(CiInfo {
            provider: "github".into(),
            workflow_run: var("GITHUB_RUN_ID"),
            job: var("GITHUB_JOB"),
            shard: None,
        })
    } else if var("GITLAB_CI").is_some() {
        Some(CiInfo {
            provider: "gitlab".into(),
            workflow_run: var("CI_PIPELINE_ID"),
            job: var("CI_JOB_NAME"),
            shard: None,
        })
    } else if var("CI").is_some_and(|v| v != "false" && v != "0") {
        Some(CiInfo {
            provider: "ci".into(),
            workflow_run: None,
            job: None,
            shard: None,
        })
    } else {
        None
    }
}
