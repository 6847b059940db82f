//! The report every run leaves without being asked: one HTML page in its run folder
//! (`e2e/.windup/runs/<run_id>/report.html`, beside the run's screenshots), and the run folders
//! kept: the newest [`KEEP_RUNS`], so a project that runs all day does not fill its disk.
//! Run folders are named by their run id, a UUID v7, which sorts by time; any other entry of
//! the folder (`windup mcp`'s, a user's) is never removed.

use std::path::{Path, PathBuf};

use windup_model::RunReport;

use crate::project::Layout;

/// Run folders kept; older ones are removed after each run.
pub const KEEP_RUNS: usize = 20;

/// The name of a run's HTML report in its folder.
pub const HTML_FILE: &str = "report.html";

/// Writes the run's HTML report into its run folder; returns its path.
pub fn write_run_html(root: &Path, report: &RunReport) -> std::io::Result<PathBuf> {
    let path = root
        .join(Layout::RUNS_DIR)
        .join(&report.run_id)
        .join(HTML_FILE);
    super::html::write_report(&path, report, root)?;
    Ok(path)
}

/// Removes the run folders older than the newest `keep` (never `current`); returns how many.
pub fn prune_runs(root: &Path, keep: usize, current: &str) -> std::io::Result<usize> {
    let dir = root.join(Layout::RUNS_DIR);
    let mut runs: Vec<String> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|name| is_run_id(name))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e),
    };
    runs.sort_unstable_by(|a, b| b.cmp(a));
    let mut removed = 0;
    for old in runs.iter().skip(keep).filter(|r| r.as_str() != current) {
        std::fs::remove_dir_all(dir.join(old))?;
        removed += 1;
    }
    Ok(removed)
}

/// A run id: a UUID v7 in its hyphenated lower-case form.
fn is_run_id(name: &str) -> bool {
    uuid::Uuid::try_parse(name).is_ok_and(|u| u.get_version_num() == 7 && u.to_string() == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_newest_run_folders_are_kept_and_nothing_else_is_touched() {
        let root = tempfile::tempdir().unwrap();
        let runs = root.path().join(Layout::RUNS_DIR);
        let ids: Vec<String> = (0..5).map(|_| uuid::Uuid::now_v7().to_string()).collect();
        for id in &ids {
            std::fs::create_dir_all(runs.join(id)).unwrap();
        }
        std::fs::create_dir_all(runs.join("mcp")).unwrap();
        std::fs::write(runs.join("notes.txt"), "mine").unwrap();
        assert_eq!(prune_runs(root.path(), 2, &ids[4]).unwrap(), 3);
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(runs.join(id).exists(), i >= 3, "{i}");
        }
        assert!(runs.join("mcp").exists() && runs.join("notes.txt").exists());
        assert_eq!(prune_runs(root.path(), 2, &ids[4]).unwrap(), 0);
        let nothing = tempfile::tempdir().unwrap();
        assert_eq!(prune_runs(nothing.path(), 2, "x").unwrap(), 0);
    }
}
