//! A run: the selected scenarios scheduled against one browser. Setup scenarios first, one at
//! a time (the rest start with their saved storage); scenarios whose setup failed are skipped;
//! then the rest, in order with the next context opened ahead, or several at once. Each
//! scenario gets its retries (a pass on a retry is flaky); after the run come the opt-in fix
//! suggestions, the opt-in debrief, the report, the ledger, the last-run record and the
//! dashboard.

use std::collections::HashMap;

use time::OffsetDateTime;
use windup_model::{
    CacheOutcome, FailureClass, RunReport, Scenario, ScenarioResult, ScenarioStatus,
};

use super::execute::Prefetched;
use super::hooks::{attempt, blocked_by_before_all};
use super::planning::Phases;
use super::report::stamp_shard;
use super::results::failed;
use super::selection::{LastRun, Planned};
use super::shared::{RunShared, Storages};
use super::{RunError, Runner, ScenarioRun, Selection};
use crate::cache::{Lookup, PlanCache};
use crate::events::{Event, EventSink};
use crate::planner::Spend;

/// One scenario's result with what its ledger record needs.
pub(super) struct Outcome {
    pub(super) result: ScenarioResult,
    pub(super) started_at: OffsetDateTime,
    pub(super) spend: Spend,
    pub(super) phases: Phases,
}

impl Outcome {
    /// A result that cost nothing and ran no phase (a scenario that never started).
    fn of(result: ScenarioResult) -> Outcome {
        Outcome {
            result,
            started_at: OffsetDateTime::now_utc(),
            spend: Spend::default(),
            phases: Phases::default(),
        }
    }
}

impl Runner {
    /// `windup run`: every scenario (or those named), from the plan cache.
    pub async fn run(&self, ids: &[String], events: &dyn EventSink) -> Result<RunReport, RunError> {
        let selection = Selection {
            ids: ids.to_vec(),
            ..Selection::default()
        };
        self.run_selected(&selection, events).await
    }

    /// `windup run` with filters, sharding and retries.
    pub async fn run_selected(
        &self,
        selection: &Selection,
        events: &dyn EventSink,
    ) -> Result<RunReport, RunError> {
        let (planned, fragments) = self.prepare(selection)?;
        let planned = self.restore_plans(planned, &fragments).await;
        self.browser
            .ensure_started()
            .await
            .map_err(RunError::from)?;
        let started_at = OffsetDateTime::now_utc();
        let run_id = uuid::Uuid::now_v7().to_string();
        let cache = PlanCache::new(&self.config.root);
        let storages = Storages::default();
        let site = self.open_site(&planned).await;
        // Every page the run sees goes to the site map too.
        let tee = super::site::Tee(events, &site.collector);
        let shared = RunShared {
            cache: &cache,
            fragments: &fragments,
            run_id: &run_id,
            events: &tee,
            storage: &storages,
            site: &site,
        };
        events.on_event(&Event::RunStarted {
            scenarios: planned.len(),
        });
        let scenarios: HashMap<String, Scenario> = planned
            .iter()
            .map(|p| (p.file.scenario.id.clone(), p.file.scenario.clone()))
            .collect();
        // Setup scenarios first, one at a time; then the rest, which start with their storage.
        let (hook_runs, before_all_failed) = self.before_all().await;
        let (planned, mut outcomes) = match &before_all_failed {
            Some(why) => {
                let blocked = blocked_by_before_all(self, planned, why, events);
                (Vec::new(), blocked.into_iter().map(Outcome::of).collect())
            }
            None => (planned, Vec::new()),
        };
        let (setups, rest): (Vec<Planned>, Vec<Planned>) =
            planned.into_iter().partition(|p| p.file.scenario.setup);
        for p in setups {
            outcomes.push(self.run_one(p, None, selection, &shared).await);
        }
        let (mut blocked, rest) = skip_blocked(rest, &outcomes, events);
        let ran = self.run_all(rest, selection, &shared).await;
        outcomes.extend(ran);
        outcomes.append(&mut blocked);
        if self.config.suggest && !self.config.require_cached {
            self.suggest_fixes(&mut outcomes, &scenarios, &fragments)
                .await;
        }
        // Reports list scenarios in the suite's order (by id), whatever order they ran in.
        outcomes.sort_by(|a, b| a.result.scenario_id.cmp(&b.result.scenario_id));
        let debrief = if self.config.debrief {
            self.debrief(&mut outcomes, &fragments).await
        } else {
            None
        };
        let mut report = self.report(
            run_id,
            started_at,
            outcomes.iter().map(|o| o.result.clone()).collect(),
        );
        report.debrief = debrief;
        report.hooks = hook_runs;
        let records = self.ledger().append(&report, &outcomes);
        if let Some(map) = site.close(self.config.base_url.as_ref(), &self.secrets) {
            self.save_site_map(&map).await;
        }
        LastRun::write(&self.config.root, &report);
        stamp_shard(&mut report, selection.shard);
        self.after_run(&report, &records).await;
        Ok(report)
    }

