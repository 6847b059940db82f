//! Writing a scenario's active entry, by the one rule for replacing a plan
//! ([`CacheEntry::protected`]): a run's verified plan replaces a machine-made one (kept in
//! `stale/` as replaced) but only becomes a proposal beside a protected one; a plan restored from
//! the dashboard never replaces a protected one; a person's own command (`windup replay --save`,
//! `windup fragment extract --rewrite`) replaces whatever is there.

use time::OffsetDateTime;
use windup_model::cache::CACHE_VERSION;
use windup_model::{
    Baseline, CacheEntry, CacheKey, CacheStats, CacheStatus, Invalidation, Plan, ProposalSource,
    ProposedPlan, Reviewed, Scenario,
};

use super::PlanCache;
use crate::fsutil::write_json;

/// What a save did.
#[derive(Debug, Clone)]
pub enum Saved {
    /// The plan is the scenario's active entry.
    Cached(Box<CacheEntry>),
    /// The active entry is protected: the plan was written as its proposal instead.
    Proposed(ProposedPlan),
}

/// What a restore did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restored {
    /// The dashboard's plan is the scenario's active entry.
    Stored,
    /// The local plan is protected and was kept; the dashboard's was not stored.
    KeptProtected,
}

/// A plan that has just passed a full verified run, and what it was verified on.
#[derive(Debug, Clone, Copy)]
pub struct Verified<'a> {
    /// The scenario it carries out.
    pub scenario: &'a Scenario,
    /// The plan.
    pub plan: &'a Plan,
    /// The start page's structural signature on that run.
    pub start_sig: Option<&'a str>,
    /// How long that run took.
    pub duration_ms: u64,
    /// The run.
    pub run_id: &'a str,
    /// What the app's pages did in the background on that run, masked.
    pub baseline: Option<&'a Baseline>,
}

impl PlanCache {
    /// Saves a plan that has just passed a full verified run in a run. An older, different,
    /// machine-made entry is kept in `stale/` as replaced; a protected one stays, and the plan is
    /// written as its proposal instead (see [`PlanCache::propose`]). The same plan as a protected
    /// entry's refreshes that entry's key and record, `reviewed` kept.
    pub fn save_verified(&self, verified: &Verified<'_>) -> std::io::Result<Saved> {
        let Verified {
            scenario,
            plan,
            run_id,
            ..
        } = *verified;
        let verified = *verified;
        let now = OffsetDateTime::now_utc();
        match self.load(&scenario.id) {
            Ok(Some(old)) if old.protected() && old.plan == *plan => {
                let mut entry = fresh_entry(&verified, now);
                entry.stats = CacheStats {
                    created_at: old.stats.created_at,
                    verified_runs: old.stats.verified_runs + 1,
                    ..entry.stats
                };
                entry.reviewed = old.reviewed;
                write_json(&self.path(&scenario.id), &entry)?;
                Ok(Saved::Cached(Box::new(entry)))
            }
            Ok(Some(old)) if old.protected() => {
                let why = Invalidation {
                    at: now,
                    reason: "re-planned".into(),
                    failure_class: None,
                    failed_action_id: None,
                    message: Some("a verified plan was made in a run".into()),
                    url: None,
                    start_sig_now: None,
                    run_id: Some(run_id.to_string()),
                };
                self.propose(&verified, ProposalSource::Planned, why, &old)
                    .map(Saved::Proposed)
            }
            old => {
                if let Ok(Some(old)) = old
                    && old.plan != *plan
                {
                    self.invalidate(
                        &old,
                        replaced(now, "a newer verified plan replaced it", Some(run_id)),
                    )?;
                }
                let entry = fresh_entry(&verified, now);
                write_json(&self.path(&scenario.id), &entry)?;
                Ok(Saved::Cached(Box::new(entry)))
            }
        }
    }

