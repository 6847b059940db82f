//! The run ledger, `e2e/.windup/ledger.jsonl` under the project root: one JSON line per scenario
//! per run (tokens, calls, model, price date, timings, failure class), appended, never rewritten.
//! `costs` totals it.
//!
//! Appending, unlike every other file Windup writes, is not a temp-file-and-rename: the ledger
//! only grows, and copying it on every run would cost more the longer the project lives. Instead:
//! - each append is one buffer holding every record of the run, written with one `write_all` to
//!   a file opened with `O_APPEND`, then `sync_data`;
//! - under an exclusive advisory lock (`flock`) on the ledger. `O_APPEND` alone puts each
//!   `write(2)` at the end, but `write_all` may need several writes and network file systems do
//!   not honour `O_APPEND` atomically; the lock makes concurrent runs (CI shards on one checkout,
//!   two terminals) take turns, so their lines never interleave. Only Windup writes the ledger,
//!   so an advisory lock is enough;
//! - a crash can still leave a torn last line. Readers skip it with a warning; the next append,
//!   holding the lock, cuts it off (or ends it with a newline when the record in it is whole),
//!   so a torn line never ends up in the middle, where it would be an error.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use windup_model::{InputError, LEDGER_VERSION, LedgerRecord};

use crate::project::Layout;
use crate::project::display;

/// Appends the records of one run to the ledger, creating its folder, in one locked write.
pub fn append(root: &Path, records: &[LedgerRecord]) -> std::io::Result<()> {
    if records.is_empty() {
        return Ok(());
    }
    let mut buf = Vec::new();
    for record in records {
        serde_json::to_writer(&mut buf, record)?;
        buf.push(b'\n');
    }
    let path = root.join(Layout::LEDGER_FILE);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(&path)?;
    // Released when `file` is closed, also when this process dies.
    file.lock()?;
    end_torn_tail(&file, &display(root, &path))?;
    (&file).write_all(&buf)?;
    file.sync_data()
}

/// Makes the file end at a line break again after a crash in the middle of an append: a whole
/// record missing only its newline gets one; anything less is cut off. Called under the lock.
fn end_torn_tail(mut file: &File, name: &str) -> std::io::Result<()> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(());
    }
    let mut last = [0u8];
    file.seek(SeekFrom::End(-1))?;
    file.read_exact(&mut last)?;
    if last[0] == b'\n' {
        return Ok(());
    }
    // Rare: only after a crash. Reading the whole file keeps this simple.
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0))?;
    file.read_to_end(&mut bytes)?;
    let start = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    if serde_json::from_slice::<LedgerRecord>(&bytes[start..]).is_ok() {
        file.write_all(b"\n")?;
    } else {
        tracing::warn!(
            "{name}: cutting off a torn last line ({} bytes) left by an interrupted run",
            bytes.len() - start
        );
        file.set_len(start as u64)?;
    }
    Ok(())
}

/// Every record of the ledger, oldest first; none when there is no ledger yet. Unknown (newer)
/// fields are ignored and a torn last line is skipped with a warning; a line that is not a
/// record anywhere else is an error naming `file:line`.
pub fn read(root: &Path) -> Result<Vec<LedgerRecord>, InputError> {
    let path = root.join(Layout::LEDGER_FILE);
    let name = display(root, &path);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(InputError::new(
                name,
                "(file)",
                format!("cannot be read: {e}"),
                "check the file's permissions",
            ));
        }
    };
    let mut records = Vec::new();
    let mut lines = bytes
        .split_inclusive(|b| *b == b'\n')
        .enumerate()
        .peekable();
    while let Some((i, line)) = lines.next() {
        let whole = line.ends_with(b"\n");
        if line.trim_ascii().is_empty() {
            continue;
        }
        match serde_json::from_slice::<LedgerRecord>(line) {
            Ok(r) => records.push(r),
            Err(_) if !whole && lines.peek().is_none() => {
                tracing::warn!(
                    "{name}:{}: skipping a torn last line (an interrupted or concurrent run)",
                    i + 1
                );
            }
            Err(e) => return Err(bad_line(&name, i + 1, line, &e)),
        }
    }
    Ok(records)
}

