//! The proving of a plan, step by step: the proving run, then each step that changes the page
//! left out in turn, from the last; a fact made the check when nothing fails; what nothing
//! proves dropped, refused or reported.

use std::collections::BTreeSet;
use std::time::Duration;

use windup_model::{Action, ActionType, CacheOutcome, Expect, FailureClass, ScenarioResult};

use super::super::super::results::failed;
use super::super::proofs::own_state;
use super::Prover;
use super::step::{Omission, Proven, Step, Strictness, add_check, changes_page};
use crate::planner::facts::Fact;
use crate::planner::words::{Seen, TaskWords, expect_shows};

impl Prover<'_> {
    /// Proves `actions` (see the module docs); `facts[i]` are what planning saw step `i`
    /// change. Fails when a run of the plan fails for a reason other than a left-out step.
    pub(in crate::runner) async fn prove(
        &self,
        actions: Vec<Action>,
        facts: Vec<Vec<Fact>>,
        words: &TaskWords,
        seen: &BTreeSet<Seen>,
        strict: Strictness,
    ) -> Result<Proven, ScenarioResult> {
        let scenario = self.run.scenario;
        let started = std::time::Instant::now();
        let mut facts = facts.into_iter();
        let mut steps: Vec<Step> = actions
            .into_iter()
            .map(|action| Step::new(action, facts.next().unwrap_or_default()))
            .collect();
        let told = words.checkable(seen);
        for step in &mut steps {
            step.telling = step
                .action
                .expect
                .iter()
                .flat_map(Expect::clauses)
                .filter(|c| told.iter().any(|w| expect_shows(c, w)))
                .collect();
        }
        let mut proven = Proven::default();
        let mut settled = false;
        for _ in 0..3 {
            if self.proving_run(&mut steps, strict, &mut proven).await? {
                settled = true;
                break;
            }
        }
        if !settled {
            return Err(failed(
                &scenario.id,
                CacheOutcome::Miss,
                FailureClass::PostconditionFailed,
                "the plan's checks kept failing on fresh runs, so it was not cached".into(),
            ));
        }
        let mut k = steps.len();
        while k > 0 {
            k -= 1;
            if !changes_page(&steps[k].action) {
                continue;
            }
            let id = steps[k].action.id.clone();
            let step = steps[k].action.summary();
            match self
                .leave_out(&steps, k, self.run.runner.config.timeouts.action)
                .await?
            {
                Omission::Fails(why) => {
                    proven
                        .notes
                        .push(format!("{id} ({step}) is kept: leaving it out, {why}"));
                    continue;
                }
                Omission::Holds => {}
            }
            if let Some((j, fact)) = self.find_proof(&steps, k).await? {
                let line = fact.line();
                let at = steps[j].action.id.clone();
                let before = steps[j].action.clone();
                add_check(&mut steps[j].action, &fact.expect);
                steps[j].lasting.push(fact.expect.clone());
                // Held to the rule it was found by: without the step, the plan now fails.
                if let Omission::Fails(_) = self
                    .leave_out(&steps, k, self.run.runner.config.timeouts.action)
                    .await?
                {
                    steps[j].facts.retain(|f| *f != fact);
                    proven.notes.push(format!(
                        "{id} ({step}) is kept: leaving it out, `{line}` is never true, so it became a check of {at}"
                    ));
                    if strict == Strictness::Report {
                        proven.problems.push(format!(
                            "{id} ({step}) is not proven by any check: leaving it out, every check still holds (`{line}` as a check of {at} would prove it)"
                        ));
                    }
                    continue;
                }
                steps[j].action = before;
                steps[j].lasting.retain(|c| *c != fact.expect);
            }
            // It sets its own target (a typed value, a password the page never shows, a ticked
            // box): the server or a later scenario may need it, so it stays, but it proves
            // nothing.
            let own = matches!(
                steps[k].action.kind,
                ActionType::Fill
                    | ActionType::Select
                    | ActionType::Check
                    | ActionType::Uncheck
                    | ActionType::Upload
            ) || steps[k]
                .facts
                .iter()
                .any(|f| own_state(&steps[k].action, &f.expect))
                || steps[k]
                    .action
                    .expect
                    .iter()
                    .flat_map(Expect::clauses)
                    .any(|c| own_state(&steps[k].action, &c));
            // Last in the plan, nothing after it can need what it set: it goes, like an idle
            // step, so that the plan ends on a step its checks prove.
            if own && strict == Strictness::Drop && k + 1 == steps.len() {
                proven.notes.push(format!(
                    "{id} ({step}) changes only its own target and is the plan's last step: leaving it out, every check still holds and nothing after it needs it, so it was dropped"
                ));
                steps.remove(k);
                continue;
            }
            if own && strict != Strictness::Report {
                proven.notes.push(format!(
                    "{id} ({step}) is kept but proves nothing: leaving it out, every check still holds; it changes only its own target, which the app may need later"
                ));
                proven.unproven.push(id);
                continue;
            }
            let mut why = format!(
                "{id} ({step}) changes nothing a check sees: leaving it out, every check still holds"
            );
            if let Some(held) = steps[k].held_before.first() {
                why.push_str(&format!(
                    " (its check `{}` already held before it ran)",
                    held.clause_line()
                ));
            }
            match strict {
                Strictness::Drop => {
                    proven.notes.push(format!("{why}, so it was dropped"));
                    steps.remove(k);
                }
                Strictness::Refuse => {
                    return Err(failed(
                        &scenario.id,
                        CacheOutcome::Miss,
                        FailureClass::PlanIncomplete,
                        format!("{why} (fix: expect what the step changes, or leave the step out)"),
                    ));
                }
                Strictness::Report => {
                    proven.problems.push(why);
                    proven.unproven.push(id);
                }
            }
        }
        proven.invariants = steps
            .iter()
            .flat_map(|s| {
                s.held_before
                    .iter()
                    .map(|c| (s.action.id.clone(), c.clone()))
            })
            .collect();
        proven.actions = steps.into_iter().map(|s| s.action).collect();
        proven.duration = started.elapsed();
        Ok(proven)
    }

    /// Whether step `k` of `actions` is needed: the plan run from a fresh context without it
    /// fails a check or a later step (a healed step onto an element that does nothing is not),
    /// each check and step waiting at most `wait`.
    pub(in crate::runner) async fn step_needed(
        &self,
        actions: &[Action],
        k: usize,
        wait: Duration,
    ) -> Result<bool, ScenarioResult> {
        if !changes_page(&actions[k]) {
            return Ok(true);
        }
        // Every check counts where it runs: the healed plan's checks were proven before.
        let steps: Vec<Step> = actions
            .iter()
            .map(|a| {
                let mut step = Step::new(a.clone(), Vec::new());
                step.telling = a.expect.iter().flat_map(Expect::clauses).collect();
                step
            })
            .collect();
        Ok(matches!(
            self.leave_out(&steps, k, wait).await?,
            Omission::Fails(_)
        ))
    }
}