    /// Saves a verified plan a person chose with a command of their own (`windup replay
    /// --save`, `windup fragment extract --rewrite`): it replaces whatever is active, protected
    /// or not, the old entry kept in `stale/` as replaced with `why`. `reviewed` marks the new
    /// entry as accepted.
    pub fn save_chosen(
        &self,
        verified: &Verified<'_>,
        reviewed: Option<Reviewed>,
        why: &str,
    ) -> std::io::Result<CacheEntry> {
        let now = OffsetDateTime::now_utc();
        if let Ok(Some(old)) = self.load(&verified.scenario.id)
            && old.plan != *verified.plan
        {
            self.invalidate(&old, replaced(now, why, Some(verified.run_id)))?;
        }
        let mut entry = fresh_entry(verified, now);
        entry.reviewed = reviewed;
        write_json(&self.path(&verified.scenario.id), &entry)?;
        Ok(entry)
    }

    /// Puts a plan restored from the dashboard in place of the local entry; a local plan that
    /// differs is kept in `stale/` as replaced. A protected local plan is kept and the
    /// dashboard's is not stored: it was not verified against this checkout, and a proposal
    /// from it would take the place of one a failed replay made.
    pub fn restore(&self, entry: &CacheEntry, run_note: &str) -> std::io::Result<Restored> {
        if let Ok(Some(old)) = self.load(&entry.key.scenario_id) {
            if old.protected() && old.plan != entry.plan {
                return Ok(Restored::KeptProtected);
            }
            if old.protected() {
                // The same plan: its newer record, with the person's acceptance kept.
                let entry = CacheEntry {
                    reviewed: old.reviewed.or_else(|| entry.reviewed.clone()),
                    ..entry.clone()
                };
                write_json(&self.path(&entry.key.scenario_id), &entry)?;
                return Ok(Restored::Stored);
            }
            if old.plan != entry.plan {
                self.invalidate(
                    &old,
                    replaced(
                        OffsetDateTime::now_utc(),
                        &format!("the dashboard held a newer verified plan ({run_note})"),
                        None,
                    ),
                )?;
            }
        }
        write_json(&self.path(&entry.key.scenario_id), entry)?;
        Ok(Restored::Stored)
    }
}

/// A new active entry for a plan just verified.
pub(super) fn fresh_entry(v: &Verified<'_>, now: OffsetDateTime) -> CacheEntry {
    CacheEntry {
        cache_version: CACHE_VERSION.to_string(),
        key: CacheKey {
            scenario_id: v.scenario.id.clone(),
            start_url: v.scenario.start_url.clone(),
            scenario_sha: v.scenario.sha(),
            start_sig: v.start_sig.map(str::to_string),
        },
        plan: v.plan.clone(),
        status: CacheStatus::Active,
        stats: CacheStats {
            created_at: now,
            last_verified_at: now,
            verified_runs: 1,
            last_duration_ms: v.duration_ms,
        },
        invalidation: None,
        reviewed: None,
        proposal: None,
        baseline: v.baseline.cloned(),
    }
}

