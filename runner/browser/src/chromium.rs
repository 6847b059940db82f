//! The process-wide browser: one lazily started Chromium ([`Instance`]), restarted after a
//! crash, or one someone else started that Windup attaches to (`--cdp-url`), and where
//! scenarios get their [`Session`]s.
//!
//! Windup never closes a browser it did not start: closing an attached one disposes of the
//! contexts and closes the tabs Windup made in it, then lets go of the WebSocket. An attached
//! browser that dies is an error, never a restart.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::attach::attach;
use super::cdp::target::DisposeBrowserContext;
use super::error::BrowserError;
use super::instance::{Instance, Owner, close_tab};
use super::launch::{BrowserOptions, Launched, kill_pid, launch};
use super::session::{Session, Tabs};

/// A running browser and the tabs kept in it between scenarios.
struct Running {
    instance: Arc<Instance>,
    tabs: Arc<Tabs>,
}

/// The process-wide browser: started on first use, restarted after a crash; or attached to
/// on first use when [`BrowserOptions::cdp_url`] is set. Cloning is cheap and shares the same
/// Chromium.
#[derive(Clone)]
pub struct Browser {
    options: Arc<BrowserOptions>,
    state: Arc<tokio::sync::Mutex<Option<Running>>>,
}

impl Browser {
    /// A browser that starts Chromium with `options` on first use (or attaches to the one at
    /// `options.cdp_url`); nothing runs yet.
    pub fn new(options: BrowserOptions) -> Self {
        Browser {
            options: Arc::new(options),
            state: Arc::new(tokio::sync::Mutex::new(None)),
        }
    }

    /// Starts Chromium (or attaches to it) now, if that has not happened, so start-up
    /// failures surface early. An attached browser is checked first: a URL where nothing
    /// answers, that is not Chromium's, or a Chromium older than Windup supports is a
    /// [`BrowserError::Attach`].
    pub async fn ensure_started(&self) -> Result<(), BrowserError> {
        self.instance().await.map(|_| ())
    }

    async fn instance(&self) -> Result<(Arc<Instance>, Arc<Tabs>), BrowserError> {
        let mut state = self.state.lock().await;
        if let Some(Running { instance, tabs }) = state.as_ref() {
            if instance.is_alive() {
                return Ok((instance.clone(), tabs.clone()));
            }
            if let Owner::Attached { url, .. } = &instance.owner {
                // Kept, so every later call says the same.
                return Err(BrowserError::Crashed(format!(
                    "the browser at {url} went away; Windup does not restart a browser it did not start"
                )));
            }
        }
        if let Some(dead) = state.take() {
            tracing::warn!("the browser died; starting a new one");
            dead.instance.reader.abort();
            dead.tabs.clear();
        }
        let started = std::time::Instant::now();
        let (conn, reader, owner) = match &self.options.cdp_url {
            Some(url) => {
                let (conn, reader) = attach(url, self.options.launch_timeout).await?;
                let owner = Owner::Attached {
                    url: url.to_string(),
                    reuse_context: self.options.reuse_context,
                };
                (conn, reader, owner)
            }
            None => {
                let Launched {
                    conn,
                    reader,
                    child,
                    pid,
                    profile,
                } = launch(&self.options).await?;
                let owner = Owner::Windup {
                    child: Box::new(tokio::sync::Mutex::new(child)),
                    pid,
                    _profile: profile,
                };
                (conn, reader, owner)
            }
        };
        let attached = matches!(owner, Owner::Attached { .. });
        let instance = Arc::new(Instance {
            conn,
            reader,
            owner,
            viewport: self.options.viewport,
            engine_script: super::injected::engine_script(&self.options.testid_attribute),
            initial_unused: AtomicBool::new(!attached),
            contexts: Mutex::default(),
            default_tabs: Arc::default(),
            reuse_tabs: self.options.reuse_tabs && !attached,
            popup_hold: Arc::default(),
            run_as: self.options.run_as.filter(|_| !attached),
        });
        tracing::debug!(
            "browser {} in {:?}",
            if attached { "attached" } else { "started" },
            started.elapsed()
        );
        let tabs = Arc::new(Tabs::default());
        *state = Some(Running {
            instance: instance.clone(),
            tabs: tabs.clone(),
        });
        Ok((instance, tabs))
    }

