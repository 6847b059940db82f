//! Navigation: the lifecycle of the main frame's documents, as the page's events report it,
//! and waiting for the document that finally commits to load.

use std::collections::HashMap;
use std::time::Duration;

use super::cdp::page::{LifecycleEvent, Navigate};
use super::error::{BrowserError, NavError};
use super::injected;
use super::session::Session;

/// How long [`Session::settle`] watches a page that is not leaving before it counts as staying.
const SETTLE_WINDOW: Duration = Duration::from_millis(300);

/// Lifecycle of the main frame's documents, keyed by loader id.
#[derive(Default)]
pub(super) struct DocState {
    /// The latest document's loader id (set when it commits).
    current: Option<String>,
    /// Loader ids in the order their documents committed.
    commits: Vec<String>,
    /// Lifecycle event names seen per loader.
    events: HashMap<String, Vec<String>>,
}

impl DocState {
    /// Notes a lifecycle event of the main frame.
    pub(super) fn on_lifecycle(&mut self, event: LifecycleEvent) {
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

impl Session {
    /// Navigates the current page and waits for its `load` event.
    pub async fn goto(&self, url: &str, timeout: Duration) -> Result<(), NavError> {
        self.check_alive()
            .map_err(|e| NavError::Crashed(e.to_string()))?;
        let t = std::time::Instant::now();
        let deadline = tokio::time::Instant::now() + timeout;
        let navigated = tokio::time::timeout_at(
            deadline,
            self.page_send(&Navigate {
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
        self.wait_lifecycle(&loader, "load", true, deadline).await?;
        tracing::debug!("loaded {url} in {:?}", t.elapsed());
        // A loaded error page is still a failed navigation.
        let status = injected::navigation_status(self).await.unwrap_or(None);
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
        loader: &str,
        name: &str,
        follow: bool,
        deadline: tokio::time::Instant,
    ) -> Result<(), NavError> {
        loop {
            let notified = self.shared.doc_changed.notified();
            {
                let doc = self.shared.doc.lock().expect("doc lock");
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
            self.check_alive()
                .map_err(|e| NavError::Crashed(e.to_string()))?;
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Err(NavError::Timeout);
            }
        }
    }

    /// Waits (up to `deadline`) until the current main document has parsed, so no action lands
    /// in a document that is being replaced.
    pub async fn wait_document_ready(&self, deadline: tokio::time::Instant) {
        let loader = self.shared.doc.lock().expect("doc lock").current.clone();
        if let Some(loader) = loader {
            let _ = self
                .wait_lifecycle(&loader, "DOMContentLoaded", false, deadline)
                .await;
        }
    }

    /// Waits (up to `max`) while the page leaves its document (a click started a navigation),
    /// then for the next document to parse, so what is read next is the page the navigation
    /// reached, or the hold has stopped it ([`Session::left_origins`]). A navigation a step
    /// planned starts a little after the step (a form's submission is a task of its own): the
    /// page is watched for a short window (300 ms) before it counts as staying.
    pub async fn settle(&self, max: Duration) {
        self.settle_within(max, SETTLE_WINDOW).await
    }

    /// [`Session::settle`], watching a page that is not leaving for `window` (zero: only a
    /// navigation already started is waited for, as after a step that acted).
    pub async fn settle_within(&self, max: Duration, window: Duration) {
        let start = tokio::time::Instant::now();
        let deadline = start + max;
        while tokio::time::Instant::now() < deadline && self.left_origins().is_none() {
            match injected::is_leaving(self).await {
                Ok(true) | Err(BrowserError::ContextLost) => {}
                Ok(false) if start.elapsed() < window => {}
                Ok(false) | Err(_) => break,
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.wait_document_ready(deadline).await;
    }

    /// Forgets every document but the current one (a reset tab starts with only its blank
    /// page).
    pub(super) fn forget_earlier_documents(&self) {
        let mut doc = self.shared.doc.lock().expect("doc lock");
        let current = doc.current.clone();
        doc.commits.retain(|l| Some(l) == current.as_ref());
        doc.events.retain(|l, _| Some(l) == current.as_ref());
    }

    /// The current page's URL.
    pub async fn url(&self) -> Result<String, BrowserError> {
        injected::url(self).await
    }
}
