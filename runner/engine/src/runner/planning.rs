//! Planning inside a run. A miss is planned from the start page; a broken replay is repaired
//! from the page where it failed. The planner sees one page at a time: when a new plan reaches a
//! page it was not planned on (and fails there, or says the task goes on), it continues from
//! that page. Every plan is verified by a clean run from a fresh context before it is cached,
//! and a plan that fails that run is never cached.

use std::time::{Duration, Instant};

use windup_model::{Action, ActionStatus, FailureClass, Plan, Scenario, ScenarioResult};

use super::Runner;
use super::results::{crashed, failed};
use super::setup::Planning;
use super::shared::RunShared;
use super::storage::{self, StorageState};
use crate::browser::{BrowserError, Session};
use crate::events::Event;
use crate::planner::{Ask, PageView, Project, Purpose, Spend, StepFailure};
use crate::project::display;

/// Where planning starts.
#[expect(
    clippy::large_enum_variant,
    reason = "one per planned scenario, moved once"
)]
pub(super) enum Start {
    /// From the scenario's start page.
    Plan,
    /// After a failed replay: the steps that passed, the failure, and the page where it failed.
    Repair {
        done: Vec<Action>,
        failure: StepFailure,
        page: Box<PageView>,
    },
}

/// Why a page could not be read for the planner.
pub(super) enum Stop {
    /// The browser failed.
    Browser(BrowserError),
    /// The page is outside the app's origins: it never reaches the model.
    Outside(String),
}

impl Stop {
    /// The scenario's result when planning stops here.
    pub(super) fn result(self, id: &str, cache: windup_model::CacheOutcome) -> ScenarioResult {
        match self {
            Stop::Browser(e) => crashed(id, cache, e),
            Stop::Outside(url) => {
                let origin = url::Url::parse(&url)
                    .map(|u| u.origin().ascii_serialization())
                    .unwrap_or_else(|_| "a page without an http(s) origin".into());
                failed(
                    id,
                    cache,
                    FailureClass::NavigationFailed,
                    format!(
                        "planning stopped: the page went to {origin}, outside the app's origins, and is never shown to the model (list the origin in windup.toml [planner] allowed_origins if the app really goes there)"
                    ),
                )
            }
        }
    }
}

/// Time a scenario spent in each phase, for its ledger record.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Phases {
    pub execute_ms: u64,
    pub verify_ms: u64,
    /// Opening pages and reading them for the planner.
    pub observe_ms: u64,
}

impl Phases {
    pub(super) fn add(&mut self, x: &crate::executor::Execution) {
        self.execute_ms += x.duration.as_millis() as u64;
        self.verify_ms += x.actions.iter().map(|a| a.verify_ms).sum::<u64>();
    }
}

/// How many of a plan's own steps passed: the index of the step that failed.
pub(super) fn passed_steps(x: &crate::executor::Execution) -> usize {
    x.actions
        .iter()
        .filter(|a| a.fragment.is_none() && a.status == ActionStatus::Passed)
        .count()
}

/// Failures that say the plan does not fit the page (as opposed to an app or browser problem).
pub(super) fn plan_misfit(class: FailureClass) -> bool {
    matches!(
        class,
        FailureClass::SelectorNotFound
            | FailureClass::NotActionable
            | FailureClass::PostconditionFailed
    )
}

