//! The trajectory cache: one verified plan per scenario at `e2e/.windup/cache/<id>.json`, keyed
//! by scenario id, start path and scenario hash. Saved only after a full verified run; a failed
//! replay moves the entry to `stale/` with its evidence. All writes are atomic.

use std::path::{Path, PathBuf};

use time::OffsetDateTime;
use windup_model::cache::CACHE_VERSION;
use windup_model::limits::InputFile;
use windup_model::validate::cache_entry_from_json;
use windup_model::{
    CacheEntry, CacheKey, CacheStats, CacheStatus, InputError, Invalidation, Plan, Problems,
    Scenario,
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
    dir: PathBuf,
}

impl PlanCache {
    /// The cache of the project at `root` (nothing is read or created yet).
    pub fn new(root: &Path) -> Self {
        PlanCache {
            dir: root.join(Layout::CACHE_DIR),
        }
    }

    /// The folder of active entries.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where invalidated and replaced entries are kept, with why.
    pub fn stale_dir(&self) -> PathBuf {
        self.dir.join("stale")
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

    /// Saves a plan that has just passed a full verified run. An older, different entry is
    /// kept in `stale/` as replaced.
    pub fn save_verified(
        &self,
        scenario: &Scenario,
        plan: &Plan,
        start_sig: Option<String>,
        duration_ms: u64,
        run_id: &str,
    ) -> std::io::Result<CacheEntry> {
        let now = OffsetDateTime::now_utc();
        if let Ok(Some(old)) = self.load(&scenario.id)
            && old.plan != *plan
        {
            self.invalidate(
                &old,
                Invalidation {
                    at: now,
                    reason: "replaced".into(),
                    failure_class: None,
                    failed_action_id: None,
                    message: Some("a newer verified plan replaced it".into()),
                    url: None,
                    start_sig_now: None,
                    run_id: Some(run_id.to_string()),
                },
            )?;
        }
        let entry = CacheEntry {
            cache_version: CACHE_VERSION.to_string(),
            key: CacheKey {
                scenario_id: scenario.id.clone(),
                start_url: scenario.start_url.clone(),
                scenario_sha: scenario.sha(),
                start_sig,
            },
            plan: plan.clone(),
            status: CacheStatus::Active,
            stats: CacheStats {
                created_at: now,
                last_verified_at: now,
                verified_runs: 1,
                last_duration_ms: duration_ms,
            },
            invalidation: None,
            reviewed: None,
            proposal: None,
        };
        write_json(&self.path(&scenario.id), &entry)?;
        Ok(entry)
    }

    /// Puts a plan restored from the dashboard in place of the local entry; a local plan that
    /// differs is kept in `stale/` as replaced.
    pub fn restore(&self, entry: &CacheEntry, run_note: &str) -> std::io::Result<()> {
        if let Ok(Some(old)) = self.load(&entry.key.scenario_id)
            && old.plan != entry.plan
        {
            self.invalidate(
                &old,
                Invalidation {
                    at: OffsetDateTime::now_utc(),
                    reason: "replaced".into(),
                    failure_class: None,
                    failed_action_id: None,
                    message: Some(format!(
                        "the dashboard held a newer verified plan ({run_note})"
                    )),
                    url: None,
                    start_sig_now: None,
                    run_id: None,
                },
            )?;
        }
        write_json(&self.path(&entry.key.scenario_id), entry)
    }

    /// Moves an entry to `stale/<id>-<timestamp>.json` with the reason and evidence.
    /// The stale copy is written before the active file is removed: a crash between the two
    /// leaves the old entry in place, never nothing.
    pub fn invalidate(
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
        match std::fs::remove_file(self.path(&entry.key.scenario_id)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
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
}
