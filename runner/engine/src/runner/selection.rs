//! Which scenarios a run takes: ids, tags, `--failed` (from the last run's record) and a stable
//! shard of the suite, plus the setups they need; and the checks of every input (scenarios,
//! fragments, cached plans, the base URL) made before anything starts, so a bad input stops
//! the run with every problem at once.

use std::path::Path;

use windup_model::{InputError, Problems, RunReport, ScenarioStatus};

use super::{RunError, Runner, pick};
use crate::cache::{Lookup, PlanCache};
use crate::executor::missing_upload_files;
use crate::fragments::Fragments;
use crate::project::{Layout, ScenarioFile, display, load_scenarios};

/// Which scenarios a run takes, and how often it retries them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Selection {
    /// What to run, as words ([`super::pick`]): ids, globs over ids (`checkout-*`) and
    /// `@tags`; all when empty.
    pub ids: Vec<String>,
    /// Only scenarios carrying one of these tags.
    pub tags: Vec<String>,
    /// Only the scenarios that failed in the last run (`e2e/.windup/last-run.json`).
    pub failed: bool,
    /// `(i, n)`: the i-th of n stable parts of the suite, split by a hash of scenario ids.
    pub shard: Option<(u32, u32)>,
    /// Extra runs of a failed scenario; one that then passes is flaky.
    pub retries: u32,
    /// Scenarios run at once, each in its own context of one browser (0 or 1: one at a time).
    pub jobs: u32,
}

impl Selection {
    /// Scenarios at once when none is asked for: the number of cores.
    pub fn default_jobs() -> u32 {
        std::thread::available_parallelism().map_or(1, |n| n.get() as u32)
    }
}

/// `e2e/.windup/last-run.json`: what `--failed` selects.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct LastRun {
    run_id: String,
    failed: Vec<String>,
}

impl LastRun {
    /// The last run's record; none when there is no readable one.
    fn read(root: &Path) -> Option<LastRun> {
        std::fs::read_to_string(root.join(Layout::LAST_RUN_FILE))
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
    }

    /// Records the scenarios this run failed. A record that cannot be written is a warning.
    pub(super) fn write(root: &Path, report: &RunReport) {
        let last = LastRun {
            run_id: report.run_id.clone(),
            failed: report
                .scenarios
                .iter()
                .filter(|s| s.status == ScenarioStatus::Failed)
                .map(|s| s.scenario_id.clone())
                .collect(),
        };
        if let Err(e) = crate::fsutil::write_json(&root.join(Layout::LAST_RUN_FILE), &last) {
            tracing::warn!("could not write {}: {e}", Layout::LAST_RUN_FILE);
        }
    }
}

/// Parses `--shard i/n` (1-based).
pub fn parse_shard(raw: &str) -> Result<(u32, u32), InputError> {
    let bad = || {
        InputError::new(
            "command line",
            "--shard",
            format!("`{raw}` is not a shard"),
            "write --shard i/n with 1 <= i <= n, such as --shard 2/4",
        )
    };
    let (i, n) = raw.split_once('/').ok_or_else(bad)?;
    let (i, n): (u32, u32) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i == 0 || i > n {
        return Err(bad());
    }
    Ok((i, n))
}

/// Which shard (0-based) of `n` a scenario belongs to: a hash of its id, so every machine of a
/// matrix agrees without talking, and adding a scenario moves no other.
pub fn shard_of(scenario_id: &str, n: u32) -> u32 {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(scenario_id.as_bytes());
    let head = u64::from_be_bytes(digest[..8].try_into().expect("8 bytes"));
    (head % u64::from(n)) as u32
}

/// Whether the words are all `@tags`, which may pick nothing (a tag on no scenario yet).
fn only_tags(words: &[String]) -> bool {
    !words.is_empty() && words.iter().all(|w| w.starts_with('@'))
}

/// A scenario selected for this run, with what the cache holds for it.
pub(super) struct Planned {
    pub(super) file: ScenarioFile,
    pub(super) lookup: Lookup,
}

