//! `windup-action`: the Docker Action's entrypoint. Reads the Action's inputs and the GitHub
//! context from the environment, runs, and exits with the runner's code.

use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::LevelFilter;

fn main() -> std::process::ExitCode {
    // The engine's warnings (a screenshot not stored, say) go to the step's log on stderr;
    // workflow commands and the progress go to stdout.
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::WARN.into())
        .with_env_var("WINDUP_LOG")
        .from_env_lossy();
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .without_time()
        .init();
    windup_action::run(&|k| std::env::var(k).ok()).into()
}
