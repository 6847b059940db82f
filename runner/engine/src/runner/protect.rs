//! Protected plans in a run. A plan written or accepted by a person ([`CacheEntry::protected`])
//! is never replaced automatically: when it fails, or cannot be replayed (its scenario changed,
//! it is outside the trust boundary), it stays where it is and the scenario fails with the
//! evidence. When this run may plan, the repair, heal or re-plan still runs; if that passes
//! verification it is written as a proposal beside the plan (the cache's save never replaces a
//! protected entry), and the failed result names it, with its step diff, for `windup accept`.

use windup_model::{
    CacheEntry, CacheOutcome, FailureClass, Invalidation, ProposalSource, ProposedPlan,
    ScenarioResult, ScenarioStatus,
};

use super::ScenarioRun;
use super::planning::Start;
use super::results::failed;
use crate::project::Layout;

/// What a failed result says of the protected plan it kept.
pub(super) fn kept() -> String {
    format!(
        "the plan was written or accepted by a person, so it is kept in {}/ and not replaced automatically",
        Layout::CACHE_DIR
    )
}

impl ScenarioRun<'_> {
    /// A protected plan that cannot be replayed as it is: it stays, the scenario fails with
    /// `message`, and when this run may plan, a plan made afresh from the start page that passes
    /// verification is proposed in its place.
    pub(super) async fn replan_protected(
        &mut self,
        cache: CacheOutcome,
        why: Invalidation,
        message: String,
    ) -> ScenarioResult {
        let scenario = self.scenario;
        let mut failing = failed(&scenario.id, cache, FailureClass::PlanInvalid, message);
        if let Some((_, blocked)) = self.runner.planning_blocked(scenario) {
            failing.message = failing
                .message
                .map(|m| format!("{m}; {}; not re-planned: {blocked}", kept()));
            return failing;
        }
        let planned = self.plan_scenario(Start::Plan, cache).await;
        self.proposed(planned, failing, why)
    }

    /// After planning in place of a protected plan: a plan that passed verification was written
    /// as a proposal by the cache's save; `why` goes into it, and the protected plan's failed
    /// result `failing` names it.
    pub(super) fn proposed(
        &self,
        planned: ScenarioResult,
        mut failing: ScenarioResult,
        why: Invalidation,
    ) -> ScenarioResult {
        let scenario = self.scenario;
        let shared = self.shared;
        let base = failing.message.take().unwrap_or_default();
        if planned.status != ScenarioStatus::Passed {
            failing.message = Some(format!(
                "{base}; {}; it was re-planned, and the new plan failed too, so nothing was proposed: {}",
                kept(),
                planned.message.unwrap_or_default()
            ));
            return failing;
        }
        let why = self.runner.secrets.redact_all(why);
        match shared
            .cache
            .explain_proposal(&scenario.id, shared.run_id, why)
        {
            Ok(Some(p)) => with_proposal(&mut failing, &base, &scenario.id, p),
            Ok(None) => {
                failing.message = Some(format!(
                    "{base}; {}; it was re-planned and the new plan passed, but no proposal was written (the same plan, or a file that could not be written: see the log)",
                    kept()
                ));
            }
            Err(e) => {
                tracing::warn!("could not write the proposal of {}: {e}", scenario.id);
                failing.message = Some(format!(
                    "{base}; {}; it was re-planned and the new plan passed, but the proposal could not be written: {e}",
                    kept()
                ));
            }
        }
        failing
    }

    /// A healed plan of a protected entry, verified: written as its proposal, and named in the
    /// protected plan's failed result.
    pub(super) fn propose_healed(
        &self,
        protected: &CacheEntry,
        verified: &crate::cache::Verified<'_>,
        why: Invalidation,
        mut failing: ScenarioResult,
    ) -> ScenarioResult {
        let scenario = self.scenario;
        let shared = self.shared;
        let base = failing.message.take().unwrap_or_default();
        let why = self.runner.secrets.redact_all(why);
        match shared
            .cache
            .propose(verified, ProposalSource::Healed, why, protected)
        {
            Ok(p) => with_proposal(&mut failing, &base, &scenario.id, p),
            Err(e) => {
                tracing::warn!("could not write the proposal of {}: {e}", scenario.id);
                failing.message = Some(format!(
                    "{base}; {}; it healed, but the proposal could not be written: {e}",
                    kept()
                ));
            }
        }
        failing
    }
}

/// The failed result of a protected plan, with the proposal made in its place.
fn with_proposal(failing: &mut ScenarioResult, base: &str, id: &str, p: ProposedPlan) {
    let what = match p.source {
        ProposalSource::Planned => "a verified re-plan",
        ProposalSource::Healed => "the healed plan, verified,",
    };
    failing.message = Some(format!(
        "{base}; {}: {what} was written as a proposal ({}: {}); review it, then adopt it with `windup accept {id}`",
        kept(),
        p.file,
        p.diff.headline()
    ));
    failing.proposal = Some(p);
}
