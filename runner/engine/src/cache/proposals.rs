//! Proposals: a verified re-plan or heal of a protected plan, kept at
//! `e2e/.windup/cache/proposals/<id>.json` (a cache entry with `status: proposed`) until a person
//! adopts it with `windup accept`. One per scenario: a newer proposal replaces an older one. The
//! protected plan it would replace is kept inside it, so the diff a reviewer reads is the one
//! `accept` applies.

use time::OffsetDateTime;
use windup_model::limits::InputFile;
use windup_model::validate::proposal_from_json;
use windup_model::{
    CacheEntry, CacheStatus, InputError, Invalidation, Problems, Proposal, ProposalSource,
    ProposedPlan, StepDiff,
};

use super::PlanCache;
use super::save::{Verified, fresh_entry};
use crate::fsutil::{read_input, write_json};
use crate::project::display;

impl PlanCache {
    /// Writes a verified plan as the proposal to replace the protected entry `protected`
    /// (atomically, over an older proposal of the scenario); returns it as a report names it.
    pub fn propose(
        &self,
        verified: &Verified<'_>,
        source: ProposalSource,
        why: Invalidation,
        protected: &CacheEntry,
    ) -> std::io::Result<ProposedPlan> {
        let mut entry = fresh_entry(verified, OffsetDateTime::now_utc());
        entry.status = CacheStatus::Proposed;
        entry.proposal = Some(Proposal {
            source,
            why,
            replaces: protected.plan.clone(),
        });
        write_json(&self.proposal_path(&verified.scenario.id), &entry)?;
        Ok(self
            .proposed(&entry)
            .expect("a proposal just made has its `proposal`"))
    }

    /// Reads a scenario's proposal; a malformed file is an error naming it.
    pub fn load_proposal(&self, scenario_id: &str) -> Result<Option<CacheEntry>, Problems> {
        let path = self.proposal_path(scenario_id);
        let file = display(self.root(), &path);
        let Some(text) = read_input(&path, &file, InputFile::Proposal)? else {
            return Ok(None);
        };
        let entry = proposal_from_json(&file, &text)?;
        if entry.key.scenario_id != scenario_id {
            return Err(InputError::new(
                file,
                "key.scenario_id",
                format!(
                    "the proposal is for `{}`, not `{scenario_id}`",
                    entry.key.scenario_id
                ),
                "delete the file; the next run that re-plans the scenario proposes again",
            )
            .into());
        }
        Ok(Some(entry))
    }

    /// The proposal run `run_id` wrote for a scenario, with `why` (the protected plan's failure
    /// in that run) put in it in place of the plain note the save wrote; none when that run
    /// wrote none.
    pub fn explain_proposal(
        &self,
        scenario_id: &str,
        run_id: &str,
        why: Invalidation,
    ) -> std::io::Result<Option<ProposedPlan>> {
        let Ok(Some(mut entry)) = self.load_proposal(scenario_id) else {
            return Ok(None);
        };
        let Some(proposal) = entry.proposal.as_mut() else {
            return Ok(None);
        };
        if proposal.why.run_id.as_deref() != Some(run_id) {
            return Ok(None);
        }
        proposal.why = why;
        let path = self.proposal_path(scenario_id);
        write_json(&path, &entry)?;
        Ok(self.proposed(&entry))
    }

    /// A proposal as a run's report names it: its file and its step diff.
    pub fn proposed(&self, entry: &CacheEntry) -> Option<ProposedPlan> {
        let proposal = entry.proposal.as_ref()?;
        Some(ProposedPlan {
            file: display(self.root(), &self.proposal_path(&entry.key.scenario_id)),
            source: proposal.source,
            diff: StepDiff::between(&proposal.replaces.actions, &entry.plan.actions),
        })
    }

    /// Every proposal waiting, by scenario id, each read (or its problems).
    pub fn proposals(&self) -> Vec<(String, Result<CacheEntry, Problems>)> {
        let mut ids: Vec<String> = std::fs::read_dir(self.proposals_dir())
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                name.strip_suffix(".json").map(str::to_string)
            })
            .collect();
        ids.sort();
        ids.into_iter()
            .filter_map(|id| match self.load_proposal(&id) {
                Ok(Some(p)) => Some((id, Ok(p))),
                Ok(None) => None,
                Err(e) => Some((id, Err(e))),
            })
            .collect()
    }
}
