//! `windup push`, and the upload after `windup run`: the run report and its ledger records to
//! the team dashboard, then every upload spooled while it was down. An outage never changes a
//! run's exit code: the upload waits in `e2e/.windup/spool/` for the next push.

use std::path::Path;

use clap::Args;
use windup_engine::config::{Config, Overrides};
use windup_engine::dashboard_client::{self, Dashboard, Pushed};
use windup_model::{ExitCode, InputError, Problems};

use crate::print_problems;

/// `--dashboard-url` and `--no-push` of `windup run`.
#[derive(Args, Default, Clone)]
pub(crate) struct DashboardArgs {
    /// The team dashboard's URL; overrides windup.toml's `[dashboard] url`.
    #[arg(long, env = "WINDUP_DASHBOARD_URL", value_name = "URL")]
    pub dashboard_url: Option<String>,
    /// Do not upload this run to the dashboard (it is kept for `windup push`).
    #[arg(long)]
    pub no_push: bool,
}

#[derive(Args)]
pub(crate) struct PushArgs {
    /// The run to upload, by its run_id [default: the last run].
    #[arg(long, value_name = "ID")]
    run_id: Option<String>,
    /// The project root.
    #[arg(long, default_value = ".")]
    root: std::path::PathBuf,
    /// The team dashboard's URL; overrides windup.toml's `[dashboard] url`.
    #[arg(long, env = "WINDUP_DASHBOARD_URL", value_name = "URL")]
    dashboard_url: Option<String>,
}

fn runtime() -> Option<tokio::runtime::Runtime> {
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => Some(r),
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            None
        }
    }
}

/// `windup push`: 0 when everything reached the dashboard, 2 for bad input (no dashboard
/// configured, no run to push, no token), 3 when an upload stays spooled.
pub(crate) fn run(args: &PushArgs) -> ExitCode {
    let overrides = Overrides {
        dashboard_url: args.dashboard_url.clone(),
        ..Overrides::default()
    };
    let config = match crate::config_or_exit(&args.root, &overrides) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let root = config.root.clone();
    let Some(settings) = config.dashboard else {
        print_problems(
            &InputError::new(
                root.join(windup_engine::project::Layout::CONFIG_FILE)
                    .display()
                    .to_string(),
                "dashboard.url",
                "no dashboard is configured, so there is nowhere to push",
                "set [dashboard] url in windup.toml, or pass --dashboard-url, or set WINDUP_DASHBOARD_URL",
            )
            .into(),
        );
        return ExitCode::BadInput;
    };
    let dashboard = match Dashboard::new(&settings, &config.env.as_fn()) {
        Ok(d) => d,
        Err(e) => {
            print_problems(
                &InputError::new(
                    "environment",
                    settings.token_env.clone(),
                    e.to_string(),
                    format!(
                        "export {} with a dashboard token that may ingest runs",
                        settings.token_env
                    ),
                )
                .into(),
            );
            return ExitCode::BadInput;
        }
    };
    let (upload, artifacts) =
        match dashboard_client::load_run(&root, args.run_id.as_deref(), &config.env) {
            Ok(x) => x,
            Err(e) => {
                // Nothing of this run to push, but older spooled uploads still go.
                if args.run_id.is_none() && !dashboard_client::spooled(&root).is_empty() {
                    return match runtime() {
                        Some(rt) => rt.block_on(flush(&root, &dashboard)),
                        None => ExitCode::Infrastructure,
                    };
                }
                print_problems(&Problems::from(e));
                return ExitCode::BadInput;
            }
        };
    let Some(rt) = runtime() else {
        return ExitCode::Infrastructure;
    };
    rt.block_on(async {
        let pushed = dashboard_client::push(&root, Ok(&dashboard), upload, artifacts).await;
        if report(&root, pushed) {
            flush(&root, &dashboard).await
        } else {
            ExitCode::Infrastructure
        }
    })
}

/// After `windup run`: uploads the run when `[dashboard]` is configured and pushing is on.
/// Prints what happened; never changes the run's exit code.
pub(crate) fn after_run(root: &Path, dashboard_args: &DashboardArgs, run_id: &str) {
    let overrides = Overrides {
        dashboard_url: dashboard_args.dashboard_url.clone(),
        no_push: dashboard_args.no_push,
        ..Overrides::default()
    };
    let Ok(Config {
        dashboard: Some(settings),
        root,
        env,
        ..
    }) = Config::load(root, &overrides)
    else {
        return;
    };
    if !settings.push {
        return;
    }
    let Some(rt) = runtime() else {
        return;
    };
    match rt.block_on(dashboard_client::push_run(&root, &settings, run_id, &env)) {
        Err(e) => eprintln!(
            "warning: the run is not uploaded to the dashboard: {}: {}",
            e.file, e.problem
        ),
        Ok(after) => {
            if report(&root, after.pushed)
                && let Some(flushed) = after.flushed
            {
                print_flushed(&root, &flushed);
            }
        }
    }
}

/// Prints how an upload ended; true when the dashboard has the run.
fn report(root: &Path, pushed: std::io::Result<Pushed>) -> bool {
    match pushed {
        Ok(Pushed::Delivered(created)) => {
            let what = if created.created {
                "uploaded to the dashboard"
            } else {
                "already on the dashboard"
            };
            eprintln!("run {} {what}: {}", created.run_id, created.url);
            true
        }
        Ok(Pushed::Spooled { path, error }) => {
            eprintln!(
                "warning: the run was not uploaded ({error}); it is spooled in {} and will be sent by the next `windup push` or `windup run` (the run's result is unchanged)",
                windup_engine::project::display(root, &path)
            );
            false
        }
        Err(e) => {
            eprintln!(
                "warning: the run was not uploaded and could not be spooled in {}: {e} (its report stays in {}/)",
                windup_engine::project::Layout::SPOOL_DIR,
                windup_engine::project::Layout::RUNS_DIR
            );
            false
        }
    }
}

/// Sends the spool; 0 when it is empty afterwards, else 3.
async fn flush(root: &Path, dashboard: &Dashboard) -> ExitCode {
    let flushed = dashboard_client::flush_spool(root, dashboard).await;
    if print_flushed(root, &flushed) {
        ExitCode::Success
    } else {
        ExitCode::Infrastructure
    }
}

/// Prints what a spool flush did; true when nothing is left waiting.
fn print_flushed(root: &Path, flushed: &dashboard_client::Flushed) -> bool {
    if !flushed.delivered.is_empty() {
        eprintln!(
            "sent {} spooled run(s) to the dashboard: {}",
            flushed.delivered.len(),
            flushed.delivered.join(", ")
        );
    }
    for (path, why) in &flushed.waiting {
        eprintln!(
            "warning: {} is still spooled: {why}",
            windup_engine::project::display(root, path)
        );
    }
    flushed.waiting.is_empty()
}
