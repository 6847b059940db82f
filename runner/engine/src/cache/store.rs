//! The cache folder: where each scenario's active entry, stale entries and proposal live,
//! reading them (every file checked like any input), and the move from active to stale.

use std::path::{Path, PathBuf};

use windup_model::limits::InputFile;
use windup_model::validate::cache_entry_from_json;
use windup_model::{
    Baseline, CacheEntry, CacheStatus, InputError, Invalidation, Problems, Scenario,
};

use crate::fsutil::{read_input, write_json};
use crate::project::Layout;

/// What the cache holds for a scenario.
#[derive(Debug, Clone)]
pub enum Lookup {
    /// A plan verified for exactly this scenario text.
    Hit(Box<CacheEntry>),
    /// A plan made for an earlier text of the scenario: not to be replayed.
    Changed(Box<CacheEntry>),
    /// No entry: the scenario has not been planned and verified yet.
    Miss,
}

/// The cache folder of one project: where each scenario's entry lives, and the moves between
/// active and stale.
#[derive(Debug, Clone)]
pub struct PlanCache {
    root: PathBuf,
    dir: PathBuf,
}

impl PlanCache {
    /// The cache of the project at `root` (nothing is read or created yet).
    pub fn new(root: &Path) -> Self {
        PlanCache {
            root: root.to_path_buf(),
            dir: root.join(Layout::CACHE_DIR),
        }
    }

    /// The project root the cache belongs to.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder of active entries.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where invalidated and replaced entries are kept, with why.
    pub fn stale_dir(&self) -> PathBuf {
        self.root.join(Layout::STALE_DIR)
    }

    /// Where verified plans wait for a person to accept them in place of protected ones.
    pub fn proposals_dir(&self) -> PathBuf {
        self.root.join(Layout::PROPOSALS_DIR)
    }

    /// The proposal file of a scenario, whether or not it exists.
    pub fn proposal_path(&self, scenario_id: &str) -> PathBuf {
        self.proposals_dir().join(format!("{scenario_id}.json"))
    }

    /// The active entry's file of a scenario, whether or not it exists.
    pub fn path(&self, scenario_id: &str) -> PathBuf {
        self.dir.join(format!("{scenario_id}.json"))
    }

    /// Reads the active entry of a scenario; a malformed file is an error naming it.
    pub fn load(&self, scenario_id: &str) -> Result<Option<CacheEntry>, Problems> {
        let path = self.path(scenario_id);
        let file = path.display().to_string();
        let Some(text) = read_input(&path, &file, InputFile::CacheEntry)? else {
            return Ok(None);
        };
        let entry = cache_entry_from_json(&file, &text)?;
        if entry.key.scenario_id != scenario_id {
            return Err(InputError::new(
                file,
                "key.scenario_id",
                format!(
                    "the entry is for `{}`, not `{scenario_id}`",
                    entry.key.scenario_id
                ),
                "delete the file; the next run plans the scenario again",
            )
            .into());
        }
        Ok(Some(entry))
    }

    /// Whether the scenario has a plan that may be replayed: its entry must be active and keyed
    /// by the scenario's current text and start URL.
    pub fn lookup(&self, scenario: &Scenario) -> Result<Lookup, Problems> {
        Ok(match self.load(&scenario.id)? {
            None => Lookup::Miss,
            Some(entry)
                if entry.key.scenario_sha == scenario.sha()
                    && entry.key.start_url == scenario.start_url
                    && entry.status == CacheStatus::Active =>
            {
                Lookup::Hit(Box::new(entry))
            }
            Some(entry) => Lookup::Changed(Box::new(entry)),
        })
    }

    /// Moves an entry to `stale/<id>-<timestamp>.json` with the reason and evidence.
    /// The stale copy is written before the active file is removed: a crash between the two
    /// leaves the old entry in place, never nothing. Callers check [`CacheEntry::protected`]
    /// first: a run never moves a protected plan.
    pub fn invalidate(
        &self,
        entry: &CacheEntry,
        invalidation: Invalidation,
    ) -> std::io::Result<PathBuf> {
        let path = self.keep_stale(entry, invalidation)?;
        remove_if_there(&self.path(&entry.key.scenario_id))?;
        Ok(path)
    }

    /// Puts back an entry [`PlanCache::invalidate`] moved, when nothing took its place: the
    /// plan it had to give way to was never verified, and a failure never leaves a scenario
    /// without the only plan that worked. Whether it was put back.
    pub fn reinstate(&self, entry: &CacheEntry) -> std::io::Result<bool> {
        let path = self.path(&entry.key.scenario_id);
        if path.exists() {
            return Ok(false);
        }
        let mut active = entry.clone();
        active.status = CacheStatus::Active;
        active.invalidation = None;
        write_json(&path, &active)?;
        Ok(true)
    }

    /// Writes a copy of an entry to `stale/<id>-<timestamp>.json` with the reason and evidence,
    /// leaving the active file as it is.
    pub fn keep_stale(
        &self,
        entry: &CacheEntry,
        invalidation: Invalidation,
    ) -> std::io::Result<PathBuf> {
        let stamp = invalidation.at.unix_timestamp_nanos() / 1_000_000;
        let mut stale = entry.clone();
        stale.status = CacheStatus::Stale;
        stale.invalidation = Some(invalidation);
        let path = self
            .stale_dir()
            .join(format!("{}-{stamp}.json", entry.key.scenario_id));
        write_json(&path, &stale)?;
        Ok(path)
    }

    /// Every stale entry of a scenario, oldest first.
    pub fn stale_entries(&self, scenario_id: &str) -> Vec<PathBuf> {
        let prefix = format!("{scenario_id}-");
        let mut out: Vec<PathBuf> = std::fs::read_dir(self.stale_dir())
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".json"))
            })
            .collect();
        out.sort();
        out
    }

    /// The baseline of the newest stale entry of a scenario that has one (and is still for
    /// it): what the app's pages did when an earlier plan of it was verified.
    pub fn last_stale_baseline(&self, scenario_id: &str) -> Option<Baseline> {
        self.stale_entries(scenario_id)
            .iter()
            .rev()
            .find_map(|path| {
                let file = path.display().to_string();
                let text = read_input(path, &file, InputFile::CacheEntry).ok()??;
                let entry = cache_entry_from_json(&file, &text).ok()?;
                (entry.key.scenario_id == scenario_id)
                    .then_some(entry.baseline)
                    .flatten()
            })
    }
}

/// Removes a file; one that is not there is no error.
pub(super) fn remove_if_there(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}
