//! Waiting for a page to settle before it is read ([`Session::wait_settled`]): no request of the
//! page waiting for an answer and none started or ended for a short window, its document
//! unchanged for a short window, parsed, and nothing shown marked `aria-busy`; bounded, so a page
//! that never rests (a clock, a poll) is read anyway once the bound is reached.

use std::time::{Duration, Instant};

use super::BrowserError;
use super::Session;
use super::injected;

/// How long the network must have been quiet (no request started or ended, none waiting).
pub const NETWORK_QUIET: Duration = Duration::from_millis(500);

/// How long the document must have been unchanged.
pub const DOCUMENT_STILL: Duration = Duration::from_millis(300);

/// How long after its scripts' last request ended a page is given to handle the answer (an
/// XHR's load handler drawing what it fetched) before it is read.
const ANSWER_HANDLED: Duration = Duration::from_millis(50);

/// How often the page is asked.
const POLL: Duration = Duration::from_millis(50);

/// How often the page's requests are looked at (in Windup's own log, not by asking the page).
const POLL_ANSWERS: Duration = Duration::from_millis(10);

/// How a wait for the page to settle ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settling {
    /// The page rested, after this long.
    Settled(Duration),
    /// The bound was reached with the page still busy: what it was still doing, in words.
    Busy(Vec<&'static str>),
}

impl Session {
    /// Waits (at most `max`) until the page has settled: no request waiting for an answer and
    /// none started or ended for [`NETWORK_QUIET`], the document parsed and unchanged for
    /// [`DOCUMENT_STILL`], and no shown element saying `aria-busy="true"`. A document being
    /// replaced is waited for; a browser that fails to answer ends the wait as busy.
    pub async fn wait_settled(&self, max: Duration) -> Settling {
        let start = Instant::now();
        loop {
            let busy = self.still_busy().await;
            if busy.is_empty() {
                return Settling::Settled(start.elapsed());
            }
            if start.elapsed() >= max || busy == ["the browser did not answer"] {
                return Settling::Busy(busy);
            }
            tokio::time::sleep(POLL.min(max.saturating_sub(start.elapsed()))).await;
        }
    }

    /// Waits (at most `max`) until every request the page's scripts made (`fetch`,
    /// `XMLHttpRequest`) has finished and none ended in the last 50 ms (`ANSWER_HANDLED`): what
    /// they fetched while the page loaded is drawn before it is read. Cheaper than
    /// [`Session::wait_settled`] (no quiet window, no call to the page, other requests such as
    /// images or the favicon not waited for): a page whose scripts' requests ended before its
    /// load event is not waited for at all. Returns whether they finished within `max`.
    pub async fn wait_answers_handled(&self, max: Duration) -> bool {
        let start = Instant::now();
        loop {
            let left = {
                let log = self.page.log.lock().expect("log lock");
                let since = log.fetch_ended_at.map(|at| at.elapsed());
                match since {
                    _ if log.fetches_unfinished > 0 => Some(POLL_ANSWERS),
                    Some(since) if since < ANSWER_HANDLED => Some(ANSWER_HANDLED - since),
                    _ => None,
                }
            };
            let Some(wait) = left else {
                return true;
            };
            let remaining = max.saturating_sub(start.elapsed());
            if remaining.is_zero() {
                return false;
            }
            tokio::time::sleep(wait.min(remaining)).await;
        }
    }

    /// What keeps the page from counting as settled now, in words; empty when nothing does.
    async fn still_busy(&self) -> Vec<&'static str> {
        let mut busy = Vec::new();
        {
            let log = self.page.log.lock().expect("log lock");
            if log.in_flight > 0 {
                busy.push("requests waiting for an answer");
            } else if log
                .network_changed_at
                .is_some_and(|at| at.elapsed() < NETWORK_QUIET)
            {
                busy.push("a request just ended");
            }
        }
        match injected::document_state(&self.page).await {
            Ok(state) => {
                if state.ready == "loading" {
                    busy.push("the document is still parsing");
                }
                if state.still_ms < DOCUMENT_STILL.as_millis() as u64 {
                    busy.push("the document is changing");
                }
                if state.busy > 0 {
                    busy.push("an element says aria-busy");
                }
            }
            Err(BrowserError::ContextLost) => busy.push("a new document is replacing it"),
            Err(_) => return vec!["the browser did not answer"],
        }
        busy
    }
}
