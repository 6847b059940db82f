//! A failure's evidence, captured at the failing step: URL, target diagnosis, accessibility
//! snapshot, the page's errors, failed requests, and a screenshot with every credential covered
//! (`cover`; none when one cannot be covered). And a passing run's background (its errors and
//! failed requests), a verified plan's baseline.

use super::context::Screenshots;
use super::outcome::{Captured, Failure};
use super::steps::Executor;
use crate::browser::injected;

/// Characters of accessibility snapshot kept as evidence.
const EVIDENCE_SNAPSHOT_CHARS: usize = 6_000;

impl Executor<'_, '_> {
    /// Evidence at the failing step: URL, target diagnosis, accessibility snapshot, page errors,
    /// failed requests and a screenshot with every credential covered. Best effort:
    /// a page that cannot give a part leaves it out.
    pub(super) async fn capture(&mut self, failure: &Failure, url: Option<String>) -> Captured {
        let mut evidence = windup_model::Evidence {
            action_id: failure.action_id.clone(),
            url,
            target: self
                .failed_target
                .clone()
                .map(|t| format!("{t}: {}", failure.message)),
            ..Default::default()
        };
        evidence.snapshot = injected::snapshot(self.session.page(), EVIDENCE_SNAPSHOT_CHARS)
            .await
            .ok();
        if let Ok(f) = injected::failures(self.session.page()).await {
            evidence.console_errors = f.console;
        }
        // From the Network events of the whole session (every page and tab it went through):
        // HTTP errors, and requests that got no answer at all, which the page cannot see.
        evidence.failed_requests = self.session.log().failed_requests;
        let screenshot = if self.cx.screenshots == Screenshots::Off {
            None
        } else {
            self.covered_screenshot().await
        };
        Captured {
            evidence,
            screenshot,
        }
    }

    /// What the page did in the background on a passing run: its errors (the current
    /// document's) and the session's failed requests, as a baseline. Best effort.
    pub(super) async fn background(&self) -> windup_model::Baseline {
        let console = injected::failures(self.session.page())
            .await
            .map(|f| f.console)
            .unwrap_or_default();
        let requests = self.session.log().failed_requests;
        windup_model::Baseline::record(
            console.iter().map(String::as_str),
            requests.iter().map(String::as_str),
        )
    }
}
