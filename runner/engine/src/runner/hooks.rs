//! windup.toml's `[hooks]` around a run's scenarios: `before_all` once before the first
//! scenario (when it fails, none runs), `before_each` and `after_each` around each attempt. A
//! hook that fails fails its scenario as `environment`, naming the hook, its exit status and
//! the end of its stderr; each hook's time goes in the report. The commands themselves run in
//! `crate::hooks`.

use windup_model::{CacheOutcome, FailureClass, HookName, HookRun, ScenarioResult, ScenarioStatus};

use super::execute::Prefetched;
use super::results::failed;
use super::selection::Planned;
use super::{Runner, ScenarioRun};
use crate::cache::Lookup;
use crate::events::{Event, EventSink};
use crate::hooks::{HookContext, HookFailure};

impl Runner {
    async fn hook(
        &self,
        hook: HookName,
        scenario_id: Option<&str>,
    ) -> Option<(HookRun, Option<HookFailure>)> {
        let base = self
            .config
            .base_url
            .as_ref()
            .map(|u| u.as_str().to_string());
        let ctx = HookContext {
            root: &self.config.root,
            env: &self.config.env,
            base_url: base.as_deref(),
            scenario_id,
        };
        self.config.hooks.run(hook, &ctx).await
    }

    /// `before_all`: its record, and why it failed if it did.
    pub(super) async fn before_all(&self) -> (Vec<HookRun>, Option<HookFailure>) {
        match self.hook(HookName::BeforeAll, None).await {
            Some((run, failure)) => (vec![run], failure),
            None => (Vec::new(), None),
        }
    }
}

/// One attempt of a scenario between its `before_each` and `after_each` hooks. A failed
/// `before_each` fails it without running it; a failed `after_each` fails it even if it
/// passed (the next scenario would start from data nobody reset).
pub(super) async fn attempt(
    run: &mut ScenarioRun<'_>,
    lookup: Lookup,
    session: Option<Prefetched>,
) -> ScenarioResult {
    let (runner, scenario) = (run.runner, run.scenario);
    let mut hooks = Vec::new();
    if let Some((hook, failure)) = runner.hook(HookName::BeforeEach, Some(&scenario.id)).await {
        hooks.push(hook);
        if let Some(HookFailure(why)) = failure {
            if let Some(opened) = session
                && let Ok(Ok(s)) = opened.await
            {
                s.close().await;
            }
            let mut result = failed(
                &scenario.id,
                CacheOutcome::None,
                FailureClass::Environment,
                format!("{why}; the scenario did not run"),
            );
            result.hooks = hooks;
            return result;
        }
    }
    let mut result = run.run(lookup, session).await;
    if let Some((hook, failure)) = runner.hook(HookName::AfterEach, Some(&scenario.id)).await {
        hooks.push(hook);
        if let Some(HookFailure(why)) = failure
            && result.status == ScenarioStatus::Passed
        {
            result.status = ScenarioStatus::Failed;
            result.failure_class = Some(FailureClass::Environment);
            result.message = Some(format!("{why}, after the scenario's steps passed"));
        }
    }
    result.hooks = hooks;
    result
}

/// Every scenario of a run whose `before_all` failed: failed as `environment`, never run.
pub(super) fn blocked_by_before_all(
    runner: &Runner,
    planned: Vec<Planned>,
    why: &HookFailure,
    events: &dyn EventSink,
) -> Vec<ScenarioResult> {
    planned
        .into_iter()
        .map(|p| {
            let s = &p.file.scenario;
            let mut result = failed(
                &s.id,
                CacheOutcome::None,
                FailureClass::Environment,
                format!("{}; no scenario ran", why.0),
            );
            result.task = Some(s.task.clone());
            let result = runner.results().redacted(result);
            events.on_event(&Event::ScenarioFinished {
                result: result.clone(),
            });
            result
        })
        .collect()
}
