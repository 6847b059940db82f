//! Going to a page: the start URL and `goto` steps, resolved against the base URL and held to
//! the app's origins (whatever the plan's road in), each reported with the reached page's
//! structural signature.

use tokio::time::Instant;
use windup_model::{Action, FailureClass};

use super::outcome::{Failure, fail};
use super::steps::{Executor, Timing};
use crate::browser::NavError;
use crate::events::Event;
use crate::signature;

/// How long a page reached is given to finish the requests it started while loading before its
/// signature is read: a page that keeps one open (a long poll) is read after this anyway.
const ANSWERS_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

impl Executor<'_, '_> {
    /// Opens the plan's start URL; returns the start page's signature.
    pub(super) async fn open_start(&mut self, start_url: &str) -> Result<Option<String>, Failure> {
        let url = self
            .cx
            .boundary
            .destination(start_url)
            .map_err(|(problem, _)| fail(FailureClass::PlanInvalid, None, problem))?;
        let deadline = (Instant::now() + self.cx.timeouts.navigation).min(self.scenario_deadline);
        let t = Instant::now();
        self.navigate(url.as_str(), deadline, None).await?;
        tracing::debug!(url = %url, "start page loaded in {:?}", t.elapsed());
        Ok(self.see_page(url.as_str(), None).await)
    }

    /// A `goto` step.
    pub(super) async fn goto_step(
        &mut self,
        action: &Action,
        id: &str,
        timing: &mut Timing,
    ) -> Result<(), Failure> {
        let raw = action.url.as_deref().unwrap_or("/");
        let url = self
            .cx
            .boundary
            .destination(raw)
            .map_err(|(problem, _)| fail(FailureClass::PlanInvalid, Some(id), problem))?;
        let t = Instant::now();
        let nav_deadline =
            (Instant::now() + self.cx.timeouts.navigation).min(self.scenario_deadline);
        self.navigate(url.as_str(), nav_deadline, Some(id)).await?;
        timing.1 = t.elapsed();
        self.see_page(url.as_str(), None).await;
        Ok(())
    }

    /// Tells subscribers which page was reached, with its signature, title and first controls,
    /// and `via` the step that led there (none for the start page and a `goto`).
    pub(super) async fn see_page(&mut self, url: &str, via: Option<String>) -> Option<String> {
        // Where the page really is: a redirect (to a sign-in page, say) is not the page asked for.
        let url = match via {
            None => self.session.url().await.unwrap_or_else(|_| url.to_string()),
            Some(_) => url.to_string(),
        };
        // What the page fetched while it loaded (a sidebar, a list) is drawn before it is read,
        // so the same page gives the same signature however fast its requests came back.
        let max = ANSWERS_WAIT.min(
            self.scenario_deadline
                .saturating_duration_since(Instant::now()),
        );
        let waited = Instant::now();
        let handled = self.session.wait_answers_handled(max).await;
        tracing::debug!(
            "the page's requests {} after {:?}",
            if handled { "answered" } else { "still open" },
            waited.elapsed()
        );
        let seen = signature::observe(self.session, signature::SEEN_CONTROLS)
            .await
            .ok();
        self.last_url = Some(url.clone());
        let signature = seen.as_ref().map(|s| s.signature.clone());
        self.emit(Event::PageSeen {
            scenario_id: self.cx.scenario_id.to_string(),
            url,
            signature: signature.clone(),
            title: seen.as_ref().map(|s| s.title.clone()),
            controls: seen.map(|s| s.controls).unwrap_or_default(),
            via,
        });
        signature
    }

    /// After a step that may have led elsewhere: the page it reached, when the URL changed (one
    /// read of the URL per step; the page itself is read only when it is a new one). A
    /// navigation the step started is waited for first, so its page is the one read.
    pub(super) async fn see_if_moved(&mut self, action: &Action) {
        if action.kind != windup_model::ActionType::WaitFor {
            self.last_act = Some(windup_model::sitemap::step_via(action));
        }
        let max = self.cx.timeouts.navigation.min(
            self.scenario_deadline
                .saturating_duration_since(Instant::now()),
        );
        self.session
            .settle_within(max, std::time::Duration::ZERO)
            .await;
        let Ok(now) = self.session.url().await else {
            return;
        };
        let path = |u: &str| u.split('#').next().unwrap_or(u).to_string();
        if self.last_url.as_deref().map(path) != Some(path(&now)) {
            let via = match action.kind {
                windup_model::ActionType::WaitFor => self.last_act.clone(),
                _ => Some(windup_model::sitemap::step_via(action)),
            };
            self.see_page(&now, via).await;
        }
    }

    async fn navigate(
        &mut self,
        url: &str,
        deadline: Instant,
        action_id: Option<&str>,
    ) -> Result<(), Failure> {
        let timeout = deadline.saturating_duration_since(Instant::now());
        match self.session.goto(url, timeout).await {
            Ok(()) => Ok(()),
            Err(NavError::Failed(reason)) => Err(fail(
                FailureClass::NavigationFailed,
                action_id,
                format!("{url} did not load: {reason}"),
            )),
            Err(NavError::Timeout) => Err(fail(
                self.timeout_class(FailureClass::NavigationFailed, deadline),
                action_id,
                format!(
                    "{url} did not finish loading within {} ms",
                    timeout.as_millis()
                ),
            )),
            Err(NavError::Crashed(m)) => Err(fail(FailureClass::BrowserCrashed, action_id, m)),
        }
    }
}
