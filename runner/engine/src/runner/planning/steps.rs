//! The planning loop: each call plans the steps whose targets are on the page it is shown,
//! they run in the one context planning works in, the page is observed again, and what they
//! changed becomes the facts that prove them.

use std::collections::BTreeSet;

use windup_model::{Action, FailureClass, ScenarioResult};

use super::super::ScenarioRun;
use super::super::results::failed;
use super::super::setup::Planning;
use super::covered::{controls, newly_covered, on_text};
use super::order;
use super::proofs::{self, Planned};
use super::prove::Strictness;
use super::start::{Made, Start, Stop, plan_misfit, with_cache};
use super::tidy;
use crate::browser::Session;
use crate::events::Event;
use crate::fragments::page_path;
use crate::planner::check::Segment;
use crate::planner::words::{Seen, TaskWords};
use crate::planner::{Ask, Project, Purpose, StepFailure, facts};

impl ScenarioRun<'_> {
    /// Plans (or repairs), verifies and caches one scenario's plan.
    pub(in crate::runner) async fn plan_scenario(
        &mut self,
        start: Start,
        cache_outcome: windup_model::CacheOutcome,
    ) -> ScenarioResult {
        // Planning's own run is never the verifying run: every plan is proven from fresh
        // contexts before it is cached.
        let (mut session, steps, purpose) = match start {
            Start::Plan => match self.open_start().await {
                Ok((session, _sig)) => (session, Vec::new(), Purpose::Plan),
                Err(result) => return with_cache(result, cache_outcome),
            },
            Start::Repair {
                done,
                failure,
                session,
            } => (
                session,
                done.into_iter().map(Planned::kept).collect(),
                Purpose::Repair { failure },
            ),
        };
        let made = self.make_plan(&mut session, steps, purpose).await;
        session.close().await;
        match made {
            Ok(made) => {
                // Who makes plans in this run: the planner's `provider/model`.
                let by = self
                    .runner
                    .planner()
                    .expect("callers check that a planner is ready")
                    .generated_by();
                self.verify_and_cache(made.steps, &made.seen, &by, Strictness::Drop, cache_outcome)
                    .await
            }
            Err(result) => with_cache(result, cache_outcome),
        }
    }

    /// Plans step by step in `session`: each call plans the steps whose targets are on the
    /// page it is shown; they run; the page is read again and what they changed becomes facts.
    /// Ends when the task is done, with every step's postcondition chosen from its facts.
    async fn make_plan(
        &mut self,
        session: &mut Session,
        mut steps: Vec<Planned>,
        mut purpose: Purpose,
    ) -> Result<Made, ScenarioResult> {
        let scenario = self.scenario;
        let shared = self.shared;
        let Planning::Ready(planner) = &self.runner.planning else {
            unreachable!("callers check that a planner is ready");
        };
        let miss = windup_model::CacheOutcome::Miss;
        let settings = planner.settings();
        let files = crate::executor::upload_file_names(&self.runner.config.root);
        let project = Project {
            boundary: self.runner.boundary(),
            fragments: shared.fragments,
            secrets: &self.runner.secrets,
            budget: &self.runner.budget,
            files: &files,
        };
        let base = self.runner.boundary().base_url().clone();
        let stop = |stop: Stop| stop.result(&scenario.id, miss);
        let mut page = self
            .runner
            .observe(session, &scenario.task, &mut self.phases)
            .await
            .map_err(stop)?;
        // The task's own words, and the controls the pages showed: a finished plan shows them.
        let words = TaskWords::of(&scenario.task);
        let mut seen: BTreeSet<Seen> = controls(&page);
        // The steps a broken replay kept: their effect was never observed here.
        let kept = steps.len();
        // The steps of the last segment, whose facts the next call may pick as proofs.
        let mut pending: Vec<usize> = Vec::new();
        let mut continuations = 0;
        let mut corrected = false;
        // An answer that broke itself is tried once more in the task's order, with no call.
        let mut reordered = false;
        let mut queued: Option<Segment> = None;
        // What every planned step did, for the result if planning fails.
        let mut ran: Vec<windup_model::ActionResult> = Vec::new();
        // Texts that change on their own (clocks, countdowns): never facts.
        let mut drifting = std::collections::BTreeSet::new();
        // Whether a fact was picked because it shows the task's own words.
        let mut by_words = false;
        // The page before each step planned here, by its id (`tidy::left_out`).
        let mut befores = std::collections::HashMap::new();
        // Every answer's steps so far, run or left out, for the loops `tidy` leaves out.
        let mut tried = Vec::new();
        // The tick the last hint named, for an answer that ignores it (`tidy::ignored_tick`).
        let mut hinted_tick = None;
        loop {
            let segment = if let Some(segment) = queued.take() {
                segment
            } else {
                shared.events.on_event(&Event::Planning {
                    scenario_id: scenario.id.clone(),
                    purpose: purpose.clone(),
                });
                let done: Vec<Action> = steps.iter().map(|s| s.action.clone()).collect();
                let unchanged: Vec<String> = steps[kept..]
                    .iter()
                    .filter(|s| s.facts.is_empty())
                    .map(|s| s.action.id.clone())
                    .collect();
                let listed = proofs::listed(&steps, &pending);
                // Only the fragments that start on this page.
                let catalog = shared.fragments.catalogue(&page_path(&page.url));
                let ask = Ask {
                    scenario,
                    page: &page,
                    facts: &listed,
                    done: &done,
                    unchanged: &unchanged,
                    purpose: purpose.clone(),
                    fragments: &catalog,
                    site_map: shared.site.slice(&scenario.id),
                };
                planner
                    .plan(&ask, &project, &mut self.spend)
                    .await
                    .map_err(|f| failed(&scenario.id, miss, f.class, f.message))?
            };
            proofs::pick_numbers(&mut steps, &pending, &segment.proofs);
            pending.clear();
            // The page the answer's refs were resolved on.
            let shown = page.clone();
            if !segment.actions.is_empty() {
                // The call took a while: what changed meanwhile changed on its own.
                let now = self
                    .runner
                    .observe(session, &scenario.task, &mut self.phases)
                    .await
                    .map_err(stop)?;
                drifting.extend(facts::drifted(&page, &now));
                seen.extend(controls(&now));
                page = now;
            }
            let segment_start = page.clone();
            let segment_first = steps.len();
            let mut failure = None;
            // The answer's steps, and at its end, once, the Enter a quoted value left waiting
            // in its field needs.
            let mut todo = segment.actions.clone();
            let tick = tidy::ignored_tick(
                hinted_tick.take(),
                &todo,
                &tidy::ids_taken(&steps, &segment.actions),
            );
            if let Some(tick) = tick {
                tracing::info!(
                    scenario_id = scenario.id,
                    "{} ticks what the hint named: the answer ticks nothing",
                    tick.id
                );
                todo.insert(0, tick);
            }
            let mut closed = false;
            let mut n = 0;
            'answer: loop {
                if n == todo.len() {
                    let waiting = (!closed)
                        .then(|| {
                            let taken = tidy::ids_taken(&steps, &todo);
                            tidy::submit_waiting(&steps, kept, &page, &words, &seen, &taken)
                        })
                        .flatten();
                    let Some(enter) = waiting else { break };
                    tracing::info!(
                        scenario_id = scenario.id,
                        "{} presses Enter: the answer left a value the task quotes waiting in its field",
                        enter.id
                    );
                    todo.push(enter);
                    closed = true;
                }
                n += 1;
                let why = tidy::left_out(
                    &tried,
                    &todo[n - 1],
                    todo.get(n),
                    &steps[kept..],
                    &befores,
                    &page,
                );
                tried.push(todo[n - 1].clone());
                if let Some(why) = why {
                    tracing::info!(
                        scenario_id = scenario.id,
                        "{} is left out: {why}",
                        todo[n - 1].id
                    );
                    continue;
                }
                let answered = &tidy::in_field_form(&todo[n - 1], &page)
                    .unwrap_or_else(|| todo[n - 1].clone());
                let enter = {
                    let taken = tidy::ids_taken(&steps, &todo);
                    tidy::submit_first(answered, &steps, &page, &words, &taken)
                };
                if let Some(enter) = &enter {
                    tracing::info!(
                        scenario_id = scenario.id,
                        "{} presses Enter before {} types over a value the task quotes that waits in its field",
                        enter.id,
                        answered.id
                    );
                }
                for action in enter.iter().chain(std::iter::once(answered)) {
                    let before = page.clone();
                    let execution = self.run_steps(session, std::slice::from_ref(action)).await;
                    self.phases.add(&execution);
                    if let Some(f) = &execution.failure {
                        // A click on a text that is gone (a model "checking" an old count by
                        // clicking it) would be dropped before caching anyway: it does not end
                        // the plan.
                        if (on_text(action, &shown) || on_text(action, &segment_start))
                            && matches!(
                                f.class,
                                FailureClass::SelectorNotFound | FailureClass::NotActionable
                            )
                        {
                            tracing::info!(
                                scenario_id = scenario.id,
                                "{} is left out: a click on a text the page no longer shows ({})",
                                action.id,
                                f.class
                            );
                            continue;
                        }
                        failure = Some((action.clone(), execution));
                        break 'answer;
                    }
                    let mut action = action.clone();
                    proofs::check_download(&mut action, &execution.actions);
                    ran.extend(execution.actions);
                    page = self
                        .runner
                        .observe(session, &scenario.task, &mut self.phases)
                        .await
                        .map_err(stop)?;
                    seen.extend(controls(&page));
                    let changed = facts::changes(&before, &page, &base)
                        .into_iter()
                        .filter(|f| {
                            let line = f.line();
                            self.runner.secrets.redact(&line) == line
                                && !facts::is_drifting(f, &drifting)
                        })
                        .collect();
                    let changed = facts::holding(session, changed, &base).await;
                    pending.push(steps.len());
                    befores.insert(action.id.clone(), before);
                    steps.push(Planned {
                        action,
                        facts: changed,
                        picked: Vec::new(),
                        engine_chosen: false,
                    });
                }
            }
            let can_continue = continuations < settings.max_continuations;
            if let Some((action, execution)) = failure {
                let f = execution.failure.clone().expect("a failed execution");
                // Steps of the answer ran before the one that failed: the same steps, in the
                // order the task names their targets, from the start page again.
                if plan_misfit(f.class)
                    && !reordered
                    && steps.len() > segment_first
                    && let Some(actions) =
                        order::in_task_order(&segment.actions, &segment_start, &scenario.task)
                    && self
                        .undo_answer(session, &mut steps, segment_first)
                        .await
                        .is_some()
                {
                    reordered = true;
                    pending.clear();
                    ran.clear();
                    tracing::info!(
                        scenario_id = scenario.id,
                        "{} failed after steps of the same answer ran: the answer again from the start page, in the order the task names its targets",
                        action.id
                    );
                    page = self
                        .runner
                        .observe(session, &scenario.task, &mut self.phases)
                        .await
                        .map_err(stop)?;
                    seen.extend(controls(&page));
                    queued = Some(Segment {
                        actions,
                        complete: segment.complete,
                        proofs: Vec::new(),
                    });
                    continue;
                }
                // A step that does not fit the page it was planned on gets one correction,
                // from the page as it is now.
                if plan_misfit(f.class) && !corrected && can_continue {
                    ran.clear();
                    continuations += 1;
                    corrected = true;
                    // Steps of the same answer ran before it and may be what broke it (a form
                    // submitted before its fields were set): the correction starts again from
                    // the start page with only the earlier answers' steps done.
                    let undone = self
                        .undo_answer(session, &mut steps, segment_first)
                        .await
                        .unwrap_or_default();
                    if !undone.is_empty() {
                        pending.clear();
                    }
                    page = self
                        .runner
                        .observe(session, &scenario.task, &mut self.phases)
                        .await
                        .map_err(stop)?;
                    seen.extend(controls(&page));
                    purpose = Purpose::Correct {
                        failure: StepFailure {
                            action,
                            class: f.class,
                            message: self.runner.secrets.redact(&f.message),
                        },
                        undone,
                    };
                    continue;
                }
                // The result shows every step run while planning, and the failure's evidence.
                let mut result = self.runner.results().scenario_result(
                    shared.run_id,
                    &scenario.id,
                    miss,
                    execution,
                );
                ran.append(&mut result.actions);
                result.actions = ran;
                result.message = result.message.map(|m| {
                    format!("a planned step failed while planning, so the plan was not cached: {m}")
                });
                return Err(result);
            }
            // Not done by the model's word, yet nothing is left to do: the steps changed
            // nothing, or they showed every string the task quotes and the page offers nothing
            // new to act on.
            let unchanged = pending.iter().all(|&i| steps[i].facts.is_empty());
            let shown = !segment_start.is_other_page(&page.url)
                && !segment_start.offers_new_controls(&page)
                && proofs::quotes_shown(&steps, &pending, &scenario.task);
            let next = if segment.complete || segment.actions.is_empty() || unchanged || shown {
                // Done by the model's word: only when the plan shows what the task says.
                by_words |= proofs::pick_words(&mut steps, &words, &seen);
                let missing = proofs::unproven(&steps, &words, &seen);
                if missing.is_empty() {
                    break;
                }
                if !can_continue {
                    return Err(incomplete(&scenario.id, &missing));
                }
                tracing::info!(
                    scenario_id = scenario.id,
                    "the plan does not show the whole task yet: {}",
                    missing.join("; ")
                );
                let hints = proofs::hints(&steps, &words, &seen, &page, &missing);
                hinted_tick = proofs::tick_step(&steps, &words, &page);
                let mut unproven = missing;
                unproven.extend(hints);
                Purpose::Finish { unproven }
            } else if can_continue {
                Purpose::Continue { failure: None }
            } else {
                return Err(failed(
                    &scenario.id,
                    miss,
                    FailureClass::PlanRejected,
                    format!(
                        "the task was still unfinished after {} continuation calls (planner.max_continuations)",
                        settings.max_continuations
                    ),
                ));
            };
            continuations += 1;
            purpose = next;
            // The answer's steps covered what the task still needs: once, the start again.
            if !corrected
                && let Some(again) = self
                    .restart_if_covered(
                        session,
                        &mut steps,
                        segment_first,
                        (&segment_start, &page, &words),
                    )
                    .await
            {
                corrected = true;
                pending.clear();
                ran.clear();
                hinted_tick = None;
                page = self
                    .runner
                    .observe(session, &scenario.task, &mut self.phases)
                    .await
                    .map_err(stop)?;
                seen.extend(controls(&page));
                purpose = again;
            }
        }
        // The task is done: its proof is what shows the task's own words, else the model's
        // pick.
        let has_facts = pending.iter().any(|&i| !steps[i].facts.is_empty());
        if has_facts && !by_words {
            shared.events.on_event(&Event::Planning {
                scenario_id: scenario.id.clone(),
                purpose: Purpose::Prove,
            });
            let done: Vec<Action> = steps.iter().map(|s| s.action.clone()).collect();
            let listed = proofs::listed(&steps, &pending);
            match planner
                .prove(scenario, &done, &listed, &project, &mut self.spend)
                .await
            {
                Ok(numbers) => proofs::pick_numbers(&mut steps, &pending, &numbers),
                Err(f) => return Err(failed(&scenario.id, miss, f.class, f.message)),
            }
        }
        // The last step's facts are checked once more on the page as it ends: one that no
        // longer holds (a message that faded) is not a postcondition.
        if let Some(last) = steps.last_mut() {
            let still = facts::holding(session, last.facts.clone(), &base).await;
            let picked = last
                .picked
                .iter()
                .filter_map(|&k| still.iter().position(|f| *f == last.facts[k]))
                .collect();
            last.facts = still;
            last.picked = picked;
        }
        Ok(Made { steps, seen })
    }
}

