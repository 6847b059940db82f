//! What becomes of a cached plan that failed or is being replaced: its failure kept in `stale/`
//! as evidence while the plan stays cached (`keep_failing`), moved out of the way of a re-plan
//! (`retire`) and put back when that re-plan verifies nothing (`put_back`). A failure never
//! leaves a scenario without the only plan that worked; `--invalidate` moves it out anyway.

use windup_model::{CacheEntry, Invalidation};

use super::ScenarioRun;

impl ScenarioRun<'_> {
    /// A replay failed and nothing replaces its plan: the failure is kept in `stale/` as
    /// evidence, and the plan stays cached for the next run, unless `--invalidate` moves it
    /// out. A failure never leaves a scenario without the only plan that worked.
    pub(super) fn keep_failing(&self, entry: &CacheEntry, why: Invalidation) {
        let scenario = self.scenario;
        let shared = self.shared;
        if self.runner.config.invalidate {
            return self.retire(entry, "failed", why);
        }
        let why = self.runner.secrets.redact_all(why);
        if let Err(e) = shared.cache.keep_stale(entry, why) {
            tracing::warn!(
                "could not keep the failure of {}'s plan in stale: {e}",
                scenario.id
            );
        }
    }

    /// What happened to a failed plan, for the scenario's message.
    pub(super) fn kept(&self) -> &'static str {
        if self.runner.config.invalidate {
            "the plan is moved to stale/ (--invalidate)"
        } else {
            "the plan stays cached and the next run replays it; its failure is kept in stale/"
        }
    }

    /// After a re-plan in place of `entry` (retired for it): when no verified plan took its
    /// place, `entry` is put back, unless `--invalidate`. The words to add to the message.
    pub(super) fn put_back(&self, entry: &CacheEntry) -> &'static str {
        let scenario = self.scenario;
        let shared = self.shared;
        if self.runner.config.invalidate {
            return "";
        }
        match shared.cache.reinstate(entry) {
            Ok(true) => "; the old plan stays cached and the next run replays it",
            Ok(false) => "",
            Err(e) => {
                tracing::warn!("could not put back the plan of {}: {e}", scenario.id);
                ""
            }
        }
    }

    /// Moves a plan that no longer holds to `stale/`, where it stays as evidence. A move that
    /// fails is a warning: the scenario's verdict does not depend on it.
    pub(super) fn retire(&self, entry: &CacheEntry, which: &str, why: Invalidation) {
        let scenario = self.scenario;
        let shared = self.shared;
        // Stale evidence is stored and uploaded: its URL and message are masked like a report.
        let why = self.runner.secrets.redact_all(why);
        if let Err(e) = shared.cache.invalidate(entry, why) {
            tracing::warn!(
                "could not move the {which} plan of {} to stale: {e}",
                scenario.id
            );
        }
    }
}