impl Runner {
    /// Plans (or repairs), verifies and caches one scenario's plan.
    pub(super) async fn plan_scenario(
        &self,
        scenario: &Scenario,
        start: Start,
        cache_outcome: windup_model::CacheOutcome,
        shared: &RunShared<'_>,
        spend: &mut Spend,
        phases: &mut Phases,
    ) -> ScenarioResult {
        let Planning::Ready(planner) = &self.planning else {
            unreachable!("callers check that a planner is ready");
        };
        let settings = planner.settings();
        let timeout = self.scenario_timeout(scenario);
        let project = Project {
            boundary: self.boundary(),
            fragments: shared.fragments,
            secrets: &self.secrets,
            budget: &self.budget,
        };
        let catalog: Vec<(String, String)> = shared
            .fragments
            .ids()
            .filter_map(|id| {
                shared
                    .fragments
                    .get(id)
                    .map(|f| (id.to_string(), f.description.clone()))
            })
            .collect();
        let (mut actions, mut page, mut purpose) = match start {
            Start::Plan => match self
                .observe_start(scenario, shared.state_for(scenario).as_ref(), phases)
                .await
            {
                Ok(page) => (Vec::new(), page, Purpose::Plan),
                Err(result) => return with_cache(result, cache_outcome),
            },
            Start::Repair {
                done,
                failure,
                page,
            } => (done, *page, Purpose::Repair { failure }),
        };
        // Where each planned part starts, and the page it was planned on (unknown for the steps
        // a repair keeps from the old plan).
        let mut parts: Vec<(usize, Option<String>)> = vec![(0, None)];
        let mut continuations = 0;
        let mut corrected = false;
        loop {
            shared.events.on_event(&Event::Planning {
                scenario_id: scenario.id.clone(),
                purpose: purpose.clone(),
            });
            let ask = Ask {
                scenario,
                page: &page,
                done: &actions,
                purpose: purpose.clone(),
                fragments: &catalog,
                site_map: shared.site.slice(&scenario.id),
            };
            let segment = match planner.plan(&ask, &project, spend).await {
                Ok(s) => s,
                Err(f) => {
                    return with_cache(
                        failed(&scenario.id, cache_outcome, f.class, f.message),
                        cache_outcome,
                    );
                }
            };
            parts.retain(|(s, _)| *s < actions.len() || *s == 0);
            parts.push((actions.len(), Some(page.url.clone())));
            actions.extend(segment.actions);
            let plan = Plan {
                plan_version: windup_model::plan::PLAN_VERSION.to_string(),
                scenario_id: scenario.id.clone(),
                task: scenario.task.clone(),
                start_url: scenario.start_url.clone(),
                generated_by: planner.generated_by(),
                actions: actions.clone(),
            };
            let (execution, session) = match self
                .execute_open(
                    &scenario.id,
                    &plan,
                    timeout,
                    shared.fragments,
                    None,
                    shared.events,
                    shared.state_for(scenario).as_ref(),
                )
                .await
            {
                Ok(x) => x,
                Err(e) => return crashed(&scenario.id, cache_outcome, e),
            };
            phases.add(&execution);
            let failure = execution.failure.clone();
            let can_continue = continuations < settings.max_continuations;
            match failure {
                None if segment.complete => {
                    shared
                        .keep_setup_state(&self.config.root, scenario, &session)
                        .await;
                    session.close().await;
                    if let Some(url) = &execution.final_url
                        && !url::Url::parse(url).is_ok_and(|u| self.boundary().is_app(&u))
                    {
                        return failed(
                            &scenario.id,
                            cache_outcome,
                            FailureClass::PlanRejected,
                            format!(
                                "the planned steps ended on {url}, outside the allowed origins, so the plan was not cached"
                            ),
                        );
                    }
                    if let Err(e) = shared.cache.save_verified(
                        scenario,
                        &plan,
                        execution.start_sig.clone(),
                        execution.duration.as_millis() as u64,
                        shared.run_id,
                    ) {
                        tracing::error!("could not save the verified plan of {}: {e}", scenario.id);
                    }
                    return self.scenario_result(
                        shared.run_id,
                        &scenario.id,
                        cache_outcome,
                        execution,
                    );
                }
                None => {
                    if !can_continue {
                        session.close().await;
                        return failed(
                            &scenario.id,
                            cache_outcome,
                            FailureClass::PlanRejected,
                            format!(
                                "the task was still unfinished after {} continuation calls (planner.max_continuations)",
                                settings.max_continuations
                            ),
                        );
                    }
                    continuations += 1;
                    page = match self.observe(&session, phases).await {
                        Ok(p) => p,
                        Err(stop) => {
                            session.close().await;
                            return stop.result(&scenario.id, cache_outcome);
                        }
                    };
                    session.close().await;
                    purpose = Purpose::Continue { failure: None };
                }
                Some(f) => {
                    let k = passed_steps(&execution);
                    let planned_on = parts
                        .iter()
                        .rev()
                        .find(|(s, _)| *s <= k)
                        .and_then(|(_, url)| url.clone());
                    let moved = match (&planned_on, &execution.final_url) {
                        (Some(on), Some(now)) => PageView {
                            url: on.clone(),
                            ..PageView::default()
                        }
                        .is_other_page(now),
                        _ => false,
                    };
                    // A misfit on a page the planner has not seen is a continuation; on the page
                    // it planned on, the step it chose does not fit: it gets one correction, with
                    // the failure and the page as it is now.
                    let correct = !moved && !corrected;
                    if plan_misfit(f.class)
                        && k < actions.len()
                        && (moved || correct)
                        && can_continue
                    {
                        continuations += 1;
                        corrected |= !moved;
                        page = match self.observe(&session, phases).await {
                            Ok(p) => p,
                            Err(stop) => {
                                session.close().await;
                                return stop.result(&scenario.id, cache_outcome);
                            }
                        };
                        session.close().await;
                        let failed_step = actions[k].clone();
                        actions.truncate(k);
                        let failure = StepFailure {
                            action: failed_step,
                            class: f.class,
                            message: self.secrets.redact(&f.message),
                        };
                        purpose = if moved {
                            Purpose::Continue {
                                failure: Some(failure),
                            }
                        } else {
                            Purpose::Correct { failure }
                        };
                        continue;
                    }
                    session.close().await;
                    let mut result =
                        self.scenario_result(shared.run_id, &scenario.id, cache_outcome, execution);
                    result.message = result.message.map(|m| {
                        format!("the new plan failed its verifying run, so it was not cached: {m}")
                    });
                    return result;
                }
            }
        }
    }

