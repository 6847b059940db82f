//! The proving run: the plan from a fresh context, every check and fact read just before its
//! step (a `wait_for`'s before the step it checks), the facts again after it, and at the end
//! what of each step lasts.

use std::collections::BTreeSet;

use windup_model::{ActionType, CacheOutcome, Expect, FailureClass, ScenarioResult};

use super::super::super::results::crashed;
use super::Prover;
use super::step::{Proven, Step, Strictness, holds_now};
use crate::browser::Session;
use crate::planner::Observation;
use crate::planner::words::Seen;

impl Prover<'_> {
    /// One run from a fresh context that reads every check and fact just before its step and
    /// the facts again after it. Drops (or refuses, or reports) checks that held before;
    /// keeps, as facts, only those false before and true after. Returns false when a check
    /// that held on the planning run failed here and was dropped: the run is made again.
    pub(super) async fn proving_run(
        &self,
        steps: &mut Vec<Step>,
        strict: Strictness,
        proven: &mut Proven,
    ) -> Result<bool, ScenarioResult> {
        let scenario = self.run.scenario;
        let shared = self.run.shared;
        let mut session = self.fresh_context().await?;
        let base = self.run.runner.boundary().base_url().clone();
        for step in steps.iter_mut() {
            step.held_before.clear();
        }
        // `wait_for` steps right after a step are checks of it: read before that step too.
        let mut vacuous_waits: Vec<String> = Vec::new();
        for j in 0..steps.len() {
            if strict == Strictness::Report {
                self.note_controls(&session, &mut proven.seen).await;
            }
            if steps[j].action.kind != ActionType::WaitFor {
                let mut read: Vec<(usize, Expect, bool)> = Vec::new();
                for owner in std::iter::once(j).chain(
                    (j + 1..steps.len())
                        .take_while(|&w| steps[w].action.kind == ActionType::WaitFor),
                ) {
                    let a = &steps[owner].action;
                    if owner != j
                        && let Some(t) = &a.target
                    {
                        read.push((
                            owner,
                            Expect {
                                visible: Some(t.selector.clone()),
                                ..Expect::default()
                            },
                            true,
                        ));
                    }
                    for clause in a.expect.iter().flat_map(Expect::clauses) {
                        read.push((owner, clause, false));
                    }
                }
                let first = steps[j].action.id.clone();
                for (owner, clause, is_target) in read {
                    let held = holds_now(&session, &base, &clause)
                        .await
                        .map_err(|e| crashed(&scenario.id, CacheOutcome::Miss, e))?;
                    if !held {
                        continue;
                    }
                    let id = steps[owner].action.id.clone();
                    let why = if is_target {
                        format!(
                            "{id} waits for `{}`, which already showed before {first} ran, so it proves nothing",
                            clause.visible.as_deref().unwrap_or_default()
                        )
                    } else {
                        format!(
                            "{id}'s check `{}` already held before {first} ran, so it proves nothing",
                            clause.clause_line()
                        )
                    };
                    // Never a proof. A plan the planner made drops it (a fact of an observation,
                    // not of the step), unless it shows the task's own words; a person's or an
                    // agent's check of what stays true is kept, and the step still needs a
                    // proof of its own.
                    if strict == Strictness::Drop && !steps[owner].telling.contains(&clause) {
                        proven.notes.push(format!("{why}: dropped"));
                        if is_target {
                            vacuous_waits.push(id);
                        } else if let Some(e) = steps[owner].action.expect.as_mut() {
                            e.remove_clause(&clause);
                        }
                    } else {
                        proven
                            .notes
                            .push(format!("{why}; kept as a check of what stays true"));
                        steps[owner].held_before.push(clause);
                    }
                }
            }
            let step = &mut steps[j];
            let id = step.action.id.clone();
            let mut fresh = Vec::new();
            for f in std::mem::take(&mut step.facts) {
                let before = holds_now(&session, &base, &f.expect)
                    .await
                    .map_err(|e| crashed(&scenario.id, CacheOutcome::Miss, e))?;
                if !before {
                    fresh.push(f);
                }
            }
            if step
                .action
                .expect
                .as_ref()
                .is_some_and(|e| *e == Expect::default())
            {
                step.action.expect = None;
            }
            let ran = self
                .run_quiet(&mut session, std::slice::from_ref(&step.action), true)
                .await;
            if let Some(f) = &ran.failure {
                // A check planning saw hold that fails on a fresh run was a fact of that run
                // only: dropped, and the proving run made again without it.
                let on_check = f.class == FailureClass::PostconditionFailed
                    && f.action_id.as_deref() == Some(id.as_str());
                if on_check && strict == Strictness::Drop {
                    let mut failing = Vec::new();
                    for clause in step.action.expect.iter().flat_map(Expect::clauses) {
                        if !holds_now(&session, &base, &clause).await.unwrap_or(false) {
                            failing.push(clause);
                        }
                    }
                    if !failing.is_empty() {
                        for clause in &failing {
                            proven.notes.push(format!(
                                "{id}'s check `{}` did not hold on a fresh run: dropped",
                                clause.clause_line()
                            ));
                            if let Some(e) = step.action.expect.as_mut() {
                                e.remove_clause(clause);
                            }
                        }
                        session.close().await;
                        return Ok(false);
                    }
                }
                session.close().await;
                let mut result = self.run.runner.results().scenario_result(
                    shared.run_id,
                    &scenario.id,
                    CacheOutcome::Miss,
                    ran,
                );
                result.message = result.message.map(|m| {
                    format!("the plan failed its proving run from a fresh context, so it was not cached: {m}")
                });
                return Err(result);
            }
            step.facts = crate::planner::facts::holding(&session, fresh, &base).await;
        }
        if strict == Strictness::Report {
            self.note_controls(&session, &mut proven.seen).await;
        }
        // What of each step lasts to the end.
        for step in steps.iter_mut() {
            let mut lasting = Vec::new();
            let clauses = step.action.expect.iter().flat_map(Expect::clauses);
            for c in clauses.chain(step.facts.iter().map(|f| f.expect.clone())) {
                if holds_now(&session, &base, &c)
                    .await
                    .map_err(|e| crashed(&scenario.id, CacheOutcome::Miss, e))?
                {
                    lasting.push(c);
                }
            }
            step.lasting = lasting;
        }
        session.close().await;
        // A wait for what showed before proves nothing and waits for nothing.
        steps.retain(|s| !vacuous_waits.contains(&s.action.id));
        Ok(true)
    }

    /// Adds the controls the page shows now to `seen` (as planning would have listed them).
    pub(super) async fn note_controls(&self, session: &Session, seen: &mut BTreeSet<Seen>) {
        let scenario = self.run.scenario;
        let s = &self.run.runner.config.planner;
        let origins = self.run.runner.boundary().app_origins();
        if let Ok(page) = Observation::capture(
            session,
            &scenario.task,
            origins,
            s.max_elements,
            s.page_chars,
        )
        .await
        {
            seen.extend(
                page.items
                    .iter()
                    .filter(|i| i.control && !i.name.trim().is_empty())
                    .map(|i| (i.role.clone(), i.name.clone())),
            );
        }
    }
}