    /// Runs the scenarios that are not setups: in order, with the next context opened while
    /// one runs, or `jobs` at once. Outcomes come back in the order they were given.
    async fn run_all(
        &self,
        planned: Vec<Planned>,
        selection: &Selection,
        shared: &RunShared<'_>,
    ) -> Vec<Outcome> {
        // Hooks around each scenario reset data every scenario shares: one at a time.
        let jobs = match self.config.hooks.per_scenario() {
            true => 1,
            false => selection.jobs.max(1),
        };
        let mut outcomes = Vec::with_capacity(planned.len());
        if jobs == 1 {
            let total = planned.len();
            let mut next: Option<Prefetched> = None;
            for (i, p) in planned.into_iter().enumerate() {
                let session = next.take();
                // Without tab reuse, open the next scenario's context while this one runs: its
                // set-up then costs the next scenario no time. With reuse, the one tab is reset
                // between scenarios; a second one kept ready would cost a second renderer's
                // memory for about a tenth of a replay's time.
                if i + 1 < total && !self.config.browser.reuse_tabs {
                    let browser = self.browser.clone();
                    next = Some(tokio::spawn(async move { browser.acquire_session().await }));
                }
                outcomes.push(self.run_one(p, session, selection, shared).await);
            }
            if let Some(spare) = next
                && let Ok(Ok(session)) = spare.await
            {
                session.close().await;
            }
        } else {
            // Concurrent scenarios, each in its own context of the one browser; results come
            // back in the suite's order whatever order they finish in.
            use futures::StreamExt;
            // The first session takes the start-up tab: open it before the others race for it.
            let opened = self.browser.acquire_session().await;
            let mut first: Option<Prefetched> = Some(tokio::spawn(async move { opened }));
            let concurrent: Vec<Outcome> = futures::stream::iter(planned)
                .map(|p| self.run_one(p, first.take(), selection, shared))
                .buffered(jobs as usize)
                .collect()
                .await;
            outcomes.extend(concurrent);
        }
        outcomes
    }

    /// One scenario with its retries: the result as reported, and what its ledger record needs.
    async fn run_one(
        &self,
        p: Planned,
        session: Option<Prefetched>,
        selection: &Selection,
        shared: &RunShared<'_>,
    ) -> Outcome {
        let started = OffsetDateTime::now_utc();
        let scenario = &p.file.scenario;
        let mut run = ScenarioRun::new(self, scenario, *shared);
        let mut result = attempt(&mut run, p.lookup, session).await;
        let mut attempts = 1;
        let mut first_failure = None;
        // A failure that made a proposal is not retried: the plan was shown not to fit, and a
        // retry would only re-plan it again.
        while result.status == ScenarioStatus::Failed
            && attempts <= selection.retries
            && result.failure_class.is_some_and(retryable)
            && result.proposal.is_none()
        {
            first_failure.get_or_insert_with(|| result.clone());
            self.results().discard_trace(&result);
            attempts += 1;
            let lookup = shared.cache.lookup(scenario).unwrap_or(Lookup::Miss);
            result = attempt(&mut run, lookup, None).await;
        }
        result.attempts = attempts;
        if let (Some(first), ScenarioStatus::Passed) = (&first_failure, result.status) {
            // Passed on a retry: green, but flagged, with what failed first.
            result.flaky = true;
            result.message = Some(format!(
                "flaky: passed on attempt {attempts} after {}{}: {}",
                first
                    .failure_class
                    .map(|c| c.as_str())
                    .unwrap_or("a failure"),
                first
                    .failed_action_id
                    .as_deref()
                    .map(|a| format!(" at {a}"))
                    .unwrap_or_default(),
                first.message.as_deref().unwrap_or("")
            ));
        }
        let ScenarioRun { spend, phases, .. } = run;
        let mut result = self.results().redacted(result);
        shared.site.forget_if_lost(&result);
        result.task = Some(scenario.task.clone());
        result.llm_calls = spend.calls.total();
        result.cost_micro_usd = spend.cost_micro_usd;
        result.duration_ms = (OffsetDateTime::now_utc() - started)
            .whole_milliseconds()
            .max(0) as u64;
        shared.events.on_event(&Event::ScenarioFinished {
            result: result.clone(),
        });
        Outcome {
            result,
            started_at: started,
            spend,
            phases,
        }
    }
}

/// Failures worth a retry: the app, the browser or the timing may behave differently next time.
/// Planning outcomes (no plan, budget, rejected plans, --require-cached) would not.
fn retryable(class: FailureClass) -> bool {
    !matches!(
        class,
        FailureClass::NoPlan
            | FailureClass::NotCached
            | FailureClass::BudgetExceeded
            | FailureClass::PlanRejected
            | FailureClass::PlanIncomplete
            | FailureClass::PlanInvalid
    )
}

/// Splits off the scenarios that need a setup that did not pass: each is reported skipped,
/// saying which setup, and never runs. Returns their outcomes and the scenarios left to run.
fn skip_blocked(
    planned: Vec<Planned>,
    setups: &[Outcome],
    events: &dyn EventSink,
) -> (Vec<Outcome>, Vec<Planned>) {
    let failed_setups: Vec<String> = setups
        .iter()
        .filter(|o| o.result.status != ScenarioStatus::Passed)
        .map(|o| o.result.scenario_id.clone())
        .collect();
    let (blocked, rest): (Vec<Planned>, Vec<Planned>) = planned.into_iter().partition(|p| {
        p.file
            .scenario
            .needs
            .iter()
            .any(|n| failed_setups.contains(n))
    });
    let skipped = blocked
        .into_iter()
        .map(|p| {
            let s = &p.file.scenario;
            let mut result = failed(
                &s.id,
                CacheOutcome::None,
                FailureClass::NoPlan,
                format!(
                    "skipped: it needs the setup {} that did not pass",
                    s.needs
                        .iter()
                        .filter(|n| failed_setups.contains(n))
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            result.status = ScenarioStatus::Skipped;
            result.failure_class = None;
            result.task = Some(s.task.clone());
            events.on_event(&Event::ScenarioFinished {
                result: result.clone(),
            });
            Outcome::of(result)
        })
        .collect();
    (skipped, rest)
}
