//! Proving a plan before it is cached, with no LLM. A check proves its step only when it is
//! false just before the step and true after; a step is kept only when leaving it out makes a
//! check fail. Both are found by running the plan from fresh contexts:
//!
//! - the proving run: every check (and every fact planning saw the step change) is read just
//!   before its step; one that already holds is no proof and is dropped; a fact that is false
//!   before and true after may later become a check;
//! - one run per step that changes the page, with that step left out (its own checks still read
//!   where it would have run, except those that restate its own input: a typed value, a ticked
//!   box); a check or a later step that then fails proves the step. When nothing fails, a second
//!   run looks for a fact of the step (or of a later one) that the omission leaves false, and
//!   makes it a check. A step nothing proves that changed nothing at all (a click on a heading)
//!   is idle: dropped (planning), refused (an agent's flow), or reported (`windup validate
//!   --prove`). One that changed only its own target (a typed value no check needs, a ticked
//!   box the page ignores) stays, since the server or a later scenario may need it, but it is
//!   unproven: its typed value shows none of the task's words.
//!
//! Every wait for a check that should fail takes the step's whole time: a check that would
//! come true on its own a little later is then never taken for a proof.

use std::collections::BTreeSet;
use std::time::Duration;

use tokio::time::Instant;
use windup_model::{
    Action, ActionType, CacheOutcome, Expect, FailureClass, Plan, Scenario, ScenarioResult,
};

use super::super::Runner;
use super::super::results::{crashed, failed};
use super::super::shared::RunShared;
use super::proofs::own_state;
use crate::browser::{BrowserError, Session};
use crate::events::NoEvents;
use crate::executor::{ExecContext, Execution, Screenshots, Trace, execute_steps};
use crate::planner::Observation;
use crate::planner::facts::Fact;
use crate::planner::words::{Seen, TaskWords, expect_shows};
use crate::verifier::Check;

/// What to do with a check that proves nothing and a step that nothing proves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::runner) enum Strictness {
    /// A plan the planner made: drop them, saying so in the planning log.
    Drop,
    /// An agent's flow (`windup mcp`): refuse the plan, naming them.
    Refuse,
    /// A plan people wrote or committed (`windup validate --prove`): change nothing, report.
    Report,
}

/// A plan proven step by step.
#[derive(Debug, Clone, Default)]
pub(in crate::runner) struct Proven {
    /// The steps kept, each with its checks.
    pub actions: Vec<Action>,
    /// Why each step was kept or dropped and each check dropped or added: the planning log.
    pub notes: Vec<String>,
    /// With [`Strictness::Report`]: what does not prove the task.
    pub problems: Vec<String>,
    /// Steps kept though no check needs them: they change only their own target (a typed
    /// value, a ticked box), which the server or a later scenario may need but which proves
    /// nothing of the task.
    pub unproven: Vec<String>,
    /// Checks kept though they held before their step (what must stay true), by step id:
    /// they show none of the task's words.
    pub invariants: Vec<(String, Expect)>,
    /// How long the proving runs took.
    pub duration: Duration,
    /// With [`Strictness::Report`]: the controls the pages showed on the proving run (a task
    /// naming one must use it).
    pub seen: BTreeSet<Seen>,
}

/// What leaving a step out did.
enum Omission {
    /// A check or a later step failed: why.
    Fails(String),
    /// Every check still held.
    Holds,
}

/// One step being proven: the step with its checks, and the facts planning saw it change that
/// are not (yet) checks.
struct Step {
    action: Action,
    facts: Vec<Fact>,
    /// What of the step lasts to the end of the proving run (its checks and facts that still
    /// hold after the last step): the step's part in the outcome. A check that is gone by then
    /// (a page left behind, a menu closed) proves the step only through what comes after it.
    lasting: Vec<Expect>,
    /// Its checks that show the task's own words: proofs wherever they hold.
    telling: Vec<Expect>,
    /// Its checks that already held before it ran: never proofs.
    held_before: Vec<Expect>,
}

