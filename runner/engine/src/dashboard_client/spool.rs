//! The spool: an upload that still fails after its retries waits in
//! `e2e/.windup/spool/<run_id>.json` until the next `windup push` or `windup run` delivers it
//! (uploads are idempotent on `run_id`, so a retry never duplicates).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use windup_model::InputError;
use windup_model::api::{Artifact, RunCreated, RunUpload};

use super::client::{Dashboard, DashboardError};
use super::runs::load_run;
use super::settings::Settings;
use crate::env::Env;
use crate::project::Layout;

/// The spool file's format version.
pub const SPOOL_VERSION: &str = "0.1";

/// An upload that waits in the spool, with its artifacts referenced by path.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Spooled {
    spool_version: String,
    upload: RunUpload,
    artifacts: Vec<Artifact>,
    /// Why the last attempt failed (never the token).
    last_error: String,
    #[serde(with = "time::serde::rfc3339")]
    spooled_at: OffsetDateTime,
}

/// How one upload ended.
#[derive(Debug)]
pub enum Pushed {
    /// The dashboard has the run, with its answer (where to see it).
    Delivered(RunCreated),
    /// Kept in the spool, to be sent by the next `windup push` or `windup run`.
    Spooled {
        /// The spool file written.
        path: PathBuf,
        /// Why the upload failed (never the token).
        error: String,
    },
}

/// Where a run's upload waits in the spool: `e2e/.windup/spool/<run_id>.json` under `root`.
pub fn spool_path(root: &Path, run_id: &str) -> PathBuf {
    root.join(Layout::SPOOL_DIR).join(format!("{run_id}.json"))
}

/// Uploads a run, or spools it when that fails (`dashboard` is `None` when no client could be
/// made, such as when the token is not set: the run is spooled for later). The only error is a
/// spool that cannot be written.
pub async fn push(
    root: &Path,
    dashboard: Result<&Dashboard, &DashboardError>,
    upload: RunUpload,
    artifacts: Vec<Artifact>,
) -> std::io::Result<Pushed> {
    let error = match dashboard {
        Ok(d) => match d.upload(root, &upload, &artifacts).await {
            Ok(created) => {
                remove_spooled(&spool_path(root, &upload.report.run_id))?;
                return Ok(Pushed::Delivered(created));
            }
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    };
    let path = spool_path(root, &upload.report.run_id);
    let spooled = Spooled {
        spool_version: SPOOL_VERSION.to_string(),
        upload,
        artifacts,
        last_error: error.clone(),
        spooled_at: OffsetDateTime::now_utc(),
    };
    crate::fsutil::write_json(&path, &spooled)?;
    Ok(Pushed::Spooled { path, error })
}

/// What the upload after a run did, for the caller to tell its way.
#[derive(Debug)]
pub struct AfterRun {
    /// How the run's upload ended; `Err` when it could not even be spooled.
    pub pushed: std::io::Result<Pushed>,
    /// The spool, sent once the dashboard took this run.
    pub flushed: Option<Flushed>,
}

/// The upload after a run, as `windup run` and the GitHub Action do it: the run kept in
/// `e2e/.windup/runs/<run_id>/`, then every spooled upload once the dashboard has it. `Err`:
/// the run's files could not be read, so there is nothing to upload.
pub async fn push_run(
    root: &Path,
    settings: &Settings,
    run_id: &str,
    env: &Env,
) -> Result<AfterRun, InputError> {
    let (upload, artifacts) = load_run(root, Some(run_id), env)?;
    let client = Dashboard::new(settings, &env.as_fn());
    let pushed = push(root, client.as_ref(), upload, artifacts).await;
    let flushed = match (&pushed, &client) {
        (Ok(Pushed::Delivered(_)), Ok(d)) => Some(flush_spool(root, d).await),
        _ => None,
    };
    Ok(AfterRun { pushed, flushed })
}

fn remove_spooled(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// What a spool flush did.
#[derive(Debug, Default)]
pub struct Flushed {
    /// Run ids delivered (and removed from the spool).
    pub delivered: Vec<String>,
    /// Spool files still waiting, with why.
    pub waiting: Vec<(PathBuf, String)>,
}

/// Sends every spooled upload, oldest run first (run ids are UUID v7), removing each one the
/// dashboard took. Stops trying at the first outage or refused token; the rest wait for the next
/// flush.
pub async fn flush_spool(root: &Path, dashboard: &Dashboard) -> Flushed {
    let mut out = Flushed::default();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(Layout::SPOOL_DIR))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| !n.starts_with('.'))
        })
        .collect();
    paths.sort();
    let mut down: Option<String> = None;
    for path in paths {
        if let Some(why) = &down {
            out.waiting.push((path, why.clone()));
            continue;
        }
        let spooled: Spooled = match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        {
            Ok(s) => s,
            Err(e) => {
                out.waiting
                    .push((path, format!("the spool file cannot be read: {e}")));
                continue;
            }
        };
        match dashboard
            .upload(root, &spooled.upload, &spooled.artifacts)
            .await
        {
            Ok(_) => match remove_spooled(&path) {
                Ok(()) => out.delivered.push(spooled.upload.report.run_id),
                Err(e) => out
                    .waiting
                    .push((path, format!("delivered, but not removed: {e}"))),
            },
            Err(e) => {
                if e.ends_the_batch() {
                    down = Some(e.to_string());
                }
                out.waiting.push((path, e.to_string()));
            }
        }
    }
    out
}

/// Spool files waiting, for messages.
pub fn spooled(root: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(Layout::SPOOL_DIR))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
}
