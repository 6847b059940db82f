//! The team dashboard, from the Action's side. The engine does the talking: with
//! `config.dashboard` set (from `dashboard-url`), the runner restores newer plans before the run
//! and saves verified ones after it; here the run is uploaded and the spool flushed
//! (`dashboard_client::push_run`). Nothing here fails the job: every problem becomes a
//! `::warning`.

use std::path::Path;

use windup_engine::dashboard_client::{self, Pushed, Settings};
use windup_engine::env::Env;

/// What the upload gave: the run's page, or why it is waiting in the spool.
#[derive(Debug, Clone, Default)]
pub struct Uploaded {
    pub link: Option<String>,
    pub warnings: Vec<String>,
}

/// Uploads the finished run, then whatever an earlier outage left in the spool.
pub async fn upload(root: &Path, settings: &Settings, run_id: &str, env: &Env) -> Uploaded {
    let mut out = Uploaded::default();
    if !settings.push {
        return out;
    }
    let after = match dashboard_client::push_run(root, settings, run_id, env).await {
        Ok(a) => a,
        Err(e) => {
            out.warnings.push(format!(
                "the run is not uploaded to the dashboard: {}: {}",
                e.file, e.problem
            ));
            return out;
        }
    };
    match after.pushed {
        Ok(Pushed::Delivered(created)) => out.link = Some(created.url),
        Ok(Pushed::Spooled { path, error }) => out.warnings.push(format!(
            "the dashboard did not take the run ({error}); it is spooled in {} and sent by the next run that reaches the dashboard. The verdict is unchanged.",
            windup_engine::project::display(root, &path)
        )),
        Err(e) => out.warnings.push(format!(
            "the run was not uploaded and could not be spooled: {e}"
        )),
    }
    for (path, why) in after.flushed.iter().flat_map(|f| &f.waiting) {
        out.warnings.push(format!(
            "{} is still spooled: {why}",
            windup_engine::project::display(root, path)
        ));
    }
    out
}