/// Why an entry was replaced by another.
pub(super) fn replaced(at: OffsetDateTime, message: &str, run_id: Option<&str>) -> Invalidation {
    Invalidation {
        at,
        reason: "replaced".into(),
        failure_class: None,
        failed_action_id: None,
        message: Some(message.to_string()),
        url: None,
        start_sig_now: None,
        run_id: run_id.map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::Lookup;

    fn verified<'a>(s: &'a Scenario, plan: &'a Plan, ms: u64, run: &'a str) -> Verified<'a> {
        Verified {
            scenario: s,
            plan,
            start_sig: None,
            duration_ms: ms,
            run_id: run,
            baseline: None,
        }
    }

    fn scenario() -> Scenario {
        windup_model::validate::scenario_from_yaml(
            "s.yaml",
            "id: s\ntask: Do it.\nstart_url: /start\n",
            Some("s"),
        )
        .unwrap()
    }

    fn plan(by: &str, url: &str) -> Plan {
        serde_json::from_value(serde_json::json!({
            "plan_version": "0.2", "scenario_id": "s", "task": "Do it.", "start_url": "/start",
            "generated_by": by,
            "actions": [{"id": "a1", "type": "goto", "url": url, "expect": {"url": url}}]
        }))
        .unwrap()
    }

    fn cache_with(by: &str) -> (tempfile::TempDir, PlanCache) {
        let dir = tempfile::tempdir().unwrap();
        let cache = PlanCache::new(dir.path());
        let s = scenario();
        let first = plan(by, "/one");
        let v = Verified {
            scenario: &s,
            plan: &first,
            start_sig: None,
            duration_ms: 5,
            run_id: "r0",
            baseline: None,
        };
        cache.save_chosen(&v, None, "first").unwrap();
        (dir, cache)
    }

    fn stale_count(cache: &PlanCache) -> usize {
        cache.stale_entries("s").len()
    }

    #[test]
    fn a_run_replaces_a_machine_plan_but_only_proposes_beside_a_persons() {
        let s = scenario();
        let (_dir, cache) = cache_with("openai/gpt-4.1-mini");
        let saved = cache
            .save_verified(&verified(&s, &plan("openai/gpt-4.1-mini", "/two"), 5, "r1"))
            .unwrap();
        assert!(matches!(saved, Saved::Cached(_)));
        assert_eq!(
            stale_count(&cache),
            1,
            "the machine-made plan went to stale"
        );

        let (_dir, cache) = cache_with("human");
        let before = std::fs::read(cache.path("s")).unwrap();
        let Saved::Proposed(p) = cache
            .save_verified(&verified(&s, &plan("openai/gpt-4.1-mini", "/two"), 5, "r1"))
            .unwrap()
        else {
            panic!("a person's plan is never replaced by a run");
        };
        assert_eq!(p.file, "e2e/.windup/cache/proposals/s.json");
        assert_eq!(p.diff.changed.len(), 1);
        assert_eq!(std::fs::read(cache.path("s")).unwrap(), before);
        assert_eq!(stale_count(&cache), 0);
        let proposal = cache.load_proposal("s").unwrap().unwrap();
        assert_eq!(proposal.status, CacheStatus::Proposed);
        assert_eq!(proposal.proposal.unwrap().why.run_id.as_deref(), Some("r1"));
        // The active entry is still the one looked up.
        assert!(matches!(cache.lookup(&s).unwrap(), Lookup::Hit(_)));
    }

    #[test]
    fn the_same_plan_refreshes_a_protected_entry_and_keeps_its_review() {
        let s = scenario();
        let (_dir, cache) = cache_with("openai/gpt-4.1-mini");
        let mut entry = cache.load("s").unwrap().unwrap();
        entry.reviewed = Some(Reviewed {
            at: OffsetDateTime::now_utc(),
            by: Some("Ada <ada@example.com>".into()),
        });
        write_json(&cache.path("s"), &entry).unwrap();
        let Saved::Cached(again) = cache
            .save_verified(&verified(&s, &entry.plan, 7, "r2"))
            .unwrap()
        else {
            panic!("the same plan is no proposal");
        };
        assert_eq!(again.reviewed, entry.reviewed);
        assert_eq!(again.stats.verified_runs, 2);
        assert!(cache.load_proposal("s").unwrap().is_none());
    }

    #[test]
    fn restore_keeps_a_protected_plan_and_a_persons_command_replaces_it() {
        let s = scenario();
        let (_dir, cache) = cache_with("human");
        let before = std::fs::read(cache.path("s")).unwrap();
        let mut remote = cache.load("s").unwrap().unwrap();
        remote.plan = plan("dashboard", "/two");
        assert_eq!(
            cache.restore(&remote, "branch x").unwrap(),
            Restored::KeptProtected
        );
        assert_eq!(std::fs::read(cache.path("s")).unwrap(), before);
        assert_eq!(stale_count(&cache), 0);

        let mine = plan("openai/gpt-4.1-mini", "/three");
        let v = Verified {
            scenario: &s,
            plan: &mine,
            start_sig: None,
            duration_ms: 5,
            run_id: "r3",
            baseline: None,
        };
        let review = Reviewed {
            at: OffsetDateTime::now_utc(),
            by: None,
        };
        let entry = cache
            .save_chosen(&v, Some(review.clone()), "replay --save")
            .unwrap();
        assert_eq!(entry.reviewed, Some(review));
        assert_eq!(stale_count(&cache), 1);
    }
}
