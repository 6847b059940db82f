//! `windup-action`: the Docker Action's entrypoint. Reads the Action's inputs and the GitHub
//! context from the environment, runs, and exits with the runner's code.

use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::prelude::*;
use tracing_subscriber::{EnvFilter, fmt};

fn main() -> std::process::ExitCode {
    // The engine's warnings (a dashboard that cannot be reached, a screenshot not stored) become
    // `::warning` annotations on stdout; WINDUP_LOG adds a plain log on stderr.
    let log = EnvFilter::builder()
        .with_default_directive(LevelFilter::OFF.into())
        .with_env_var("WINDUP_LOG")
        .from_env_lossy();
    tracing_subscriber::registry()
        .with(windup_action::Annotations.with_filter(LevelFilter::WARN))
        .with(
            fmt::layer()
                .with_writer(std::io::stderr)
                .without_time()
                .with_filter(log),
        )
        .init();
    windup_action::run(&windup_action::environment::Environment::of_process()).into()
}
