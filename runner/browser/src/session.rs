//! [`Session`]: one scenario's page, in its own browser context (or a reset tab, or the
//! start-up tab, or a tab in an attached browser's default context), and the commands sent to
//! it. How it watches its page, navigates, types and
//! is reused live beside it (`page_events.rs`, `navigation.rs`, `input.rs`, `pool.rs`).

use std::collections::{BTreeSet, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use futures::future::BoxFuture;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use super::cdp::Command;
use super::cdp::page::{
    AddScriptToEvaluateOnNewDocument, CaptureScreenshot, Clip, GetLayoutMetrics, Navigate,
};
use super::cdp::runtime::Evaluate;
use super::cdp::target::{
    ActivateTarget, AttachToTarget, CreateBrowserContext, CreateTarget, DisposeBrowserContext,
    GetTargets,
};
use super::chromium::Instance;
use super::error::{BrowserError, is_context_lost};
use super::frames::Realm;
use super::guard::Guard;
use super::navigation::DocState;
use super::network_log::SessionLog;
use super::pool::InUse;
use super::remote_frames::RemoteFrame;

/// What the page's listener tasks share with the session.
pub(super) struct Shared {
    pub doc: Mutex<DocState>,
    pub doc_changed: Notify,
    pub log: Mutex<SessionLog>,
    pub popups: Mutex<VecDeque<String>>,
    /// Origins of the documents this tab loaded (frames included): whose storage a reset clears.
    pub origins: Mutex<BTreeSet<String>>,
    /// Scripts added for new documents besides the engine's own, removed by a reset.
    pub init_scripts: Mutex<Vec<String>>,
    /// The origins the page is held to, and where it was stopped from going.
    pub guard: Mutex<Guard>,
    /// The session's tabs: its first, and those its pages opened. In an attached browser's
    /// default context these are what the session closes when it ends.
    pub opened: Mutex<Vec<String>>,
    /// Whether a frame's document ever committed in the page: until then there is no frame
    /// tree to ask for realms.
    pub subframes: AtomicBool,
    /// The page's frames out of process (`remote_frames.rs`).
    pub remote_frames: Mutex<Vec<RemoteFrame>>,
}

/// A small JPEG of the viewport ([`Session::frame`]) and the viewport's size in CSS pixels.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The image.
    pub jpeg: Vec<u8>,
    /// The viewport's width, in CSS pixels.
    pub width: u32,
    /// The viewport's height, in CSS pixels.
    pub height: u32,
}

/// One scenario's browser context and its current page.
pub struct Session {
    pub(super) instance: Arc<Instance>,
    /// None for a tab in the default context: the start-up tab, or a tab opened in an
    /// attached browser's default context (`reuse_context`).
    pub(super) context: Option<String>,
    /// The current page's target id, which is also its main frame's id.
    pub(super) target: String,
    /// The id of the flat CDP session attached to the current page: commands to the page
    /// carry it, and its events come with it.
    pub(super) cdp_session_id: String,
    pub(super) shared: Arc<Shared>,
    /// The listener tasks of the current page.
    pub(super) tasks: Vec<JoinHandle<()>>,
    /// Whether it moved into a tab the page opened (such a session is never reused).
    pub(super) followed_popup: bool,
    /// Set while a scenario holds it; none while it is reset or waits in the pool.
    pub(super) in_use: Option<InUse>,
}

/// A command of a batch (see [`Session::page_batch`]).
pub(super) type Queued<'a> = BoxFuture<'a, Result<(), BrowserError>>;

