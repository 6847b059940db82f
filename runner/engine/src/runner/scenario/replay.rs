//! A cached plan replayed, and what follows a replay that failed in a way that says the plan no
//! longer holds (once healing did not mend it): the failure kept in `stale/` while the plan
//! stays cached, or, when the plan no longer fits the page and this run may plan, a repair
//! from the page where it failed, with the failure in the prompt. A cached plan is replayed
//! here whichever road it came in by (committed, or restored from the dashboard).

use time::OffsetDateTime;
use windup_model::{CacheEntry, CacheOutcome, Invalidation, Plan, ScenarioResult, ScenarioStatus};

use super::super::execute::{Prefetched, RunFor};
use super::super::planning::{self, Start, passed_steps};
use super::super::protect;
use super::super::results::crashed;
use super::ScenarioRun;
use super::outcome::{FailedReplay, Replayed, Unhealed};
use crate::browser::Session;
use crate::executor::{Execution, Failure};
use crate::planner::StepFailure;
use crate::sitemap::AtRisk;

impl ScenarioRun<'_> {
    /// Replays a verified plan (in the context opened ahead for it, when there is one).
    pub(super) async fn replay(
        &mut self,
        entry: &CacheEntry,
        prefetched: Option<Prefetched>,
    ) -> Replayed {
        let (runner, scenario, shared) = (self.runner, self.scenario, self.shared);
        let (execution, session) = match self
            .execute_open(&entry.plan, prefetched, shared.events, RunFor::Replay)
            .await
        {
            Ok(x) => x,
            Err(e) => return Replayed::Done(crashed(&scenario.id, CacheOutcome::Hit, e)),
        };
        self.phases.add(&execution);
        if execution.passed() {
            shared
                .keep_setup_state(&runner.config.root, scenario, &session)
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
            return Replayed::Done(runner.results().scenario_result(
                shared.run_id,
                &scenario.id,
                hit,
                execution,
            ));
        };
        Replayed::Failed(FailedReplay {
            execution,
            session,
            failure,
            hit,
            changed,
        })
    }

    /// After a failed replay that did not heal: the failure is kept in `stale/` (the plan
    /// stays cached), or, when the plan does not fit the page and this run may plan, it is
    /// repaired from the page where it failed (with the site map's at-risk reason, when it gave
    /// one, in the prompt).
    pub(super) async fn repair_or_keep(
        &mut self,
        entry: &CacheEntry,
        unhealed: Unhealed,
        risk: Option<&AtRisk>,
    ) -> ScenarioResult {
        let (runner, scenario) = (self.runner, self.scenario);
        let run_id = self.shared.run_id;
        let Unhealed {
            replay:
                FailedReplay {
                    execution,
                    session,
                    failure,
                    hit,
                    changed,
                },
            why: not_healed,
            moved_on,
        } = unhealed;
        let not_healed = not_healed.map(|why| runner.secrets.redact(&format!("not healed: {why}")));
        let why = Invalidation {
            at: OffsetDateTime::now_utc(),
            reason: "replay failed".into(),
            failure_class: Some(failure.class),
            failed_action_id: failure.action_id.clone(),
            message: Some(runner.secrets.redact(&failure.message)),
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
        if runner.planning_blocked(scenario).is_some() || !repairable {
            if !protected {
                self.keep_failing(entry, why.clone());
            }
            session.close().await;
            let mut result = fail_here(runner.results().scenario_result(
                run_id,
                &scenario.id,
                hit,
                execution,
            ));
            let blocked = runner.planning_blocked(scenario).map(|(_, why)| why);
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
            match self.rewind(entry, k).await {
                Some(s) => s,
                None => {
                    if !protected {
                        self.keep_failing(entry, why);
                    }
                    return fail_here(runner.results().scenario_result(
                        run_id,
                        &scenario.id,
                        hit,
                        execution,
                    ));
                }
            }
        } else {
            session
        };
        // Out of the way of the repair; put back if the repair verifies nothing.
        if !protected {
            self.retire(entry, "failed", why.clone());
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
        self.repair(broken).await
    }

    /// A fresh context brought to where step `k` of the cached plan failed, by replaying the
    /// steps before it; none when they no longer pass.
    async fn rewind(&self, entry: &CacheEntry, k: usize) -> Option<Session> {
        let before = Plan {
            actions: entry.plan.actions[..k].to_vec(),
            ..entry.plan.clone()
        };
        let (execution, session) = self
            .execute_open(&before, None, self.shared.events, RunFor::Steps)
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
    async fn repair(&mut self, broken: Broken<'_>) -> ScenarioResult {
        let (runner, scenario) = (self.runner, self.scenario);
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
        let run_id = self.shared.run_id;
        let replay_evidence = execution.evidence.clone().map(|c| {
            runner
                .results()
                .stored_evidence(run_id, &format!("{}.replay", scenario.id), c)
        });
        let replay_message = runner.secrets.redact(&failure.message);
        let start = Start::Repair {
            done: entry.plan.actions[..k].to_vec(),
            failure: StepFailure {
                action: entry.plan.actions[k].clone(),
                class: failure.class,
                // The prompt hears what the site map said before the replay.
                message: match &risk {
                    Some(r) => runner.secrets.redact(&format!("{replay_message} ({r})")),
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
        let mut result = self.plan_scenario(start, outcome).await;
        if protected {
            // The replay's own result, its evidence stored before planning ran.
            execution.evidence = None;
            let mut failing =
                runner
                    .results()
                    .scenario_result(run_id, &scenario.id, hit, execution);
            failing.evidence = replay_evidence;
            return self.proposed(result, failing, why);
        }
        let replay = format!(
            "the cached plan failed at {} ({}: {replay_message}) and was re-planned",
            failure.action_id.as_deref().unwrap_or("its start"),
            failure.class
        );
        let kept = self.put_back(entry);
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
