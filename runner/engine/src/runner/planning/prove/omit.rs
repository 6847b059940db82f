//! A step left out: the plan run from a fresh context without it (does a check or a later step
//! fail?), and, when nothing fails, the fact the omission leaves false that can prove it.

use std::time::Duration;

use windup_model::{Action, CacheOutcome, Expect, FailureClass, ScenarioResult};

use super::super::super::results::crashed;
use super::super::proofs::own_state;
use super::Prover;
use super::step::{Omission, Step, best, clip, has_room};
use crate::browser::BrowserError;
use crate::planner::facts::Fact;

impl Prover<'_> {
    /// Runs the plan from a fresh context with step `k` left out: its own checks are read where
    /// it would have run (all but those restating its own input), then the steps after it run,
    /// each check and step waiting at most `wait` (a step's time, or less when the plan's steps
    /// took far less).
    pub(super) async fn leave_out(
        &self,
        steps: &[Step],
        k: usize,
        wait: Duration,
    ) -> Result<Omission, ScenarioResult> {
        let scenario = self.run.scenario;
        let mut session = self.fresh_context().await?;
        let result = async {
            self.run_prefix(&mut session, steps, k).await?;
            let step = &steps[k].action;
            // Its own checks where it would have run, those that last or tell the task.
            let checks: Vec<Expect> = step
                .expect
                .iter()
                .flat_map(Expect::clauses)
                .filter(|c| !own_state(step, c) && steps[k].proves(c))
                .collect();
            let base = self.run.runner.boundary().base_url().clone();
            for clause in &checks {
                let holds = self
                    .comes_true(&session, &base, clause, wait)
                    .await
                    .map_err(|e| crashed(&scenario.id, CacheOutcome::Miss, e))?;
                if !holds {
                    return Ok(Omission::Fails(format!(
                        "its own check `{}` never holds",
                        clause.clause_line()
                    )));
                }
            }
            let rest: Vec<Action> = steps[k + 1..].iter().map(|s| s.action.clone()).collect();
            if rest.is_empty() {
                return Ok(Omission::Holds);
            }
            let ran = self.run_quiet_within(&mut session, &rest, wait).await;
            Ok(match ran.failure {
                None => Omission::Holds,
                Some(f) if f.class == FailureClass::BrowserCrashed => {
                    return Err(crashed(
                        &scenario.id,
                        CacheOutcome::Miss,
                        BrowserError::Crashed(f.message),
                    ));
                }
                Some(f) => Omission::Fails(format!(
                    "{} fails ({}: {})",
                    f.action_id.as_deref().unwrap_or("a later step"),
                    f.class,
                    clip(&f.message)
                )),
            })
        }
        .await;
        session.close().await;
        result
    }

    /// With step `k` left out, a fact that proves `k` once it is a check: one of `k`'s own that
    /// lasts to the end of the plan and is then never true at the end (the step's part in the
    /// outcome), else one of a later step's that is then never true after it (the step's part
    /// in what follows). Facts that restate `k`'s own input are not looked at; nor facts a step
    /// has no room for (one check per field; a restatement may be replaced). Returns the step
    /// the fact becomes a check of.
    pub(super) async fn find_proof(
        &self,
        steps: &[Step],
        k: usize,
    ) -> Result<Option<(usize, Fact)>, ScenarioResult> {
        let scenario = self.run.scenario;
        if steps[k..].iter().all(|s| s.facts.is_empty()) {
            return Ok(None);
        }
        let mut session = self.fresh_context().await?;
        let result = async {
            self.run_prefix(&mut session, steps, k).await?;
            let base = self.run.runner.boundary().base_url().clone();
            let crash = |e| crashed(&scenario.id, CacheOutcome::Miss, e);
            let mut later: Option<(usize, Fact)> = None;
            for (j, step) in steps.iter().enumerate().skip(k + 1) {
                let ran = self
                    .run_quiet(&mut session, std::slice::from_ref(&step.action), false)
                    .await;
                if ran.failure.is_some() {
                    return Ok(None);
                }
                if later.is_some() {
                    continue;
                }
                let looked: Vec<&Fact> = step
                    .facts
                    .iter()
                    .filter(|f| has_room(&step.action, &f.expect))
                    .collect();
                if looked.is_empty() {
                    continue;
                }
                let never = self
                    .never_true(&session, &base, &looked)
                    .await
                    .map_err(crash)?;
                later = best(&never).map(|f| (j, f));
            }
            // The outcome: what of `k` lasts in a full run, read at the end of this one.
            let own = &steps[k];
            let looked: Vec<&Fact> = own
                .facts
                .iter()
                .filter(|f| {
                    !own_state(&own.action, &f.expect)
                        && own.lasting.contains(&f.expect)
                        && has_room(&own.action, &f.expect)
                })
                .collect();
            if !looked.is_empty() {
                let never = self
                    .never_true(&session, &base, &looked)
                    .await
                    .map_err(crash)?;
                if let Some(f) = best(&never) {
                    return Ok(Some((k, f)));
                }
            }
            Ok(later)
        }
        .await;
        session.close().await;
        result
    }
}
