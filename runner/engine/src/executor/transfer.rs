//! The steps that move files: `upload` sets files from the project's `e2e/files/` on a file
//! input (found like any target, but a hidden one counts: file inputs usually hide behind a
//! styled button); `download` clicks its target, waits for the download it starts, saves it
//! under the run's folder and checks `expect.download` on the file.

use std::path::{Path, PathBuf};

use tokio::time::Instant;
use windup_model::plan::file_name_problem;
use windup_model::{Action, ActionType, DownloadExpect, Downloaded, FailureClass, InputError};

use super::outcome::{Failure, browser_failure, fail};
use super::steps::{Executor, Timing};
use crate::browser::injected::{FileInput, download_started, file_input};
use crate::browser::{BrowserError, DownloadError};
use crate::project::Layout;

impl Executor<'_, '_> {
    /// `upload`: every named file must be in `e2e/files/`; then they are set on the input.
    pub(super) async fn upload_step(
        &mut self,
        action: &Action,
        id: &str,
        deadline: Instant,
        timing: &mut Timing,
    ) -> Result<(), Failure> {
        let names = action.files.clone().unwrap_or_default();
        let paths = upload_paths(&self.cx.transfers.files_dir(), &names)
            .map_err(|m| fail(FailureClass::PlanInvalid, Some(id), m.to_string()))?;
        let locator = self.target_locator(action, id)?;
        let t = Instant::now();
        let mut attempt = 0;
        let handle = loop {
            self.session.wait_document_ready(deadline).await;
            let last = match file_input(self.session.page(), locator.parts(), paths.len()).await {
                Ok(FileInput::Found(handle)) => break handle,
                Ok(FileInput::Navigating) | Err(BrowserError::ContextLost) => None,
                Ok(FileInput::NotFound) => None,
                Ok(FileInput::NotActionable(why)) => Some(why),
                Err(e) => return Err(browser_failure(e, id)),
            };
            let pause = crate::timeouts::poll_pause(attempt);
            attempt += 1;
            if Instant::now() + pause >= deadline {
                let (class, what) = match last {
                    Some(why) => (FailureClass::NotActionable, why),
                    None => (FailureClass::SelectorNotFound, "no match".to_string()),
                };
                return Err(fail(
                    self.timeout_class(class, deadline),
                    Some(id),
                    format!(
                        "`{}` is not a file input to upload to: {what}",
                        locator.source
                    ),
                ));
            }
            tokio::time::sleep(pause).await;
        };
        timing.0 = t.elapsed();
        let t = Instant::now();
        let files = paths.iter().map(|p| p.display().to_string()).collect();
        self.session
            .page()
            .set_input_files(handle, files)
            .await
            .map_err(|e| browser_failure(e, id))?;
        timing.1 = t.elapsed();
        Ok(())
    }

    /// `download`: watch the context's downloads, click the target, wait (within the step's
    /// time) for the download to finish, save it as its suggested name, and check it.
    pub(super) async fn download_step(
        &mut self,
        action: &Action,
        id: &str,
        deadline: Instant,
        timing: &mut Timing,
    ) -> Result<(), Failure> {
        let rel = self.cx.transfers.downloads_dir(self.cx.scenario_id);
        let folder = self.cx.transfers.absolute(&rel);
        std::fs::create_dir_all(&folder).map_err(|e| {
            fail(
                FailureClass::BrowserCrashed,
                Some(id),
                format!("cannot make the downloads folder {rel}: {e}"),
            )
        })?;
        let mut downloads = self
            .session
            .page()
            .watch_downloads(&folder)
            .await
            .map_err(|e| browser_failure(e, id))?;
        let click = Action {
            kind: ActionType::Click,
            expect: None,
            ..action.clone()
        };
        self.perform_on_target(&click, id, deadline, timing).await?;
        let t = Instant::now();
        let finished = downloads.finished(deadline).await;
        timing.1 += t.elapsed();
        let download = match finished {
            Ok(d) => d,
            Err(DownloadError::Browser(e)) => return Err(browser_failure(e, id)),
            Err(DownloadError::Canceled(name)) => {
                return Err(fail(
                    FailureClass::PostconditionFailed,
                    Some(id),
                    format!("the download `{name}` was canceled"),
                ));
            }
            Err(DownloadError::TimedOut(begun)) => {
                let what = if begun.is_empty() {
                    "no download began".to_string()
                } else {
                    format!("`{}` began but did not finish", begun.join("`, `"))
                };
                return Err(fail(
                    self.timeout_class(FailureClass::PostconditionFailed, deadline),
                    Some(id),
                    format!(
                        "clicking `{}` started no download that finished in time: {what}",
                        action
                            .target
                            .as_ref()
                            .map(|t| t.selector.as_str())
                            .unwrap_or_default()
                    ),
                ));
            }
        };
        // A link answered with `Content-Disposition: attachment` started a navigation that
        // became this download: the page stays, and must not look as if it were leaving.
        match download_started(self.session.page()).await {
            Ok(_) | Err(BrowserError::ContextLost) => {}
            Err(e) => return Err(browser_failure(e, id)),
        }
        let name = safe_name(&download.name);
        let saved = unused_path(&folder, &name);
        let file_name = saved
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        let path = match std::fs::rename(&download.file, &saved) {
            Ok(()) => format!("{rel}/{file_name}"),
            Err(_) => format!(
                "{rel}/{}",
                download
                    .file
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
            ),
        };
        self.last_download = Some(Downloaded {
            path: path.clone(),
            name: download.name.clone(),
            size: download.size,
        });
        let want = action.expect.as_ref().and_then(|e| e.download.as_ref());
        if let Some(problem) = want.and_then(|w| download_problem(w, &download.name, download.size))
        {
            return Err(fail(
                FailureClass::PostconditionFailed,
                Some(id),
                format!("{problem} (saved as {path})"),
            ));
        }
        Ok(())
    }
}

