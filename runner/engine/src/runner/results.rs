//! A scenario's result: built from its execution (with the failure's evidence, screenshots and
//! trace frames stored under `e2e/.windup/runs/<run_id>/`) or from a failure without one, and
//! masked for credentials before it is shown, reported or kept.

use windup_model::{Baseline, CacheOutcome, FailureClass, ScenarioResult, ScenarioStatus};

use super::Runner;
use crate::browser::BrowserError;
use crate::config::Config;
use crate::executor::{Captured, Execution, FrameShot};
use crate::project::Layout;
use crate::secrets::ProjectSecrets;

/// What makes a run's results: the project (where their files go, whether traces are kept)
/// and the secrets masked out of them, the runner's, borrowed.
pub(super) struct Results<'a> {
    config: &'a Config,
    secrets: &'a ProjectSecrets,
}

impl Runner {
    /// What makes this run's results.
    pub(super) fn results(&self) -> Results<'_> {
        Results {
            config: &self.config,
            secrets: &self.secrets,
        }
    }
}

impl Results<'_> {
    /// A scenario's result from its execution; its screenshot (a failure's, or a pass's with
    /// `screenshots = "on"`) is stored under `e2e/.windup/runs/<run_id>/` and its evidence text
    /// masked for credentials.
    pub(super) fn scenario_result(
        &self,
        run_id: &str,
        id: &str,
        cache: CacheOutcome,
        mut x: Execution,
    ) -> ScenarioResult {
        let captured = x.evidence.take();
        let passed_png = x.screenshot.take();
        let frames = std::mem::take(&mut x.frames);
        let keep_trace = self.config.trace.keeps(x.failure.is_some());
        let mut result = plain_result(id, cache, x);
        result.evidence = captured.map(|c| self.stored_evidence(run_id, id, c));
        result.screenshot = passed_png
            .as_deref()
            .and_then(|png| self.store_screenshot(run_id, id, png));
        if keep_trace {
            self.store_trace(run_id, id, &mut result, frames);
        } else {
            for a in &mut result.actions {
                a.trace = None;
            }
        }
        result
    }

    /// Stores each trace picture as `e2e/.windup/runs/<run_id>/<name>.trace-<n>.jpg` and names it
    /// in its step's frame.
    fn store_trace(
        &self,
        run_id: &str,
        name: &str,
        result: &mut ScenarioResult,
        frames: Vec<FrameShot>,
    ) {
        for (n, f) in frames.into_iter().enumerate() {
            let Some(frame) = result
                .actions
                .get_mut(f.action)
                .and_then(|a| a.trace.as_mut())
            else {
                continue;
            };
            let rel = format!(
                "{}/{run_id}/{name}.trace-{:02}.jpg",
                Layout::RUNS_DIR,
                n + 1
            );
            match crate::fsutil::write_atomic(&self.config.root.join(&rel), &f.jpeg) {
                Ok(()) => frame.screenshot = Some(rel),
                Err(e) => {
                    tracing::warn!("could not store the trace frame {rel}: {e}");
                    frame.note =
                        Some("screenshot not stored: the file could not be written".into());
                }
            }
        }
    }

    /// Removes the trace pictures of an attempt a retry replaces: only the last attempt's are
    /// reported, and a failure's frames are not kept behind a pass.
    pub(super) fn discard_trace(&self, result: &ScenarioResult) {
        let prefix = format!("{}/", Layout::RUNS_DIR);
        for rel in result
            .actions
            .iter()
            .filter_map(|a| a.trace.as_ref()?.screenshot.as_deref())
            .filter(|rel| rel.starts_with(&prefix) && !rel.contains(".."))
        {
            let _ = std::fs::remove_file(self.config.root.join(rel));
        }
    }

    /// Failure evidence with its screenshot stored as `e2e/.windup/runs/<run_id>/<name>.png`.
    pub(super) fn stored_evidence(
        &self,
        run_id: &str,
        name: &str,
        c: Captured,
    ) -> windup_model::Evidence {
        let mut evidence = c.evidence;
        evidence.screenshot = c
            .screenshot
            .as_deref()
            .and_then(|png| self.store_screenshot(run_id, name, png));
        evidence
    }

    fn store_screenshot(&self, run_id: &str, name: &str, png: &[u8]) -> Option<String> {
        let rel = format!("{}/{run_id}/{name}.png", Layout::RUNS_DIR);
        match crate::fsutil::write_atomic(&self.config.root.join(&rel), png) {
            Ok(()) => Some(rel),
            Err(e) => {
                tracing::warn!("could not store the screenshot {rel}: {e}");
                None
            }
        }
    }

    /// The result as it leaves the runner. A message can quote what the page showed, such as
    /// a field's value, and the final URL can carry what a form sent: every secret is masked in
    /// every string of a result before it is shown, reported, uploaded or kept as evidence. A
    /// failure gets its triage verdict here, from the masked result.
    pub(super) fn redacted(&self, result: ScenarioResult) -> ScenarioResult {
        let mut result = self.secrets.redact_all(result);
        let baseline = self.baseline_of(&result);
        result.triage = crate::triage::triage(&result, baseline.as_ref());
        result
    }

    /// A passing execution's background, masked: the baseline a plan verified by it keeps.
    pub(super) fn masked_baseline(&self, x: &Execution) -> Option<Baseline> {
        x.baseline.clone().map(|b| self.secrets.redact_all(b))
    }

    /// What the app's pages normally do, for a failed result's triage: the baseline of the
    /// scenario's plan, the active one, else the last one a run moved to `stale/` (an older
    /// plan's noise is still the app's). None when no plan has one.
    fn baseline_of(&self, result: &ScenarioResult) -> Option<Baseline> {
        if result.status != ScenarioStatus::Failed {
            return None;
        }
        let cache = crate::cache::PlanCache::new(&self.config.root);
        let active = cache.load(&result.scenario_id).ok().flatten();
        active
            .and_then(|e| e.baseline)
            .or_else(|| cache.last_stale_baseline(&result.scenario_id))
    }
}

