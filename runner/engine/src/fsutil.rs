//! Atomic writes: a temporary file in the same folder, then a rename, so a crash never leaves a
//! half-written cache entry or report. And capped reads, so an input file over its size limit
//! (`windup_model::limits`) is refused without being read whole.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use windup_model::InputError;
use windup_model::limits::InputFile;
use windup_model::validate::too_large;

/// Reads a text file of at most `limit` bytes; `Ok(None)` when it is larger. At most `limit + 1`
/// bytes are read, so a huge file (or an endless one, such as a pipe) costs no more than that.
pub fn read_capped(path: &Path, limit: usize) -> std::io::Result<Option<String>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() > limit {
        return Ok(None);
    }
    String::from_utf8(bytes).map(Some).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// An input file's text, read within its kind's size limit; `None` when there is no such file.
/// Too large or unreadable is a problem naming `file`.
pub fn read_input(path: &Path, file: &str, kind: InputFile) -> Result<Option<String>, InputError> {
    match read_capped(path, kind.max_bytes()) {
        Ok(Some(text)) => Ok(Some(text)),
        Ok(None) => Err(too_large(file, kind)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(InputError::new(
            file,
            "(file)",
            format!("cannot be read: {e}"),
            "check its permissions",
        )),
    }
}

/// The files directly in `dir` with one of `extensions`, sorted; a missing folder has none, an
/// unreadable one is a problem naming it.
pub fn input_files(dir: &Path, extensions: &[&str]) -> Result<Vec<PathBuf>, InputError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(InputError::new(
                dir.display().to_string(),
                "(folder)",
                format!("cannot be read: {e}"),
                "check its permissions",
            ));
        }
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| extensions.contains(&x))
        })
        .collect();
    paths.sort();
    Ok(paths)
}

/// Writes `bytes` to `path` atomically (readers see the old file or the new one, never part of
/// it), creating the folder if needed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    prepared(path, bytes)?.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// As [`write_atomic`], but never replaces a file: when `path` exists (even when it appears
/// meanwhile), nothing is written and the error's kind is `AlreadyExists`.
pub fn write_new(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    prepared(path, bytes)?
        .persist_noclobber(path)
        .map_err(|e| e.error)?;
    Ok(())
}

/// `bytes` in a temporary file beside `path`, synced, readable by all, ready to be renamed.
fn prepared(path: &Path, bytes: &[u8]) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".windup-tmp-")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_data()?;
    // Temporary files are private (0600); what we write is meant to be shared and committed.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o644))?;
    }
    Ok(tmp)
}

/// Pretty JSON with a trailing newline, written atomically.
pub fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let mut text = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    text.push(b'\n');
    write_atomic(path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capped_read_stops_one_byte_past_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, "abcd").unwrap();
        assert_eq!(read_capped(&path, 4).unwrap().as_deref(), Some("abcd"));
        assert_eq!(read_capped(&path, 3).unwrap(), None);
        // An endless file is refused after limit + 1 bytes, not read to its end.
        assert_eq!(read_capped(Path::new("/dev/zero"), 1024).unwrap(), None);
        std::fs::write(&path, [0xff, 0xfe]).unwrap();
        let e = read_capped(&path, 4).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
    }
}
