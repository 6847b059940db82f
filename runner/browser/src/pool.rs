//! Tabs kept between scenarios. A closed session's tab is reset in the background and handed
//! to a later scenario, because a new context costs a renderer process and cold caches, the
//! largest fixed cost of a replay; a tab that cannot be reset cleanly is disposed of instead.

use std::sync::Arc;
use std::time::Duration;

use super::cdp::browser::ResetPermissions;
use super::cdp::input::DispatchMouseEvent;
use super::cdp::network::{ClearBrowserCache, ClearBrowserCookies};
use super::cdp::page::{RemoveScriptToEvaluateOnNewDocument, ResetNavigationHistory};
use super::cdp::storage::ClearDataForOrigin;
use super::cdp::target::GetTargets;
use super::chromium::Instance;
use super::error::BrowserError;
use super::network_log::SessionLog;
use super::session::Session;

/// How long a closed tab's reset may take before the next scenario opens a new context.
pub(super) const TAB_RESET_TIMEOUT: Duration = Duration::from_secs(5);

/// Tabs kept between scenarios (see [`Session::close`]).
#[derive(Default)]
pub(super) struct TabPool {
    pub ready: Vec<Session>,
    resetting: usize,
    /// Sessions handed out and not yet closed (see [`InUse`]).
    in_use: usize,
}

/// Counts a session as in use from [`super::Browser::acquire_session`] until it is closed or
/// dropped.
pub(super) struct InUse(Arc<Instance>);

impl InUse {
    pub(super) fn new(instance: &Arc<Instance>) -> InUse {
        instance.tabs.lock().expect("tabs lock").in_use += 1;
        InUse(instance.clone())
    }
}

impl Drop for InUse {
    fn drop(&mut self) {
        self.0.tabs.lock().expect("tabs lock").in_use -= 1;
    }
}

impl TabPool {
    /// A reset tab from an earlier scenario, else none (the caller opens a new tab) when no tab
    /// is being reset, or when one is while other scenarios run: then the reset overlaps the
    /// next scenario instead of holding up a job slot (a reset takes about a third of a short
    /// scenario). A new tab is opened so only while at most one is idle and another is in use,
    /// so a run keeps at most one tab more than it runs scenarios at once, and one scenario at
    /// a time (`-j 1`) keeps a single tab: a spare renderer costs about as much memory as the
    /// one in use, which the suite benchmark counts. Otherwise it waits for the reset.
    pub(super) async fn take_ready(instance: &Instance) -> Option<Session> {
        if !instance.reuse_tabs {
            return None;
        }
        let deadline = tokio::time::Instant::now() + TAB_RESET_TIMEOUT;
        loop {
            let changed = instance.tabs_changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            {
                let mut tabs = instance.tabs.lock().expect("tabs lock");
                while let Some(session) = tabs.ready.pop() {
                    if session.is_alive() {
                        return Some(session);
                    }
                }
                if tabs.resetting == 0 || (tabs.resetting == 1 && tabs.in_use > 0) {
                    return None;
                }
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return None;
            }
        }
    }

    /// Waits until no tab is being reset (each reset is bounded by [`TAB_RESET_TIMEOUT`]), then
    /// takes out every tab kept for the next scenario: closing the browser, none may still hold
    /// it, or its profile outlives it.
    pub(super) async fn drain(instance: &Instance) -> Vec<Session> {
        let deadline = tokio::time::Instant::now() + TAB_RESET_TIMEOUT;
        loop {
            let changed = instance.tabs_changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            {
                let mut tabs = instance.tabs.lock().expect("tabs lock");
                if tabs.resetting == 0 {
                    return std::mem::take(&mut tabs.ready);
                }
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return std::mem::take(&mut instance.tabs.lock().expect("tabs lock").ready);
            }
        }
    }
}