fn bad_line(name: &str, number: usize, line: &[u8], error: &serde_json::Error) -> InputError {
    let version = serde_json::from_slice::<serde_json::Value>(line)
        .ok()
        .and_then(|v| v.get("ledger_version")?.as_str().map(str::to_string));
    let (problem, fix) = match version {
        Some(v) if v != LEDGER_VERSION => (
            format!(
                "a record of ledger_version `{v}`, which this windup (`{LEDGER_VERSION}`) does not read: {error}"
            ),
            "upgrade windup".to_string(),
        ),
        _ => (
            format!("not a ledger record: {error}"),
            "the line was damaged or edited by hand: restore it or delete it (the other lines stay valid)"
                .to_string(),
        ),
    };
    InputError::new(format!("{name}:{number}"), "(line)", problem, fix)
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;
    use windup_model::{CacheOutcome, LlmCalls, PhaseTimings, ScenarioStatus, TokenUsage};

    fn record(run_id: &str, scenario_id: &str) -> LedgerRecord {
        LedgerRecord {
            ledger_version: LEDGER_VERSION.into(),
            run_id: run_id.into(),
            scenario_id: scenario_id.into(),
            started_at: datetime!(2025-07-01 10:00 UTC),
            finished_at: datetime!(2025-07-01 10:00:03 UTC),
            status: ScenarioStatus::Passed,
            failure_class: None,
            cache: CacheOutcome::Hit,
            provider: None,
            model: None,
            calls: LlmCalls::default(),
            tokens: TokenUsage::default(),
            cost_micro_usd: 0,
            price_table_date: None,
            timings: PhaseTimings::default(),
            git_commit: None,
            git_branch: None,
        }
    }

    fn ledger_file(root: &Path) -> std::path::PathBuf {
        root.join(Layout::LEDGER_FILE)
    }

    fn push_raw(root: &Path, bytes: &[u8]) {
        let mut f = OpenOptions::new()
            .append(true)
            .open(ledger_file(root))
            .unwrap();
        f.write_all(bytes).unwrap();
    }

    #[test]
    fn no_ledger_reads_as_no_records_and_append_creates_it() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read(dir.path()).unwrap(), vec![]);
        append(dir.path(), &[record("r1", "a"), record("r1", "b")]).unwrap();
        append(dir.path(), &[]).unwrap();
        let text = std::fs::read_to_string(ledger_file(dir.path())).unwrap();
        assert_eq!(text.lines().count(), 2, "{text}");
        assert!(text.ends_with('\n'));
        let ids: Vec<_> = read(dir.path())
            .unwrap()
            .into_iter()
            .map(|r| r.scenario_id)
            .collect();
        assert_eq!(ids, ["a", "b"]);
    }

    #[test]
    fn concurrent_appends_leave_only_whole_lines_and_keep_each_run_together() {
        const THREADS: usize = 8;
        const RUNS: usize = 25;
        const PER_RUN: usize = 4;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        // Big records (~64 KiB a run) so that unsynchronised writes would split and interleave.
        let padding = "x".repeat(16 * 1024);
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let padding = &padding;
                s.spawn(move || {
                    for r in 0..RUNS {
                        let run = format!("t{t}-r{r}");
                        let records: Vec<_> = (0..PER_RUN)
                            .map(|i| record(&run, &format!("{i}-{padding}")))
                            .collect();
                        append(root, &records).unwrap();
                    }
                });
            }
        });
        let text = std::fs::read_to_string(ledger_file(root)).unwrap();
        for (n, line) in text.lines().enumerate() {
            serde_json::from_str::<LedgerRecord>(line)
                .unwrap_or_else(|e| panic!("line {} is not whole: {e}", n + 1));
        }
        let records = read(root).unwrap();
        assert_eq!(records.len(), THREADS * RUNS * PER_RUN);
        for run in records.chunks(PER_RUN) {
            let ids: Vec<_> = run.iter().map(|r| r.run_id.as_str()).collect();
            assert!(ids.iter().all(|id| *id == ids[0]), "interleaved: {ids:?}");
            let order: Vec<_> = run.iter().map(|r| &r.scenario_id[..1]).collect();
            assert_eq!(order, ["0", "1", "2", "3"]);
        }
    }

    #[test]
    fn a_torn_last_line_is_skipped_then_cut_by_the_next_append() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        append(root, &[record("r1", "a"), record("r1", "b")]).unwrap();
        let whole = serde_json::to_string(&record("r2", "c")).unwrap();
        push_raw(root, &whole.as_bytes()[..whole.len() / 2]);
        assert_eq!(read(root).unwrap().len(), 2);

        append(root, &[record("r3", "d")]).unwrap();
        let ids: Vec<_> = read(root)
            .unwrap()
            .into_iter()
            .map(|r| r.scenario_id)
            .collect();
        assert_eq!(ids, ["a", "b", "d"]);
        let text = std::fs::read_to_string(ledger_file(root)).unwrap();
        assert_eq!(text.lines().count(), 3, "the torn bytes are gone: {text}");
    }

    #[test]
    fn a_whole_record_missing_only_its_newline_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        append(root, &[record("r1", "a")]).unwrap();
        push_raw(
            root,
            serde_json::to_string(&record("r2", "b"))
                .unwrap()
                .as_bytes(),
        );
        assert_eq!(read(root).unwrap().len(), 2);
        append(root, &[record("r3", "c")]).unwrap();
        let ids: Vec<_> = read(root)
            .unwrap()
            .into_iter()
            .map(|r| r.scenario_id)
            .collect();
        assert_eq!(ids, ["a", "b", "c"]);
    }

    #[test]
    fn a_bad_line_in_the_middle_is_an_error_naming_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        append(root, &[record("r1", "a")]).unwrap();
        push_raw(root, b"\n{\"ledger_version\": \"0.1\", \"run_id\": 7}\n");
        append(root, &[record("r2", "b")]).unwrap();
        let err = read(root).unwrap_err();
        assert_eq!(err.file, "e2e/.windup/ledger.jsonl:3");
        assert!(err.problem.contains("not a ledger record"), "{err}");
        assert!(err.fix.contains("delete it"), "{err}");

        // A torn-looking line that is not the last one is damage, not a crash.
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        append(root, &[record("r1", "a")]).unwrap();
        push_raw(root, b"{\"ledger_ver\n");
        push_raw(
            root,
            serde_json::to_string(&record("r2", "b"))
                .unwrap()
                .as_bytes(),
        );
        push_raw(root, b"\n");
        assert_eq!(read(root).unwrap_err().file, "e2e/.windup/ledger.jsonl:2");
    }

    #[test]
    fn newer_fields_are_ignored_and_a_newer_shape_says_to_upgrade() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        append(root, &[record("r1", "a")]).unwrap();
        let mut newer = serde_json::to_value(record("r2", "b")).unwrap();
        newer["energy_wh"] = 3.into();
        push_raw(root, format!("{newer}\n").as_bytes());
        assert_eq!(read(root).unwrap().len(), 2);

        newer["ledger_version"] = "0.2".into();
        newer["tokens"] = "many".into();
        push_raw(root, format!("{newer}\n").as_bytes());
        let err = read(root).unwrap_err();
        assert_eq!(err.file, "e2e/.windup/ledger.jsonl:3");
        assert!(err.problem.contains("`0.2`"), "{err}");
        assert_eq!(err.fix, "upgrade windup");
    }
}
