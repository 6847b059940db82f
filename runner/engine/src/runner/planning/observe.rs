//! The page planning works on: the start page opened in a fresh context (with the saved state of
//! the setups the scenario needs), read as an observation; each planned step run on it as it
//! is; the page read again once it has settled. A page outside the app's origins is never read.

use std::time::{Duration, Instant};

use windup_model::{Action, FailureClass, Plan, Scenario, ScenarioResult};

use super::super::Runner;
use super::super::ScenarioRun;
use super::super::results::{crashed, failed};
use super::super::storage;
use super::start::{Phases, Stop};
use crate::browser::{BrowserError, Session};
use crate::executor::{Execution, Screenshots, Trace, execute_steps};
use crate::planner::Observation;

impl Runner {
    /// Reads the page for the planner once it has settled (no request waiting or just ended,
    /// the document parsed and unchanged, nothing shown `aria-busy`), bounded by a step's wait,
    /// so the model is never shown a loading screen. A page outside the app's origins is never
    /// read: it stops planning.
    pub(in crate::runner) async fn observe(
        &self,
        session: &Session,
        task: &str,
        phases: &mut Phases,
    ) -> Result<Observation, Stop> {
        // A navigation the last step started is waited for: it may be leaving the app.
        session
            .settle(self.config.timeouts.navigation.min(Duration::from_secs(2)))
            .await;
        let left = session.check_hold().await.map_err(Stop::Browser)?;
        if let Some(left) = left {
            return Err(Stop::Outside(left.url));
        }
        let s = &self.config.planner;
        let started = Instant::now();
        if let crate::browser::Settling::Busy(busy) =
            session.wait_settled(self.config.timeouts.action).await
        {
            tracing::info!(
                busy = busy.join(", "),
                "the page did not settle within a step's wait; it is read as it is"
            );
        }
        // A page that fails to read because it is leaving the app stops for that reason.
        let stop = |e| match session.left_origins() {
            Some(left) => Stop::Outside(left.url),
            None => Stop::Browser(e),
        };
        let origins = self.boundary().app_origins();
        let read = || Observation::capture(session, task, origins, s.max_elements, s.page_chars);
        let mut page = read().await.map_err(stop)?;
        // Settled: the same twice in a row (a step's effect may land after it returns), or
        // something to show at last on a page that renders late.
        for _ in 0..5 {
            tokio::time::sleep(Duration::from_millis(if page.items.is_empty() {
                200
            } else {
                80
            }))
            .await;
            let again = read().await.map_err(stop)?;
            let same = again == page;
            page = again;
            if same && !page.items.is_empty() {
                break;
            }
        }
        match url::Url::parse(&page.url) {
            Ok(u) if self.boundary().is_app(&u) => {}
            // `chrome-error://` and the like: the step landed nowhere the app serves.
            _ => return Err(Stop::Outside(page.url)),
        }
        phases.observe_ms += started.elapsed().as_millis() as u64;
        Ok(page)
    }
}