    /// Opens the start page in a fresh context and reads it for the planner.
    async fn observe_start(
        &self,
        scenario: &Scenario,
        state: Option<&StorageState>,
        phases: &mut Phases,
    ) -> Result<PageView, ScenarioResult> {
        let url = self
            .boundary()
            .destination(&scenario.start_url)
            .map_err(|(problem, fix)| {
                failed(
                    &scenario.id,
                    windup_model::CacheOutcome::Miss,
                    FailureClass::NavigationFailed,
                    format!("{problem} (fix: {fix})"),
                )
            })?;
        let started = Instant::now();
        let session = self
            .browser
            .acquire_session()
            .await
            .map_err(|e| crashed(&scenario.id, windup_model::CacheOutcome::Miss, e))?;
        // The page the model sees is on the app: every top-level document is held to its origins.
        let prepared = match session
            .hold_to(self.boundary().app_origins().to_vec())
            .await
        {
            Ok(()) => match state {
                Some(state) => storage::apply(&session, state).await,
                None => Ok(()),
            },
            Err(e) => Err(e),
        };
        if let Err(e) = prepared {
            session.close().await;
            return Err(crashed(&scenario.id, windup_model::CacheOutcome::Miss, e));
        }
        let opened = session
            .goto(url.as_str(), self.config.timeouts.navigation)
            .await;
        let page = match opened {
            Ok(()) => self
                .observe(&session, phases)
                .await
                .map_err(|stop| stop.result(&scenario.id, windup_model::CacheOutcome::Miss)),
            Err(_) if let Some(left) = session.left_origins() => {
                Err(Stop::Outside(left.url).result(&scenario.id, windup_model::CacheOutcome::Miss))
            }
            Err(crate::browser::NavError::Crashed(why)) => Err(crashed(
                &scenario.id,
                windup_model::CacheOutcome::Miss,
                BrowserError::Crashed(why),
            )),
            Err(e) => Err(failed(
                &scenario.id,
                windup_model::CacheOutcome::Miss,
                FailureClass::NavigationFailed,
                match e {
                    crate::browser::NavError::Failed(reason) => {
                        format!("{url} did not load, so it could not be planned: {reason}")
                    }
                    _ => format!(
                        "{url} did not finish loading within {} ms, so it could not be planned",
                        self.config.timeouts.navigation.as_millis()
                    ),
                },
            )),
        };
        session.close().await;
        phases.observe_ms += started.elapsed().as_millis() as u64;
        page
    }

    /// Reads the page for the planner once it has something to act on: pages that render after
    /// `load` get a short grace.
    /// A page outside the app's origins is never read: it stops planning.
    pub(super) async fn observe(
        &self,
        session: &Session,
        phases: &mut Phases,
    ) -> Result<PageView, Stop> {
        // A navigation the last step started is waited for: it may be leaving the app.
        session
            .settle(self.config.timeouts.navigation.min(Duration::from_secs(2)))
            .await;
        let left = session.check_hold().await.map_err(Stop::Browser)?;
        if let Some(left) = left {
            return Err(Stop::Outside(left.url));
        }
        let Planning::Ready(planner) = &self.planning else {
            unreachable!("observing is for planning");
        };
        let s = planner.settings();
        let started = Instant::now();
        // A page that fails to read because it is leaving the app stops for that reason.
        let stop = |e| match session.left_origins() {
            Some(left) => Stop::Outside(left.url),
            None => Stop::Browser(e),
        };
        let mut page = PageView::capture(session, s.page_chars, s.max_elements)
            .await
            .map_err(stop)?;
        for _ in 0..5 {
            if !page.elements.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
            page = PageView::capture(session, s.page_chars, s.max_elements)
                .await
                .map_err(stop)?;
        }
        match url::Url::parse(&page.url) {
            Ok(u) if self.boundary().is_app(&u) => {}
            _ => return Err(Stop::Outside(page.url)),
        }
        phases.observe_ms += started.elapsed().as_millis() as u64;
        Ok(page)
    }

    /// Why a scenario cannot be planned in this run, if it cannot.
    pub(super) fn planning_blocked(&self, scenario: &Scenario) -> Option<(FailureClass, String)> {
        let root = &self.config.root;
        let file = display(
            root,
            &root
                .join(crate::project::Layout::SCENARIOS_DIR)
                .join(format!("{}.yaml", scenario.id)),
        );
        if self.config.require_cached {
            return Some((
                FailureClass::NotCached,
                format!(
                    "`{}` ({file}) has no verified plan for its current task and --require-cached forbids LLM calls here; run it once where planning is allowed (a branch with a provider key) and commit {}/{}.json",
                    scenario.id,
                    crate::project::Layout::CACHE_DIR,
                    scenario.id
                ),
            ));
        }
        match &self.planning {
            Planning::Ready(_) => None,
            Planning::Off => Some((
                FailureClass::NoPlan,
                format!(
                    "no verified plan is cached and no LLM provider is configured; add a [providers.NAME] table to {}, or commit a verified plan to {}/",
                    crate::project::Layout::CONFIG_FILE,
                    crate::project::Layout::CACHE_DIR
                ),
            )),
            Planning::Unavailable(why) => Some((
                FailureClass::NoPlan,
                format!("no verified plan is cached and it cannot be planned: {why}"),
            )),
        }
    }
}

fn with_cache(mut r: ScenarioResult, cache: windup_model::CacheOutcome) -> ScenarioResult {
    r.cache = cache;
    r
}