impl Runner {
    /// Checks every input the run needs before anything starts.
    pub(super) fn prepare(
        &self,
        selection: &Selection,
    ) -> Result<(Vec<Planned>, Fragments), RunError> {
        let root = &self.config.root;
        let mut problems = Vec::new();
        let all = load_scenarios(root)?;
        // The words first (ids, globs, @tags: the same language as the Action's `scenarios`),
        // then the filters.
        let mut scenarios: Vec<ScenarioFile> = match pick(&all, &selection.ids) {
            Ok(picked) => picked.into_iter().cloned().collect(),
            Err(bad) => {
                let folder = display(root, &root.join(Layout::SCENARIOS_DIR));
                problems.extend(
                    bad.into_iter()
                        .map(|b| InputError::new(&folder, &b.word, b.problem, b.fix)),
                );
                Vec::new()
            }
        };
        if !selection.tags.is_empty() {
            scenarios.retain(|s| s.scenario.tags.iter().any(|t| selection.tags.contains(t)));
        }
        if selection.failed {
            match LastRun::read(root) {
                Some(last) => scenarios.retain(|s| last.failed.contains(&s.scenario.id)),
                None => problems.push(InputError::new(
                    display(root, &root.join(Layout::LAST_RUN_FILE)),
                    "(file)",
                    "there is no record of a previous run, so --failed selects nothing",
                    "run the suite once without --failed",
                )),
            }
        }
        let fragments = match Fragments::load(&root.join(Layout::FRAGMENTS_DIR)) {
            Ok(f) => f,
            Err(p) => {
                problems.extend(p.0);
                Fragments::default()
            }
        };
        // Fragments run inside plans: they pass the same boundary, and the files their uploads
        // name must be there.
        let dir = display(root, &root.join(Layout::FRAGMENTS_DIR));
        if let Some(boundary) = &self.boundary {
            problems.extend(fragments.boundary_problems(&dir, boundary));
        }
        for id in fragments.ids() {
            if let Some(f) = fragments.get(id) {
                problems.extend(missing_upload_files(
                    root,
                    &format!("{dir}/{id}.json"),
                    "",
                    &f.actions,
                ));
            }
        }
        let mut selected = scenarios;
        // The shard splits what the other filters chose, so named scenarios split across a
        // matrix too (a named scenario of another shard is that shard's, not an error).
        if let Some((i, n)) = selection.shard {
            selected.retain(|s| shard_of(&s.scenario.id, n) == i - 1);
        }
        if selected.is_empty()
            && problems.is_empty()
            && (selection.failed
                || selection.shard.is_some()
                || !selection.tags.is_empty()
                || only_tags(&selection.ids))
        {
            // A filter that leaves nothing is not an error: a shard can be empty, and a suite
            // with no failures has nothing to re-run.
            return Ok((Vec::new(), Fragments::default()));
        }
        if selected.is_empty() && problems.is_empty() {
            problems.push(InputError::new(
                display(root, &root.join(Layout::SCENARIOS_DIR)),
                "(folder)",
                "there are no scenarios to run",
                format!(
                    "add a scenario file such as {}/sign-in.yaml, or pass --root to the project",
                    Layout::SCENARIOS_DIR
                ),
            ));
        }
        // A selected scenario brings the setups it needs, whatever the filters.
        let needed: Vec<String> = selected
            .iter()
            .flat_map(|s| s.scenario.needs.iter().cloned())
            .collect();
        for need in needed {
            if !selected.iter().any(|s| s.scenario.id == need)
                && let Some(setup) = all.iter().find(|s| s.scenario.id == need)
            {
                selected.push(setup.clone());
            }
        }
        let cache = PlanCache::new(root);
        let mut planned = Vec::new();
        for file in selected {
            match cache.lookup(&file.scenario) {
                Ok(lookup) => {
                    if let Lookup::Hit(entry) = &lookup {
                        let at = display(root, &cache.path(&file.scenario.id));
                        problems.extend(fragments.check_uses(&at, "plan.", &entry.plan));
                        // A missing upload file is the project's to fix: re-planning would
                        // name it again.
                        problems.extend(missing_upload_files(
                            root,
                            &at,
                            "plan.",
                            &entry.plan.actions,
                        ));
                    }
                    planned.push(Planned { file, lookup });
                }
                Err(p) => problems.extend(p.0),
            }
        }
        if let Err(e) = self.config.require_base_url() {
            problems.push(e);
        }
        if problems.is_empty() {
            Ok((planned, fragments))
        } else {
            Err(RunError::Input(Problems(problems)))
        }
    }
}
