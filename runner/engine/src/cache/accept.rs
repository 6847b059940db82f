//! `windup accept`: a person adopts a scenario's proposal, or marks its active plan as reviewed.
//! Either way the active plan is then protected. The new active entry is written before anything
//! is removed, so an accept that stops half way loses nothing and can be run again.

use std::path::Path;

use time::OffsetDateTime;
use windup_model::cache::CACHE_VERSION;
use windup_model::{CacheEntry, CacheStatus, InputError, Problems, Reviewed, StepDiff};

use super::PlanCache;
use super::save::replaced;
use super::store::remove_if_there;
use crate::fsutil::write_json;
use crate::project::{display, load_scenarios, named_scenario};

/// What `windup accept` did for one scenario.
#[derive(Debug, Clone, PartialEq)]
pub enum Accepted {
    /// The proposal is the active entry now, marked reviewed; the plan it replaced, if any, is
    /// in `stale/`.
    Adopted {
        /// The proposal's file, now removed.
        proposal: String,
        /// The replaced plan's stale copy.
        stale: Option<String>,
        /// What the adopted plan changed.
        diff: StepDiff,
    },
    /// No proposal: the active entry is marked reviewed.
    Marked {
        /// The active entry's file.
        file: String,
        /// The entry was verified for an earlier text of the scenario: the next run does not
        /// replay it (it re-plans it as a proposal, where it may plan).
        outdated: bool,
    },
}

/// Accepts scenario `id` of the project at `root` as the person git names there.
pub fn accept(root: &Path, id: &str) -> Result<Accepted, Problems> {
    let scenarios = load_scenarios(root)?;
    let scenario = named_scenario(root, &scenarios, id)?;
    let scenario = &scenario.scenario;
    let cache = PlanCache::new(root);
    let reviewed = Reviewed {
        at: OffsetDateTime::now_utc(),
        by: crate::ci::git_user(root),
    };
    let active = cache.load(id)?;
    let active_file = display(root, &cache.path(id));
    let Some(proposal) = cache.load_proposal(id)? else {
        let Some(mut entry) = active else {
            return Err(InputError::new(
                &active_file,
                "(file)",
                format!("nothing is cached for `{id}` and no proposal waits for it"),
                format!(
                    "run `windup run {id}` to plan it, or save a plan of yours with `windup replay PLAN.json --save`"
                ),
            )
            .into());
        };
        entry.cache_version = CACHE_VERSION.to_string();
        entry.reviewed = Some(reviewed);
        write(&cache.path(id), &active_file, &entry)?;
        let outdated =
            entry.key.scenario_sha != scenario.sha() || entry.key.start_url != scenario.start_url;
        return Ok(Accepted::Marked {
            file: active_file,
            outdated,
        });
    };
    let proposal_file = display(root, &cache.proposal_path(id));
    let Some(why) = proposal.proposal.clone() else {
        unreachable!("a proposal read has its `proposal`");
    };
    if proposal.key.scenario_sha != scenario.sha() || proposal.key.start_url != scenario.start_url {
        return Err(InputError::new(
            &proposal_file,
            "key.scenario_sha",
            "the proposal was made for an earlier text of the scenario",
            format!(
                "run `windup run {id}` for a proposal of the scenario as it is, or delete the file"
            ),
        )
        .into());
    }
    let diff = StepDiff::between(&why.replaces.actions, &proposal.plan.actions);
    let mut stale = None;
    if let Some(old) = &active
        && old.plan != proposal.plan
    {
        if old.plan != why.replaces {
            return Err(InputError::new(
                &proposal_file,
                "proposal.replaces",
                format!("{active_file} changed since the proposal was made against it"),
                format!(
                    "delete {proposal_file} to keep the active plan, or run `windup run {id}` again for a proposal against it"
                ),
            )
            .into());
        }
        let run = why
            .why
            .run_id
            .as_deref()
            .map(|r| format!(" (made in run {r})"))
            .unwrap_or_default();
        let message =
            format!("`windup accept` adopted the proposal {proposal_file}{run} in its place");
        let path = cache
            .keep_stale(old, replaced(reviewed.at, &message, None))
            .map_err(|e| unwritable(&display(root, &cache.stale_dir()), &e))?;
        stale = Some(display(root, &path));
    }
    let entry = CacheEntry {
        cache_version: CACHE_VERSION.to_string(),
        status: CacheStatus::Active,
        invalidation: None,
        reviewed: Some(reviewed),
        proposal: None,
        ..proposal
    };
    write(&cache.path(id), &active_file, &entry)?;
    remove_if_there(&cache.proposal_path(id)).map_err(|e| unwritable(&proposal_file, &e))?;
    Ok(Accepted::Adopted {
        proposal: proposal_file,
        stale,
        diff,
    })
}

