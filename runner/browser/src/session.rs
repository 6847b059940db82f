//! [`Session`]: one scenario's tab, in its own browser context (or a reset tab, or the
//! start-up tab, or a tab in an attached browser's default context), from its opening to its
//! reset or disposal, and the tabs it follows.
//!
//! A session holds its [`Page`] (where commands go) and the state of each concern, each owned
//! by its own type and written by the page's listeners (`page_events`): the documents
//! (`navigation`), the hold (`guard`), the frames (`remote_frames`) and the tabs its pages
//! opened. What the engine does on the page goes through [`Session::page`] and
//! [`Session::frames`]; navigation and the hold, which need several of them, are here.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::JoinHandle;
use url::Origin;

use super::cdp::browser::ResetPermissions;
use super::cdp::fetch::Disable;
use super::cdp::input::DispatchMouseEvent;
use super::cdp::network::{ClearBrowserCache, ClearBrowserCookies};
use super::cdp::page::{Navigate, RemoveScriptToEvaluateOnNewDocument, ResetNavigationHistory};
use super::cdp::storage::ClearDataForOrigin;
use super::cdp::target::GetTargets;
use super::error::{BrowserError, NavError};
use super::frames::Frames;
use super::guard::{self, Guard, Left};
use super::injected;
use super::instance::{Instance, Made};
use super::navigation::{Documents, SETTLE_WINDOW};
use super::network_log::SessionLog;
use super::page::Page;
use super::page_events::{self, Opened};
use super::pool::{InUse, TAB_RESET_TIMEOUT, TabPool};
use super::remote_frames::Subframes;

/// The tabs one browser keeps between scenarios.
pub(super) type Tabs = TabPool<Session>;

/// One scenario's browser context and its current page.
pub struct Session {
    pub(super) page: Page,
    /// The current page's documents, as its lifecycle events report them.
    docs: Arc<Documents>,
    /// The origins the session's pages are held to, and where they were stopped from going.
    guard: Arc<Guard>,
    /// The current page's frames: whether any committed, and those out of process.
    frames: Arc<Subframes>,
    /// The tabs the session's pages opened, followed or not.
    opened: Arc<Opened>,
    /// The listener tasks of the current page.
    tasks: Vec<JoinHandle<()>>,
    /// Whether it moved into a tab the page opened (such a session is never reused).
    followed_popup: bool,
    /// Where the tab goes when the session closes, to be reset for a later scenario.
    pool: Arc<Tabs>,
    /// Set while a scenario holds it; none while it is reset or waits in the pool.
    in_use: Option<InUse<Session>>,
}

impl Session {
    /// The start-up tab when it is unused, else a new page in a new context; in an attached
    /// browser with `reuse_context`, a new tab in its default context.
    pub(super) async fn open(
        instance: Arc<Instance>,
        pool: Arc<Tabs>,
    ) -> Result<Session, BrowserError> {
        let t = std::time::Instant::now();
        let tab = instance.open_tab().await?;
        match Self::adopt(instance.clone(), pool, tab.context(), tab.target.clone()).await {
            Ok(session) => {
                match tab.made {
                    Made::StartUp => {
                        tracing::debug!("using the start-up tab, ready in {:?}", t.elapsed())
                    }
                    Made::Context(_) => {
                        tracing::debug!("context and page ready in {:?}", t.elapsed())
                    }
                    Made::DefaultTab => {
                        tracing::debug!("a tab in the default context ready in {:?}", t.elapsed())
                    }
                }
                Ok(session)
            }
            Err(e) => {
                instance.discard(tab);
                Err(e)
            }
        }
    }

    /// `context` is None for a tab in the default context, which cannot be disposed.
    async fn adopt(
        instance: Arc<Instance>,
        pool: Arc<Tabs>,
        context: Option<String>,
        target: String,
    ) -> Result<Session, BrowserError> {
        let opened = Arc::new(Opened::new(&target));
        let session_id = instance.attach(&target).await?;
        let mut session = Session {
            page: Page {
                instance,
                target,
                context,
                session_id,
                log: Arc::new(Mutex::new(SessionLog::default())),
                footprint: Arc::default(),
                traffic: Arc::default(),
            },
            docs: Arc::default(),
            guard: Arc::default(),
            frames: Arc::default(),
            opened,
            tasks: Vec::new(),
            followed_popup: false,
            pool,
            in_use: None,
        };
        session.watch().await?;
        Ok(session)
    }

    /// Starts the current page's listeners and sets the page up (`page_events`).
    async fn watch(&mut self) -> Result<(), BrowserError> {
        page_events::watch_page(
            &self.page,
            &self.docs,
            &self.guard,
            &self.frames,
            &mut self.tasks,
        )
        .await?;
        let popups = page_events::watch_popups(&self.page, &self.opened, &self.guard);
        self.tasks.push(popups);
        Ok(())
    }

