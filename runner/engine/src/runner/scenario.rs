//! One scenario, once: the flow every plan goes through. The cache is looked up; a hit is
//! replayed with zero LLM calls; a plan made for an earlier text of the scenario moves to
//! `stale/` and the scenario is planned afresh; a miss is planned. A replay failure that
//! invalidates the plan keeps its evidence in `stale/`; when the plan no longer fits the page
//! and this run may plan, it is repaired once, from the page where it failed. The failed plan
//! leaves the cache only for a verified plan that replaces it, or with `--invalidate`:
//! otherwise it stays, and the next run replays it again. A
//! protected plan (written or accepted by a person) never moves: its scenario fails, and what
//! planning or healing made in its place is proposed (`protect`).
//! Planning itself, and the verifying run every new plan passes before it is cached, live in
//! `planning`. A cached plan is replayed in `replay_cached` whichever road it came in by
//! (committed, or restored from the dashboard).

use time::OffsetDateTime;
use windup_model::{
    CacheEntry, CacheOutcome, FailureClass, InputError, Invalidation, Plan, Scenario,
    ScenarioResult, ScenarioStatus,
};

use super::Runner;
use super::execute::Prefetched;
use super::execute::RunFor;
use super::heal::Healing;
use super::planning::{self, Phases, Start, passed_steps};
use super::protect;
use super::results::{crashed, failed};
use super::shared::RunShared;
use crate::browser::Session;
use crate::cache::Lookup;
use crate::events::Event;
use crate::executor::{Execution, Failure};
use crate::fragments::Fragments;
use crate::planner::{Spend, StepFailure};
use crate::project::display;
use crate::sitemap::AtRisk;

impl Runner {
    /// Runs one scenario from what the cache holds for it.
    pub(super) async fn run_scenario(
        &self,
        scenario: &Scenario,
        lookup: Lookup,
        prefetched: Option<Prefetched>,
        shared: &RunShared<'_>,
        spend: &mut Spend,
        phases: &mut Phases,
    ) -> ScenarioResult {
        shared.events.on_event(&Event::ScenarioStarted {
            scenario_id: scenario.id.clone(),
        });
        match lookup {
            Lookup::Hit(entry) => {
                let file = display(
                    &self.config.root,
                    &shared.cache.path(&entry.key.scenario_id),
                );
                let problems = self.plan_problems(&file, "plan.", &entry.plan, shared.fragments);
                if problems.is_empty() {
                    let risk = shared.site.at_risk(&entry.plan);
                    // A protected plan is never retired up front: it is simply replayed.
                    if let Some(risk) = &risk
                        && self.config.replan_at_risk
                        && !entry.protected()
                        && self.planning_blocked(scenario).is_none()
                    {
                        return self
                            .replan_at_risk(scenario, &entry, risk, shared, spend, phases)
                            .await;
                    }
                    let mut result = self
                        .replay_cached(
                            scenario,
                            &entry,
                            prefetched,
                            risk.as_ref(),
                            shared,
                            spend,
                            phases,
                        )
                        .await;
                    // At risk is reported whatever the replay did: a pass means the map was stale.
                    if let Some(risk) = risk {
                        result.message = Some(match result.message {
                            Some(m) => format!("{m} ({}, before the replay)", risk.describe()),
                            None => format!("{}, but the replay passed", risk.describe()),
                        });
                    }
                    result
                } else {
                    self.refuse_cached(scenario, &entry, &problems, shared, spend, phases)
                        .await
                }
            }
            Lookup::Changed(old) => {
                let why = Invalidation {
                    at: OffsetDateTime::now_utc(),
                    reason: "scenario changed".into(),
                    failure_class: None,
                    failed_action_id: None,
                    message: Some(
                        "the scenario's task, hints or start URL changed since the plan was verified"
                            .into(),
                    ),
                    url: None,
                    start_sig_now: None,
                    run_id: Some(shared.run_id.to_string()),
                };
                if old.protected() {
                    let message = "the scenario's task, hints or start URL changed since its plan was verified, so the plan is not replayed".to_string();
                    return self
                        .replan_protected(
                            scenario,
                            CacheOutcome::Miss,
                            why,
                            message,
                            shared,
                            spend,
                            phases,
                        )
                        .await;
                }
                self.retire(scenario, &old, shared, "outdated", why);
                self.plan_or_refuse(scenario, shared, spend, phases, &format!("the scenario changed since its plan was verified (the old plan is kept in {}/)", crate::project::Layout::STALE_DIR))
                    .await
            }
            Lookup::Miss => {
                self.plan_or_refuse(scenario, shared, spend, phases, "no plan is cached")
                    .await
            }
        }
    }

