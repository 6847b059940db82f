//! One running Chromium ([`Instance`]): the connection to it, who started it, and the contexts
//! and tabs Windup makes in it for scenarios, each opened, attached to and let go of here.
//!
//! A scenario's tab is the start-up tab while it is unused, else a new page in a new context;
//! in an attached browser with `reuse_context`, a new tab in its default context. What Windup
//! made stays listed until the browser confirms it gone, so closing an attached browser still
//! removes one whose removal is in flight.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::JoinHandle;

use super::cdp::target::{
    AttachToTarget, CloseTarget, CreateBrowserContext, CreateTarget, DisposeBrowserContext,
    GetTargets,
};
use super::connection::Connection;
use super::error::BrowserError;
use super::launch::RunAs;
use super::popup_hold::PopupHold;
use super::profile::Profile;

/// Who started the browser, and so whether Windup may end it.
pub(super) enum Owner {
    /// Windup started it: its process and throwaway profile, ended by [`super::Browser::close`].
    Windup {
        /// Boxed: the process handle is large beside an attached browser's URL.
        child: Box<tokio::sync::Mutex<tokio::process::Child>>,
        pid: Option<u32>,
        _profile: Profile,
    },
    /// Someone else did, and Windup attached to it at `url`.
    Attached {
        url: String,
        /// Whether scenarios open their tabs in the browser's default context (its profile's
        /// cookies and sign-ins) instead of a new context each.
        reuse_context: bool,
    },
}

/// One running Chromium.
pub(super) struct Instance {
    pub conn: Arc<Connection>,
    /// The reader task: it ends when the browser does.
    pub reader: JoinHandle<()>,
    pub owner: Owner,
    pub viewport: (u32, u32),
    /// The in-page engine with its settings, as every document of this browser gets it.
    pub engine_script: String,
    /// Whether the tab Chromium opens at start-up is still unused. The first scenario of a
    /// process takes it: in a fresh profile it is as isolated as a new context, and its
    /// renderer is already running, which saves the largest fixed cost of a replay. Never set
    /// for an attached browser, whose tabs are the user's.
    pub initial_unused: AtomicBool,
    /// The contexts this client made and has not yet seen disposed of, so the start-up tab (in
    /// the default one) is told apart, and an attached browser is left without them.
    pub contexts: Mutex<HashSet<String>>,
    /// Tabs this client opened in an attached browser's default context (`reuse_context`),
    /// and the tabs their pages opened, until they are closed.
    pub default_tabs: Arc<Mutex<HashSet<String>>>,
    /// Never for an attached browser: a reset clears cookies and caches browser-wide.
    pub reuse_tabs: bool,
    /// The tabs held pages open, held before their first request (`popup_hold`).
    pub popup_hold: Arc<PopupHold>,
    /// The user Windup started this browser as, when another ([`RunAs`]): the folders it
    /// writes downloads into are made that user's.
    pub run_as: Option<RunAs>,
}

/// Where a scenario's new tab came from, which says how to let it go.
pub(super) enum Made {
    /// Chromium's start-up tab, in the default context.
    StartUp,
    /// A new page in a new context of Windup's.
    Context(String),
    /// A new tab in an attached browser's default context (`reuse_context`).
    DefaultTab,
}

/// A tab opened for a scenario, not yet attached to.
pub(super) struct NewTab {
    pub target: String,
    pub made: Made,
}

impl NewTab {
    /// Its context: None for a tab in the default context, which cannot be disposed.
    pub(super) fn context(&self) -> Option<String> {
        match &self.made {
            Made::Context(context) => Some(context.clone()),
            Made::StartUp | Made::DefaultTab => None,
        }
    }
}

impl Instance {
    pub(super) fn is_alive(&self) -> bool {
        self.conn.is_alive() && !self.reader.is_finished()
    }

    /// Whether Windup attached to this browser rather than starting it.
    pub(super) fn is_attached(&self) -> bool {
        matches!(self.owner, Owner::Attached { .. })
    }

    /// Whether scenarios open their tabs in an attached browser's default context.
    pub(super) fn in_default_context(&self) -> bool {
        matches!(
            self.owner,
            Owner::Attached {
                reuse_context: true,
                ..
            }
        )
    }

    pub(super) fn pid(&self) -> Option<u32> {
        match &self.owner {
            Owner::Windup { pid, .. } => *pid,
            Owner::Attached { .. } => None,
        }
    }