    /// Marks the session as a scenario's until it is closed or dropped.
    pub(super) fn take_into_use(&mut self) {
        self.in_use = Some(InUse::new(&self.pool));
    }

    /// The current page: input, screenshots, cookies, files, and the in-page engine's calls
    /// (`browser::injected`) go to it.
    pub fn page(&self) -> &Page {
        &self.page
    }

    /// The current page's frames: the realms the in-page engine runs in, and where they are.
    pub fn frames(&self) -> Frames<'_> {
        Frames {
            page: &self.page,
            subframes: &self.frames,
        }
    }

    /// The current page's target id: the same for a reused tab.
    pub fn target_id(&self) -> &str {
        &self.page.target
    }

    /// Whether the browser behind this session is still running.
    pub fn is_alive(&self) -> bool {
        self.page.instance.is_alive()
    }

    /// A copy of what happened in the session so far besides our own actions: dialogs, a
    /// crash, failed requests.
    pub fn log(&self) -> SessionLog {
        self.page.log.lock().expect("log lock").clone()
    }

    /// Starts recording the page's console messages (and uncaught exceptions) and its requests,
    /// with those the page logged before; a run never does (`windup mcp` does, for its
    /// console and network tools). Recorded until the session ends, bounded
    /// ([`super::MAX_TRAFFIC`] of each).
    pub async fn record_traffic(&self) -> Result<(), BrowserError> {
        self.page.traffic.turn_on();
        self.page.send(&super::cdp::runtime::Enable {}).await?;
        Ok(())
    }

    /// A mark in the recording: [`Session::traffic_since`] it gives what comes after.
    pub fn traffic_mark(&self) -> u64 {
        self.page.traffic.mark()
    }

    /// The console messages and requests recorded since `mark`.
    pub fn traffic_since(&self, mark: u64) -> super::TrafficSince {
        self.page.traffic.since(mark)
    }

    /// Whether no request of the page is waiting for an answer.
    pub fn network_quiet(&self) -> bool {
        self.page.log.lock().expect("log lock").in_flight == 0
    }

    /// Navigates the current page and waits for its `load` event.
    pub async fn goto(&self, url: &str, timeout: Duration) -> Result<(), NavError> {
        self.docs.goto(&self.page, url, timeout).await
    }

    /// The current page's URL.
    pub async fn url(&self) -> Result<String, BrowserError> {
        injected::url(&self.page).await
    }

    /// Waits (up to `deadline`) until the current main document has parsed, so no action lands
    /// in a document that is being replaced.
    pub async fn wait_document_ready(&self, deadline: tokio::time::Instant) {
        self.docs.wait_ready(&self.page, deadline).await
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
        self.docs.settle(&self.page, &self.guard, max, window).await
    }

    /// Holds every top-level document of this page, and of the tabs it opens once followed, to
    /// `origins`: a document request elsewhere is failed before it is sent, and remembered
    /// ([`Session::left_origins`]). Replaces an earlier hold; a reset tab is released.
    pub async fn hold_to(&self, origins: Vec<Origin>) -> Result<(), BrowserError> {
        self.guard.hold(origins);
        self.page.send(&guard::enable()).await?;
        // The tabs it opens are held by the browser's own session, before their first request.
        let instance = &self.page.instance;
        instance
            .popup_hold
            .hold(&instance.conn, &self.page.target, &self.guard)
            .await
    }

    /// The first top-level URL outside the held origins the page tried to load, or that a tab
    /// it opened was found on; none when it stayed inside.
    pub fn left_origins(&self) -> Option<Left> {
        self.guard.left()
    }

    /// Checks the current page's URL against the hold (for a tab the page opened, whose first
    /// request may have gone out before it was followed). Returns the URL when it is outside.
    pub async fn check_hold(&self) -> Result<Option<Left>, BrowserError> {
        if !self.guard.is_held() {
            return Ok(None);
        }
        // A navigation may be replacing the document right now: read the URL of the next one.
        let mut url = self.url().await;
        for _ in 0..20 {
            match url {
                Err(BrowserError::ContextLost) => {
                    tokio::time::sleep(Duration::from_millis(25)).await;
                    url = self.url().await;
                }
                _ => break,
            }
        }
        match url {
            Ok(url) => Ok(self.guard.check(url)),
            Err(e) => self.left_origins().map(Some).ok_or(e),
        }
    }

    /// If the current page opened a new tab, moves into it. Returns whether it did.
    pub async fn follow_popup(&mut self) -> Result<bool, BrowserError> {
        let Some(target) = self.opened.next_popup() else {
            return Ok(false);
        };
        let session_id = match self.page.instance.attach(&target).await {
            Ok(id) => id,
            Err(e @ BrowserError::Crashed(_)) => return Err(e),
            Err(e) => {
                tracing::warn!("a new tab opened but could not be attached: {e}");
                return Ok(false);
            }
        };
        self.stop_watching();
        self.tasks.clear();
        self.docs.clear();
        self.page = Page {
            instance: self.page.instance.clone(),
            target,
            context: self.page.context.clone(),
            session_id,
            log: self.page.log.clone(),
            footprint: self.page.footprint.clone(),
            traffic: self.page.traffic.clone(),
        };
        self.followed_popup = true;
        self.watch().await?;
        // A document the tab committed before it was watched is checked now; later ones are
        // checked as they commit.
        if let Err(e @ BrowserError::Crashed(_)) = self.check_hold().await {
            return Err(e);
        }
        Ok(true)
    }

    /// Ends the session. When the browser reuses tabs
    /// ([`super::BrowserOptions::reuse_tabs`]), the tab is reset in the background (to
    /// the state of a new tab: `about:blank`, with the storage and caches of what it loaded
    /// cleared) and handed to the next scenario: a new context costs a new renderer
    /// process and cold caches, the largest fixed cost of a replay. A tab that cannot be reset
    /// cleanly (a crash, a popup, an error) is disposed of instead.
    pub async fn close(mut self) {
        self.in_use = None;
        if !self.page.instance.reuse_tabs
            || self.followed_popup
            || self.opened.any_popup()
            || !self.page.instance.is_alive()
            || self.page.log.lock().expect("log lock").crashed
        {
            return self.dispose();
        }
        let instance = self.page.instance.clone();
        let pool = self.pool.clone();
        pool.reset_begins();
        tokio::spawn(async move {
            let mut session = self;
            let reset = tokio::time::timeout(TAB_RESET_TIMEOUT, session.reset()).await;
            match reset {
                Ok(Ok(())) if instance.is_alive() => pool.reset_ends(Some(session)),
                outcome => {
                    if let Ok(Err(e)) = outcome {
                        tracing::debug!("a tab could not be reset ({e}); disposing of it");
                    }
                    pool.reset_ends(None);
                    session.dispose();
                }
            }
            pool.notify();
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
        self.docs.forget_earlier();
        self.frames.forget();
        let page = &self.page;
        // A page it opened that is still there (unlisted as a popup) would outlive the reset.
        let targets = page
            .instance
            .conn
            .send(None, &GetTargets {})
            .await?
            .target_infos;
        let ours = targets
            .iter()
            .find(|t| t.target_id == page.target)
            .and_then(|t| t.browser_context_id.clone());
        let others = targets.iter().any(|t| {
            t.is_page()
                && t.target_id != page.target
                && ours.is_some()
                && t.browser_context_id == ours
        });
        if others {
            return Err(BrowserError::Protocol("the page opened other tabs".into()));
        }
        let (origins, scripts) = page.footprint.take();
        let mut batch = vec![
            page.queued(ClearBrowserCookies {}),
            page.queued(ClearBrowserCache {}),
            page.queued(ResetNavigationHistory {}),
            page.queued(DispatchMouseEvent::moved(-1.0, -1.0)),
        ];
        if !origins.is_empty() {
            batch.push(page.queued(ClearDataForOrigin {
                origin: origins.join(","),
                storage_types: "all",
            }));
        }
        for identifier in scripts {
            batch.push(page.queued(RemoveScriptToEvaluateOnNewDocument { identifier }));
        }
        // The next scenario holds the tab to its own origins.
        if self.guard.release() {
            batch.push(page.queued(Disable {}));
        }
        Page::batch(batch).await?;
        page.instance
            .conn
            .send(
                None,
                &ResetPermissions {
                    browser_context_id: page.context.clone(),
                },
            )
            .await?;
        *page.log.lock().expect("log lock") = SessionLog::default();
        page.traffic.clear();
        self.opened.clear_popups();
        Ok(())
    }

    /// Stops the current page's listener tasks.
    pub(super) fn stop_watching(&self) {
        for task in &self.tasks {
            task.abort();
        }
    }

    /// Closes the context and everything in it. The disposal runs in the background: the next
    /// scenario has its own context and need not wait for this one's pages to be torn down.
    fn dispose(self) {
        self.stop_watching();
        let instance = &self.page.instance;
        if !instance.is_alive() {
            return;
        }
        match &self.page.context {
            Some(context) => instance.dispose_in_background(context),
            // An attached browser's default context: close the tabs this session opened,
            // leave every other tab (the user's) alone.
            None if instance.in_default_context() => {
                instance.close_in_background(self.opened.take_tabs());
            }
            None => {
                // The default context cannot be disposed, and closing the last tab may end
                // the browser: leave the tab blank, where nothing of the app keeps running.
                // Nobody waits for that page, so neither do we.
                let conn = instance.conn.clone();
                let session = self.page.session_id.clone();
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(
                        Duration::from_secs(5),
                        conn.send(
                            Some(&session),
                            &Navigate {
                                url: "about:blank".into(),
                            },
                        ),
                    )
                    .await;
                });
            }
        }
    }
}
