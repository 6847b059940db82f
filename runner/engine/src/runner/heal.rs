//! LLM-free healing of a replayed plan. When a step fails with `selector_not_found` and the page
//! shows exactly one element the target became (the same role under the same container with a
//! close name, or the same test id, label or placeholder in a moved container), the step is
//! tried on it and the rest of the plan runs on in the same context. Only when every later step
//! and every postcondition, unchanged, passes, and the plan run without the healed step fails
//! (so the new target does something the checks see), is the healed plan cached, with 0 calls
//! and $0: the old plan moves to `stale/` first with the step diff, as a re-plan's does. A
//! protected plan (written or accepted by a person) stays: the scenario fails and the healed
//! plan is proposed. Postconditions are never healed, so a removed feature, a changed message
//! or a wrong URL still fails.

use std::time::Duration;

use windup_model::{
    Action, CacheEntry, CacheOutcome, FailureClass, Heal, HealRule, Invalidation, Plan,
    ScenarioResult,
};

use super::execute::RunParts;
use super::scenario::{FailedReplay, Healed, ScenarioRun, Unhealed};
use crate::browser::Session;
use crate::cache::Verified;
use crate::executor::{Execution, execute_steps};
use crate::locator::{self, HealCandidates, Locator};
use crate::secrets::{FieldFacts, Manifest, Misfit, credential_fits};

/// A step the page allows to heal: its index in the plan, and the healed step.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Mend {
    pub index: usize,
    pub action: Action,
    pub heal: Heal,
}

/// What became of an attempt to heal.
pub(super) enum Healing {
    /// The healed plan verified: it is cached, or, in place of a protected plan, proposed.
    Healed(Box<ScenarioResult>),
    /// Nothing to try, with the session still on the page where the step failed.
    Untried { session: Session, why: String },
    /// A candidate was tried and the rest of the plan did not verify; the session has moved on.
    Failed { session: Session, why: String },
}

/// Why a failed step does not heal: what the page has in its target's place, or what the step
/// types, rules it out.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum HealRefusal {
    /// The selector fits neither rule, or its target is still there.
    #[error(
        "its selector fits no healing rule (a named role, or a test id, label or placeholder under a container), or its target is still there"
    )]
    NoRule,
    /// The rule found nothing.
    #[error("nothing on the page is close enough to be it")]
    Nothing,
    /// The rule found several, of which some are listed by name.
    #[error("{total} elements could be it ({}), so none is chosen", quoted(.names))]
    Ambiguous { total: u32, names: Vec<String> },
    /// One is listed, but the rule counted more.
    #[error("{total} elements could be it")]
    NotAlone { total: u32 },
    /// The candidate has no selector of its own.
    #[error("no selector picks out the candidate alone (`{selector}`)")]
    NoOwnSelector { selector: String },
    /// The step types a credential the project does not declare.
    #[error("`{name}` is not a credential of this project")]
    Undeclared { name: String },
    /// The step types a credential the candidate may not take.
    #[error("the step types the credential {name} and the candidate does not fit it: {why}")]
    Misfit { name: String, why: Misfit },
}

