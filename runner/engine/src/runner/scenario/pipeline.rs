//! One scenario's run as a pipeline, `ScenarioRun::run`: look up, then replay (heal, else
//! repair or keep the failure), re-plan or plan; every road ends in the scenario's result.

use windup_model::ScenarioResult;

use super::super::execute::Prefetched;
use super::ScenarioRun;
use super::outcome::{Healed, Looked, Replayed};
use crate::cache::Lookup;
use crate::events::Event;
use crate::project::display;
use crate::sitemap::AtRisk;

impl ScenarioRun<'_> {
    /// Runs the scenario once from what the cache holds for it: look up, then replay (heal,
    /// else repair or keep the failure), re-plan or plan; every road ends in its result.
    pub(in crate::runner) async fn run(
        &mut self,
        lookup: Lookup,
        prefetched: Option<Prefetched>,
    ) -> ScenarioResult {
        self.shared.events.on_event(&Event::ScenarioStarted {
            scenario_id: self.scenario.id.clone(),
        });
        match self.look_up(lookup) {
            Looked::Miss => self.plan_or_refuse("no plan is cached").await,
            Looked::Outdated(old) => self.replan_outdated(&old).await,
            Looked::Untrusted { entry, problems } => self.refuse_cached(&entry, &problems).await,
            Looked::AtRisk { entry, risk } => self.replan_at_risk(&entry, &risk).await,
            Looked::Hit { entry, risk } => {
                let result = match self.replay(&entry, prefetched).await {
                    Replayed::Done(result) => result,
                    Replayed::Failed(failed) => match self.heal(&entry, failed).await {
                        Healed::Yes(result) => result,
                        Healed::No(unhealed) => {
                            self.repair_or_keep(&entry, unhealed, risk.as_ref()).await
                        }
                    },
                };
                noted_at_risk(result, risk)
            }
        }
    }

    /// Judges what the cache holds: a plan outside the trust boundary is never run, and one the
    /// site map says will break is re-planned up front when `--replan-at-risk` and this run may.
    fn look_up(&self, lookup: Lookup) -> Looked {
        let entry = match lookup {
            Lookup::Miss => return Looked::Miss,
            Lookup::Changed(old) => return Looked::Outdated(old),
            Lookup::Hit(entry) => entry,
        };
        let runner = self.runner;
        let file = display(
            &runner.config.root,
            &self.shared.cache.path(&entry.key.scenario_id),
        );
        let problems = runner.plan_problems(&file, "plan.", &entry.plan, self.shared.fragments);
        if !problems.is_empty() {
            return Looked::Untrusted { entry, problems };
        }
        let risk = self.shared.site.at_risk(&entry.plan);
        match risk {
            // A protected plan is never retired up front: it is simply replayed.
            Some(risk)
                if runner.config.replan_at_risk
                    && !entry.protected()
                    && runner.planning_blocked(self.scenario).is_none() =>
            {
                Looked::AtRisk { entry, risk }
            }
            risk => Looked::Hit { entry, risk },
        }
    }
}

/// At risk is reported whatever the replay did: a pass means the map was stale.
fn noted_at_risk(mut result: ScenarioResult, risk: Option<AtRisk>) -> ScenarioResult {
    if let Some(risk) = risk {
        result.message = Some(match result.message {
            Some(m) => format!("{m} ({}, before the replay)", risk.describe()),
            None => format!("{}, but the replay passed", risk.describe()),
        });
    }
    result
}