    /// The Chromium process id, when Windup started one that is running (tests use it to
    /// kill the browser). None for an attached browser.
    pub async fn pid(&self) -> Option<u32> {
        self.state
            .lock()
            .await
            .as_ref()
            .and_then(|r| r.instance.pid())
    }

    /// A page for one scenario: a reset tab an earlier scenario left (see
    /// [`Session::close`]), else a new page in a new isolated context (or Chromium's unused
    /// start-up tab; or, attached with `reuse_context`, a new tab in the browser's default
    /// context). Held until the session is closed or dropped.
    pub async fn acquire_session(&self) -> Result<Session, BrowserError> {
        let mut session = self.reused_or_new_session().await?;
        session.take_into_use();
        Ok(session)
    }

    async fn reused_or_new_session(&self) -> Result<Session, BrowserError> {
        let (instance, tabs) = self.instance().await?;
        if instance.reuse_tabs
            && let Some(session) = tabs.take_ready(Session::is_alive).await
        {
            return Ok(session);
        }
        match Session::open(instance.clone(), tabs).await {
            Err(BrowserError::Crashed(reason)) if !instance.is_attached() => {
                // The reader may not have noticed the death yet: mark it, start afresh once.
                tracing::warn!("the browser did not answer ({reason}); restarting it");
                instance.conn.mark_dead();
                if let Some(pid) = instance.pid() {
                    kill_pid(pid);
                }
                let (instance, tabs) = self.instance().await?;
                Session::open(instance, tabs).await
            }
            other => other,
        }
    }

    /// Closes the browser Windup started and waits for it to exit; from a browser it attached
    /// to, removes only what it made there (its contexts, its tabs) and detaches.
    pub async fn close(&self) {
        let Some(Running { instance, tabs }) = self.state.lock().await.take() else {
            return;
        };
        // Kept tabs, and tabs still being reset, hold the instance: let them go (Chromium's
        // exit takes their pages).
        for session in tabs.drain().await {
            session.stop_watching();
        }
        if instance.is_attached() {
            return detach(&instance).await;
        }
        match Arc::try_unwrap(instance) {
            Ok(inst) => {
                let t = std::time::Instant::now();
                // The profile is a throwaway folder: nothing needs a graceful shutdown, and
                // Chromium's takes a few hundred milliseconds.
                if let Owner::Windup { child, .. } = &inst.owner {
                    let mut child = child.lock().await;
                    let _ = tokio::time::timeout(Duration::from_secs(3), child.kill()).await;
                }
                inst.reader.abort();
                tracing::debug!("browser closed in {:?}", t.elapsed());
            }
            Err(shared) => {
                // Sessions still hold it; they fail on their next command once it is gone.
                if let Some(pid) = shared.pid() {
                    kill_pid(pid);
                }
            }
        }
    }
}

/// Leaves an attached browser as Windup found it: every context Windup made disposed of
/// (with its pages), every tab it opened in the default context closed (a disposal or a close
/// a session already started may be in flight: the second answer is an error, ignored), then
/// the WebSocket closed. The browser and the user's own tabs are never touched.
async fn detach(instance: &Instance) {
    let t = std::time::Instant::now();
    let contexts: Vec<String> = instance
        .contexts
        .lock()
        .expect("contexts lock")
        .iter()
        .cloned()
        .collect();
    let tabs: Vec<String> = instance
        .default_tabs
        .lock()
        .expect("tabs lock")
        .iter()
        .cloned()
        .collect();
    let conn = &instance.conn;
    let disposals = contexts.into_iter().map(|browser_context_id| async move {
        let _ = conn
            .send(None, &DisposeBrowserContext { browser_context_id })
            .await;
    });
    let closes = tabs
        .into_iter()
        .map(|target_id| async move { close_tab(conn, target_id).await });
    let cleanup = futures::future::join(
        futures::future::join_all(disposals),
        futures::future::join_all(closes),
    );
    if tokio::time::timeout(Duration::from_secs(10), cleanup)
        .await
        .is_err()
    {
        tracing::warn!("the attached browser did not answer while Windup removed its tabs");
    }
    conn.detach();
    // The writer closes the WebSocket; the reader then sees the browser's close and ends.
    if tokio::time::timeout(Duration::from_secs(2), async {
        while !instance.reader.is_finished() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .is_err()
    {
        instance.reader.abort();
    }
    tracing::debug!("detached from the browser in {:?}", t.elapsed());
}
