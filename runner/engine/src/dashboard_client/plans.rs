//! The remote plan cache: the dashboard's plan for a scenario, read before a run and used only
//! when it is for the same scenario text and newer than the local one; plans verified in a run
//! written back after it, under the run's branch.

use reqwest::Method;
use windup_model::api::{CachedPlan, PlanPutQuery, PlanQuery};
use windup_model::validate::cache_entry_from_json;
use windup_model::{CacheEntry, CacheStatus, Scenario};

use super::client::{Dashboard, DashboardError};

/// The dashboard's plan for a scenario, once checked like a committed cache file.
pub type RemoteEntry = CachedPlan<CacheEntry>;

impl Dashboard {
    /// `GET /api/v1/cache/{id}` for the scenario's current text; `None` when there is none.
    pub async fn get_plan(
        &self,
        scenario: &Scenario,
        branch: Option<&str>,
    ) -> Result<Option<RemoteEntry>, DashboardError> {
        let url = self.endpoint_with(
            &["cache", &scenario.id],
            &PlanQuery {
                start_url: scenario.start_url.clone(),
                scenario_sha: scenario.sha(),
                branch: branch.map(str::to_string),
            },
        );
        let bytes = match self.send(Method::GET, url, None).await {
            Ok(b) => b,
            Err(DashboardError::Rejected { status: 404, .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        let answer: CachedPlan =
            serde_json::from_slice(&bytes).map_err(|e| DashboardError::BadAnswer(e.to_string()))?;
        // The plan will run here: it is checked like a committed cache file.
        let label = format!("the dashboard's plan for {}", scenario.id);
        let entry = cache_entry_from_json(&label, &answer.entry.to_string()).map_err(|p| {
            DashboardError::BadAnswer(
                p.0.iter()
                    .map(|e| format!("{}: {}", e.field, e.problem))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        Ok(Some(RemoteEntry {
            branch: answer.branch,
            updated_at: answer.updated_at,
            entry,
        }))
    }

    /// `PUT /api/v1/cache/{id}?branch=NAME[&reason=WHY]`: `reason` says why the plan it
    /// replaces went stale.
    pub async fn put_plan(
        &self,
        entry: &CacheEntry,
        branch: &str,
        reason: Option<&str>,
    ) -> Result<(), DashboardError> {
        let url = self.endpoint_with(
            &["cache", &entry.key.scenario_id],
            &PlanPutQuery {
                branch: branch.to_string(),
                reason: reason.map(str::to_string),
            },
        );
        let body = serde_json::to_vec(entry).map_err(|e| DashboardError::Local(e.to_string()))?;
        self.send(Method::PUT, url, Some((&body, "application/json")))
            .await
            .map(|_| ())
    }
}

/// Whether the dashboard's entry should replace what the local cache holds: only an active plan
/// for exactly this scenario text, and only when the local one is not a hit for it or was last
/// verified before the dashboard's was saved.
pub fn prefer_remote(
    remote: &RemoteEntry,
    scenario: &Scenario,
    local: Option<&CacheEntry>,
) -> bool {
    let key = &remote.entry.key;
    let fits = key.scenario_id == scenario.id
        && key.scenario_sha == scenario.sha()
        && key.start_url == scenario.start_url
        && remote.entry.status == CacheStatus::Active;
    if !fits {
        return false;
    }
    match local {
        None => true,
        Some(l)
            if l.key.scenario_sha != scenario.sha()
                || l.key.start_url != scenario.start_url
                || l.status != CacheStatus::Active =>
        {
            true
        }
        // Verification times from the runners' clocks, not the upload's: an entry uploaded
        // after the local copy was verified, but verified no later, is not newer.
        Some(l) => {
            remote.entry.stats.last_verified_at > l.stats.last_verified_at
                && remote.entry.plan != l.plan
        }
    }
}

#[cfg(test)]
mod tests {
    use time::OffsetDateTime;

    use super::*;

    #[test]
    fn the_dashboard_plan_wins_only_for_the_same_text_and_when_newer() {
        use time::macros::datetime;
        use windup_model::{CacheKey, CacheStats, Plan};
        let scenario = windup_model::validate::scenario_from_yaml(
            "s.yaml",
            "id: s\ntask: Do it.\nstart_url: /start\n",
            Some("s"),
        )
        .unwrap();
        let entry = |sha: String, by: &str, verified: OffsetDateTime| CacheEntry {
            cache_version: windup_model::cache::CACHE_VERSION.into(),
            key: CacheKey {
                scenario_id: "s".into(),
                start_url: "/start".into(),
                scenario_sha: sha,
                start_sig: None,
            },
            plan: Plan {
                plan_version: "0.1".into(),
                scenario_id: "s".into(),
                task: "Do it.".into(),
                start_url: "/start".into(),
                generated_by: by.into(),
                actions: Vec::new(),
            },
            status: CacheStatus::Active,
            stats: CacheStats {
                created_at: verified,
                last_verified_at: verified,
                verified_runs: 1,
                last_duration_ms: 1,
            },
            invalidation: None,
            reviewed: None,
            proposal: None,
            baseline: None,
        };
        let sha = scenario.sha();
        let local = entry(sha.clone(), "local", datetime!(2026-06-01 0:00 UTC));
        let remote = |sha: String, by: &str, at: OffsetDateTime| RemoteEntry {
            branch: "main".into(),
            updated_at: at,
            entry: entry(sha, by, at),
        };
        let newer = remote(sha.clone(), "remote", datetime!(2026-07-01 0:00 UTC));
        let older = remote(sha.clone(), "remote", datetime!(2026-05-01 0:00 UTC));
        let other = remote("0".repeat(64), "remote", datetime!(2026-07-01 0:00 UTC));
        assert!(prefer_remote(&newer, &scenario, Some(&local)));
        assert!(prefer_remote(&newer, &scenario, None), "nothing cached");
        assert!(!prefer_remote(&older, &scenario, Some(&local)));
        let mut uploaded_later = older.clone();
        uploaded_later.updated_at = datetime!(2026-07-01 0:00 UTC);
        assert!(
            !prefer_remote(&uploaded_later, &scenario, Some(&local)),
            "verified before the local plan, however late it was uploaded"
        );
        assert!(
            !prefer_remote(&other, &scenario, Some(&local)),
            "another text"
        );
        assert!(
            !prefer_remote(&other, &scenario, None),
            "another text, even over nothing"
        );
        let same_plan = remote(sha.clone(), "local", datetime!(2026-07-01 0:00 UTC));
        assert!(
            !prefer_remote(&same_plan, &scenario, Some(&local)),
            "the same plan is not rewritten"
        );
        let outdated_local = entry("1".repeat(64), "local", datetime!(2027-01-01 0:00 UTC));
        assert!(
            prefer_remote(&older, &scenario, Some(&outdated_local)),
            "a local plan for an older text is no hit"
        );
        let mut stale = newer.clone();
        stale.entry.status = CacheStatus::Stale;
        assert!(!prefer_remote(&stale, &scenario, None));
    }
}
