//! Navigation: the lifecycle of the main frame's documents, as the page's events report it,
//! and waiting for the document that finally commits to load.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::Notify;

use super::cdp::page::{LifecycleEvent, Navigate};
use super::error::{BrowserError, NavError};
use super::guard::Guard;
use super::injected;
use super::page::Page;

/// How long [`super::Session::settle`] watches a page that is not leaving before it counts as
/// staying.
pub(super) const SETTLE_WINDOW: Duration = Duration::from_millis(300);

/// The main frame's documents as the page's lifecycle events report them (its listener writes
/// them), and the waits on them.
#[derive(Default)]
pub(super) struct Documents {
    state: Mutex<DocState>,
    changed: Notify,
}

/// Lifecycle of the main frame's documents, keyed by loader id.
#[derive(Default)]
struct DocState {
    /// The latest document's loader id (set when it commits).
    current: Option<String>,
    /// Loader ids in the order their documents committed.
    commits: Vec<String>,
    /// Lifecycle event names seen per loader.
    events: HashMap<String, Vec<String>>,
}

impl DocState {
    /// Notes a lifecycle event of the main frame.
    fn on_lifecycle(&mut self, event: LifecycleEvent) {
        let LifecycleEvent {
            loader_id, name, ..
        } = event;
        if (name == "init" || name == "commit") && self.current.as_deref() != Some(&loader_id) {
            self.current = Some(loader_id.clone());
            self.commits.push(loader_id.clone());
        }
        self.events.entry(loader_id).or_default().push(name);
    }
}

impl Documents {
    fn lock(&self) -> std::sync::MutexGuard<'_, DocState> {
        self.state.lock().expect("doc lock")
    }

    /// Notes a lifecycle event of the main frame, and wakes whoever waits for one.
    pub(super) fn on_lifecycle(&self, event: LifecycleEvent) {
        self.lock().on_lifecycle(event);
        self.changed.notify_waiters();
    }

    /// Wakes whoever waits for a lifecycle event, to look again (the page crashed, or the
    /// browser is gone).
    pub(super) fn wake(&self) {
        self.changed.notify_waiters();
    }

    /// Forgets every document (the session moves to another tab).
    pub(super) fn clear(&self) {
        *self.lock() = DocState::default();
    }

    /// Forgets every document but the current one (a reset tab starts with only its blank
    /// page).
    pub(super) fn forget_earlier(&self) {
        let mut doc = self.lock();
        let current = doc.current.clone();
        doc.commits.retain(|l| Some(l) == current.as_ref());
        doc.events.retain(|l, _| Some(l) == current.as_ref());
    }

    /// Navigates `page` and waits for its `load` event.
    pub(super) async fn goto(
        &self,
        page: &Page,
        url: &str,
        timeout: Duration,
    ) -> Result<(), NavError> {
        page.check_alive()
            .map_err(|e| NavError::Crashed(e.to_string()))?;
        let t = std::time::Instant::now();
        let deadline = tokio::time::Instant::now() + timeout;
        let navigated = tokio::time::timeout_at(
            deadline,
            page.send_unchecked(&Navigate {
                url: url.to_string(),
            }),
        )
        .await
        .map_err(|_| NavError::Timeout)?
        .map_err(|e| match e {
            BrowserError::Crashed(m) => NavError::Crashed(m),
            other => NavError::Failed(other.to_string()),
        })?;
        if let Some(error) = navigated.error_text.filter(|t| !t.is_empty()) {
            return Err(NavError::Failed(error));
        }
        let Some(loader) = navigated.loader_id else {
            return Ok(()); // same-document navigation: nothing to load
        };
        self.wait_lifecycle(page, &loader, "load", true, deadline)
            .await?;
        tracing::debug!("loaded {url} in {:?}", t.elapsed());
        // A loaded error page is still a failed navigation.
        let status = injected::navigation_status(page).await.unwrap_or(None);
        match status {
            Some(code) if code >= 400 => Err(NavError::Failed(format!("HTTP status {code}"))),
            _ => Ok(()),
        }
    }

    /// Waits for lifecycle event `name` of the document `loader`; with `follow`, of the
    /// document that replaced it instead (a script or meta redirect before `load` means the
    /// first document never finishes).
    async fn wait_lifecycle(
        &self,
        page: &Page,
        loader: &str,
        name: &str,
        follow: bool,
        deadline: tokio::time::Instant,
    ) -> Result<(), NavError> {
        loop {
            let notified = self.changed.notified();
            {
                let doc = self.lock();
                let target = match doc.commits.iter().position(|l| l == loader) {
                    Some(_) if follow => doc.commits.last().map(String::as_str).unwrap_or(loader),
                    _ => loader,
                };
                if doc
                    .events
                    .get(target)
                    .is_some_and(|names| names.iter().any(|n| n == name))
                {
                    return Ok(());
                }
            }
            page.check_alive()
                .map_err(|e| NavError::Crashed(e.to_string()))?;
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Err(NavError::Timeout);
            }
        }
    }

    /// Waits (up to `deadline`) until the current main document has parsed, so no action lands
    /// in a document that is being replaced.
    pub(super) async fn wait_ready(&self, page: &Page, deadline: tokio::time::Instant) {
        let loader = self.lock().current.clone();
        if let Some(loader) = loader {
            let _ = self
                .wait_lifecycle(page, &loader, "DOMContentLoaded", false, deadline)
                .await;
        }
    }

    /// Waits (up to `max`) while the page leaves its document, watching a page that is not
    /// leaving for `window`, then for the next document to parse; a page the hold stopped
    /// ([`Guard::left`]) is not waited for (see [`super::Session::settle`]).
    pub(super) async fn settle(&self, page: &Page, guard: &Guard, max: Duration, window: Duration) {
        let start = tokio::time::Instant::now();
        let deadline = start + max;
        while tokio::time::Instant::now() < deadline && guard.left().is_none() {
            match injected::is_leaving(page).await {
                Ok(true) | Err(BrowserError::ContextLost) => {}
                Ok(false) if start.elapsed() < window => {}
                Ok(false) | Err(_) => break,
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.wait_ready(page, deadline).await;
    }
}