impl ScenarioRun<'_> {
    /// When the last answer's steps left controls the task names covered (usable when it
    /// began, now under something that takes their clicks: a page that ended its task),
    /// starts again from the start page with the earlier answers' steps, the last answer's
    /// undone, and says why.
    async fn restart_if_covered(
        &mut self,
        session: &mut Session,
        steps: &mut Vec<Planned>,
        segment_first: usize,
        (began, now, words): (
            &crate::planner::Observation,
            &crate::planner::Observation,
            &TaskWords,
        ),
    ) -> Option<Purpose> {
        if steps.len() <= segment_first {
            return None;
        }
        let covered = newly_covered(began, now, words, &steps[segment_first..]);
        if covered.is_empty() {
            return None;
        }
        let undone = self.undo_answer(session, steps, segment_first).await?;
        Some(Purpose::Restart { undone, covered })
    }

    /// Undoes the last answer (the steps from `segment_first` on, when any ran): `session`
    /// becomes a new context on the start page with the steps before it run again, and those
    /// steps are taken out of `steps` and returned. `None`, with nothing changed, when no step
    /// of it ran or the start page or an earlier step fails again.
    async fn undo_answer(
        &mut self,
        session: &mut Session,
        steps: &mut Vec<Planned>,
        segment_first: usize,
    ) -> Option<Vec<Action>> {
        if steps.len() <= segment_first {
            return None;
        }
        let earlier: Vec<Action> = steps[..segment_first]
            .iter()
            .map(|s| s.action.clone())
            .collect();
        let fresh = self.start_again(&earlier).await?;
        std::mem::replace(session, fresh).close().await;
        Some(steps.drain(segment_first..).map(|s| s.action).collect())
    }
}

/// Planning ends without a plan that shows the whole task: the task's words it leaves unproven.
pub(super) fn incomplete(id: &str, missing: &[String]) -> ScenarioResult {
    failed(
        id,
        windup_model::CacheOutcome::Miss,
        FailureClass::PlanIncomplete,
        format!(
            "the plan does not prove the task, so it was not cached: {}",
            missing.join("; ")
        ),
    )
}
