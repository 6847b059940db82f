//! The contexts proving runs in: a fresh one on the start page (with the setups' saved state),
//! steps run quietly (no events, no trace), the steps before a left-out one, and the waits for a
//! check that should (or should not) come true within a step's time.

use std::time::Duration;

use tokio::time::Instant;
use windup_model::{Action, CacheOutcome, Expect, ScenarioResult};

use super::super::super::execute::RunFor;
use super::super::super::results::{crashed, failed};
use super::super::observe::{RunOn, steps_plan};
use super::Prover;
use super::step::{Step, clip, holds_now};
use crate::browser::{BrowserError, Session};
use crate::events::NoEvents;
use crate::executor::Execution;
use crate::planner::facts::Fact;
use crate::verifier::Check;

impl Prover<'_> {
    /// Runs the steps before `k` in `session`; a failure there (they passed on the proving
    /// run) means the plan does not replay reliably.
    pub(super) async fn run_prefix(
        &self,
        session: &mut Session,
        steps: &[Step],
        k: usize,
    ) -> Result<(), ScenarioResult> {
        let scenario = self.run.scenario;
        if k == 0 {
            return Ok(());
        }
        let prefix: Vec<Action> = steps[..k].iter().map(|s| s.action.clone()).collect();
        let ran = self.run_quiet(session, &prefix, false).await;
        match ran.failure {
            None => Ok(()),
            Some(f) => {
                let mut result = failed(
                    &scenario.id,
                    CacheOutcome::Miss,
                    f.class,
                    format!(
                        "the plan did not replay the same way twice from a fresh context ({} failed: {}), so it was not cached",
                        f.action_id.as_deref().unwrap_or("its start"),
                        clip(&f.message)
                    ),
                );
                result.failed_action_id = f.action_id;
                Err(result)
            }
        }
    }

    /// Whether `clause` holds within a step's time.
    pub(super) async fn comes_true(
        &self,
        session: &Session,
        base: &url::Url,
        clause: &Expect,
        wait: Duration,
    ) -> Result<bool, BrowserError> {
        let Ok(check) = Check::compile(clause) else {
            return Ok(false);
        };
        let deadline = Instant::now() + wait;
        match check.wait(session, base, clause, deadline).await {
            Ok(()) => Ok(true),
            Err(crate::verifier::VerifyError::NotMet(_)) => Ok(false),
            Err(crate::verifier::VerifyError::Browser(e)) => Err(e),
        }
    }

    /// The facts of `facts` that are still false when a step's time has passed.
    pub(super) async fn never_true(
        &self,
        session: &Session,
        base: &url::Url,
        facts: &[&Fact],
    ) -> Result<Vec<Fact>, BrowserError> {
        let deadline = Instant::now() + self.run.runner.config.timeouts.action;
        let mut pending: Vec<Fact> = facts.iter().map(|f| (*f).clone()).collect();
        let mut attempt = 0;
        loop {
            let mut still = Vec::new();
            for f in pending {
                if !holds_now(session, base, &f.expect).await? {
                    still.push(f);
                }
            }
            pending = still;
            let pause = crate::timeouts::poll_pause(attempt);
            attempt += 1;
            if pending.is_empty() || Instant::now() + pause >= deadline {
                return Ok(pending);
            }
            tokio::time::sleep(pause).await;
        }
    }

    /// A fresh context on the scenario's start page, with the saved state of the setups it
    /// needs, held to the app's origins.
    pub(in crate::runner) async fn fresh_context(&self) -> Result<Session, ScenarioResult> {
        let scenario = self.run.scenario;
        let shared = self.run.shared;
        let start = steps_plan(scenario, &[]);
        let (opened, session) = self
            .run
            .execute_open(&start, None, &NoEvents, RunFor::Steps)
            .await
            .map_err(|e| crashed(&scenario.id, CacheOutcome::Miss, e))?;
        if opened.failure.is_some() {
            session.close().await;
            return Err(self.run.runner.results().scenario_result(
                shared.run_id,
                &scenario.id,
                CacheOutcome::Miss,
                opened,
            ));
        }
        Ok(session)
    }

    /// Runs `actions` on the page as it is, reporting nothing; a failure keeps its screenshot
    /// only when `evidence` (the proving run's, not a left-out step's expected failure).
    pub(in crate::runner) async fn run_quiet(
        &self,
        session: &mut Session,
        actions: &[Action],
        evidence: bool,
    ) -> Execution {
        let how = RunOn {
            evidence,
            step_wait: None,
        };
        self.run.run_on_page(session, actions, &NoEvents, how).await
    }

    /// [`Runner::run_quiet`] with each step waiting at most `wait` for its target and checks:
    /// a run expected to fail, whose steps took far less when they passed.
    pub(in crate::runner) async fn run_quiet_within(
        &self,
        session: &mut Session,
        actions: &[Action],
        wait: Duration,
    ) -> Execution {
        let how = RunOn {
            evidence: false,
            step_wait: Some(wait),
        };
        self.run.run_on_page(session, actions, &NoEvents, how).await
    }
}
