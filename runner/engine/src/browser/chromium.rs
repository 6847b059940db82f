//! The process-wide browser: one lazily started Chromium ([`Instance`]), restarted after a
//! crash, and where scenarios get their [`Session`]s.

use std::collections::HashSet;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::connection::Connection;
use super::error::BrowserError;
use super::launch::{BrowserOptions, Launched, kill_pid, launch};
use super::pool::{InUse, TabPool};
use super::session::Session;

/// One running Chromium.
pub(super) struct Instance {
    pub conn: Arc<Connection>,
    /// The reader task: it ends when the browser does.
    pub reader: JoinHandle<()>,
    pub child: tokio::sync::Mutex<tokio::process::Child>,
    pub pid: Option<u32>,
    pub viewport: (u32, u32),
    /// Whether the tab Chromium opens at start-up is still unused. The first scenario of a
    /// process takes it: in a fresh profile it is as isolated as a new context, and its
    /// renderer is already running, which saves the largest fixed cost of a replay.
    pub initial_unused: AtomicBool,
    /// The contexts this client made, so the start-up tab (in the default one) is told apart.
    pub contexts: Mutex<HashSet<String>>,
    /// Closed sessions whose tabs are being reset, and those ready for the next scenario.
    pub tabs: Mutex<TabPool>,
    pub tabs_changed: Notify,
    pub reuse_tabs: bool,
    _profile: tempfile::TempDir,
}

impl Instance {
    pub(super) fn is_alive(&self) -> bool {
        self.conn.is_alive() && !self.reader.is_finished()
    }
}

/// The process-wide browser: started on first use, restarted after a crash.
/// Cloning is cheap and shares the same Chromium.
#[derive(Clone)]
pub struct Browser {
    options: Arc<BrowserOptions>,
    state: Arc<tokio::sync::Mutex<Option<Arc<Instance>>>>,
}

impl Browser {
    /// A browser that starts Chromium with `options` on first use; nothing runs yet.
    pub fn new(options: BrowserOptions) -> Self {
        Browser {
            options: Arc::new(options),
            state: Arc::new(tokio::sync::Mutex::new(None)),
        }
    }

    /// Starts Chromium now, if it is not running, so start-up failures surface early.
    pub async fn ensure_started(&self) -> Result<(), BrowserError> {
        self.instance().await.map(|_| ())
    }

    async fn instance(&self) -> Result<Arc<Instance>, BrowserError> {
        let mut state = self.state.lock().await;
        if let Some(instance) = state.as_ref()
            && instance.is_alive()
        {
            return Ok(instance.clone());
        }
        if let Some(dead) = state.take() {
            tracing::warn!("the browser died; starting a new one");
            dead.reader.abort();
            dead.tabs.lock().expect("tabs lock").ready.clear();
        }
        let started = std::time::Instant::now();
        let Launched {
            conn,
            reader,
            child,
            pid,
            profile,
        } = launch(&self.options).await?;
        let instance = Arc::new(Instance {
            conn,
            reader,
            child: tokio::sync::Mutex::new(child),
            pid,
            viewport: self.options.viewport,
            initial_unused: AtomicBool::new(true),
            contexts: Mutex::default(),
            tabs: Mutex::new(TabPool::default()),
            tabs_changed: Notify::new(),
            reuse_tabs: self.options.reuse_tabs,
            _profile: profile,
        });
        tracing::debug!("browser started in {:?}", started.elapsed());
        *state = Some(instance.clone());
        Ok(instance)
    }

    /// The Chromium process id, when one is running (tests use it to kill the browser).
    pub async fn pid(&self) -> Option<u32> {
        self.state.lock().await.as_ref().and_then(|i| i.pid)
    }

    /// A page for one scenario: a reset tab an earlier scenario left (see
    /// [`Session::close`]), else a new page in a new isolated context (or Chromium's unused
    /// start-up tab). Held until the session is closed or dropped.
    pub async fn acquire_session(&self) -> Result<Session, BrowserError> {
        let mut session = self.reused_or_new_session().await?;
        session.in_use = Some(InUse::new(&session.instance));
        Ok(session)
    }

    async fn reused_or_new_session(&self) -> Result<Session, BrowserError> {
        let instance = self.instance().await?;
        if let Some(session) = TabPool::take_ready(&instance).await {
            return Ok(session);
        }
        match Session::open(instance.clone()).await {
            Err(BrowserError::Crashed(reason)) => {
                // The reader may not have noticed the death yet: mark it, start afresh once.
                tracing::warn!("the browser did not answer ({reason}); restarting it");
                instance.conn.mark_dead();
                if let Some(pid) = instance.pid {
                    kill_pid(pid);
                }
                Session::open(self.instance().await?).await
            }
            other => other,
        }
    }

    /// Closes the browser and waits for it to exit.
    pub async fn close(&self) {
        let Some(instance) = self.state.lock().await.take() else {
            return;
        };
        // Kept tabs hold the instance: let them go (Chromium's exit takes their pages).
        let kept = std::mem::take(&mut instance.tabs.lock().expect("tabs lock").ready);
        for session in kept {
            session.stop_watching();
        }
        match Arc::try_unwrap(instance) {
            Ok(inst) => {
                let t = std::time::Instant::now();
                // The profile is a throwaway folder: nothing needs a graceful shutdown, and
                // Chromium's takes a few hundred milliseconds.
                let mut child = inst.child.lock().await;
                let _ = tokio::time::timeout(Duration::from_secs(3), child.kill()).await;
                drop(child);
                inst.reader.abort();
                tracing::debug!("browser closed in {:?}", t.elapsed());
            }
            Err(shared) => {
                // Sessions still hold it; they fail on their next command once it is gone.
                if let Some(pid) = shared.pid {
                    kill_pid(pid);
                }
            }
        }
    }
}