    /// Problems that keep a plan from running here, whatever its road in (the committed cache,
    /// the dashboard, a file): where it goes, which credentials it names, which fragments it
    /// uses. `file` names it in each problem, and `prefix` its place in the file (`plan.` in a
    /// cache entry).
    pub(super) fn plan_problems(
        &self,
        file: &str,
        prefix: &str,
        plan: &Plan,
        fragments: &Fragments,
    ) -> Vec<InputError> {
        let mut problems = self.boundary().plan_problems(file, prefix, plan);
        problems.extend(fragments.check_uses(file, prefix, plan));
        problems
    }

    /// A cached plan outside the trust boundary is never executed: it fails as `plan_invalid`,
    /// moves to stale with the reason, and is planned afresh when this run may plan. A protected
    /// one stays, and a plan made afresh is proposed in its place.
    async fn refuse_cached(
        &self,
        scenario: &Scenario,
        entry: &CacheEntry,
        problems: &[InputError],
        shared: &RunShared<'_>,
        spend: &mut Spend,
        phases: &mut Phases,
    ) -> ScenarioResult {
        let why = problems
            .iter()
            .map(|e| format!("{}: {}", e.field, e.problem))
            .collect::<Vec<_>>()
            .join("; ");
        let message =
            format!("the cached plan was not run: it is outside the trust boundary ({why})");
        let invalidation = Invalidation {
            at: OffsetDateTime::now_utc(),
            reason: "outside the trust boundary".into(),
            failure_class: Some(FailureClass::PlanInvalid),
            failed_action_id: None,
            message: Some(self.secrets.redact(&message)),
            url: None,
            start_sig_now: None,
            run_id: Some(shared.run_id.to_string()),
        };
        if entry.protected() {
            return self
                .replan_protected(
                    scenario,
                    CacheOutcome::Hit,
                    invalidation,
                    message,
                    shared,
                    spend,
                    phases,
                )
                .await;
        }
        self.retire(scenario, entry, shared, "untrusted", invalidation);
        if let Some((_, blocked)) = self.planning_blocked(scenario) {
            return failed(
                &scenario.id,
                CacheOutcome::Hit,
                FailureClass::PlanInvalid,
                format!("{message}; it is kept as stale evidence and not re-planned: {blocked}"),
            );
        }
        let mut result = self.replan_afresh(scenario, shared, spend, phases).await;
        result.message = Some(match result.message {
            Some(m) => format!("{message}, and was re-planned; the new plan failed too: {m}"),
            None => format!("{message}, and was re-planned"),
        });
        result
    }

    /// A retired plan's scenario planned afresh from its start page, as `stale_replanned`.
    async fn replan_afresh(
        &self,
        scenario: &Scenario,
        shared: &RunShared<'_>,
        spend: &mut Spend,
        phases: &mut Phases,
    ) -> ScenarioResult {
        self.plan_scenario(
            scenario,
            Start::Plan,
            CacheOutcome::StaleReplanned,
            shared,
            spend,
            phases,
        )
        .await
    }

    /// `--replan-at-risk`: a plan the site map says will break is retired and planned afresh up
    /// front, instead of being replayed first.
    async fn replan_at_risk(
        &self,
        scenario: &Scenario,
        entry: &CacheEntry,
        risk: &AtRisk,
        shared: &RunShared<'_>,
        spend: &mut Spend,
        phases: &mut Phases,
    ) -> ScenarioResult {
        let why = risk.describe();
        self.retire(
            scenario,
            entry,
            shared,
            "at-risk",
            Invalidation {
                at: OffsetDateTime::now_utc(),
                reason: "at risk".into(),
                failure_class: None,
                failed_action_id: None,
                message: Some(self.secrets.redact(&why)),
                url: None,
                start_sig_now: None,
                run_id: Some(shared.run_id.to_string()),
            },
        );
        let mut result = self.replan_afresh(scenario, shared, spend, phases).await;
        let kept = self.put_back(scenario, entry, shared);
        result.message = Some(match result.message {
            Some(m) => format!(
                "{why}, so it was re-planned up front (--replan-at-risk); the new plan failed: {m}{kept}"
            ),
            None => format!("{why}, so it was re-planned up front (--replan-at-risk)"),
        });
        result
    }

