//! A run as `windup push` sends it: kept after the run in `e2e/.windup/runs/<run_id>/`, read
//! back as an upload with the screenshots its report names, and delivered (the report, then
//! each screenshot).

use std::path::{Path, PathBuf};

use reqwest::Method;
use windup_model::api::{Artifact, RunCreated, RunUpload};
use windup_model::{InputError, LedgerRecord, RunReport};

use super::client::{Dashboard, DashboardError};
use crate::env::Env;
use crate::project::Layout;

/// The run report a run keeps for `windup push`, in `e2e/.windup/runs/<run_id>/`.
const RUN_REPORT_FILE: &str = "report.json";
/// The run's ledger records, kept beside its report because the upload carries them too.
const RUN_LEDGER_FILE: &str = "ledger.json";

impl Dashboard {
    /// `POST /api/v1/runs`, then `PUT` of every artifact (read from under `root`).
    pub async fn upload(
        &self,
        root: &Path,
        upload: &RunUpload,
        artifacts: &[Artifact],
    ) -> Result<RunCreated, DashboardError> {
        let body = serde_json::to_vec(upload).map_err(|e| DashboardError::Local(e.to_string()))?;
        let answer = self
            .send(
                Method::POST,
                self.endpoint(&["runs"]),
                Some((&body, "application/json")),
            )
            .await?;
        let created: RunCreated = serde_json::from_slice(&answer)
            .map_err(|e| DashboardError::BadAnswer(e.to_string()))?;
        for a in artifacts {
            let png = match std::fs::read(root.join(&a.path)) {
                Ok(b) => b,
                Err(e) => {
                    // Nothing to retry later: the file is gone. The run itself is delivered.
                    tracing::warn!("the screenshot {} is not uploaded: {e}", a.path);
                    continue;
                }
            };
            let url = self.endpoint(&["runs", &upload.report.run_id, "artifacts", &a.file_name]);
            self.send(Method::PUT, url, Some((&png, a.content_type())))
                .await?;
        }
        Ok(created)
    }
}

fn run_dir(root: &Path, run_id: &str) -> PathBuf {
    root.join(Layout::RUNS_DIR).join(run_id)
}

/// Keeps a run's report and ledger records in `e2e/.windup/runs/<run_id>/` for `windup push`.
pub fn keep_run(root: &Path, report: &RunReport, ledger: &[LedgerRecord]) -> std::io::Result<()> {
    let dir = run_dir(root, &report.run_id);
    crate::fsutil::write_json(&dir.join(RUN_REPORT_FILE), report)?;
    crate::fsutil::write_json(&dir.join(RUN_LEDGER_FILE), &ledger)
}

/// The upload of a kept run: the one named, else the last run (`e2e/.windup/last-run.json`).
pub fn load_run(
    root: &Path,
    run_id: Option<&str>,
    env: &Env,
) -> Result<(RunUpload, Vec<Artifact>), InputError> {
    let run_id = match run_id {
        Some(id) => id.to_string(),
        None => {
            let path = root.join(Layout::LAST_RUN_FILE);
            std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .and_then(|v| v.get("run_id")?.as_str().map(str::to_string))
                .ok_or_else(|| {
                    InputError::new(
                        crate::project::display(root, &path),
                        "run_id",
                        "there is no record of a last run to push",
                        "run `windup run` first, or name a run with --run-id",
                    )
                })?
        }
    };
    if uuid::Uuid::parse_str(&run_id).is_err() {
        return Err(InputError::new(
            "command line",
            "--run-id",
            format!("`{run_id}` is not a run id"),
            "give the run_id of a run report (a UUID)",
        ));
    }
    let dir = run_dir(root, &run_id);
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| {
            InputError::new(
                crate::project::display(root, &path),
                "(file)",
                format!("cannot be read: {e}"),
                "push a run made by this version of windup in this project",
            )
        })
    };
    let bad = |name: &str, e: serde_json::Error| {
        InputError::new(
            crate::project::display(root, &dir.join(name)),
            "(file)",
            format!("is not valid: {e}"),
            "run the suite again; this run cannot be pushed",
        )
    };
    let report: RunReport =
        serde_json::from_str(&read(RUN_REPORT_FILE)?).map_err(|e| bad(RUN_REPORT_FILE, e))?;
    let ledger: Vec<LedgerRecord> =
        serde_json::from_str(&read(RUN_LEDGER_FILE)?).map_err(|e| bad(RUN_LEDGER_FILE, e))?;
    let artifacts = artifacts(&report);
    let invalidations = super::stale::stale_plans(root, &report.run_id);
    Ok((
        RunUpload {
            report,
            ledger,
            pull_request: crate::ci::pull_request(env),
            invalidations,
        },
        artifacts,
    ))
}

/// The screenshots and trace frames a report refers to, under its own run's folder.
pub fn artifacts(report: &RunReport) -> Vec<Artifact> {
    let prefix = format!("{}/{}/", Layout::RUNS_DIR, report.run_id);
    let mut out: Vec<Artifact> = report
        .scenarios
        .iter()
        .flat_map(|s| {
            let frames = s
                .actions
                .iter()
                .filter_map(|a| a.trace.as_ref()?.screenshot.as_deref());
            s.evidence
                .as_ref()
                .and_then(|e| e.screenshot.as_deref())
                .into_iter()
                .chain(frames)
        })
        .filter_map(|path| {
            let name = path.strip_prefix(&prefix)?;
            (!name.is_empty() && !name.contains(['/', '\\']) && name != "..").then(|| Artifact {
                file_name: name.to_string(),
                path: path.to_string(),
            })
        })
        .collect();
    out.dedup();
    out
}
