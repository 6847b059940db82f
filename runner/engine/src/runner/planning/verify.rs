//! How a plan made by planning gets cached: at once when the planning run itself was a clean
//! run from a fresh context, else only after a verifying run from a fresh context passes.

use windup_model::{FailureClass, Plan, Scenario, ScenarioResult};

use super::super::Runner;
use super::super::results::{crashed, failed};
use super::super::setup::Planning;
use super::super::shared::RunShared;
use super::proofs;
use super::start::{Made, Phases, passed_steps};
use crate::browser::Session;
use crate::executor::Execution;
use crate::verifier::Check;

impl Runner {
    /// Who makes plans in this run: the planner's `provider/model`.
    pub(super) fn planner_name(&self) -> String {
        let Planning::Ready(planner) = &self.planning else {
            unreachable!("callers check that a planner is ready");
        };
        planner.generated_by()
    }

    /// The plan as planning made it, ready to cache, or why it cannot be.
    fn finished_plan(
        &self,
        scenario: &Scenario,
        steps: &mut [proofs::Planned],
        generated_by: &str,
    ) -> Result<Plan, String> {
        let plan = Plan {
            plan_version: windup_model::plan::PLAN_VERSION.to_string(),
            scenario_id: scenario.id.clone(),
            task: scenario.task.clone(),
            start_url: scenario.start_url.clone(),
            generated_by: generated_by.to_string(),
            actions: proofs::finish(steps),
        };
        match windup_model::validate::plan_problems("plan", &plan, true).first() {
            Some(p) => Err(format!(
                "the plan made is not valid, so it was not cached: {}: {}",
                p.field, p.problem
            )),
            None => Ok(plan),
        }
    }

    /// Caches a plan whose planning run was clean, with that run as its verifying run. The
    /// last step's postcondition, when it is not a fact seen after it, is checked on the page
    /// first.
    #[expect(
        clippy::too_many_arguments,
        reason = "what planning made, and the run's shared parts"
    )]
    pub(super) async fn cache_planning_run(
        &self,
        scenario: &Scenario,
        mut made: Made,
        start_sig: Option<String>,
        duration: std::time::Duration,
        cache_outcome: windup_model::CacheOutcome,
        session: &Session,
        shared: &RunShared<'_>,
    ) -> ScenarioResult {
        let plan = match self.finished_plan(scenario, &mut made.steps, &self.planner_name()) {
            Ok(p) => p,
            Err(m) => return failed(&scenario.id, cache_outcome, FailureClass::PlanRejected, m),
        };
        // A download's own check was its file, seen as the step ran.
        if let Some(expect) = plan
            .actions
            .last()
            .and_then(|a| a.expect.as_ref())
            .filter(|e| e.has_page_checks())
        {
            let holds = match Check::compile(expect) {
                Ok(check) => check
                    .wait(
                        session,
                        self.boundary().base_url(),
                        expect,
                        tokio::time::Instant::now() + self.config.timeouts.action,
                    )
                    .await
                    .is_ok(),
                Err(_) => false,
            };
            if !holds {
                return failed(
                    &scenario.id,
                    cache_outcome,
                    FailureClass::PostconditionFailed,
                    "the plan's last postcondition does not hold on the page it ended on, so it was not cached".into(),
                );
            }
        }
        shared
            .keep_setup_state(&self.config.root, scenario, session)
            .await;
        if let Err(e) = shared.cache.save_verified(
            scenario,
            &plan,
            start_sig.clone(),
            duration.as_millis() as u64,
            shared.run_id,
        ) {
            tracing::error!("could not save the verified plan of {}: {e}", scenario.id);
        }
        let execution = Execution {
            failure: None,
            actions: made.ran,
            final_url: Some(made.final_url),
            duration,
            start_sig,
            evidence: None,
            screenshot: None,
            frames: Vec::new(),
        };
        self.scenario_result(shared.run_id, &scenario.id, cache_outcome, execution)
    }

    /// Runs the finished plan from a fresh context; caches it only when that run passes. A
    /// postcondition the engine chose by itself that fails there is dropped and the run made
    /// again (at most twice): it was a fact of the planning run, not of the app. `generated_by`
    /// says who made the steps (see [`windup_model::Plan::generated_by`]).
    pub(in crate::runner) async fn verify_and_cache(
        &self,
        scenario: &Scenario,
        mut steps: Vec<proofs::Planned>,
        generated_by: &str,
        cache_outcome: windup_model::CacheOutcome,
        shared: &RunShared<'_>,
        phases: &mut Phases,
    ) -> ScenarioResult {
        let timeout = self.scenario_timeout(scenario);
        let mut retries = 2;
        loop {
            let plan = match self.finished_plan(scenario, &mut steps, generated_by) {
                Ok(p) => p,
                Err(m) => {
                    return failed(&scenario.id, cache_outcome, FailureClass::PlanRejected, m);
                }
            };
            let (execution, session) = match self
                .execute_open(
                    shared.run_id,
                    &scenario.id,
                    &plan,
                    timeout,
                    shared.fragments,
                    None,
                    shared.events,
                    shared.state_for(scenario).as_ref(),
                )
                .await
            {
                Ok(x) => x,
                Err(e) => return crashed(&scenario.id, cache_outcome, e),
            };
            phases.add(&execution);
            if let Some(f) = &execution.failure {
                session.close().await;
                let k = passed_steps(&execution);
                let droppable = f.class == FailureClass::PostconditionFailed
                    && retries > 0
                    && steps.get(k).is_some_and(|s| s.engine_chosen);
                if droppable {
                    retries -= 1;
                    tracing::info!(
                        scenario_id = scenario.id,
                        "dropping the engine's postcondition of {}: {}",
                        plan.actions[k].id,
                        f.message
                    );
                    steps[k].picked.clear();
                    steps[k].facts.clear();
                    steps[k].action.expect = None;
                    steps[k].engine_chosen = false;
                    continue;
                }
                let mut result =
                    self.scenario_result(shared.run_id, &scenario.id, cache_outcome, execution);
                result.message = result.message.map(|m| {
                    format!("the new plan failed its verifying run, so it was not cached: {m}")
                });
                return result;
            }
            shared
                .keep_setup_state(&self.config.root, scenario, &session)
                .await;
            session.close().await;
            if let Some(url) = &execution.final_url
                && !url::Url::parse(url).is_ok_and(|u| self.boundary().is_app(&u))
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
            if let Err(e) = shared.cache.save_verified(
                scenario,
                &plan,
                execution.start_sig.clone(),
                execution.duration.as_millis() as u64,
                shared.run_id,
            ) {
                tracing::error!("could not save the verified plan of {}: {e}", scenario.id);
            }
            return self.scenario_result(shared.run_id, &scenario.id, cache_outcome, execution);
        }
    }
}
