//! How a plan made by planning (or an agent) gets cached: proven step by step from fresh
//! contexts (`prove`), held to the task's own words, then verified by one more clean run from
//! a fresh context. A plan that fails any of it is never cached.

use std::collections::BTreeSet;

use windup_model::{Action, FailureClass, InputError, Plan, ScenarioResult};

use super::super::ScenarioRun;
use super::super::execute::RunFor;
use super::super::results::{crashed, failed};
use super::proofs;
use super::prove::{Proven, Strictness};
use super::start::with_cache;
use crate::cache::Verified;
use crate::planner::words::{Seen, TaskWords};

/// A plan as planning made it that fails validation: its first problem.
#[derive(Debug, thiserror::Error)]
#[error(
    "the plan made is not valid, so it was not cached: {}: {}",
    .0.field,
    .0.problem
)]
struct InvalidPlan(InputError);

impl ScenarioRun<'_> {
    /// The plan as planning made it, ready to cache, or why it cannot be.
    fn finished_plan(
        &self,
        steps: &mut [proofs::Planned],
        generated_by: &str,
    ) -> Result<Plan, InvalidPlan> {
        let scenario = self.scenario;
        let plan = Plan {
            plan_version: windup_model::plan::PLAN_VERSION.to_string(),
            scenario_id: scenario.id.clone(),
            task: scenario.task.clone(),
            start_url: scenario.start_url.clone(),
            generated_by: generated_by.to_string(),
            actions: proofs::finish(steps),
        };
        // Not yet held to have a final check: proving decides which checks each step keeps.
        match windup_model::validate::plan_problems("plan", &plan, false)
            .into_iter()
            .next()
        {
            Some(p) => Err(InvalidPlan(p)),
            None => Ok(plan),
        }
    }

    /// Proves the finished plan (`prove`: every check false before its step and true after,
    /// every step needed), holds it to the task's own words (`planner::words`), runs it once
    /// more from a fresh context as it will be cached, and caches it only when all of that
    /// passes. `generated_by` says who made the steps (see [`windup_model::Plan::generated_by`]);
    /// `strict` what becomes of a check or step that proves nothing; `seen` the controls the
    /// pages showed while the steps were taken.
    pub(in crate::runner) async fn verify_and_cache(
        &mut self,
        mut steps: Vec<proofs::Planned>,
        seen: &BTreeSet<Seen>,
        generated_by: &str,
        strict: Strictness,
        cache_outcome: windup_model::CacheOutcome,
    ) -> ScenarioResult {
        let scenario = self.scenario;
        let shared = self.shared;
        let plan = match self.finished_plan(&mut steps, generated_by) {
            Ok(p) => p,
            Err(e) => {
                return failed(
                    &scenario.id,
                    cache_outcome,
                    FailureClass::PlanRejected,
                    e.to_string(),
                );
            }
        };
        // The facts planning saw each step change that are not its checks: what may prove it.
        let facts = steps
            .iter()
            .zip(&plan.actions)
            .map(|(s, a)| {
                let checks = a.expect.clone().unwrap_or_default();
                s.facts
                    .iter()
                    .filter(|f| {
                        !f.expect
                            .clauses()
                            .iter()
                            .all(|c| checks.clauses().contains(c))
                    })
                    .cloned()
                    .collect()
            })
            .collect();
        let words = TaskWords::of(&scenario.task);
        let proven = match self
            .prover()
            .prove(plan.actions.clone(), facts, &words, seen, strict)
            .await
        {
            Ok(p) => p,
            Err(r) => return with_cache(r, cache_outcome),
        };
        self.phases.execute_ms += proven.duration.as_millis() as u64;
        let notes: Vec<String> = proven
            .notes
            .iter()
            .map(|n| self.runner.secrets.redact(n))
            .collect();
        for note in &notes {
            tracing::info!(scenario_id = scenario.id, "{note}");
        }
        shared.events.on_event(&crate::events::Event::Proved {
            scenario_id: scenario.id.clone(),
            notes,
        });
        let counted = counted(&proven.actions, &proven);
        let missing = if proven.actions.is_empty() {
            vec!["no step of the plan changes anything a check can see".to_string()]
        } else {
            let typed: Vec<String> = proven
                .actions
                .iter()
                .filter(|a| proven.unproven.contains(&a.id))
                .filter_map(|a| a.value.clone())
                .collect();
            words.unproven_typed(&counted, &typed, seen)
        };
        if !missing.is_empty() {
            return with_cache(
                super::steps::incomplete(&scenario.id, &missing),
                cache_outcome,
            );
        }
        let plan = Plan {
            actions: proven.actions,
            ..plan
        };
        if let Some(p) = windup_model::validate::plan_problems("plan", &plan, true).first() {
            return failed(
                &scenario.id,
                cache_outcome,
                FailureClass::PlanIncomplete,
                format!(
                    "the plan does not prove the task, so it was not cached: {}: {}",
                    p.field, p.problem
                ),
            );
        }
        let (execution, session) = match self
            .execute_open(&plan, None, shared.events, RunFor::Verify)
            .await
        {
            Ok(x) => x,
            Err(e) => return crashed(&scenario.id, cache_outcome, e),
        };
        self.phases.add(&execution);
        if execution.failure.is_some() {
            session.close().await;
            let mut result = self.runner.results().scenario_result(
                shared.run_id,
                &scenario.id,
                cache_outcome,
                execution,
            );
            result.message = result.message.map(|m| {
                format!("the new plan failed its verifying run, so it was not cached: {m}")
            });
            return result;
        }
        shared
            .keep_setup_state(&self.runner.config.root, scenario, &session)
            .await;
        session.close().await;
        if let Some(url) = &execution.final_url
            && !url::Url::parse(url).is_ok_and(|u| self.runner.boundary().is_app(&u))
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
        let baseline = self.runner.results().masked_baseline(&execution);
        if let Err(e) = shared.cache.save_verified(&Verified {
            scenario,
            plan: &plan,
            start_sig: execution.start_sig.as_deref(),
            duration_ms: execution.duration.as_millis() as u64,
            run_id: shared.run_id,
            baseline: baseline.as_ref(),
        }) {
            tracing::error!("could not save the verified plan of {}: {e}", scenario.id);
        }
        self.runner
            .results()
            .scenario_result(shared.run_id, &scenario.id, cache_outcome, execution)
    }
}

/// The steps as the task's words are looked for in them: a value typed by a step no check
/// needs was never shown to be taken in by the app, a check that held before its step shows
/// what was there anyway, and a check restating a step's own input shows only the typing, so
/// none of them shows any of the task's words.
pub(in crate::runner) fn counted(actions: &[Action], proven: &Proven) -> Vec<Action> {
    actions
        .iter()
        .map(|a| {
            let mut a = a.clone();
            if proven.unproven.contains(&a.id) {
                a.value = None;
            }
            for (id, clause) in &proven.invariants {
                if *id == a.id
                    && let Some(e) = a.expect.as_mut()
                {
                    e.remove_clause(clause);
                }
            }
            // A check restating the step's own input (the value it typed) shows only the typing.
            let own: Vec<_> = a
                .expect
                .iter()
                .flat_map(windup_model::Expect::clauses)
                .filter(|c| super::proofs::own_state(&a, c))
                .collect();
            if let Some(e) = a.expect.as_mut() {
                for c in &own {
                    e.remove_clause(c);
                }
            }
            a
        })
        .collect()
}
