//! Running one plan in a browser context: a context opened ahead of time when there is one
//! (and still alive), else a fresh one; the saved storage of the setups the scenario needs
//! applied first; then the executor. The context is closed, or handed back when a failure's
//! page still has to be read for re-planning.

use std::time::Duration;

use windup_model::Plan;

use super::Runner;
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

impl Runner {
    /// Runs one plan in a fresh context and closes it; its downloads go under run `run_id`.
    #[expect(
        clippy::too_many_arguments,
        reason = "the per-run parts a context needs, each borrowed from a different owner"
    )]
    pub(super) async fn execute_plan(
        &self,
        run_id: &str,
        scenario_id: &str,
        plan: &Plan,
        timeout: Duration,
        fragments: &Fragments,
        events: &dyn EventSink,
        run_for: RunFor,
    ) -> Result<Execution, BrowserError> {
        let (execution, session) = self
            .execute_open(
                run_id,
                scenario_id,
                plan,
                timeout,
                fragments,
                None,
                events,
                None,
                run_for,
            )
            .await?;
        let closing = std::time::Instant::now();
        session.close().await;
        tracing::debug!(scenario_id, "context closed in {:?}", closing.elapsed());
        Ok(execution)
    }

    /// Runs one plan in a fresh context and hands the context back, so a failure's page can
    /// still be read.
    #[expect(
        clippy::too_many_arguments,
        reason = "the per-run parts a context needs, each borrowed from a different owner"
    )]
    pub(super) async fn execute_open(
        &self,
        run_id: &str,
        scenario_id: &str,
        plan: &Plan,
        timeout: Duration,
        fragments: &Fragments,
        prefetched: Option<Prefetched>,
        events: &dyn EventSink,
        state: Option<&StorageState>,
        run_for: RunFor,
    ) -> Result<(Execution, Session), BrowserError> {
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
        let mut cx = self.exec_context(run_id, scenario_id, timeout, fragments, events);
        cx.early_heal = run_for == RunFor::Replay && self.config.heal;
        cx.baseline = run_for == RunFor::Verify;
        let execution = execute(&mut session, plan, &cx).await;
        Ok((execution, session))
    }

    /// What the executor needs of this run to run one scenario's steps.
    pub(super) fn exec_context<'a>(
        &'a self,
        run_id: &str,
        scenario_id: &'a str,
        timeout: Duration,
        fragments: &'a Fragments,
        events: &'a dyn EventSink,
    ) -> ExecContext<'a> {
        ExecContext {
            scenario_id,
            boundary: self.boundary(),
            timeouts: self.config.timeouts,
            scenario_timeout: timeout,
            fragments,
            secrets: &self.secrets,
            events,
            screenshots: self.config.screenshots,
            trace: self.config.trace,
            transfers: self.transfers(run_id),
            early_heal: false,
            baseline: false,
        }
    }

    /// Where a run's uploads come from and its downloads go.
    pub(super) fn transfers(&self, run_id: &str) -> Transfers {
        Transfers {
            root: self.config.root.clone(),
            run_id: run_id.to_string(),
        }
    }
}
