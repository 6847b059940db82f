//! One run's life, the same for every door that runs scenarios (the CLI's `run` and `replay`,
//! the Action): the work goes on until it ends or the process is told to stop (Ctrl-C, or the
//! SIGTERM a CI runner sends a cancelled job), and the browser is closed either way, an attached
//! one left with only its own tabs gone. The doors read their inputs before and write their
//! outputs after; this is the part between, which each used to rebuild.

use std::future::Future;

use super::{RunError, Runner};

/// How a run's work ended. The browser is closed in both cases.
#[derive(Debug)]
pub enum Ended<T> {
    /// The work ran to its end; its outcome may still be a [`RunError`].
    Ran(Result<T, RunError>),
    /// The process was told to stop first (`"interrupt"` or `"terminated"`): the work was
    /// dropped where it stood.
    Stopped(&'static str),
}

/// Runs `work` (a future on `runner`) until it ends or the process is told to stop, then
/// closes the browser.
pub async fn run_to_end<T>(
    runner: &Runner,
    work: impl Future<Output = Result<T, RunError>>,
) -> Ended<T> {
    let ended = tokio::select! {
        outcome = work => Ended::Ran(outcome),
        signal = stop_signal() => Ended::Stopped(signal),
    };
    runner.close().await;
    ended
}

/// Ctrl-C (`"interrupt"`) or SIGTERM (`"terminated"`), whichever comes first; Ctrl-C alone
/// where SIGTERM cannot be listened for.
pub async fn stop_signal() -> &'static str {
    use tokio::signal::unix::{SignalKind, signal};
    let Ok(mut term) = signal(SignalKind::terminate()) else {
        let _ = tokio::signal::ctrl_c().await;
        return "interrupt";
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => "interrupt",
        _ = term.recv() => "terminated",
    }
}