fn write(path: &Path, file: &str, entry: &CacheEntry) -> Result<(), Problems> {
    write_json(path, entry).map_err(|e| unwritable(file, &e).into())
}

fn unwritable(file: &str, e: &std::io::Error) -> InputError {
    InputError::new(
        file,
        "(file)",
        format!("cannot be written: {e}"),
        "check the folder's permissions, then accept again",
    )
}

#[cfg(test)]
mod tests {
    use windup_model::{Invalidation, Plan, ProposalSource};

    use super::*;
    use crate::cache::Verified;
    use crate::project::Layout;

    fn plan(by: &str, url: &str) -> Plan {
        serde_json::from_value(serde_json::json!({
            "plan_version": "0.2", "scenario_id": "s", "task": "Do it.", "start_url": "/start",
            "generated_by": by,
            "actions": [{"id": "a1", "type": "goto", "url": url, "expect": {"url": url}}]
        }))
        .unwrap()
    }

    /// A project whose person's plan of `s` has a proposal waiting.
    fn project() -> (tempfile::TempDir, PlanCache) {
        let dir = tempfile::tempdir().unwrap();
        let scenarios = dir.path().join(Layout::SCENARIOS_DIR);
        std::fs::create_dir_all(&scenarios).unwrap();
        std::fs::write(
            scenarios.join("s.yaml"),
            "id: s\ntask: Do it.\nstart_url: /start\n",
        )
        .unwrap();
        let scenario = load_scenarios(dir.path()).unwrap().remove(0).scenario;
        let cache = PlanCache::new(dir.path());
        let (mine, theirs) = (plan("human", "/one"), plan("openai/gpt-4.1-mini", "/two"));
        let verified = |plan| Verified {
            scenario: &scenario,
            plan,
            start_sig: None,
            duration_ms: 5,
            run_id: "r1",
            baseline: None,
        };
        cache.save_chosen(&verified(&mine), None, "first").unwrap();
        let protected = cache.load("s").unwrap().unwrap();
        let why = Invalidation {
            at: OffsetDateTime::now_utc(),
            reason: "replay failed".into(),
            failure_class: None,
            failed_action_id: None,
            message: None,
            url: None,
            start_sig_now: None,
            run_id: Some("r1".into()),
        };
        cache
            .propose(&verified(&theirs), ProposalSource::Planned, why, &protected)
            .unwrap();
        (dir, cache)
    }

    #[test]
    fn an_accept_that_stopped_half_way_finishes_and_loses_nothing() {
        let (dir, cache) = project();
        // It stopped after writing the new active entry: the proposal is still there.
        let mut half = cache.load_proposal("s").unwrap().unwrap();
        half.status = CacheStatus::Active;
        half.proposal = None;
        write_json(&cache.path("s"), &half).unwrap();
        let Accepted::Adopted { stale, .. } = accept(dir.path(), "s").unwrap() else {
            panic!("the proposal is adopted");
        };
        assert!(
            stale.is_none(),
            "the active plan already was the proposal's"
        );
        assert!(cache.load_proposal("s").unwrap().is_none());
        let active = cache.load("s").unwrap().unwrap();
        assert!(active.reviewed.is_some() && active.protected());
    }

    #[test]
    fn a_proposal_made_against_another_plan_is_refused() {
        let (dir, cache) = project();
        let mut edited = cache.load("s").unwrap().unwrap();
        edited.plan = plan("human", "/edited");
        write_json(&cache.path("s"), &edited).unwrap();
        let problems = accept(dir.path(), "s").unwrap_err();
        assert_eq!(problems.0[0].field, "proposal.replaces");
        assert!(problems.0[0].fix.contains("delete"), "{}", problems.0[0]);
        assert_eq!(cache.load("s").unwrap().unwrap(), edited, "nothing changed");
        assert!(cache.load_proposal("s").unwrap().is_some());
    }
}