    /// Replays a verified plan. A failure that says the plan no longer holds is kept in stale
    /// as evidence; one that says it does not fit the page is repaired when this run may plan (with the
    /// site map's at-risk reason, when it gave one, in the prompt).
    #[expect(
        clippy::too_many_arguments,
        reason = "the scenario's parts and the run's, each borrowed from a different owner"
    )]
    async fn replay_cached(
        &self,
        scenario: &Scenario,
        entry: &CacheEntry,
        prefetched: Option<Prefetched>,
        risk: Option<&AtRisk>,
        shared: &RunShared<'_>,
        spend: &mut Spend,
        phases: &mut Phases,
    ) -> ScenarioResult {
        let run_id = shared.run_id;
        let timeout = self.scenario_timeout(scenario);
        let (execution, session) = match self
            .execute_open(
                run_id,
                &scenario.id,
                &entry.plan,
                timeout,
                shared.fragments,
                prefetched,
                shared.events,
                shared.state_for(scenario).as_ref(),
                RunFor::Replay,
            )
            .await
        {
            Ok(x) => x,
            Err(e) => return crashed(&scenario.id, CacheOutcome::Hit, e),
        };
        phases.add(&execution);
        if execution.passed() {
            shared
                .keep_setup_state(&self.config.root, scenario, &session)
                .await;
        }
        // The start page's structure now, when it differs from the page the plan was verified on.
        let changed = crate::signature::changed(
            entry.key.start_sig.as_deref(),
            execution.start_sig.as_deref(),
        );
        let hit = if changed.is_some() {
            CacheOutcome::HitChangedPage
        } else {
            CacheOutcome::Hit
        };
        let Some(failure) = execution
            .failure
            .clone()
            .filter(|f| f.class.invalidates_plan())
        else {
            session.close().await;
            return self.scenario_result(run_id, &scenario.id, hit, execution);
        };
        // A target that was renamed or moved heals without an LLM when the page shows exactly
        // one element it became and the rest of the plan verifies with it.
        let mut not_healed = None;
        let mut moved_on = false;
        let session = if failure.class == FailureClass::SelectorNotFound && self.config.heal {
            match self
                .try_heal(
                    scenario,
                    entry,
                    &execution,
                    failure.action_id.as_deref(),
                    session,
                    shared,
                    phases,
                )
                .await
            {
                Healing::Healed(result) => return *result,
                Healing::Untried { session, why } => {
                    not_healed = Some(why);
                    session
                }
                Healing::Failed { session, why } => {
                    not_healed = Some(why);
                    moved_on = true;
                    session
                }
            }
        } else {
            session
        };
        let not_healed = not_healed.map(|why| self.secrets.redact(&format!("not healed: {why}")));
        let why = Invalidation {
            at: OffsetDateTime::now_utc(),
            reason: "replay failed".into(),
            failure_class: Some(failure.class),
            failed_action_id: failure.action_id.clone(),
            message: Some(self.secrets.redact(&failure.message)),
            url: execution.final_url.clone(),
            start_sig_now: changed.clone(),
            run_id: Some(run_id.to_string()),
        };
        // A protected plan stays where it is: a repair that passes is proposed in its place.
        let protected = entry.protected();
        let k = passed_steps(&execution);
        let repairable = planning::plan_misfit(failure.class) && k < entry.plan.actions.len();
        let fail_here = |mut result: ScenarioResult| {
            if let Some(note) = &not_healed {
                result.message = result.message.map(|m| format!("{m} ({note})"));
            }
            result
        };
        if self.planning_blocked(scenario).is_some() || !repairable {
            if !protected {
                self.keep_failing(scenario, entry, shared, why.clone());
            }
            session.close().await;
            let mut result = fail_here(self.scenario_result(run_id, &scenario.id, hit, execution));
            let blocked = self.planning_blocked(scenario).map(|(_, why)| why);
            result.message = result.message.map(|m| match (protected, blocked) {
                (true, Some(why)) => format!("{m} ({}; not re-planned: {why})", protect::kept()),
                (true, None) => format!("{m} ({})", protect::kept()),
                (false, Some(why)) => format!("{m} ({}; not re-planned: {why})", self.kept()),
                (false, None) => format!("{m} ({})", self.kept()),
            });
            return result;
        }
        // A healing attempt moved the page on: the repair starts again from the failed step.
        let session = if moved_on {
            session.close().await;
            match self.rewind(scenario, entry, k, shared).await {
                Some(s) => s,
                None => {
                    if !protected {
                        self.keep_failing(scenario, entry, shared, why);
                    }
                    return fail_here(self.scenario_result(run_id, &scenario.id, hit, execution));
                }
            }
        } else {
            session
        };
        // Out of the way of the repair; put back if the repair verifies nothing.
        if !protected {
            self.retire(scenario, entry, shared, "failed", why.clone());
        }
        let broken = Broken {
            entry,
            passed: k,
            failure,
            execution,
            session,
            risk: risk.map(AtRisk::describe),
            hit,
            why,
        };
        self.repair(scenario, broken, shared, spend, phases).await
    }

    /// A fresh context brought to where step `k` of the cached plan failed, by replaying the
    /// steps before it; none when they no longer pass.
    async fn rewind(
        &self,
        scenario: &Scenario,
        entry: &CacheEntry,
        k: usize,
        shared: &RunShared<'_>,
    ) -> Option<Session> {
        let before = Plan {
            actions: entry.plan.actions[..k].to_vec(),
            ..entry.plan.clone()
        };
        let (execution, session) = self
            .execute_open(
                shared.run_id,
                &scenario.id,
                &before,
                self.scenario_timeout(scenario),
                shared.fragments,
                None,
                shared.events,
                shared.state_for(scenario).as_ref(),
                RunFor::Steps,
            )
            .await
            .ok()?;
        if execution.passed() {
            Some(session)
        } else {
            session.close().await;
            None
        }
    }

    /// Re-plans once, from the page where the replay failed, with the failure in the prompt.
    async fn repair(
        &self,
        scenario: &Scenario,
        broken: Broken<'_>,
        shared: &RunShared<'_>,
        spend: &mut Spend,
        phases: &mut Phases,
    ) -> ScenarioResult {
        let Broken {
            entry,
            passed: k,
            failure,
            mut execution,
            session,
            risk,
            hit,
            why,
        } = broken;
        let run_id = shared.run_id;
        let replay_evidence = execution
            .evidence
            .clone()
            .map(|c| self.stored_evidence(run_id, &format!("{}.replay", scenario.id), c));
        let replay_message = self.secrets.redact(&failure.message);
        let start = Start::Repair {
            done: entry.plan.actions[..k].to_vec(),
            failure: StepFailure {
                action: entry.plan.actions[k].clone(),
                class: failure.class,
                // The prompt hears what the site map said before the replay.
                message: match &risk {
                    Some(r) => self.secrets.redact(&format!("{replay_message} ({r})")),
                    None => replay_message.clone(),
                },
            },
            session,
        };
        let protected = entry.protected();
        let outcome = if protected {
            hit
        } else {
            CacheOutcome::StaleReplanned
        };
        let mut result = self
            .plan_scenario(scenario, start, outcome, shared, spend, phases)
            .await;
        if protected {
            // The replay's own result, its evidence stored before planning ran.
            execution.evidence = None;
            let mut failing = self.scenario_result(run_id, &scenario.id, hit, execution);
            failing.evidence = replay_evidence;
            return self.proposed(scenario, result, failing, why, shared);
        }
        let replay = format!(
            "the cached plan failed at {} ({}: {replay_message}) and was re-planned",
            failure.action_id.as_deref().unwrap_or("its start"),
            failure.class
        );
        let kept = self.put_back(scenario, entry, shared);
        result.message = Some(match result.message {
            Some(m) => format!("{replay}; the new plan failed too: {m}{kept}"),
            None => replay,
        });
        // A re-planned plan that passed leaves the failed replay's evidence: the stale plan's.
        if result.status == ScenarioStatus::Passed {
            result.evidence = replay_evidence;
        }
        result
    }

    /// A scenario without a usable plan: planned when this run may, else failed saying why.
    async fn plan_or_refuse(
        &self,
        scenario: &Scenario,
        shared: &RunShared<'_>,
        spend: &mut Spend,
        phases: &mut Phases,
        why: &str,
    ) -> ScenarioResult {
        if let Some((class, blocked)) = self.planning_blocked(scenario) {
            return failed(
                &scenario.id,
                CacheOutcome::Miss,
                class,
                format!("{why}: {blocked}"),
            );
        }
        self.plan_scenario(
            scenario,
            Start::Plan,
            CacheOutcome::Miss,
            shared,
            spend,
            phases,
        )
        .await
    }
}

/// A replay that failed on a step that does not fit the page, with its context still open.
struct Broken<'a> {
    entry: &'a CacheEntry,
    /// How many of the plan's own steps passed: the failed step's index.
    passed: usize,
    failure: Failure,
    execution: Execution,
    session: Session,
    /// What the site map said before the replay, when it said the plan was at risk.
    risk: Option<String>,
    /// How the replay's result names the cache: `hit`, or `hit_changed_page`.
    hit: CacheOutcome,
    /// The failure as stale evidence, or as a proposal's reason when the plan is protected.
    why: Invalidation,
}
