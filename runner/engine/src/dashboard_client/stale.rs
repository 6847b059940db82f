//! The plans a run stopped trusting, as its upload carries them: every entry in
//! `e2e/.windup/cache/stale/` whose invalidation names the run, each with the active entry
//! saved after it (the same run's re-plan), so the dashboard shows every stale plan, not only
//! those its own shared cache replaced.
//!
//! Read from the files rather than handed over by the runner, so `windup push` of a kept run
//! sends the same list as the upload right after the run.

use std::path::Path;

use windup_model::api::{MAX_STALE_PLANS, StalePlan};
use windup_model::limits::InputFile;
use windup_model::validate::cache_entry_from_json;
use windup_model::{CacheEntry, CacheStatus};

use crate::cache::PlanCache;
use crate::fsutil::read_capped;

/// A cache file read as the runner reads one; unreadable or malformed files are skipped (they
/// are evidence, not the run's verdict).
fn read_entry(path: &Path) -> Option<CacheEntry> {
    let text = read_capped(path, InputFile::CacheEntry.max_bytes()).ok()??;
    cache_entry_from_json(&path.display().to_string(), &text).ok()
}

/// The stale plans of run `run_id`, oldest first (then by scenario id), at most [`MAX_STALE_PLANS`].
pub fn stale_plans(root: &Path, run_id: &str) -> Vec<StalePlan> {
    let cache = PlanCache::new(root);
    let Ok(dir) = std::fs::read_dir(cache.stale_dir()) else {
        return Vec::new();
    };
    let mut stale: Vec<CacheEntry> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter_map(|p| read_entry(&p))
        .filter(|e| {
            e.status == CacheStatus::Stale
                && e.invalidation
                    .as_ref()
                    .is_some_and(|i| i.run_id.as_deref() == Some(run_id))
        })
        .collect();
    stale.sort_by(|a, b| {
        let at = |e: &CacheEntry| e.invalidation.as_ref().map(|i| i.at);
        (at(a), &a.key.scenario_id).cmp(&(at(b), &b.key.scenario_id))
    });
    stale.truncate(MAX_STALE_PLANS);
    stale
        .into_iter()
        .map(|entry| {
            let at = entry.invalidation.as_ref().map(|i| i.at);
            let replacement = read_entry(&cache.path(&entry.key.scenario_id)).filter(|new| {
                new.status == CacheStatus::Active
                    && at.is_some_and(|at| new.stats.created_at >= at)
                    && new.plan != entry.plan
            });
            StalePlan { entry, replacement }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;
    use windup_model::{CacheKey, CacheStats, Invalidation, Plan};

    use super::*;

    fn entry(id: &str, by: &str) -> CacheEntry {
        let at = datetime!(2026-06-01 0:00 UTC);
        CacheEntry {
            cache_version: windup_model::cache::CACHE_VERSION.into(),
            key: CacheKey {
                scenario_id: id.into(),
                start_url: "/start".into(),
                scenario_sha: "0".repeat(64),
                start_sig: None,
            },
            plan: Plan {
                plan_version: "0.1".into(),
                scenario_id: id.into(),
                task: "Do it.".into(),
                start_url: "/start".into(),
                generated_by: by.into(),
                actions: vec![
                    serde_json::from_value(serde_json::json!({"id": "a1", "type": "goto", "url": "/start", "expect": {"url": "/start"}}))
                        .unwrap(),
                ],
            },
            status: CacheStatus::Active,
            stats: CacheStats {
                created_at: at,
                last_verified_at: at,
                verified_runs: 1,
                last_duration_ms: 1,
            },
            invalidation: None,
            reviewed: None,
            proposal: None,
            baseline: None,
        }
    }

    fn why(run_id: &str) -> Invalidation {
        Invalidation {
            at: datetime!(2026-07-01 0:00 UTC),
            reason: "replay failed".into(),
            failure_class: None,
            failed_action_id: None,
            message: None,
            url: None,
            start_sig_now: None,
            run_id: Some(run_id.into()),
        }
    }

    #[test]
    fn a_runs_stale_plans_are_its_own_with_the_plan_saved_after_them() {
        let dir = tempfile::tempdir().unwrap();
        let cache = PlanCache::new(dir.path());
        for id in ["a", "b", "c"] {
            crate::fsutil::write_json(&cache.path(id), &entry(id, "old")).unwrap();
        }
        cache.invalidate(&entry("a", "old"), why("run-1")).unwrap();
        cache.invalidate(&entry("b", "old"), why("run-1")).unwrap();
        cache.invalidate(&entry("c", "old"), why("run-2")).unwrap();
        // `a` was re-planned in the run; `b` has an older active file (never replaced).
        let mut new = entry("a", "new");
        new.stats.created_at = datetime!(2026-07-01 0:01 UTC);
        crate::fsutil::write_json(&cache.path("a"), &new).unwrap();
        crate::fsutil::write_json(&cache.path("b"), &entry("b", "other")).unwrap();

        let plans = stale_plans(dir.path(), "run-1");
        let ids: Vec<_> = plans
            .iter()
            .map(|p| p.entry.key.scenario_id.as_str())
            .collect();
        assert_eq!(ids, ["a", "b"], "run-2's invalidation is not run-1's");
        assert!(plans.iter().all(|p| p.entry.status == CacheStatus::Stale));
        assert_eq!(plans[0].replacement.as_ref(), Some(&new));
        assert_eq!(plans[1].replacement, None, "saved before it went stale");
        assert!(stale_plans(dir.path(), "run-3").is_empty());
    }
}