impl Step {
    fn new(action: Action, facts: Vec<Fact>) -> Step {
        Step {
            action,
            facts,
            lasting: Vec::new(),
            telling: Vec::new(),
            held_before: Vec::new(),
        }
    }

    /// Whether `clause` (a check or a fact of this step) can prove it where it runs: it did not
    /// hold before the step, and it lasts or shows the task's words.
    fn proves(&self, clause: &Expect) -> bool {
        !self.held_before.contains(clause)
            && (self.lasting.contains(clause) || self.telling.contains(clause))
    }
}

impl Runner {
    /// Proves `actions` (see the module docs); `facts[i]` are what planning saw step `i`
    /// change. Fails when a run of the plan fails for a reason other than a left-out step.
    #[expect(
        clippy::too_many_arguments,
        reason = "the plan, what planning saw, the task's words, and how strictly it is held"
    )]
    pub(in crate::runner) async fn prove(
        &self,
        scenario: &Scenario,
        actions: Vec<Action>,
        facts: Vec<Vec<Fact>>,
        words: &TaskWords,
        seen: &BTreeSet<Seen>,
        strict: Strictness,
        shared: &RunShared<'_>,
    ) -> Result<Proven, ScenarioResult> {
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
            if self
                .proving_run(scenario, &mut steps, strict, shared, &mut proven)
                .await?
            {
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
            match self.leave_out(scenario, &steps, k, shared).await? {
                Omission::Fails(why) => {
                    proven
                        .notes
                        .push(format!("{id} ({step}) is kept: leaving it out, {why}"));
                    continue;
                }
                Omission::Holds => {}
            }
            if let Some((j, fact)) = self.find_proof(scenario, &steps, k, shared).await? {
                let line = fact.line();
                let at = steps[j].action.id.clone();
                let before = steps[j].action.clone();
                add_check(&mut steps[j].action, &fact.expect);
                steps[j].lasting.push(fact.expect.clone());
                // Held to the rule it was found by: without the step, the plan now fails.
                if let Omission::Fails(_) = self.leave_out(scenario, &steps, k, shared).await? {
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
    /// fails a check or a later step (a healed step onto an element that does nothing is not).
    pub(in crate::runner) async fn step_needed(
        &self,
        scenario: &Scenario,
        actions: &[Action],
        k: usize,
        shared: &RunShared<'_>,
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
            self.leave_out(scenario, &steps, k, shared).await?,
            Omission::Fails(_)
        ))
    }

    /// One run from a fresh context that reads every check and fact just before its step and
    /// the facts again after it. Drops (or refuses, or reports) checks that held before;
    /// keeps, as facts, only those false before and true after. Returns false when a check
    /// that held on the planning run failed here and was dropped: the run is made again.
    async fn proving_run(
        &self,
        scenario: &Scenario,
        steps: &mut Vec<Step>,
        strict: Strictness,
        shared: &RunShared<'_>,
        proven: &mut Proven,
    ) -> Result<bool, ScenarioResult> {
        let mut session = self.fresh_context(scenario, shared).await?;
        let base = self.boundary().base_url().clone();
        for step in steps.iter_mut() {
            step.held_before.clear();
        }
        // `wait_for` steps right after a step are checks of it: read before that step too.
        let mut vacuous_waits: Vec<String> = Vec::new();
        for j in 0..steps.len() {
            if strict == Strictness::Report {
                self.note_controls(&session, scenario, &mut proven.seen)
                    .await;
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
                .run_quiet(
                    &mut session,
                    scenario,
                    std::slice::from_ref(&step.action),
                    shared,
                    true,
                )
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
                let mut result =
                    self.scenario_result(shared.run_id, &scenario.id, CacheOutcome::Miss, ran);
                result.message = result.message.map(|m| {
                    format!("the plan failed its proving run from a fresh context, so it was not cached: {m}")
                });
                return Err(result);
            }
            step.facts = crate::planner::facts::holding(&session, fresh, &base).await;
        }
        if strict == Strictness::Report {
            self.note_controls(&session, scenario, &mut proven.seen)
                .await;
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
    async fn note_controls(
        &self,
        session: &Session,
        scenario: &Scenario,
        seen: &mut BTreeSet<Seen>,
    ) {
        let s = &self.config.planner;
        let origins = self.boundary().app_origins();
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

    /// Runs the plan from a fresh context with step `k` left out: its own checks are read where
    /// it would have run (all but those restating its own input), then the steps after it run.
    async fn leave_out(
        &self,
        scenario: &Scenario,
        steps: &[Step],
        k: usize,
        shared: &RunShared<'_>,
    ) -> Result<Omission, ScenarioResult> {
        let mut session = self.fresh_context(scenario, shared).await?;
        let result = async {
            self.run_prefix(&mut session, scenario, steps, k, shared)
                .await?;
            let step = &steps[k].action;
            // Its own checks where it would have run, those that last or tell the task.
            let checks: Vec<Expect> = step
                .expect
                .iter()
                .flat_map(Expect::clauses)
                .filter(|c| !own_state(step, c) && steps[k].proves(c))
                .collect();
            let base = self.boundary().base_url().clone();
            for clause in &checks {
                let holds = self
                    .comes_true(&session, &base, clause)
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
            let ran = self
                .run_quiet(&mut session, scenario, &rest, shared, false)
                .await;
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
    async fn find_proof(
        &self,
        scenario: &Scenario,
        steps: &[Step],
        k: usize,
        shared: &RunShared<'_>,
    ) -> Result<Option<(usize, Fact)>, ScenarioResult> {
        if steps[k..].iter().all(|s| s.facts.is_empty()) {
            return Ok(None);
        }
        let mut session = self.fresh_context(scenario, shared).await?;
        let result = async {
            self.run_prefix(&mut session, scenario, steps, k, shared)
                .await?;
            let base = self.boundary().base_url().clone();
            let crash = |e| crashed(&scenario.id, CacheOutcome::Miss, e);
            let mut later: Option<(usize, Fact)> = None;
            for (j, step) in steps.iter().enumerate().skip(k + 1) {
                let ran = self
                    .run_quiet(
                        &mut session,
                        scenario,
                        std::slice::from_ref(&step.action),
                        shared,
                        false,
                    )
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

    /// Runs the steps before `k` in `session`; a failure there (they passed on the proving
    /// run) means the plan does not replay reliably.
    async fn run_prefix(
        &self,
        session: &mut Session,
        scenario: &Scenario,
        steps: &[Step],
        k: usize,
        shared: &RunShared<'_>,
    ) -> Result<(), ScenarioResult> {
        if k == 0 {
            return Ok(());
        }
        let prefix: Vec<Action> = steps[..k].iter().map(|s| s.action.clone()).collect();
        let ran = self
            .run_quiet(session, scenario, &prefix, shared, false)
            .await;
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
    async fn comes_true(
        &self,
        session: &Session,
        base: &url::Url,
        clause: &Expect,
    ) -> Result<bool, BrowserError> {
        let Ok(check) = Check::compile(clause) else {
            return Ok(false);
        };
        let deadline = Instant::now() + self.config.timeouts.action;
        match check.wait(session, base, clause, deadline).await {
            Ok(()) => Ok(true),
            Err(crate::verifier::VerifyError::NotMet(_)) => Ok(false),
            Err(crate::verifier::VerifyError::Browser(e)) => Err(e),
        }
    }

    /// The facts of `facts` that are still false when a step's time has passed.
    async fn never_true(
        &self,
        session: &Session,
        base: &url::Url,
        facts: &[&Fact],
    ) -> Result<Vec<Fact>, BrowserError> {
        let deadline = Instant::now() + self.config.timeouts.action;
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
    pub(in crate::runner) async fn fresh_context(
        &self,
        scenario: &Scenario,
        shared: &RunShared<'_>,
    ) -> Result<Session, ScenarioResult> {
        let start = Plan {
            plan_version: windup_model::plan::PLAN_VERSION.to_string(),
            scenario_id: scenario.id.clone(),
            task: scenario.task.clone(),
            start_url: scenario.start_url.clone(),
            generated_by: String::new(),
            actions: Vec::new(),
        };
        let (opened, session) = self
            .execute_open(
                shared.run_id,
                &scenario.id,
                &start,
                self.scenario_timeout(scenario),
                shared.fragments,
                None,
                &NoEvents,
                shared.state_for(scenario).as_ref(),
            )
            .await
            .map_err(|e| crashed(&scenario.id, CacheOutcome::Miss, e))?;
        if opened.failure.is_some() {
            session.close().await;
            return Err(self.scenario_result(
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
        scenario: &Scenario,
        actions: &[Action],
        shared: &RunShared<'_>,
        evidence: bool,
    ) -> Execution {
        let plan = Plan {
            plan_version: windup_model::plan::PLAN_VERSION.to_string(),
            scenario_id: scenario.id.clone(),
            task: scenario.task.clone(),
            start_url: scenario.start_url.clone(),
            generated_by: String::new(),
            actions: actions.to_vec(),
        };
        let cx = ExecContext {
            scenario_id: &scenario.id,
            boundary: self.boundary(),
            timeouts: self.config.timeouts,
            scenario_timeout: self.scenario_timeout(scenario),
            fragments: shared.fragments,
            secrets: &self.secrets,
            events: &NoEvents,
            screenshots: match (evidence, self.config.screenshots) {
                (true, Screenshots::Off) | (false, _) => Screenshots::Off,
                (true, _) => Screenshots::OnlyOnFailure,
            },
            trace: Trace::Off,
            transfers: self.transfers(shared.run_id),
        };
        execute_steps(session, &plan, &cx).await
    }
}

/// Whether leaving `action` out can change what the checks see: every step but `wait_for`
/// (a check itself) and `download` (its downloaded file is its proof).
fn changes_page(action: &Action) -> bool {
    !matches!(action.kind, ActionType::WaitFor | ActionType::Download)
}

/// The strongest of `facts`: texts before controls, counters last.
fn best(facts: &[Fact]) -> Option<Fact> {
    facts.iter().min_by_key(|f| (f.counter, f.kind)).cloned()
}

/// Whether `action`'s checks have room for `clause`: its field is free, or holds only a
/// restatement of the step's own input (which `clause` may replace).
fn has_room(action: &Action, clause: &Expect) -> bool {
    let mut kept = action.expect.clone().unwrap_or_default();
    for c in kept.clauses() {
        if own_state(action, &c) {
            kept.remove_clause(&c);
        }
    }
    kept.has_room_for(clause)
}

/// Adds `clause` to `action`'s checks, in place of a restatement of its own input in that
/// field.
fn add_check(action: &mut Action, clause: &Expect) {
    let own: Vec<Expect> = action
        .expect
        .iter()
        .flat_map(Expect::clauses)
        .filter(|c| own_state(action, c))
        .collect();
    let expect = action.expect.get_or_insert_with(Expect::default);
    for c in own.iter().filter(|c| !c.has_room_for(clause)) {
        expect.remove_clause(c);
    }
    expect.absorb(clause);
}

/// Whether `clause` holds on the page now (a check that does not compile never does).
async fn holds_now(
    session: &Session,
    base: &url::Url,
    clause: &Expect,
) -> Result<bool, BrowserError> {
    match Check::compile(clause) {
        Ok(check) => check.holds_now(session, base, clause).await,
        Err(_) => Ok(false),
    }
}

fn clip(message: &str) -> String {
    let mut s: String = message.chars().take(160).collect();
    if s.len() < message.len() {
        s.push('…');
    }
    s
}