    /// The start-up tab's target id, when the tab is still unused.
    async fn initial(&self) -> Option<String> {
        if !self.initial_unused.swap(false, Ordering::SeqCst) {
            return None;
        }
        // It exists right after start-up, but may not be listed yet.
        for _ in 0..50 {
            let targets = self.conn.send(None, &GetTargets {}).await.ok()?;
            // In the default context: a page of a context made for another scenario (opened
            // at the same time, `-j N`) is not the start-up tab.
            let page = {
                let ours = self.contexts.lock().expect("contexts lock");
                targets
                    .target_infos
                    .into_iter()
                    .filter(|t| t.is_page())
                    .find(|t| {
                        t.browser_context_id
                            .as_ref()
                            .is_none_or(|c| !ours.contains(c))
                    })
                    .map(|t| t.target_id)
            };
            if page.is_some() {
                return page;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        None
    }

    /// The start-up tab when it is unused, else a new page in a new context; in an attached
    /// browser with `reuse_context`, a new tab in its default context.
    pub(super) async fn open_tab(self: &Arc<Self>) -> Result<NewTab, BrowserError> {
        if self.in_default_context() {
            return self.open_in_default_context().await;
        }
        if let Some(target) = self.initial().await {
            return Ok(NewTab {
                target,
                made: Made::StartUp,
            });
        }
        let context = self
            .conn
            .send(None, &CreateBrowserContext {})
            .await?
            .browser_context_id;
        self.contexts
            .lock()
            .expect("contexts lock")
            .insert(context.clone());
        match self.create_target(Some(context.clone()), false).await {
            Ok(target) => Ok(NewTab {
                target,
                made: Made::Context(context),
            }),
            Err(e) => {
                self.dispose_in_background(&context);
                Err(e)
            }
        }
    }

    /// A new tab in an attached browser's default context (`reuse_context`): the profile's
    /// cookies and sign-ins, in a tab of Windup's own that it closes when the session ends.
    async fn open_in_default_context(&self) -> Result<NewTab, BrowserError> {
        let created = self.create_target(None, true).await?;
        self.default_tabs
            .lock()
            .expect("tabs lock")
            .insert(created.clone());
        Ok(NewTab {
            target: created,
            made: Made::DefaultTab,
        })
    }

    /// A blank tab in `context` (the default one when none), its target id; a browser that
    /// does not answer within 15 s is taken for crashed.
    async fn create_target(
        &self,
        context: Option<String>,
        new_window: bool,
    ) -> Result<String, BrowserError> {
        tokio::time::timeout(
            Duration::from_secs(15),
            self.conn.send(
                None,
                &CreateTarget {
                    url: "about:blank".into(),
                    browser_context_id: context,
                    new_window,
                },
            ),
        )
        .await
        .map_err(|_| BrowserError::Crashed("opening a page timed out".into()))
        .and_then(|r| r)
        .map(|r| r.target_id)
    }

    /// Lets go of a tab that could not be made a session: its context disposed of, or, in the
    /// default context, the tab Windup opened closed; the start-up tab is left as it is.
    pub(super) fn discard(self: &Arc<Self>, tab: NewTab) {
        match tab.made {
            Made::StartUp => {}
            Made::Context(context) => self.dispose_in_background(&context),
            Made::DefaultTab => self.close_in_background(vec![tab.target]),
        }
    }

    /// Disposes of a context this client made. It stays listed until the browser confirms,
    /// so closing an attached browser still disposes of one whose disposal is in flight.
    pub(super) fn dispose_in_background(self: &Arc<Self>, context: &str) {
        let conn = self.conn.clone();
        let browser_context_id = context.to_string();
        let instance = self.clone();
        tokio::spawn(async move {
            let _ = conn
                .send(
                    None,
                    &DisposeBrowserContext {
                        browser_context_id: browser_context_id.clone(),
                    },
                )
                .await;
            instance
                .contexts
                .lock()
                .expect("contexts lock")
                .remove(&browser_context_id);
        });
    }

    /// Closes tabs this client opened in an attached browser's default context; like
    /// contexts, each stays listed until the browser confirms.
    pub(super) fn close_in_background(&self, tabs: Vec<String>) {
        let conn = self.conn.clone();
        let listed = self.default_tabs.clone();
        tokio::spawn(async move {
            for target_id in tabs {
                close_tab(&conn, target_id.clone()).await;
                listed.lock().expect("tabs lock").remove(&target_id);
            }
        });
    }

    /// Attaches a flat session to a page target; returns its id.
    pub(super) async fn attach(&self, target: &str) -> Result<String, BrowserError> {
        let attached = self
            .conn
            .send(
                None,
                &AttachToTarget {
                    target_id: target.to_string(),
                    flatten: true,
                },
            )
            .await?;
        Ok(attached.session_id)
    }
}

/// Closes a tab of an attached browser and waits until the browser no longer lists it:
/// `Target.closeTarget` answers before the page has gone, and whoever looks at the browser
/// after Windup closed its tabs must not find one still there. An error answer (a close
/// already in flight) is ignored; the wait gives up after five seconds.
pub(super) async fn close_tab(conn: &Connection, target_id: String) {
    let _ = conn
        .send(
            None,
            &CloseTarget {
                target_id: target_id.clone(),
            },
        )
        .await;
    let gone = async {
        loop {
            match conn.send(None, &GetTargets {}).await {
                Ok(t) if t.target_infos.iter().any(|i| i.target_id == target_id) => {
                    tokio::time::sleep(Duration::from_millis(20)).await
                }
                _ => return,
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_secs(5), gone).await;
}
