//! `windup scan`: the app's routes and controls read from its source into the site map.

use std::path::PathBuf;

use clap::Args;
use windup_engine::config::Overrides;
use windup_engine::scan::{ScanError, update_site_map};
use windup_model::ExitCode;

#[derive(Args)]
pub(crate) struct ScanArgs {
    /// The project root (where windup.toml and e2e/ are).
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// The app's source folder, relative to the root (repeatable; over `[scan] roots`).
    #[arg(long = "source", value_name = "DIR")]
    sources: Vec<PathBuf>,
    /// Print every route found.
    #[arg(long)]
    list: bool,
}

pub(crate) fn run(args: &ScanArgs) -> ExitCode {
    let config = match crate::config_or_exit(&args.root, &Overrides::default()) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let roots = if args.sources.is_empty() {
        config.file.scan.roots.clone()
    } else {
        args.sources.clone()
    };
    let started = std::time::Instant::now();
    match update_site_map(&args.root, &roots) {
        Ok(report) => {
            for w in &report.result.warnings {
                eprintln!("warning: {w}");
            }
            if args.list {
                for r in &report.result.routes {
                    println!("{}\t{}", r.route, r.file.as_deref().unwrap_or(""));
                }
            }
            eprintln!(
                "{} routes in {} ms; {} {}",
                report.result.routes.len(),
                started.elapsed().as_millis(),
                report.path.display(),
                if report.written {
                    "updated"
                } else {
                    "unchanged"
                }
            );
            ExitCode::Success
        }
        Err(ScanError::SiteMap(problems)) => {
            super::print_problems(&problems);
            ExitCode::BadInput
        }
        Err(e @ ScanError::NoSource(_)) => {
            eprintln!("error: {e}");
            ExitCode::BadInput
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::Infrastructure
        }
    }
}