/// An execution's verdict as a result, before evidence, screenshots and masking.
fn plain_result(id: &str, cache: CacheOutcome, x: Execution) -> ScenarioResult {
    let (status, class, action, message) = match x.failure {
        None => (ScenarioStatus::Passed, None, None, None),
        Some(f) => (
            ScenarioStatus::Failed,
            Some(f.class),
            f.action_id,
            Some(f.message),
        ),
    };
    ScenarioResult {
        scenario_id: id.to_string(),
        task: None,
        status,
        failure_class: class,
        failed_action_id: action,
        message,
        cache,
        llm_calls: 0,
        cost_micro_usd: 0,
        duration_ms: x.duration.as_millis() as u64,
        final_url: x.final_url,
        attempts: 1,
        flaky: false,
        evidence: None,
        screenshot: None,
        suggestion: None,
        triage: None,
        heal: None,
        proposal: None,
        actions: x.actions,
        hooks: Vec::new(),
    }
}

/// A scenario that failed before or without an execution.
pub(super) fn failed(
    id: &str,
    cache: CacheOutcome,
    class: FailureClass,
    message: String,
) -> ScenarioResult {
    ScenarioResult {
        scenario_id: id.to_string(),
        task: None,
        status: ScenarioStatus::Failed,
        failure_class: Some(class),
        failed_action_id: None,
        message: Some(message),
        cache,
        llm_calls: 0,
        cost_micro_usd: 0,
        duration_ms: 0,
        final_url: None,
        attempts: 1,
        flaky: false,
        evidence: None,
        screenshot: None,
        suggestion: None,
        triage: None,
        heal: None,
        proposal: None,
        actions: Vec::new(),
        hooks: Vec::new(),
    }
}

/// A scenario the browser failed under.
pub(super) fn crashed(id: &str, cache: CacheOutcome, e: BrowserError) -> ScenarioResult {
    failed(id, cache, FailureClass::BrowserCrashed, e.to_string())
}
