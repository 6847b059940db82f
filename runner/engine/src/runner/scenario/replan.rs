//! The roads to a new plan when the cached one is not replayed: none is cached, the scenario
//! changed since its plan was verified, the plan is outside the trust boundary, or the site map
//! says it will break (`--replan-at-risk`). A protected plan stays, and what is planned in its
//! place is proposed.

use time::OffsetDateTime;
use windup_model::{
    CacheEntry, CacheOutcome, FailureClass, InputError, Invalidation, ScenarioResult,
};

use super::super::planning::Start;
use super::super::results::failed;
use super::ScenarioRun;
use crate::sitemap::AtRisk;

impl ScenarioRun<'_> {
    /// A plan verified for an earlier text of the scenario moves to `stale/` and the scenario
    /// is planned afresh; a protected one stays, and the new plan is proposed.
    pub(super) async fn replan_outdated(&mut self, old: &CacheEntry) -> ScenarioResult {
        let why = Invalidation {
            at: OffsetDateTime::now_utc(),
            reason: "scenario changed".into(),
            failure_class: None,
            failed_action_id: None,
            message: Some(
                "the scenario's task, hints or start URL changed since the plan was verified"
                    .into(),
            ),
            url: None,
            start_sig_now: None,
            run_id: Some(self.shared.run_id.to_string()),
        };
        if old.protected() {
            let message = "the scenario's task, hints or start URL changed since its plan was verified, so the plan is not replayed".to_string();
            return self
                .replan_protected(CacheOutcome::Miss, why, message)
                .await;
        }
        self.retire(old, "outdated", why);
        self.plan_or_refuse(&format!(
            "the scenario changed since its plan was verified (the old plan is kept in {}/)",
            crate::project::Layout::STALE_DIR
        ))
        .await
    }

    /// A cached plan outside the trust boundary is never executed: it fails as `plan_invalid`,
    /// moves to stale with the reason, and is planned afresh when this run may plan. A protected
    /// one stays, and a plan made afresh is proposed in its place.
    pub(super) async fn refuse_cached(
        &mut self,
        entry: &CacheEntry,
        problems: &[InputError],
    ) -> ScenarioResult {
        let scenario = self.scenario;
        let why = problems
            .iter()
            .map(|e| format!("{}: {}", e.field, e.problem))
            .collect::<Vec<_>>()
            .join("; ");
        let message =
            format!("the cached plan was not run: it is outside the trust boundary ({why})");
        let invalidation = Invalidation {
            at: OffsetDateTime::now_utc(),
            reason: "outside the trust boundary".into(),
            failure_class: Some(FailureClass::PlanInvalid),
            failed_action_id: None,
            message: Some(self.runner.secrets.redact(&message)),
            url: None,
            start_sig_now: None,
            run_id: Some(self.shared.run_id.to_string()),
        };
        if entry.protected() {
            return self
                .replan_protected(CacheOutcome::Hit, invalidation, message)
                .await;
        }
        self.retire(entry, "untrusted", invalidation);
        if let Some((_, blocked)) = self.runner.planning_blocked(scenario) {
            return failed(
                &scenario.id,
                CacheOutcome::Hit,
                FailureClass::PlanInvalid,
                format!("{message}; it is kept as stale evidence and not re-planned: {blocked}"),
            );
        }
        let mut result = self.replan_afresh().await;
        result.message = Some(match result.message {
            Some(m) => format!("{message}, and was re-planned; the new plan failed too: {m}"),
            None => format!("{message}, and was re-planned"),
        });
        result
    }

    /// A retired plan's scenario planned afresh from its start page, as `stale_replanned`.
    async fn replan_afresh(&mut self) -> ScenarioResult {
        self.plan_scenario(Start::Plan, CacheOutcome::StaleReplanned)
            .await
    }

    /// `--replan-at-risk`: a plan the site map says will break is retired and planned afresh up
    /// front, instead of being replayed first.
    pub(super) async fn replan_at_risk(
        &mut self,
        entry: &CacheEntry,
        risk: &AtRisk,
    ) -> ScenarioResult {
        let why = risk.describe();
        self.retire(
            entry,
            "at-risk",
            Invalidation {
                at: OffsetDateTime::now_utc(),
                reason: "at risk".into(),
                failure_class: None,
                failed_action_id: None,
                message: Some(self.runner.secrets.redact(&why)),
                url: None,
                start_sig_now: None,
                run_id: Some(self.shared.run_id.to_string()),
            },
        );
        let mut result = self.replan_afresh().await;
        let kept = self.put_back(entry);
        result.message = Some(match result.message {
            Some(m) => format!(
                "{why}, so it was re-planned up front (--replan-at-risk); the new plan failed: {m}{kept}"
            ),
            None => format!("{why}, so it was re-planned up front (--replan-at-risk)"),
        });
        result
    }

    /// A scenario without a usable plan: planned when this run may, else failed saying why.
    pub(super) async fn plan_or_refuse(&mut self, why: &str) -> ScenarioResult {
        let scenario = self.scenario;
        if let Some((class, blocked)) = self.runner.planning_blocked(scenario) {
            return failed(
                &scenario.id,
                CacheOutcome::Miss,
                class,
                format!("{why}: {blocked}"),
            );
        }
        self.plan_scenario(Start::Plan, CacheOutcome::Miss).await
    }
}
