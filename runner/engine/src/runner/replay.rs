//! `windup replay PLAN.json`: one plan run as it is, with no LLM. With `--save`, a plan that
//! passes becomes its scenario's cached plan, marked reviewed (a person chose it, so it is
//! protected): hand-written plans enter the cache verified, like every cached plan.

use std::time::Duration;

use time::OffsetDateTime;
use windup_model::{CacheOutcome, InputError, Plan, Problems, Reviewed, RunReport};

use super::execute::{RunFor, RunParts};
use super::results::crashed;
use super::{RunError, Runner};
use crate::cache::{PlanCache, Verified};
use crate::events::{Event, EventSink};
use crate::fragments::Fragments;
use crate::project::{Layout, display, load_scenarios};

impl Runner {
    /// `windup replay PLAN.json`: one plan, no LLM. With `save`, a plan that passes becomes the
    /// cached plan of the project's scenario with the plan's `scenario_id` (how hand-written
    /// plans enter the cache: verified first, like every cached plan).
    pub async fn replay(
        &self,
        plan: &Plan,
        save: bool,
        events: &dyn EventSink,
    ) -> Result<RunReport, RunError> {
        self.config.require_base_url()?;
        let scenario = if save {
            let scenarios = load_scenarios(&self.config.root)?;
            let found = scenarios
                .into_iter()
                .find(|s| s.scenario.id == plan.scenario_id)
                .ok_or_else(|| {
                    InputError::new(
                        "plan",
                        "scenario_id",
                        format!(
                            "no scenario `{}` in {}",
                            plan.scenario_id,
                            display(
                                &self.config.root,
                                &self.config.root.join(Layout::SCENARIOS_DIR)
                            )
                        ),
                        format!(
                            "add {}/<id>.yaml for the plan, or replay without --save",
                            Layout::SCENARIOS_DIR
                        ),
                    )
                })?;
            if found.scenario.start_url != plan.start_url {
                return Err(InputError::new(
                    "plan",
                    "start_url",
                    format!(
                        "the plan starts at `{}` but the scenario at `{}`",
                        plan.start_url, found.scenario.start_url
                    ),
                    "make them the same path",
                )
                .into());
            }
            Some(found.scenario)
        } else {
            None
        };
        let dir = self.config.root.join(Layout::FRAGMENTS_DIR);
        let fragments = Fragments::load(&dir)?;
        // A plan from a file is untrusted like any other: the same boundary, before it runs.
        let mut problems = self.plan_problems("plan", "", plan, &fragments);
        // An upload's files must be in e2e/files/: a missing one is bad input, found before
        // anything runs.
        problems.extend(crate::executor::missing_upload_files(
            &self.config.root,
            "plan",
            "",
            &plan.actions,
        ));
        problems.extend(
            fragments.boundary_problems(&display(&self.config.root, &dir), self.boundary()),
        );
        if !problems.is_empty() {
            return Err(RunError::Input(Problems(problems)));
        }
        self.browser
            .ensure_started()
            .await
            .map_err(RunError::from)?;
        let started_at = OffsetDateTime::now_utc();
        let run_id = uuid::Uuid::now_v7().to_string();
        events.on_event(&Event::ScenarioStarted {
            scenario_id: plan.scenario_id.clone(),
        });
        let timeout = scenario
            .as_ref()
            .and_then(|s| s.timeout_ms)
            .map(Duration::from_millis)
            .unwrap_or(self.config.timeouts.scenario);
        let result = match self
            .execute_plan(
                RunParts {
                    run_id: &run_id,
                    scenario_id: &plan.scenario_id,
                    timeout,
                    fragments: &fragments,
                    events,
                },
                plan,
                // Saved (`--save`), the plan keeps the pages' background as its baseline.
                if scenario.is_some() {
                    RunFor::Verify
                } else {
                    RunFor::Steps
                },
            )
            .await
        {
            Ok(x) => {
                if let (Some(scenario), None) = (&scenario, &x.failure) {
                    // A person's own command: the plan replaces even a protected one, and is
                    // marked as accepted by them.
                    let cache = PlanCache::new(&self.config.root);
                    let baseline = self.results().masked_baseline(&x);
                    let verified = Verified {
                        scenario,
                        plan,
                        start_sig: x.start_sig.as_deref(),
                        duration_ms: x.duration.as_millis() as u64,
                        run_id: &run_id,
                        baseline: baseline.as_ref(),
                    };
                    let reviewed = Reviewed {
                        at: OffsetDateTime::now_utc(),
                        by: crate::ci::git_user(&self.config.root),
                    };
                    if let Err(e) = cache.save_chosen(
                        &verified,
                        Some(reviewed),
                        "a plan saved with `windup replay --save` replaced it",
                    ) {
                        tracing::error!("could not save the verified plan: {e}");
                    }
                }
                self.results()
                    .scenario_result(&run_id, &plan.scenario_id, CacheOutcome::None, x)
            }
            Err(e) => crashed(&plan.scenario_id, CacheOutcome::None, e),
        };
        let mut result = self.results().redacted(result);
        result.task = Some(plan.task.clone());
        events.on_event(&Event::ScenarioFinished {
            result: result.clone(),
        });
        Ok(self.report(run_id, started_at, vec![result]))
    }
}