/// Names as the refusal lists them: each quoted, comma-separated.
fn quoted(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("{n:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Decides, from what the page has in place of a failed step's target, whether the step may
/// heal, and onto what. Pure: the rules in one place. `manifest` tells a secret from an
/// identifier for a `fill` with a `value_ref`, which heals only onto a field of the same kind.
pub(super) fn decide(
    action: &Action,
    found: &HealCandidates,
    manifest: &Manifest,
) -> Result<(HealRule, String), HealRefusal> {
    let Some(rule) = found.rule else {
        return Err(HealRefusal::NoRule);
    };
    let rule = match rule {
        locator::HealRule::Renamed => HealRule::Renamed,
        locator::HealRule::Moved => HealRule::Moved,
    };
    let [candidate] = found.candidates.as_slice() else {
        return Err(match found.total {
            0 => HealRefusal::Nothing,
            total => HealRefusal::Ambiguous {
                total,
                names: found.candidates.iter().map(|c| c.name.clone()).collect(),
            },
        });
    };
    if found.total != 1 {
        return Err(HealRefusal::NotAlone { total: found.total });
    }
    let from = action.target.as_ref().map(|t| t.selector.as_str());
    if Some(candidate.selector.as_str()) == from || candidate.selector.contains(">> nth=") {
        return Err(HealRefusal::NoOwnSelector {
            selector: candidate.selector.clone(),
        });
    }
    if let Some(name) = &action.value_ref {
        // The candidate is an input when the page gave its type; anything else takes no
        // credential. One rule with the planner's, the boundary's and the executor's.
        let Some(kind) = manifest.credential_kind(name) else {
            return Err(HealRefusal::Undeclared { name: name.clone() });
        };
        let field = FieldFacts {
            tag: if candidate.input_type.is_some() {
                "input"
            } else {
                "other"
            }
            .into(),
            input_type: candidate.input_type.clone(),
            autocomplete: None,
            role: candidate.role.clone(),
        };
        credential_fits(name, kind, &field).map_err(|why| HealRefusal::Misfit {
            name: name.clone(),
            why,
        })?;
    }
    Ok((rule, candidate.selector.clone()))
}

impl ScenarioRun<'_> {
    /// The heal stage: a replay that failed with `selector_not_found` is healed when healing is
    /// on and the page allows it (see the module docs); any other failure goes on unhealed.
    pub(super) async fn heal(&mut self, entry: &CacheEntry, replay: FailedReplay) -> Healed {
        if replay.failure.class != FailureClass::SelectorNotFound || !self.runner.config.heal {
            return Healed::No(Unhealed {
                replay,
                why: None,
                moved_on: false,
            });
        }
        let FailedReplay {
            execution,
            session,
            failure,
            hit,
            changed,
        } = replay;
        let (session, why, moved_on) = match self
            .try_heal(entry, &execution, failure.action_id.as_deref(), session)
            .await
        {
            Healing::Healed(result) => return Healed::Yes(*result),
            Healing::Untried { session, why } => (session, why, false),
            Healing::Failed { session, why } => (session, why, true),
        };
        Healed::No(Unhealed {
            replay: FailedReplay {
                execution,
                session,
                failure,
                hit,
                changed,
            },
            why: Some(why),
            moved_on,
        })
    }

    /// Tries to heal the replay of `entry` that failed at step `failed_id` with
    /// `selector_not_found`, on the page `session` is still on.
    pub(super) async fn try_heal(
        &mut self,
        entry: &CacheEntry,
        replay: &Execution,
        failed_id: Option<&str>,
        mut session: Session,
    ) -> Healing {
        let scenario = self.scenario;
        let shared = self.shared;
        let plan = &entry.plan;
        let Some(index) = failed_id.and_then(|id| plan.actions.iter().position(|a| a.id == id))
        else {
            return Healing::Untried {
                session,
                why: "the failed step is inside a fragment".into(),
            };
        };
        let action = &plan.actions[index];
        let Some(target) = &action.target else {
            return Healing::Untried {
                session,
                why: "the failed step has no target".into(),
            };
        };
        let found = match Locator::parse(&target.selector) {
            Ok(l) => l.heal_candidates(&session).await,
            Err(e) => {
                return Healing::Untried {
                    session,
                    why: e.to_string(),
                };
            }
        };
        let found = match found {
            Ok(f) => f,
            Err(e) => {
                return Healing::Untried {
                    session,
                    why: format!("the page could not be read: {e}"),
                };
            }
        };
        let (rule, to) = match decide(action, &found, self.runner.secrets.manifest()) {
            Ok(x) => x,
            Err(why) => {
                return Healing::Untried {
                    session,
                    why: why.to_string(),
                };
            }
        };
        let mut healed_action = action.clone();
        if let Some(t) = &mut healed_action.target {
            t.selector = to.clone();
        }
        let mend = Mend {
            index,
            heal: Heal {
                action_id: action.id.clone(),
                rule,
                from: target.selector.clone(),
                to,
            },
            action: healed_action,
        };
        let healed = healed_plan(plan, &mend);
        let rest = Plan {
            actions: healed.actions[index..].to_vec(),
            ..healed.clone()
        };
        let timeout = self
            .runner
            .scenario_timeout(scenario)
            .saturating_sub(replay.duration)
            .max(Duration::from_secs(5));
        let mut cx = self.runner.exec_context(RunParts {
            timeout,
            ..self.parts(shared.events)
        });
        // The healed plan is cached from this run: its background is the baseline.
        cx.baseline = true;
        // The rest of the plan runs on here while, in a fresh context, the plan runs without the
        // healed step (a healed step onto an element that does nothing would pass on weak
        // checks: the plan must fail without it); the heal needs both.
        let started = std::time::Instant::now();
        let wait = needed_wait(replay, self.runner.config.timeouts.action);
        let (rest_run, needed) = futures::join!(
            async {
                let run = execute_steps(&mut session, &rest, &cx).await;
                tracing::debug!("heal: the rest of the plan ran in {:?}", started.elapsed());
                run
            },
            async {
                let needed = self
                    .prover()
                    .step_needed(&healed.actions, index, wait)
                    .await;
                tracing::debug!(
                    "heal: the run without the healed step ended in {:?} (its checks wait {wait:?})",
                    started.elapsed()
                );
                needed
            }
        );
        self.phases.add(&rest_run);
        if let Some(f) = &rest_run.failure {
            return Healing::Failed {
                session,
                why: format!(
                    "`{}` was tried for {} ({}), and then {} failed ({}: {})",
                    mend.heal.to,
                    mend.heal.action_id,
                    rule.as_str(),
                    f.action_id.as_deref().unwrap_or("the plan"),
                    f.class,
                    f.message
                ),
            };
        }
        match needed {
            Ok(true) => {}
            Ok(false) => {
                return Healing::Failed {
                    session,
                    why: format!(
                        "`{}` was tried for {} ({}) and the rest passed, but the plan passes without that step too: the healed target changes nothing its checks see",
                        mend.heal.to,
                        mend.heal.action_id,
                        rule.as_str()
                    ),
                };
            }
            Err(r) => {
                return Healing::Failed {
                    session,
                    why: format!(
                        "`{}` was tried for {} ({}), but the plan could not be run again without it: {}",
                        mend.heal.to,
                        mend.heal.action_id,
                        rule.as_str(),
                        r.message.unwrap_or_default()
                    ),
                };
            }
        }
        Healing::Healed(Box::new(
            self.keep_healed(entry, replay, rest_run, mend, healed, session)
                .await,
        ))
    }

    /// The healed plan passed: the old plan to `stale/` with the step diff, then the new one
    /// cached, and the scenario's result as `healed`.
    async fn keep_healed(
        &self,
        entry: &CacheEntry,
        replay: &Execution,
        rest_run: Execution,
        mend: Mend,
        healed: Plan,
        session: Session,
    ) -> ScenarioResult {
        let scenario = self.scenario;
        let shared = self.shared;
        let run_id = shared.run_id;
        let diff = mend.heal.describe();
        if entry.protected() {
            session.close().await;
            return self.propose_heal(entry, replay, &rest_run, &mend, &healed);
        }
        self.retire_for_heal(entry, replay, &diff);
        shared
            .keep_setup_state(&self.runner.config.root, scenario, &session)
            .await;
        session.close().await;
        let duration = replay.duration + rest_run.duration;
        let baseline = self.runner.results().masked_baseline(&rest_run);
        if let Err(e) = shared.cache.save_verified(&Verified {
            scenario,
            plan: &healed,
            start_sig: replay.start_sig.as_deref(),
            duration_ms: duration.as_millis() as u64,
            run_id,
            baseline: baseline.as_ref(),
        }) {
            tracing::error!("could not save the healed plan of {}: {e}", scenario.id);
        }
        // The replay's steps before the healed one, then the healed run's.
        let before = replay
            .actions
            .iter()
            .position(|a| a.id == mend.heal.action_id)
            .unwrap_or(replay.actions.len());
        let mut actions = replay.actions[..before].to_vec();
        actions.extend(rest_run.actions);
        // Trace frames point at their step's index in `actions`: the healed run's shift by
        // the replay's steps kept before them.
        let mut frames: Vec<_> = replay
            .frames
            .iter()
            .filter(|f| f.action < before)
            .cloned()
            .collect();
        frames.extend(rest_run.frames.into_iter().map(|mut f| {
            f.action += before;
            f
        }));
        let execution = Execution {
            failure: None,
            actions,
            final_url: rest_run.final_url,
            duration,
            start_sig: replay.start_sig.clone(),
            evidence: None,
            screenshot: rest_run.screenshot,
            frames,
            baseline: rest_run.baseline.clone(),
        };
        let mut result = self.runner.results().scenario_result(
            run_id,
            &scenario.id,
            CacheOutcome::Healed,
            execution,
        );
        result.evidence = replay.evidence.clone().map(|c| {
            self.runner
                .results()
                .stored_evidence(run_id, &format!("{}.replay", scenario.id), c)
        });
        result.message = Some(format!(
            "healed without an LLM: the target of {} was gone and one element fitted ({diff}); the rest of the plan verified with every postcondition unchanged, the healed plan is cached and the old one kept in {}/",
            mend.heal.action_id,
            crate::project::Layout::STALE_DIR
        ));
        result.heal = Some(mend.heal);
        result
    }

    /// A protected plan healed: it stays, the scenario fails with the replay's failure and
    /// evidence, and the healed plan, verified, is its proposal.
    fn propose_heal(
        &self,
        entry: &CacheEntry,
        replay: &Execution,
        rest_run: &Execution,
        mend: &Mend,
        healed: &Plan,
    ) -> ScenarioResult {
        let scenario = self.scenario;
        let shared = self.shared;
        let run_id = shared.run_id;
        let hit = if crate::signature::changed(
            entry.key.start_sig.as_deref(),
            replay.start_sig.as_deref(),
        )
        .is_some()
        {
            CacheOutcome::HitChangedPage
        } else {
            CacheOutcome::Hit
        };
        let baseline = self.runner.results().masked_baseline(rest_run);
        let verified = Verified {
            scenario,
            plan: healed,
            start_sig: replay.start_sig.as_deref(),
            duration_ms: (replay.duration + rest_run.duration).as_millis() as u64,
            run_id,
            baseline: baseline.as_ref(),
        };
        let mut why = heal_evidence(replay, &mend.heal.describe(), run_id);
        why.reason = "replay failed".into();
        let mut failing =
            self.runner
                .results()
                .scenario_result(run_id, &scenario.id, hit, replay.clone());
        failing.message = failing.message.map(|m| {
            format!(
                "{m}; healed without an LLM ({}), the rest of the plan verified with every postcondition unchanged",
                mend.heal.describe()
            )
        });
        self.propose_healed(entry, &verified, why, failing)
    }

    /// The plan a step was healed in moves to `stale/`, its evidence the failure and the diff.
    fn retire_for_heal(&self, entry: &CacheEntry, replay: &Execution, diff: &str) {
        let scenario = self.scenario;
        let shared = self.shared;
        let why = self
            .runner
            .secrets
            .redact_all(heal_evidence(replay, diff, shared.run_id));
        if let Err(e) = shared.cache.invalidate(entry, why) {
            tracing::warn!(
                "could not move the healed plan of {} to stale: {e}",
                scenario.id
            );
        }
    }
}

/// How long the run without the healed step waits for each check and step: four times the
/// slowest step the replay passed before it, at least [`NEEDED_WAIT_FLOOR`], at most a step's
/// time. An effect the app shows that late is not the app being slow.
fn needed_wait(replay: &Execution, action: Duration) -> Duration {
    let slowest = replay
        .actions
        .iter()
        .filter(|a| a.status == windup_model::ActionStatus::Passed)
        .map(|a| a.duration_ms)
        .max()
        .unwrap_or(0);
    (Duration::from_millis(slowest) * 4).clamp(NEEDED_WAIT_FLOOR, action.max(NEEDED_WAIT_FLOOR))
}

/// The least the run without a healed step waits for a check that held with it.
const NEEDED_WAIT_FLOOR: Duration = Duration::from_millis(200);

/// A healed replay's failure and step diff, as evidence.
fn heal_evidence(replay: &Execution, diff: &str, run_id: &str) -> Invalidation {
    let failure = replay.failure.as_ref();
    Invalidation {
        at: time::OffsetDateTime::now_utc(),
        reason: "healed".into(),
        failure_class: failure.map(|f| f.class),
        failed_action_id: failure.and_then(|f| f.action_id.clone()),
        message: Some(format!(
            "{} Healed without an LLM, step diff: {diff}",
            failure.map(|f| f.message.as_str()).unwrap_or_default()
        )),
        url: replay.final_url.clone(),
        start_sig_now: None,
        run_id: Some(run_id.to_string()),
    }
}

/// The plan with the mended step in place.
fn healed_plan(plan: &Plan, mend: &Mend) -> Plan {
    let mut healed = plan.clone();
    healed.actions[mend.index] = mend.action.clone();
    healed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locator::HealCandidate;

    fn action(selector: &str, value_ref: Option<&str>) -> Action {
        serde_json::from_value(serde_json::json!({
            "id": "a1",
            "type": if value_ref.is_some() { "fill" } else { "click" },
            "target": {"selector": selector},
            "value_ref": value_ref,
        }))
        .unwrap()
    }

    fn found(
        rule: Option<locator::HealRule>,
        candidates: &[(&str, Option<&str>)],
    ) -> HealCandidates {
        HealCandidates {
            rule,
            total: candidates.len() as u32,
            candidates: candidates
                .iter()
                .map(|(s, t)| HealCandidate {
                    selector: s.to_string(),
                    role: Some("textbox".into()),
                    name: s.to_string(),
                    input_type: t.map(str::to_string),
                })
                .collect(),
            still_ms: 0,
        }
    }

    fn manifest() -> Manifest {
        serde_norway::from_str(
            "accounts:\n  admin:\n    email: ADMIN_EMAIL\n    password: ADMIN_PASSWORD\n",
        )
        .unwrap()
    }

    #[test]
    fn one_close_candidate_heals_and_two_do_not() {
        let a = action(r#"role=button[name="Archive"]"#, None);
        let one = found(
            Some(locator::HealRule::Renamed),
            &[(r#"role=button[name="Move to archive"]"#, None)],
        );
        assert_eq!(
            decide(&a, &one, &manifest()).unwrap(),
            (
                HealRule::Renamed,
                r#"role=button[name="Move to archive"]"#.to_string()
            )
        );
        let two = found(
            Some(locator::HealRule::Renamed),
            &[
                (r#"role=button[name="Archive now"]"#, None),
                (r#"role=button[name="Archive later"]"#, None),
            ],
        );
        let why = decide(&a, &two, &manifest()).unwrap_err().to_string();
        assert!(why.contains("2 elements could be it"), "{why}");
        let none = found(Some(locator::HealRule::Renamed), &[]);
        assert!(decide(&a, &none, &manifest()).is_err());
        assert!(decide(&a, &found(None, &[]), &manifest()).is_err());
    }

    #[test]
    fn a_credential_heals_only_onto_a_field_of_the_same_kind() {
        let m = manifest();
        let password = action(r#"role=form >> label="Password""#, Some("ADMIN_PASSWORD"));
        let moved = |t| {
            found(
                Some(locator::HealRule::Moved),
                &[(r#"label="Password""#, t)],
            )
        };
        assert!(decide(&password, &moved(Some("password")), &m).is_ok());
        assert!(decide(&password, &moved(Some("text")), &m).is_err());
        assert!(decide(&password, &moved(None), &m).is_err());
        let email = action(r#"role=form >> label="Email""#, Some("ADMIN_EMAIL"));
        let moved_email = |t| found(Some(locator::HealRule::Moved), &[(r#"label="Email""#, t)]);
        assert!(decide(&email, &moved_email(Some("email")), &m).is_ok());
        assert!(decide(&email, &moved_email(Some("password")), &m).is_err());
    }

    #[test]
    fn a_candidate_without_a_selector_of_its_own_is_not_taken() {
        let a = action(r#"role=button[name="Archive"]"#, None);
        let nth = found(
            Some(locator::HealRule::Renamed),
            &[(r#"role=button[name="Archived"] >> nth=1"#, None)],
        );
        assert!(decide(&a, &nth, &manifest()).is_err());
    }
}