/// Why an `upload` step's files are not sent: the field at fault, what is wrong and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum UploadRefusal {
    /// The step names no files.
    #[error(
        "`upload` names no files (fix: add `files: [\"<name>\"]` naming files in {dir}/)",
        dir = Layout::FILES_DIR
    )]
    NoFiles,
    /// `files[index]` is not a plain file name (`file_name_problem`).
    #[error("files[{index}]: {problem}")]
    BadName { index: usize, problem: String },
    /// `files[index]`, `name`, is no file an upload may send.
    #[error("files[{index}]: `{name}` {why}")]
    Unsendable {
        index: usize,
        name: String,
        why: UnsendableFile,
    },
}

/// Why a file named in `e2e/files/` is not sent: what is wrong, with the fix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub(crate) enum UnsendableFile {
    /// Nothing of that name is in the folder.
    #[error(
        "is not in {dir}/ (fix: add the file to {dir}/, or correct the name)",
        dir = Layout::FILES_DIR
    )]
    Missing,
    /// It is a link, which could hand the app any file.
    #[error(
        "is a link; an upload sends only files that are in {dir}/ themselves (fix: copy the file into {dir}/ in place of the link)",
        dir = Layout::FILES_DIR
    )]
    Link,
    /// It is a folder or another non-file.
    #[error("is not a file (fix: name a file directly in {dir}/)", dir = Layout::FILES_DIR)]
    NotAFile,
    /// Its path or the folder's cannot be resolved.
    #[error("cannot be read (fix: check {dir}/)", dir = Layout::FILES_DIR)]
    Unreadable,
    /// It resolves to a file outside the folder.
    #[error("resolves outside {dir}/ (fix: copy the file into {dir}/)", dir = Layout::FILES_DIR)]
    Outside,
}

/// The absolute paths of an upload's files, each directly in `files_dir`; the error names the
/// file, the field and the fix.
pub(crate) fn upload_paths(
    files_dir: &Path,
    names: &[String],
) -> Result<Vec<PathBuf>, UploadRefusal> {
    if names.is_empty() {
        return Err(UploadRefusal::NoFiles);
    }
    let mut out = Vec::new();
    for (index, name) in names.iter().enumerate() {
        if let Some(problem) = file_name_problem(name) {
            return Err(UploadRefusal::BadName { index, problem });
        }
        let path = files_dir.join(name);
        out.push(
            upload_file(files_dir, &path).map_err(|why| UploadRefusal::Unsendable {
                index,
                name: name.clone(),
                why,
            })?,
        );
    }
    Ok(out)
}