impl Session {
    /// The start-up tab's target id, when the tab is still unused.
    async fn initial(instance: &Arc<Instance>) -> Option<String> {
        if !instance.initial_unused.swap(false, Ordering::SeqCst) {
            return None;
        }
        // It exists right after start-up, but may not be listed yet.
        for _ in 0..50 {
            let targets = instance.conn.send(None, &GetTargets {}).await.ok()?;
            // In the default context: a page of a context made for another scenario (opened
            // at the same time, `-j N`) is not the start-up tab.
            let page = {
                let ours = instance.contexts.lock().expect("contexts lock");
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
    pub(super) async fn open(instance: Arc<Instance>) -> Result<Session, BrowserError> {
        let t = std::time::Instant::now();
        if instance.in_default_context() {
            return Self::open_in_default_context(instance).await;
        }
        if let Some(target) = Self::initial(&instance).await {
            let session = Self::adopt(instance, None, target).await?;
            tracing::debug!("using the start-up tab, ready in {:?}", t.elapsed());
            return Ok(session);
        }
        let conn = &instance.conn;
        let context = conn
            .send(None, &CreateBrowserContext {})
            .await?
            .browser_context_id;
        instance
            .contexts
            .lock()
            .expect("contexts lock")
            .insert(context.clone());
        let created = tokio::time::timeout(
            Duration::from_secs(15),
            conn.send(
                None,
                &CreateTarget {
                    url: "about:blank".into(),
                    browser_context_id: Some(context.clone()),
                    new_window: false,
                },
            ),
        )
        .await
        .map_err(|_| BrowserError::Crashed("opening a page timed out".into()))
        .and_then(|r| r)
        .map(|r| r.target_id);
        let target = match created {
            Ok(target) => target,
            Err(e) => {
                Self::dispose_in_background(&instance, &context);
                return Err(e);
            }
        };
        match Self::adopt(instance.clone(), Some(context.clone()), target).await {
            Ok(session) => {
                tracing::debug!("context and page ready in {:?}", t.elapsed());
                Ok(session)
            }
            Err(e) => {
                Self::dispose_in_background(&instance, &context);
                Err(e)
            }
        }
    }

    /// A new tab in an attached browser's default context (`reuse_context`): the profile's
    /// cookies and sign-ins, in a tab of Windup's own that it closes when the session ends.
    async fn open_in_default_context(instance: Arc<Instance>) -> Result<Session, BrowserError> {
        let t = std::time::Instant::now();
        let created = tokio::time::timeout(
            Duration::from_secs(15),
            instance.conn.send(
                None,
                &CreateTarget {
                    url: "about:blank".into(),
                    browser_context_id: None,
                    new_window: true,
                },
            ),
        )
        .await
        .map_err(|_| BrowserError::Crashed("opening a page timed out".into()))
        .and_then(|r| r)?
        .target_id;
        instance
            .default_tabs
            .lock()
            .expect("tabs lock")
            .insert(created.clone());
        match Self::adopt(instance.clone(), None, created.clone()).await {
            Ok(session) => {
                tracing::debug!("a tab in the default context ready in {:?}", t.elapsed());
                Ok(session)
            }
            Err(e) => {
                Self::close_in_background(&instance, vec![created]);
                Err(e)
            }
        }
    }

    /// Disposes of a context this client made. It stays listed until the browser confirms,
    /// so closing an attached browser still disposes of one whose disposal is in flight.
    fn dispose_in_background(instance: &Arc<Instance>, context: &str) {
        let conn = instance.conn.clone();
        let browser_context_id = context.to_string();
        let instance = instance.clone();
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
    fn close_in_background(instance: &Arc<Instance>, tabs: Vec<String>) {
        let conn = instance.conn.clone();
        let listed = instance.default_tabs.clone();
        tokio::spawn(async move {
            for target_id in tabs {
                super::chromium::close_tab(&conn, target_id.clone()).await;
                listed.lock().expect("tabs lock").remove(&target_id);
            }
        });
    }

    /// `context` is None for a tab in the default context, which cannot be disposed.
    async fn adopt(
        instance: Arc<Instance>,
        context: Option<String>,
        target: String,
    ) -> Result<Session, BrowserError> {
        let shared = Arc::new(Shared {
            doc: Mutex::new(DocState::default()),
            doc_changed: Notify::new(),
            log: Mutex::new(SessionLog::default()),
            popups: Mutex::new(VecDeque::new()),
            origins: Mutex::new(BTreeSet::new()),
            init_scripts: Mutex::new(Vec::new()),
            guard: Mutex::new(Guard::default()),
            opened: Mutex::new(vec![target.clone()]),
            subframes: AtomicBool::new(false),
            remote_frames: Mutex::new(Vec::new()),
        });
        let cdp_session_id = Self::attach(&instance, &target).await?;
        let mut session = Session {
            instance,
            context,
            target,
            cdp_session_id,
            shared,
            tasks: Vec::new(),
            followed_popup: false,
            in_use: None,
        };
        session.watch_page().await?;
        session.watch_popups();
        Ok(session)
    }

    /// Attaches a flat session to a page target; returns its id.
    pub(super) async fn attach(instance: &Instance, target: &str) -> Result<String, BrowserError> {
        let attached = instance
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

    /// The current page's target id: the same for a reused tab.
    pub fn target_id(&self) -> &str {
        &self.target
    }

    /// Whether the browser behind this session is still running.
    pub fn is_alive(&self) -> bool {
        self.instance.is_alive()
    }

    /// A copy of what happened in the session so far besides our own actions: dialogs, a
    /// crash, failed requests.
    pub fn log(&self) -> SessionLog {
        self.shared.log.lock().expect("log lock").clone()
    }

    /// Whether no request of the page is waiting for an answer.
    pub fn network_quiet(&self) -> bool {
        self.shared.log.lock().expect("log lock").in_flight == 0
    }

    pub(super) fn check_alive(&self) -> Result<(), BrowserError> {
        if !self.instance.is_alive() {
            return Err(BrowserError::Crashed("the browser process is gone".into()));
        }
        if self.shared.log.lock().expect("log lock").crashed {
            return Err(BrowserError::Crashed("the page's renderer crashed".into()));
        }
        Ok(())
    }

    /// A command to the current page, without first checking that it is alive.
    pub(super) async fn page_send<C: Command>(
        &self,
        command: &C,
    ) -> Result<C::Response, BrowserError> {
        self.instance
            .conn
            .send(Some(&self.cdp_session_id), command)
            .await
    }

    /// `command` to the current page, as one command of a batch.
    pub(super) fn queued<C: Command + Send + Sync + 'static>(&self, command: C) -> Queued<'_> {
        Box::pin(async move { self.page_send(&command).await.map(|_| ()) })
    }

    /// Sends commands to the current page together (Chromium runs them in order) and waits for
    /// every answer.
    pub(super) async fn page_batch(batch: Vec<Queued<'_>>) -> Result<(), BrowserError> {
        futures::future::try_join_all(batch).await?;
        Ok(())
    }

    /// Sends a command to the current page and returns its answer.
    pub(crate) async fn send<C: Command>(&self, command: &C) -> Result<C::Response, BrowserError> {
        self.check_alive()?;
        self.page_send(command).await
    }

    /// Sends a command to one of the page's sessions: its own (None), or that of a frame out of
    /// process (`remote_frames.rs`).
    pub(crate) async fn send_in<C: Command>(
        &self,
        session: Option<&str>,
        command: &C,
    ) -> Result<C::Response, BrowserError> {
        self.check_alive()?;
        let session = session.unwrap_or(&self.cdp_session_id);
        self.instance.conn.send(Some(session), command).await
    }

    /// Evaluates an expression in a realm (a frame's isolated world, or the top document's
    /// main world) and returns its JSON value: only calls into the in-page engine
    /// (`injected.rs`).
    pub(crate) async fn eval_in<T: DeserializeOwned>(
        &self,
        realm: &Realm,
        expression: &str,
    ) -> Result<T, BrowserError> {
        let context = realm.context;
        let evaluated = self
            .send_in(
                realm.session.as_deref(),
                &Evaluate {
                    expression: expression.to_string(),
                    return_by_value: true,
                    await_promise: true,
                    context_id: context,
                    user_gesture: context.is_some(),
                },
            )
            .await
            .map_err(|e| match e {
                BrowserError::Crashed(m) if self.instance.is_alive() => {
                    BrowserError::Crashed(format!("the page stopped answering ({m})"))
                }
                other => other,
            })?;
        if let Some(details) = evaluated.exception_details {
            let text = details.message();
            return Err(if is_context_lost(&text) {
                BrowserError::ContextLost
            } else {
                BrowserError::Script(text)
            });
        }
        let value = evaluated.result.value.unwrap_or(Value::Null);
        serde_json::from_value(value).map_err(|e| BrowserError::Protocol(e.to_string()))
    }

    /// Evaluates an expression (in a realm's context, or the top document's main world) whose
    /// value may be an object (a DOM node), awaiting a promise; returns the remote object: a
    /// handle to an object (the caller lets go of it), or a plain value.
    pub(crate) async fn eval_handle(
        &self,
        realm: &Realm,
        expression: &str,
    ) -> Result<super::cdp::runtime::RemoteObject, BrowserError> {
        let context = realm.context;
        let evaluated = self
            .send_in(
                realm.session.as_deref(),
                &Evaluate {
                    expression: expression.to_string(),
                    return_by_value: false,
                    await_promise: true,
                    context_id: context,
                    user_gesture: false,
                },
            )
            .await?;
        match evaluated.exception_details {
            Some(details) if is_context_lost(&details.message()) => Err(BrowserError::ContextLost),
            Some(details) => Err(BrowserError::Script(details.message())),
            None => Ok(evaluated.result),
        }
    }

    /// A PNG screenshot of the viewport.
    pub async fn screenshot(&self) -> Result<Vec<u8>, BrowserError> {
        self.capture(CaptureScreenshot {
            format: "png",
            quality: None,
            clip: None,
        })
        .await
    }

    /// A small JPEG of the viewport, scaled down to at most `max_width` pixels wide, for a
    /// trace; and the viewport it shows, in CSS pixels.
    pub async fn frame(&self, max_width: u32, quality: u8) -> Result<Frame, BrowserError> {
        self.check_alive()?;
        let metrics = self.page_send(&GetLayoutMetrics {}).await?;
        let v = metrics.css_visual_viewport;
        let scale = (f64::from(max_width) / v.client_width.max(1.0)).min(1.0);
        let jpeg = self
            .capture(CaptureScreenshot {
                format: "jpeg",
                quality: Some(quality),
                // The clip is in document coordinates: the visual viewport where it is now.
                clip: Some(Clip {
                    x: v.page_x,
                    y: v.page_y,
                    width: v.client_width,
                    height: v.client_height,
                    scale,
                }),
            })
            .await?;
        Ok(Frame {
            jpeg,
            width: v.client_width.round() as u32,
            height: v.client_height.round() as u32,
        })
    }

    async fn capture(&self, shot: CaptureScreenshot) -> Result<Vec<u8>, BrowserError> {
        self.check_alive()?;
        // A tab in the background paints nothing in a headed browser.
        self.instance
            .conn
            .send(
                None,
                &ActivateTarget {
                    target_id: self.target.clone(),
                },
            )
            .await?;
        let shot = self.page_send(&shot).await?;
        base64::engine::general_purpose::STANDARD
            .decode(shot.data)
            .map_err(|e| BrowserError::Protocol(format!("a screenshot that is not base64: {e}")))
    }

    /// Adds a script that runs in every new document before the page's own, until the session
    /// ends (a reset removes it).
    pub(crate) async fn install_init_script(&self, source: &str) -> Result<(), BrowserError> {
        let added = self
            .send(&AddScriptToEvaluateOnNewDocument {
                source: source.to_string(),
            })
            .await?;
        self.shared
            .init_scripts
            .lock()
            .expect("scripts lock")
            .push(added.identifier);
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
    pub(super) fn dispose(self) {
        self.stop_watching();
        if !self.instance.is_alive() {
            return;
        }
        let conn = self.instance.conn.clone();
        match &self.context {
            Some(context) => Self::dispose_in_background(&self.instance, context),
            // An attached browser's default context: close the tabs this session opened,
            // leave every other tab (the user's) alone.
            None if self.instance.in_default_context() => {
                let tabs = std::mem::take(&mut *self.shared.opened.lock().expect("opened lock"));
                Self::close_in_background(&self.instance, tabs);
            }
            None => {
                // The default context cannot be disposed, and closing the last tab may end
                // the browser: leave the tab blank, where nothing of the app keeps running.
                // Nobody waits for that page, so neither do we.
                let session = self.cdp_session_id.clone();
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
