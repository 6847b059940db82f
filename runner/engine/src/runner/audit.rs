//! `windup validate --prove`: the cached plans (hand-written, committed, restored) held to the
//! rules every new plan is held to, with no LLM and without changing them. Each is proven from
//! fresh contexts (`planning::prove` in report mode: a check that held before its step, a step
//! no check needs) and held to its task's own words (`planner::words`). Setups a scenario needs
//! replay first, as in a run, so it starts signed in.

use windup_model::{FailureClass, ScenarioStatus};

use super::execute::RunFor;
use super::planning::{Prover, Strictness};
use super::selection::Planned;
use super::shared::{RunShared, Storages};
use super::{RunError, Runner, ScenarioRun, Selection};
use crate::cache::{Lookup, PlanCache};
use crate::events::NoEvents;
use crate::planner::words::TaskWords;
use crate::project::display;

/// What proving one cached plan found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanAudit {
    /// The scenario.
    pub scenario_id: String,
    /// Its cache entry, relative to the project root; absent when nothing is cached.
    pub file: Option<String>,
    /// What does not prove the task, one line each; empty when the plan is proven.
    pub problems: Vec<String>,
    /// Why each step is needed, as planning's log says it.
    pub notes: Vec<String>,
}

impl PlanAudit {
    /// Whether the plan proves its task.
    pub fn proven(&self) -> bool {
        self.problems.is_empty()
    }
}

impl Runner {
    /// Proves the cached plan of every selected scenario (see the module docs). A scenario with
    /// no cached plan for its current text is reported as such.
    pub async fn audit(&self, selection: &Selection) -> Result<Vec<PlanAudit>, RunError> {
        self.config.require_base_url()?;
        let (planned, fragments) = self.prepare(selection)?;
        self.browser
            .ensure_started()
            .await
            .map_err(RunError::from)?;
        let run_id = uuid::Uuid::now_v7().to_string();
        let cache = PlanCache::new(&self.config.root);
        let storages = Storages::default();
        let site = super::site::Site::none(&self.config.root);
        let shared = RunShared {
            cache: &cache,
            fragments: &fragments,
            run_id: &run_id,
            events: &NoEvents,
            storage: &storages,
            site: &site,
        };
        // Setups first: their replays leave the sign-in the others start with.
        let (setups, others): (Vec<&Planned>, Vec<&Planned>) =
            planned.iter().partition(|p| p.file.scenario.setup);
        for p in &setups {
            if let Lookup::Hit(entry) = &p.lookup {
                ScenarioRun::new(self, &p.file.scenario, shared)
                    .replay_setup(&entry.plan)
                    .await;
            }
        }
        let mut out = Vec::new();
        for p in setups.into_iter().chain(others) {
            let run = ScenarioRun::new(self, &p.file.scenario, shared);
            out.push(run.prover().audit(&p.lookup).await);
        }
        Ok(out)
    }
}

impl Prover<'_> {
    /// Proves one scenario's cached plan, as `lookup` found it (see the module docs).
    async fn audit(&self, lookup: &Lookup) -> PlanAudit {
        let (runner, scenario, shared) = (self.run.runner, self.run.scenario, self.run.shared);
        let root = &runner.config.root;
        let file = display(root, &shared.cache.path(&scenario.id));
        let mut audit = PlanAudit {
            scenario_id: scenario.id.clone(),
            file: Some(file.clone()),
            problems: Vec::new(),
            notes: Vec::new(),
        };
        let entry = match lookup {
            Lookup::Hit(entry) => entry,
            Lookup::Changed(_) => {
                audit.problems.push(format!(
                    "{file} was verified for an earlier text of the scenario; it is not replayed (run the scenario to plan it again)"
                ));
                return audit;
            }
            Lookup::Miss => {
                audit.file = None;
                audit
                    .problems
                    .push("no plan is cached (run the scenario to plan it)".into());
                return audit;
            }
        };
        let boundary = runner.plan_problems(&file, "plan.", &entry.plan, shared.fragments);
        if !boundary.is_empty() {
            audit.problems.extend(
                boundary
                    .iter()
                    .map(|e| format!("{}: {} (fix: {})", e.field, e.problem, e.fix)),
            );
            return audit;
        }
        let facts = vec![Vec::new(); entry.plan.actions.len()];
        let words = TaskWords::of(&scenario.task);
        match self
            .prove(
                entry.plan.actions.clone(),
                facts,
                &words,
                &Default::default(),
                Strictness::Report,
            )
            .await
        {
            Ok(proven) => {
                let counted = super::planning::counted(&entry.plan.actions, &proven);
                audit.problems.extend(proven.problems);
                audit.notes.extend(proven.notes);
                audit
                    .problems
                    .extend(words.unproven(&counted, &proven.seen));
            }
            Err(result) => audit.problems.push(format!(
                "the plan does not run as it is ({}): {}",
                result
                    .failure_class
                    .unwrap_or(FailureClass::PostconditionFailed),
                runner
                    .secrets
                    .redact(result.message.as_deref().unwrap_or(""))
            )),
        }
        audit
    }
}

impl ScenarioRun<'_> {
    /// Replays a setup's plan from a fresh context and keeps its storage when it passes.
    async fn replay_setup(&self, plan: &windup_model::Plan) {
        let scenario = self.scenario;
        let shared = self.shared;
        let Ok((execution, session)) = self
            .execute_open(plan, None, &NoEvents, RunFor::Steps)
            .await
        else {
            return;
        };
        let result = self.runner.results().scenario_result(
            shared.run_id,
            &scenario.id,
            windup_model::CacheOutcome::Hit,
            execution,
        );
        if result.status == ScenarioStatus::Passed {
            shared
                .keep_setup_state(&self.runner.config.root, scenario, &session)
                .await;
        }
        session.close().await;
    }
}