impl ScenarioRun<'_> {
    /// Opens the start page in a fresh context (with the saved storage of the setups the
    /// scenario needs), held to the app's origins, for planning; with the start page's signature.
    pub(super) async fn open_start(&mut self) -> Result<(Session, Option<String>), ScenarioResult> {
        let scenario = self.scenario;
        let state = self.shared.state_for(scenario);
        let state = state.as_ref();
        let events = self.shared.events;
        let miss = windup_model::CacheOutcome::Miss;
        let url = self
            .runner
            .boundary()
            .destination(&scenario.start_url)
            .map_err(|(problem, fix)| {
                failed(
                    &scenario.id,
                    miss,
                    FailureClass::NavigationFailed,
                    format!("{problem} (fix: {fix})"),
                )
            })?;
        let started = Instant::now();
        let session = self
            .runner
            .browser
            .acquire_session()
            .await
            .map_err(|e| crashed(&scenario.id, miss, e))?;
        // The page the model sees is on the app: every top-level document is held to its origins.
        let prepared = match session
            .hold_to(self.runner.boundary().app_origins().to_vec())
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
            return Err(crashed(&scenario.id, miss, e));
        }
        let opened = session
            .goto(url.as_str(), self.runner.config.timeouts.navigation)
            .await;
        self.phases.observe_ms += started.elapsed().as_millis() as u64;
        let stop = match opened {
            Ok(()) => {
                // The start page, as every run reports it: its signature, and a PageSeen for
                // the site map (the first step's edge starts here).
                let seen = crate::signature::observe(&session, crate::signature::SEEN_CONTROLS)
                    .await
                    .ok();
                let sig = seen.as_ref().map(|s| s.signature.clone());
                events.on_event(&crate::events::Event::PageSeen {
                    scenario_id: scenario.id.clone(),
                    url: session.url().await.unwrap_or_else(|_| url.to_string()),
                    signature: sig.clone(),
                    title: seen.as_ref().map(|s| s.title.clone()),
                    controls: seen.map(|s| s.controls).unwrap_or_default(),
                    via: None,
                });
                return Ok((session, sig));
            }
            Err(_) if let Some(left) = session.left_origins() => {
                Stop::Outside(left.url).result(&scenario.id, miss)
            }
            Err(crate::browser::NavError::Crashed(why)) => {
                crashed(&scenario.id, miss, BrowserError::Crashed(why))
            }
            Err(e) => failed(
                &scenario.id,
                miss,
                FailureClass::NavigationFailed,
                match e {
                    crate::browser::NavError::Failed(reason) => {
                        format!("{url} did not load, so it could not be planned: {reason}")
                    }
                    _ => format!(
                        "{url} did not finish loading within {} ms, so it could not be planned",
                        self.runner.config.timeouts.navigation.as_millis()
                    ),
                },
            ),
        };
        session.close().await;
        Err(stop)
    }

    /// A new context on the start page with `done` run on it again, for a correction that
    /// must not inherit what a failed answer did; `None` (the new context closed) when the
    /// start or one of those steps fails there.
    pub(super) async fn start_again(&mut self, done: &[Action]) -> Option<Session> {
        let scenario = self.scenario;
        let (mut session, _sig) = self.open_start().await.ok()?;
        let quiet = crate::events::NoEvents;
        let execution = self
            .run_on_page(&mut session, done, &quiet, RunOn::default())
            .await;
        self.phases.add(&execution);
        if execution.failure.is_some() {
            tracing::info!(
                scenario_id = scenario.id,
                "the steps before the failed answer did not run again from the start page; the correction goes on from the page as it is"
            );
            session.close().await;
            return None;
        }
        Some(session)
    }

    /// Runs planned steps on the page as it is (no start page), for planning.
    pub(in crate::runner) async fn run_steps(
        &self,
        session: &mut Session,
        actions: &[Action],
    ) -> Execution {
        let shared = self.shared;
        self.run_on_page(
            session,
            actions,
            shared.events,
            RunOn {
                evidence: true,
                step_wait: None,
            },
        )
        .await
    }

    /// Runs `actions` on the page as it is, telling `events`. A failed step keeps its
    /// screenshot only when `evidence` (a passing one needs none); no trace is recorded: the
    /// plan's verifying run (or its next replay) has one.
    pub(in crate::runner) async fn run_on_page(
        &self,
        session: &mut Session,
        actions: &[Action],
        events: &dyn crate::events::EventSink,
        how: RunOn,
    ) -> Execution {
        let scenario = self.scenario;
        let plan = steps_plan(scenario, actions);
        let mut cx = self.runner.exec_context(self.parts(events));
        cx.screenshots = match (how.evidence, self.runner.config.screenshots) {
            (true, Screenshots::Off) | (false, _) => Screenshots::Off,
            (true, _) => Screenshots::OnlyOnFailure,
        };
        cx.trace = Trace::Off;
        if let Some(wait) = how.step_wait {
            cx.timeouts.action = wait;
        }
        execute_steps(session, &plan, &cx).await
    }
}

/// `actions` as a plan of `scenario`'s, for the executor (who made it is not its concern).
pub(in crate::runner) fn steps_plan(scenario: &Scenario, actions: &[Action]) -> Plan {
    Plan {
        plan_version: windup_model::plan::PLAN_VERSION.to_string(),
        scenario_id: scenario.id.clone(),
        task: scenario.task.clone(),
        start_url: scenario.start_url.clone(),
        generated_by: String::new(),
        actions: actions.to_vec(),
    }
}

/// What a run of steps on the page keeps, and how long each step waits.
#[derive(Debug, Clone, Copy, Default)]
pub(in crate::runner) struct RunOn {
    /// A failed step keeps its screenshot (a passing one needs none).
    pub evidence: bool,
    /// Each step waits at most this for its target and checks, instead of a step's time.
    pub step_wait: Option<std::time::Duration>,
}
