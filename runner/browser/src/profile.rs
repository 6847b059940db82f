//! The throwaway profile folder of a Chromium Windup started, removed when the browser is gone.
//!
//! Chromium's helpers (renderers, the GPU and network processes, the crash handler) notice
//! the browser's death a moment after it, and may still write into the profile while it is
//! being removed: one removal then fails with "directory not empty", and a plain
//! `tempfile::TempDir` ignores that and leaves the folder (cookies included) behind for good.
//! So the removal is tried again, briefly, until the folder is gone.

use std::path::Path;
use std::time::Duration;

/// How long the removal keeps trying while the helpers exit.
const REMOVAL_RETRIES: u32 = 40;
const REMOVAL_PAUSE: Duration = Duration::from_millis(50);

/// A profile folder, removed (retrying while Chromium's helpers still write in it) when dropped.
pub(super) struct Profile(Option<tempfile::TempDir>);

impl Profile {
    /// A new, empty folder under the system's temporary folder.
    pub(super) fn new() -> std::io::Result<Self> {
        tempfile::Builder::new()
            .prefix("windup-chromium-")
            .tempdir()
            .map(|dir| Self(Some(dir)))
    }

    /// Where it is.
    pub(super) fn path(&self) -> &Path {
        self.0.as_ref().expect("a profile until dropped").path()
    }
}

impl Drop for Profile {
    fn drop(&mut self) {
        let Some(dir) = self.0.take() else { return };
        let path = dir.keep();
        remove_retrying(&path, REMOVAL_RETRIES, REMOVAL_PAUSE);
    }
}

/// Removes `path` and everything in it, trying again after `pause` while something still
/// writes into it; gives up (with a warning naming it) after `retries` more tries.
fn remove_retrying(path: &Path, retries: u32, pause: Duration) {
    for attempt in 0..=retries {
        match std::fs::remove_dir_all(path) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(e) if attempt == retries => {
                tracing::warn!("could not remove the profile {}: {e}", path.display());
            }
            Err(_) => std::thread::sleep(pause),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_profile_is_removed_when_dropped() {
        let profile = Profile::new().unwrap();
        let path = profile.path().to_path_buf();
        std::fs::create_dir_all(path.join("Default/Cache")).unwrap();
        std::fs::write(path.join("Default/Cookies"), "secret").unwrap();
        drop(profile);
        assert!(!path.exists());
    }

    /// A writer that keeps adding files for a while (as a helper process does while it exits)
    /// makes a single removal fail with "directory not empty"; the retries outlast it, and once
    /// the folder is gone the writer cannot bring it back.
    #[test]
    fn a_folder_still_written_in_is_removed_once_the_writer_stops() {
        let dir = tempfile::tempdir().unwrap().keep();
        let writing = dir.clone();
        let writer = std::thread::spawn(move || {
            let until = std::time::Instant::now() + Duration::from_millis(300);
            let mut n = 0u64;
            while std::time::Instant::now() < until {
                let _ = std::fs::write(writing.join(format!("f{n}")), "x");
                n += 1;
            }
        });
        std::thread::sleep(Duration::from_millis(20));
        remove_retrying(&dir, REMOVAL_RETRIES, REMOVAL_PAUSE);
        writer.join().unwrap();
        assert!(!dir.exists(), "{} is left", dir.display());
    }
}
