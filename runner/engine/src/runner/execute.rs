//! Running one plan in a browser context: a context opened ahead of time when there is one
//! (and still alive), else a fresh one; the saved storage of the setups the scenario needs
//! applied first; then the executor. The context is closed, or handed back when a failure's
//! page still has to be read for re-planning.

use std::time::Duration;

use windup_model::Plan;

use super::Runner;
use super::scenario::ScenarioRun;
use super::storage::{self, StorageState};
use crate::browser::{BrowserError, Session};
use crate::events::EventSink;
use crate::executor::{ExecContext, Execution, Transfers, execute};
use crate::fragments::Fragments;

/// A context being opened in the background for the next scenario.
pub(super) type Prefetched = tokio::task::JoinHandle<Result<crate::browser::Session, BrowserError>>;

/// What a whole plan is run for, which decides what the executor does beside its steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RunFor {
    /// What its steps show (proving, rewinding, auditing): nothing more.
    Steps,
    /// A cached plan's replay, which the runner heals: a renamed target ends the wait early.
    Replay,
    /// A plan about to be cached: what the pages did in the background is its baseline.
    Verify,
}

/// Whose plan runs, in which run: what an executor's context is made of beside the plan.
#[derive(Clone, Copy)]
pub(super) struct RunParts<'a> {
    /// The run its downloads go under.
    pub(super) run_id: &'a str,
    pub(super) scenario_id: &'a str,
    pub(super) timeout: Duration,
    pub(super) fragments: &'a Fragments,
    pub(super) events: &'a dyn EventSink,
}

impl Runner {
    /// Runs one plan in a fresh context and closes it.
    pub(super) async fn execute_plan(
        &self,
        parts: RunParts<'_>,
        plan: &Plan,
        run_for: RunFor,
    ) -> Result<Execution, BrowserError> {
        let (execution, session) = self.execute_open(parts, plan, None, None, run_for).await?;
        let closing = std::time::Instant::now();
        session.close().await;
        tracing::debug!(
            scenario_id = parts.scenario_id,
            "context closed in {:?}",
            closing.elapsed()
        );
        Ok(execution)
    }

    /// Runs one plan in a fresh context (or the one opened ahead, when it is still alive), with
    /// `state` applied first, and hands the context back, so a failure's page can still be read.
    pub(super) async fn execute_open(
        &self,
        parts: RunParts<'_>,
        plan: &Plan,
        prefetched: Option<Prefetched>,
        state: Option<&StorageState>,
        run_for: RunFor,
    ) -> Result<(Execution, Session), BrowserError> {
        let scenario_id = parts.scenario_id;
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
        let mut cx = self.exec_context(parts);
        cx.early_heal = run_for == RunFor::Replay && self.config.heal;
        cx.baseline = run_for == RunFor::Verify;
        let execution = execute(&mut session, plan, &cx).await;
        Ok((execution, session))
    }

    /// What the executor needs of this run to run one scenario's steps.
    pub(super) fn exec_context<'a>(&'a self, parts: RunParts<'a>) -> ExecContext<'a> {
        ExecContext {
            scenario_id: parts.scenario_id,
            boundary: self.boundary(),
            timeouts: self.config.timeouts,
            scenario_timeout: parts.timeout,
            fragments: parts.fragments,
            secrets: &self.secrets,
            events: parts.events,
            screenshots: self.config.screenshots,
            trace: self.config.trace,
            trace_width: self.config.trace_width,
            // Where a run's uploads come from and its downloads go.
            transfers: Transfers {
                root: self.config.root.clone(),
                run_id: parts.run_id.to_string(),
            },
            early_heal: false,
            baseline: false,
        }
    }
}

impl ScenarioRun<'_> {
    /// This scenario's parts of the run, its events told to `events`.
    pub(super) fn parts<'a>(&'a self, events: &'a dyn EventSink) -> RunParts<'a> {
        RunParts {
            run_id: self.shared.run_id,
            scenario_id: &self.scenario.id,
            timeout: self.runner.scenario_timeout(self.scenario),
            fragments: self.shared.fragments,
            events,
        }
    }

    /// Runs one of this scenario's plans in a fresh context (or the one opened ahead), with the
    /// saved storage of the setups it needs, and hands the context back.
    pub(super) async fn execute_open(
        &self,
        plan: &Plan,
        prefetched: Option<Prefetched>,
        events: &dyn EventSink,
        run_for: RunFor,
    ) -> Result<(Execution, Session), BrowserError> {
        let state = self.shared.state_for(self.scenario);
        self.runner
            .execute_open(
                self.parts(events),
                plan,
                prefetched,
                state.as_ref(),
                run_for,
            )
            .await
    }
}