impl Session {
    /// Ends the session. When the browser reuses tabs
    /// ([`super::BrowserOptions::reuse_tabs`]), the tab is reset in the background (to
    /// the state of a new tab: `about:blank`, with the storage and caches of what it loaded
    /// cleared) and handed to the next scenario: a new context costs a new renderer
    /// process and cold caches, the largest fixed cost of a replay. A tab that cannot be reset
    /// cleanly (a crash, a popup, an error) is disposed of instead.
    pub async fn close(mut self) {
        self.in_use = None;
        if !self.instance.reuse_tabs
            || self.followed_popup
            || !self.shared.popups.lock().expect("popups lock").is_empty()
            || !self.instance.is_alive()
            || self.shared.log.lock().expect("log lock").crashed
        {
            return self.dispose();
        }
        let instance = self.instance.clone();
        instance.tabs.lock().expect("tabs lock").resetting += 1;
        tokio::spawn(async move {
            let mut session = self;
            let reset = tokio::time::timeout(TAB_RESET_TIMEOUT, session.reset()).await;
            {
                let mut tabs = instance.tabs.lock().expect("tabs lock");
                tabs.resetting -= 1;
                match reset {
                    Ok(Ok(())) if instance.is_alive() => tabs.ready.push(session),
                    outcome => {
                        if let Ok(Err(e)) = outcome {
                            tracing::debug!("a tab could not be reset ({e}); disposing of it");
                        }
                        drop(tabs);
                        session.dispose();
                    }
                }
            }
            instance.tabs_changed.notify_waiters();
        });
    }

    /// Returns the tab to the state of a new one in a new context, for the next scenario:
    /// `about:blank` (the app's scripts stop, unload handlers run), then, for every origin it
    /// loaded, cookies, local and session storage, IndexedDB, Cache Storage, service workers
    /// and the HTTP cache cleared, permissions reset, history emptied, init scripts other than
    /// the engine's removed, the pointer moved off the page and the session's log emptied.
    /// The same steps as Playwright's context reuse; the renderer process is what is kept.
    async fn reset(&mut self) -> Result<(), BrowserError> {
        self.goto("about:blank", TAB_RESET_TIMEOUT)
            .await
            .map_err(|e| BrowserError::Protocol(format!("leaving the page: {e:?}")))?;
        self.forget_earlier_documents();
        self.forget_remote_frames();
        // about:blank has no frames: the next scenario asks for realms only once it makes one.
        self.shared
            .subframes
            .store(false, std::sync::atomic::Ordering::SeqCst);
        // A page it opened that is still there (unlisted as a popup) would outlive the reset.
        let targets = self
            .instance
            .conn
            .send(None, &GetTargets {})
            .await?
            .target_infos;
        let ours = targets
            .iter()
            .find(|t| t.target_id == self.target)
            .and_then(|t| t.browser_context_id.clone());
        let others = targets.iter().any(|t| {
            t.is_page()
                && t.target_id != self.target
                && ours.is_some()
                && t.browser_context_id == ours
        });
        if others {
            return Err(BrowserError::Protocol("the page opened other tabs".into()));
        }
        let origins: Vec<String> =
            std::mem::take(&mut *self.shared.origins.lock().expect("origins lock"))
                .into_iter()
                .collect();
        let scripts = std::mem::take(&mut *self.shared.init_scripts.lock().expect("scripts lock"));
        let mut batch = vec![
            self.queued(ClearBrowserCookies {}),
            self.queued(ClearBrowserCache {}),
            self.queued(ResetNavigationHistory {}),
            self.queued(DispatchMouseEvent::moved(-1.0, -1.0)),
        ];
        if !origins.is_empty() {
            batch.push(self.queued(ClearDataForOrigin {
                origin: origins.join(","),
                storage_types: "all",
            }));
        }
        for identifier in scripts {
            batch.push(self.queued(RemoveScriptToEvaluateOnNewDocument { identifier }));
        }
        // The next scenario holds the tab to its own origins.
        batch.extend(self.release_command());
        Self::page_batch(batch).await?;
        self.instance
            .conn
            .send(
                None,
                &ResetPermissions {
                    browser_context_id: self.context.clone(),
                },
            )
            .await?;
        *self.shared.log.lock().expect("log lock") = SessionLog::default();
        self.shared.popups.lock().expect("popups lock").clear();
        Ok(())
    }
}