/// The absolute path of the upload file `path`, which must be a plain file directly in
/// `files_dir`: not a link (a committed link to `../../.env.local` or `/etc/shadow` would hand
/// that file to the app), not resolving outside the folder. Else what is wrong, with the fix.
fn upload_file(files_dir: &Path, path: &Path) -> Result<PathBuf, UnsendableFile> {
    match std::fs::symlink_metadata(path) {
        Err(_) => Err(UnsendableFile::Missing),
        Ok(m) if m.file_type().is_symlink() => Err(UnsendableFile::Link),
        Ok(m) if !m.is_file() => Err(UnsendableFile::NotAFile),
        // Absolute: the browser grants the page the path it is given, and a relative one is
        // not the path the page then reads (Chromium ends a renderer that reads another).
        Ok(_) => {
            let (Ok(file), Ok(folder)) = (path.canonicalize(), files_dir.canonicalize()) else {
                return Err(UnsendableFile::Unreadable);
            };
            if file.parent() != Some(folder.as_path()) {
                return Err(UnsendableFile::Outside);
            }
            Ok(file)
        }
    }
}

/// Every entry of the project's `e2e/files/` an upload would refuse (a link, or what resolves
/// outside the folder), as input errors naming the file: `windup validate` reports them
/// whether or not a plan names them yet.
pub fn refused_upload_files(root: &Path) -> Vec<InputError> {
    let dir = root.join(Layout::FILES_DIR);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<InputError> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_symlink()))
        .filter_map(|e| {
            let what = upload_file(&dir, &e.path()).err()?.to_string();
            let (what, fix) = what.split_once(" (fix: ").unwrap_or((what.as_str(), ""));
            Some(InputError::new(
                format!("{}/{}", Layout::FILES_DIR, e.file_name().to_string_lossy()),
                "(file)",
                what,
                fix.trim_end_matches(')'),
            ))
        })
        .collect();
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

/// At most this many file names are offered to the planner.
pub const MAX_UPLOAD_FILES: usize = 50;

/// The names of the files an upload may set: the plain files directly in the project's
/// `e2e/files/` whose names an upload accepts, sorted, at most [`MAX_UPLOAD_FILES`]. Names
/// only: a file's contents never reach a prompt. None when the folder is missing.
pub fn upload_file_names(root: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root.join(Layout::FILES_DIR)) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        // Plain files only: a link is never offered (nor uploaded, `upload_file`).
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        // A name is a line of the prompt: one that could break the line is not offered.
        .filter(|n| {
            file_name_problem(n).is_none()
                && !n.starts_with('.')
                && !n.chars().any(char::is_control)
        })
        .collect();
    names.sort();
    names.truncate(MAX_UPLOAD_FILES);
    names
}

/// Every upload file a plan's steps name that is not in the project's files folder, as input
/// errors (`prefix`: the steps' place in `file`, `plan.` in a cache entry): checked before a
/// plan runs, so a missing file is bad input, not a failed scenario.
pub fn missing_upload_files(
    root: &Path,
    file: &str,
    prefix: &str,
    actions: &[Action],
) -> Vec<InputError> {
    let dir = root.join(Layout::FILES_DIR);
    actions
        .iter()
        .enumerate()
        .filter(|(_, a)| a.kind == ActionType::Upload)
        .filter_map(|(i, a)| {
            let names = a.files.clone().unwrap_or_default();
            upload_paths(&dir, &names).err().map(|m| {
                let m = m.to_string();
                let (field, what) = m.split_once(": ").unwrap_or(("", m.as_str()));
                let (what, fix) = what.split_once(" (fix: ").unwrap_or((what, ""));
                InputError::new(
                    file,
                    format!("{prefix}actions[{i}].{field}"),
                    what,
                    fix.trim_end_matches(')'),
                )
            })
        })
        .collect()
}

/// Why a downloaded file is not what `expect.download` says, naming the field.
fn download_problem(want: &DownloadExpect, name: &str, size: u64) -> Option<String> {
    if let Some(glob) = &want.name {
        let matches = globset::Glob::new(glob)
            .map(|g| g.compile_matcher().is_match(name))
            .unwrap_or(false);
        if !matches {
            return Some(format!(
                "the download is named `{name}`, not `{glob}` (expect.download.name)"
            ));
        }
    }
    if let Some(exact) = want.size
        && size != exact
    {
        return Some(format!(
            "the download `{name}` is {size} bytes, not {exact} (expect.download.size)"
        ));
    }
    if let Some(min) = want.min_size
        && size < min
    {
        return Some(format!(
            "the download `{name}` is {size} bytes, under min_size {min} (expect.download.min_size)"
        ));
    }
    if let Some(max) = want.max_size
        && size > max
    {
        return Some(format!(
            "the download `{name}` is {size} bytes, over max_size {max} (expect.download.max_size)"
        ));
    }
    None
}

