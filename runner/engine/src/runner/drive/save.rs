//! Saving a flow: the scenario the agent names, and the plan crystallised from its steps (refs
//! already selectors, postconditions from the facts picked), proven and replayed from fresh
//! contexts as a planned plan is (a check that held before its step, or a step no check needs,
//! is refused, naming it; so is a task whose own words the flow does not show) and cached only
//! when that passes. Nothing is written when it fails.

use std::path::PathBuf;

use windup_model::{CacheOutcome, Scenario, ScenarioStatus};

use super::super::ScenarioRun;
use super::super::planning::Strictness;
use super::super::shared::{RunShared, Storages};
use super::super::site::Site;
use super::state::{Drive, DriveError};
use crate::events::NoEvents;
use crate::project::{Layout, display};

/// What `save_scenario` wrote.
#[derive(Debug, Clone)]
pub struct Saved {
    /// The scenario file, relative to the project root.
    pub scenario_file: String,
    /// The cached plan, relative to the project root.
    pub cache_file: String,
    /// How many steps the plan has.
    pub steps: usize,
    /// How long its verifying replay took, in milliseconds.
    pub replay_ms: u64,
}

impl Drive {
    /// Saves the flow recorded since the start page as scenario `id` with `task`: its plan is
    /// replayed from a fresh context and cached only when that passes; then the scenario file
    /// is written. An existing scenario is replaced only with `overwrite`.
    pub async fn save(
        &mut self,
        id: &str,
        task: &str,
        overwrite: bool,
    ) -> Result<Saved, DriveError> {
        let root = self.runner.config.root.clone();
        let file: PathBuf = root.join(Layout::SCENARIOS_DIR).join(format!("{id}.yaml"));
        let shown = display(&root, &file);
        let Some(start_url) = self.start_url.clone() else {
            return Err(DriveError::new(
                "nothing is recorded yet (fix: browser_open the flow's first page, act, then save)",
            ));
        };
        if self.steps.is_empty() {
            return Err(DriveError::new(
                "no step has been taken since the start page (fix: act on the page first)",
            ));
        }
        let scenario = Scenario {
            id: id.to_string(),
            task: task.trim().to_string(),
            start_url,
            hints: Vec::new(),
            tags: Vec::new(),
            timeout_ms: None,
            setup: false,
            needs: Vec::new(),
        };
        let yaml = serde_norway::to_string(&scenario).expect("a scenario serializes");
        // The file as `windup run` will read it: the same checks, so a bad id or task is named.
        let checked = windup_model::validate::scenario_from_yaml(&shown, &yaml, Some(id)).map_err(
            |problems| {
                DriveError(
                    problems
                        .0
                        .iter()
                        .map(|p| format!("{}: {} (fix: {})", p.field, p.problem, p.fix))
                        .collect::<Vec<_>>()
                        .join("\n"),
                )
            },
        )?;
        if self.runner.secrets.reveals(&checked.task) {
            return Err(DriveError::new(
                "the task holds a credential's value, and credentials never enter a scenario (fix: describe the step in words; the plan types it by value_ref)",
            ));
        }
        if file.exists() && !overwrite {
            return Err(DriveError(format!(
                "{shown} already exists (fix: choose another id, or pass overwrite: true to replace it and its cached plan)"
            )));
        }
        // A plan a person wrote or accepted is never replaced by a run, and no more by an agent:
        // saving over it would only write a proposal, and a changed task would leave it stale.
        if let Ok(Some(entry)) = self.cache.load(id)
            && entry.protected()
        {
            return Err(DriveError(format!(
                "{} holds a plan a person wrote or accepted, and an agent's flow never replaces it; nothing was saved (fix: choose another id)",
                display(&root, &self.cache.path(id))
            )));
        }
        let run_id = uuid::Uuid::now_v7().to_string();
        let (storage, site) = (Storages::default(), Site::none(&root));
        let shared = RunShared {
            cache: &self.cache,
            fragments: &self.fragments,
            run_id: &run_id,
            events: &NoEvents,
            storage: &storage,
            site: &site,
        };
        let result = ScenarioRun::new(&self.runner, &checked, shared)
            .verify_and_cache(
                self.steps.clone(),
                &self.controls,
                "mcp",
                Strictness::Refuse,
                CacheOutcome::None,
            )
            .await;
        if result.status != ScenarioStatus::Passed {
            let why = result
                .message
                .unwrap_or_else(|| format!("it ended {:?}", result.status));
            let at = result
                .failed_action_id
                .map(|a| format!(" (at {a})"))
                .unwrap_or_default();
            let why = self.runner.secrets.redact(&why);
            self.log.write("save_scenario", id, Some(&why));
            if result.failure_class == Some(windup_model::FailureClass::PlanIncomplete) {
                return Err(DriveError(format!(
                    "the flow does not prove its task, so nothing was saved or cached: {why}"
                )));
            }
            return Err(DriveError(format!(
                "the flow did not replay from a fresh context{at}, so nothing was saved or cached: {why}"
            )));
        }
        if let Err(e) = crate::fsutil::write_atomic(&file, yaml.as_bytes()) {
            return Err(DriveError(format!(
                "the plan replayed and was cached, but {shown} could not be written: {e}"
            )));
        }
        self.log.write("save_scenario", id, None);
        Ok(Saved {
            scenario_file: shown,
            cache_file: display(&root, &self.cache.path(id)),
            steps: self.steps.len(),
            replay_ms: result.duration_ms,
        })
    }
}
