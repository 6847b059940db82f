//! Files in and out of a page: an `upload` sets files on a file input through the DOM domain;
//! a `download` is saved by the browser into a folder of the run's (`allowAndName`, so each
//! file is `<folder>/<guid>` until it is named) and followed through the Browser domain's
//! download events, which come on the browser's own session.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::time::Instant;

use super::cdp::Event;
use super::cdp::browser::{DownloadProgress, DownloadWillBegin, SetDownloadBehavior};
use super::cdp::dom::SetFileInputFiles;
use super::cdp::runtime::ReleaseObject;
use super::connection::CdpEvent;
use super::error::BrowserError;
use super::page::Page;

/// A download that finished, still under its download id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Download {
    /// The name the site suggested (`report.csv`).
    pub name: String,
    /// Where the browser wrote it: `<folder>/<guid>`.
    pub file: PathBuf,
    /// Its size in bytes.
    pub size: u64,
}

/// How waiting for a download ended without one.
#[derive(Debug)]
pub enum DownloadError {
    /// The browser failed.
    Browser(BrowserError),
    /// The download that began was canceled (by the site, or refused by the browser).
    Canceled(String),
    /// The deadline passed; the names of downloads that began but did not finish.
    TimedOut(Vec<String>),
}

/// The download events of the browser, watched from before the step acts.
pub struct Downloads {
    events: UnboundedReceiver<CdpEvent>,
    folder: PathBuf,
    /// Download id to suggested name, for downloads this session's folder gets.
    begun: HashMap<String, String>,
}

impl Page {
    /// Sets `files` (absolute paths) on the file input `object_id`, then lets the handle go.
    pub async fn set_input_files(
        &self,
        object_id: String,
        files: Vec<String>,
    ) -> Result<(), BrowserError> {
        let set = self
            .send(&SetFileInputFiles {
                files,
                object_id: object_id.clone(),
            })
            .await;
        let _ = self.send_unchecked(&ReleaseObject { object_id }).await;
        set.map(|_| ())
    }

    /// From now on, downloads of this page's context are saved in `folder` (which must
    /// exist; made the browser's user's when it runs as another) and followed. Subscribed
    /// before the setting is sent, so no event is missed.
    pub async fn watch_downloads(&self, folder: &Path) -> Result<Downloads, BrowserError> {
        self.check_alive()?;
        if let Some(user) = self.instance.run_as {
            user.own(folder, 0o755).map_err(|e| {
                BrowserError::Protocol(format!(
                    "cannot give the downloads folder {} to the browser's uid {}: {e}",
                    folder.display(),
                    user.uid
                ))
            })?;
        }
        let events = self.instance.conn.subscribe(None);
        self.instance
            .conn
            .send(
                None,
                &SetDownloadBehavior {
                    behavior: "allowAndName",
                    browser_context_id: self.context.clone(),
                    download_path: Some(folder.display().to_string()),
                    events_enabled: true,
                },
            )
            .await?;
        Ok(Downloads {
            events,
            folder: folder.to_path_buf(),
            begun: HashMap::new(),
        })
    }
}

impl Downloads {
    /// Waits until a download of this session finishes, or is canceled, or `deadline` passes.
    /// Other contexts' downloads (scenarios running beside this one) go to their own folders:
    /// a download is this session's when its file appears in this folder.
    pub async fn finished(&mut self, deadline: Instant) -> Result<Download, DownloadError> {
        loop {
            let event = match tokio::time::timeout_at(deadline, self.events.recv()).await {
                Err(_) => {
                    return Err(DownloadError::TimedOut(
                        self.begun.values().cloned().collect(),
                    ));
                }
                Ok(None) => {
                    return Err(DownloadError::Browser(BrowserError::Crashed(
                        "the browser went away during the download".into(),
                    )));
                }
                Ok(Some(e)) => e,
            };
            match event.method.as_str() {
                DownloadWillBegin::METHOD => {
                    if let Some(b) = event.parse::<DownloadWillBegin>() {
                        self.begun.insert(b.guid, b.suggested_filename);
                    }
                }
                DownloadProgress::METHOD => {
                    let Some(p) = event.parse::<DownloadProgress>() else {
                        continue;
                    };
                    let file = self.folder.join(&p.guid);
                    match p.state.as_str() {
                        "completed" if file.exists() => {
                            let size = std::fs::metadata(&file)
                                .map(|m| m.len())
                                .unwrap_or(p.received_bytes as u64);
                            let name = self.begun.remove(&p.guid).unwrap_or_default();
                            return Ok(Download { name, file, size });
                        }
                        "canceled" if self.begun.contains_key(&p.guid) && file.exists() => {
                            let name = self.begun.remove(&p.guid).unwrap_or_default();
                            return Err(DownloadError::Canceled(name));
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
        }
    }
}
