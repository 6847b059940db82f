//! Every action an agent takes is logged: one JSON line per tool call in
//! `e2e/.windup/mcp.log` (git-ignored), and the same line on stderr, where MCP clients show a
//! server's log. What is logged is already masked: no credential value reaches it.

use std::io::Write;
use std::path::{Path, PathBuf};

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// Where the action log is kept, under the project root.
pub const LOG_FILE: &str = "e2e/.windup/mcp.log";

/// The action log of one project.
pub(super) struct ActionLog {
    path: PathBuf,
    /// Lines written in this session.
    lines: std::sync::atomic::AtomicU64,
}

impl ActionLog {
    pub(super) fn new(root: &Path) -> ActionLog {
        ActionLog {
            path: root.join(LOG_FILE),
            lines: std::sync::atomic::AtomicU64::new(0),
        }
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Lines written in this session.
    pub(super) fn lines(&self) -> u64 {
        self.lines.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Appends one action: the tool, what it was about, and why it failed when it did.
    pub(super) fn write(&self, tool: &str, about: &str, failed: Option<&str>) {
        let at = OffsetDateTime::now_utc()
            .format(&Rfc3339)
            .unwrap_or_default();
        self.lines
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let line = serde_json::json!({
            "at": at,
            "tool": tool,
            "about": about,
            "ok": failed.is_none(),
            "error": failed,
        })
        .to_string();
        match failed {
            None => tracing::info!(target: "windup::mcp", "{tool} {about}"),
            Some(why) => tracing::warn!(target: "windup::mcp", "{tool} {about}: {why}"),
        }
        let appended = self
            .path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(&self.path)
            })
            .and_then(|mut f| writeln!(f, "{line}"));
        if let Err(e) = appended {
            tracing::warn!("could not append to {}: {e}", self.path.display());
        }
    }
}
