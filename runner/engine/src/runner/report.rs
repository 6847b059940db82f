//! The run report: totals and timings over the scenarios' results, stamped with git and CI
//! information (and the shard of a sharded run).

use time::OffsetDateTime;
use windup_model::report::REPORT_VERSION;
use windup_model::{CacheOutcome, CiInfo, RunReport, ScenarioResult, ScenarioStatus, Totals};

use super::Runner;

impl Runner {
    /// The run's report: its results with totals and timings, stamped with the version, the base
    /// URL, and the git commit and CI run read from the environment.
    pub(super) fn report(
        &self,
        run_id: String,
        started_at: OffsetDateTime,
        scenarios: Vec<ScenarioResult>,
    ) -> RunReport {
        let finished_at = OffsetDateTime::now_utc();
        let mut totals = Totals {
            scenarios: scenarios.len() as u32,
            duration_ms: (finished_at - started_at).whole_milliseconds().max(0) as u64,
            ..Totals::default()
        };
        for s in &scenarios {
            match s.status {
                ScenarioStatus::Passed => totals.passed += 1,
                ScenarioStatus::Failed => totals.failed += 1,
                ScenarioStatus::Skipped => totals.skipped += 1,
            }
            totals.llm_calls += s.llm_calls;
            totals.cost_micro_usd += s.cost_micro_usd;
            if matches!(s.cache, CacheOutcome::Hit | CacheOutcome::HitChangedPage) {
                totals.cache_hits += 1;
            }
            if s.flaky {
                totals.flaky += 1;
            }
            if s.heal.is_some() {
                totals.healed += 1;
            }
        }
        // Every string of the report is masked, whatever put a secret there.
        self.secrets.redact_all(RunReport {
            report_version: REPORT_VERSION.to_string(),
            run_id,
            started_at,
            finished_at,
            windup_version: env!("CARGO_PKG_VERSION").to_string(),
            base_url: self.config.base_url.as_ref().map(|u| u.to_string()),
            environment: self.config.environment.clone(),
            git: crate::ci::git_info(&self.config.root, &self.config.env),
            ci: crate::ci::ci_info(&self.config.env),
            totals,
            scenarios,
            debrief: None,
            hooks: Vec::new(),
        })
    }
}

/// A shard's run says which shard it was, in its CI info (a local run gets a `local` one).
pub(super) fn stamp_shard(report: &mut RunReport, shard: Option<(u32, u32)>) {
    if let Some((i, n)) = shard {
        let ci = report.ci.get_or_insert_with(|| CiInfo {
            provider: "local".into(),
            workflow_run: None,
            job: None,
            shard: None,
        });
        ci.shard = Some(format!("{i}/{n}"));
    }
}