/// A site's suggested name as a plain file name in the downloads folder: no folders, nothing
/// hidden, never empty.
fn safe_name(suggested: &str) -> String {
    let base = suggested.rsplit(['/', '\\']).next().unwrap_or_default();
    let clean: String = base
        .chars()
        .map(|c| if c.is_control() || c == ':' { '_' } else { c })
        .collect();
    let clean = clean.trim_start_matches('.').trim().to_string();
    if clean.is_empty() {
        "download".into()
    } else {
        clean
    }
}

/// `folder/name`, or `folder/<n>-name` when a file of that name is already there.
fn unused_path(folder: &Path, name: &str) -> PathBuf {
    let first = folder.join(name);
    if !first.exists() {
        return first;
    }
    (2..)
        .map(|n| folder.join(format!("{n}-{name}")))
        .find(|p| !p.exists())
        .expect("an unused name")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn download_checks_name_the_field_that_failed() {
        let want = DownloadExpect {
            name: Some("report-*.csv".into()),
            min_size: Some(10),
            max_size: Some(20),
            ..Default::default()
        };
        assert_eq!(download_problem(&want, "report-1.csv", 15), None);
        assert!(
            download_problem(&want, "other.csv", 15)
                .unwrap()
                .contains("expect.download.name")
        );
        assert!(
            download_problem(&want, "report-1.csv", 9)
                .unwrap()
                .contains("min_size 10")
        );
        assert!(
            download_problem(&want, "report-1.csv", 21)
                .unwrap()
                .contains("max_size 20")
        );
        let exact = DownloadExpect {
            size: Some(5),
            ..Default::default()
        };
        assert!(
            download_problem(&exact, "a", 6)
                .unwrap()
                .contains("6 bytes, not 5")
        );
    }

    #[test]
    fn suggested_names_stay_in_the_folder() {
        assert_eq!(safe_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_name(".bashrc"), "bashrc");
        assert_eq!(safe_name(""), "download");
        assert_eq!(safe_name("C:\\x\\report.csv"), "report.csv");
    }

    #[test]
    fn the_planner_is_offered_the_names_of_plain_files_sorted() {
        let root = tempfile::tempdir().unwrap();
        assert!(upload_file_names(root.path()).is_empty());
        let dir = root.path().join(Layout::FILES_DIR);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        for n in ["b.png", "a.txt", ".hidden", "x\nFILES: y"] {
            std::fs::write(dir.join(n), b"x").unwrap();
        }
        assert_eq!(upload_file_names(root.path()), ["a.txt", "b.png"]);
    }

    #[test]
    fn a_link_is_neither_offered_nor_uploaded_even_to_a_file_in_the_folder() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join(Layout::FILES_DIR);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("real.txt"), b"x").unwrap();
        std::fs::write(root.path().join(".env.local"), b"K=v").unwrap();
        std::os::unix::fs::symlink("../../.env.local", dir.join("env.txt")).unwrap();
        std::os::unix::fs::symlink("real.txt", dir.join("alias.txt")).unwrap();
        assert_eq!(upload_file_names(root.path()), ["real.txt"]);
        for name in ["env.txt", "alias.txt"] {
            let e = upload_paths(&dir, &[name.into()]).unwrap_err().to_string();
            assert!(e.contains("is a link"), "{e}");
        }
        let refused = refused_upload_files(root.path());
        let files: Vec<&str> = refused.iter().map(|p| p.file.as_str()).collect();
        assert_eq!(files, ["e2e/files/alias.txt", "e2e/files/env.txt"]);
    }

    #[test]
    fn upload_files_must_be_plain_names_in_the_files_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("invoice.pdf"), b"%PDF").unwrap();
        assert!(upload_paths(dir.path(), &["invoice.pdf".into()]).is_ok());
        let missing = upload_paths(dir.path(), &["invoice.pdf".into(), "nope.txt".into()])
            .unwrap_err()
            .to_string();
        assert!(
            missing.starts_with("files[1]: `nope.txt` is not in e2e/files/"),
            "{missing}"
        );
        for bad in ["../secret", "/etc/passwd", "a/b.txt", ".."] {
            let e = upload_paths(dir.path(), &[bad.into()])
                .unwrap_err()
                .to_string();
            assert!(e.starts_with("files[0]:"), "{e}");
        }
    }
}
