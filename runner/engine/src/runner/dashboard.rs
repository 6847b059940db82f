//! The run's side of the team dashboard: newer plans restored before the run, plans verified
//! in it saved after, and the run's report and ledger records kept for `windup push`. Every
//! failure here is a warning: the dashboard never changes a verdict.

use futures::StreamExt;
use windup_model::{LedgerRecord, RunReport};

use super::{Planned, Runner};
use crate::cache::{Lookup, PlanCache, Restored};
use crate::dashboard_client::{self, Dashboard, DashboardError, RemoteEntry};
use crate::fragments::Fragments;
use crate::project::display;

/// GETs in flight at once while restoring.
const RESTORE_CONCURRENCY: usize = 8;

impl Runner {
    pub(super) fn dashboard_client(&self) -> Option<Result<Dashboard, DashboardError>> {
        let settings = self.config.dashboard.as_ref()?;
        Some(Dashboard::new(settings, &self.config.env.as_fn()))
    }

    /// Before the run: each selected scenario's plan from the dashboard (the run's branch, else
    /// the default branch) replaces the local one when it is for the same `scenario_sha` and
    /// newer; it is written to the local cache atomically and then counts as cached. A protected
    /// local plan (written or accepted by a person) is kept, with a warning.
    pub(super) async fn restore_plans(
        &self,
        planned: Vec<Planned>,
        fragments: &Fragments,
    ) -> Vec<Planned> {
        if planned.is_empty() || !self.config.dashboard.as_ref().is_some_and(|s| s.restore) {
            return planned;
        }
        let client = match self.dashboard_client() {
            Some(Ok(c)) => c,
            Some(Err(e)) => {
                tracing::warn!("plans are not restored from the dashboard: {e}");
                return planned;
            }
            None => return planned,
        };
        let root = &self.config.root;
        let branch = crate::ci::branch(root, &self.config.env);
        // One request first: when the dashboard is down, the run does not wait on every
        // scenario's retries.
        let mut fetched: Vec<Result<Option<RemoteEntry>, DashboardError>> = Vec::new();
        let first = client
            .get_plan(&planned[0].file.scenario, branch.as_deref())
            .await;
        let down = matches!(&first, Err(e) if e.ends_the_batch());
        fetched.push(first);
        if down {
            if let Some(Err(e)) = fetched.first() {
                tracing::warn!("plans are not restored from the dashboard: {e}");
            }
            return planned;
        }
        let rest: Vec<_> = futures::stream::iter(
            planned[1..]
                .iter()
                .map(|p| client.get_plan(&p.file.scenario, branch.as_deref())),
        )
        .buffered(RESTORE_CONCURRENCY)
        .collect()
        .await;
        fetched.extend(rest);
        let cache = PlanCache::new(root);
        let mut out = Vec::with_capacity(planned.len());
        for (mut p, got) in planned.into_iter().zip(fetched) {
            let scenario = &p.file.scenario;
            match got {
                Ok(Some(found)) => {
                    let local = match &p.lookup {
                        Lookup::Hit(e) | Lookup::Changed(e) => Some(e.as_ref()),
                        Lookup::Miss => None,
                    };
                    if dashboard_client::prefer_remote(&found, scenario, local) {
                        let file = display(root, &cache.path(&scenario.id));
                        // Refused, not stored, when it fails the boundary every plan passes.
                        let problems =
                            self.plan_problems(&file, "plan.", &found.entry.plan, fragments);
                        let note = format!(
                            "branch {}, saved {}",
                            found.branch,
                            found
                                .updated_at
                                .format(&time::format_description::well_known::Rfc3339)
                                .unwrap_or_default()
                        );
                        if let Some(problem) = problems.first() {
                            tracing::warn!(
                                "the dashboard's plan for {} is refused and not stored: {}: {}",
                                scenario.id,
                                problem.field,
                                self.secrets.redact(&problem.problem)
                            );
                        } else {
                            match cache.restore(&found.entry, &note) {
                                Err(e) => tracing::warn!(
                                    "the dashboard's plan for {} could not be stored: {e}",
                                    scenario.id
                                ),
                                Ok(Restored::KeptProtected) => tracing::warn!(
                                    "the dashboard's plan for {} ({note}) is not used: the local plan was written or accepted by a person, so it is kept",
                                    scenario.id
                                ),
                                Ok(Restored::Stored) => {
                                    tracing::info!(
                                        "restored the plan of {} from the dashboard ({note})",
                                        scenario.id
                                    );
                                    p.lookup = Lookup::Hit(Box::new(found.entry));
                                }
                            }
                        }
                    }
                }
                Ok(None) => {}
                Err(e) => tracing::warn!(
                    "the plan of {} is not restored from the dashboard: {e}",
                    scenario.id
                ),
            }
            out.push(p);
        }
        out
    }

    /// After the run: keeps the report and this run's ledger records in
    /// `e2e/.windup/runs/<run_id>/` (what `windup push` sends), then saves every plan verified and
    /// cached in this run to the dashboard under the run's branch.
    pub(super) async fn after_run(&self, report: &RunReport, ledger: &[LedgerRecord]) {
        let root = &self.config.root;
        if let Err(e) = dashboard_client::keep_run(root, report, ledger) {
            tracing::warn!("could not keep the run's report for `windup push`: {e}");
        }
        if !self.config.dashboard.as_ref().is_some_and(|s| s.save) {
            return;
        }
        let cache = PlanCache::new(root);
        // A plan saved in this run was created after it started; restored plans keep the time
        // the dashboard's run created them.
        let saved: Vec<_> = report
            .scenarios
            .iter()
            .filter_map(|s| {
                let entry = cache.load(&s.scenario_id).ok().flatten()?;
                (entry.stats.created_at >= report.started_at).then(|| (entry, stale_reason(s)))
            })
            .collect();
        if saved.is_empty() {
            return;
        }
        let Some(branch) = crate::ci::branch(root, &self.config.env) else {
            tracing::warn!(
                "new plans are not saved to the dashboard: the run's branch is unknown (set GITHUB_HEAD_REF or GITHUB_REF_NAME, or run in a git checkout)"
            );
            return;
        };
        let client = match self.dashboard_client() {
            Some(Ok(c)) => c,
            Some(Err(e)) => {
                tracing::warn!("new plans are not saved to the dashboard: {e}");
                return;
            }
            None => return,
        };
        for (entry, reason) in saved {
            match client.put_plan(&entry, &branch, reason.as_deref()).await {
                Ok(()) => tracing::info!(
                    "saved the plan of {} to the dashboard (branch {branch})",
                    entry.key.scenario_id
                ),
                Err(e) => {
                    tracing::warn!(
                        "the plan of {} is not saved to the dashboard: {e}",
                        entry.key.scenario_id
                    );
                    if e.ends_the_batch() {
                        return;
                    }
                }
            }
        }
    }
}

/// Why the plan a re-planned (or healed) scenario replaced went stale, for the dashboard's evidence: the
/// report's (already masked) message, "the cached plan failed at a3 (selector_not_found: …)
/// and was re-planned".
fn stale_reason(result: &windup_model::ScenarioResult) -> Option<String> {
    if !matches!(
        result.cache,
        windup_model::CacheOutcome::StaleReplanned | windup_model::CacheOutcome::Healed
    ) {
        return None;
    }
    result
        .message
        .as_deref()
        .map(|m| m.chars().take(300).collect())
}
