//! One run's life, the same for every door that runs scenarios or drives the browser (the
//! CLI's `run` and `replay`, the Action, `windup mcp`): the work goes on until it ends or the process is told to stop (Ctrl-C, the SIGTERM a
//! CI runner sends a cancelled job, or the SIGHUP of a closed terminal), and the browser is closed either way, an attached
//! one left with only its own tabs gone. The doors read their inputs before and write their
//! outputs after; this is the part between, which each used to rebuild.

use std::future::Future;

use tokio::signal::unix::{Signal, SignalKind, signal};

use super::{RunError, Runner};
use crate::browser::Browser;

/// How a run's work ended. The browser is closed in both cases.
#[derive(Debug)]
pub enum Ended<T, E = RunError> {
    /// The work ran to its end; its outcome may still be an error (a [`RunError`] for a run).
    Ran(Result<T, E>),
    /// The process was told to stop first ([`StopSignals`]): the work was dropped where it
    /// stood.
    Stopped(&'static str),
}

/// What holds the browser a run's work uses, and closes it when the work is over: the
/// [`Runner`], or a [`Browser`] handle (`windup mcp`'s, whose `Drive` the server owns).
pub trait ClosesBrowser {
    /// Closes the browser and waits for it to exit (an attached one: only Windup's tabs).
    fn close_browser(&self) -> impl Future<Output = ()>;
}

impl ClosesBrowser for Runner {
    async fn close_browser(&self) {
        self.close().await;
    }
}

impl ClosesBrowser for Browser {
    async fn close_browser(&self) {
        self.close().await;
    }
}

/// Runs `work` (a future on `owner`'s browser) until it ends or the process is told to stop,
/// then closes the browser.
pub async fn run_to_end<T, E>(
    owner: &impl ClosesBrowser,
    work: impl Future<Output = Result<T, E>>,
) -> Ended<T, E> {
    let mut signals = StopSignals::listen();
    let ended = tokio::select! {
        outcome = work => Ended::Ran(outcome),
        signal = signals.requested() => Ended::Stopped(signal),
    };
    owner.close_browser().await;
    ended
}

/// The signals that tell Windup to stop: Ctrl-C (`"interrupt"`), SIGTERM (`"terminated"`, a CI
/// runner cancelling the job) and SIGHUP (`"hung up"`, a closed terminal). Listened for from
/// [`StopSignals::listen`] on, so one sent after it never takes its default action (an exit
/// that would leave Chromium running).
pub struct StopSignals {
    interrupt: Option<Signal>,
    terminate: Option<Signal>,
    hangup: Option<Signal>,
}

impl StopSignals {
    /// Starts listening (a signal that cannot be listened for keeps its default action).
    pub fn listen() -> StopSignals {
        StopSignals {
            interrupt: signal(SignalKind::interrupt()).ok(),
            terminate: signal(SignalKind::terminate()).ok(),
            hangup: signal(SignalKind::hangup()).ok(),
        }
    }

    /// The first of them to come, by name.
    pub async fn requested(&mut self) -> &'static str {
        async fn on(signal: Option<&mut Signal>, name: &'static str) -> &'static str {
            match signal {
                Some(s) => {
                    s.recv().await;
                    name
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            name = on(self.interrupt.as_mut(), "interrupt") => name,
            name = on(self.terminate.as_mut(), "terminated") => name,
            name = on(self.hangup.as_mut(), "hung up") => name,
        }
    }
}
