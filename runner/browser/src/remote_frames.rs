//! Frames in a process of their own (out-of-process iframes). A browser Windup starts runs
//! with site isolation off, so every frame lives in its page's renderer; a browser attached with
//! `--cdp-url` keeps its site isolation, and a frame of another site there is a target of its
//! own. The page's session auto-attaches to such frames (`Target.setAutoAttach`, flat
//! sessions), and each frame's session to the frames out of process inside it; each is
//! recorded with its session and the session its parent frame lives in, until it detaches.
//! `frames.rs` makes realms of them.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use tokio::task::JoinHandle;

use super::cdp::Event;
use super::cdp::target::{AttachedToTarget, DetachedFromTarget, SetAutoAttach, TargetFilter};
use super::connection::Connection;
use super::session::{Queued, Session, Shared};

/// A frame whose document runs in another process than its parent's.
pub(crate) struct RemoteFrame {
    /// Its frame id (also its target id).
    pub frame_id: String,
    /// The flat session its document answers in.
    pub session: String,
    /// The session of the frame's parent document, where its `<iframe>` element is; None for
    /// the page's own.
    pub parent: Option<String>,
    /// The page session it was found under (a tab the page opened has its own).
    page: String,
    /// Watches its session for frames out of process inside it.
    watcher: JoinHandle<()>,
}

impl Drop for RemoteFrame {
    fn drop(&mut self) {
        self.watcher.abort();
    }
}

/// A frame out of process, as realms and offsets need it.
#[derive(Debug, Clone)]
pub(crate) struct Remote {
    pub frame_id: String,
    pub session: String,
    pub parent: Option<String>,
}

/// Auto-attach to frames only (not workers), without pausing them, in flat sessions.
fn auto_attach() -> SetAutoAttach {
    SetAutoAttach {
        auto_attach: true,
        wait_for_debugger_on_start: false,
        flatten: true,
        filter: vec![TargetFilter {
            kind: "iframe",
            exclude: false,
        }],
    }
}

impl Session {
    /// The page session's auto-attach, for its set-up batch.
    pub(super) fn auto_attach_command(&self) -> Queued<'_> {
        self.queued(auto_attach())
    }

    /// Records the frames out of process the current page attaches (see the module).
    pub(super) fn watch_remote_frames(&mut self) {
        let page = self.cdp_session_id.clone();
        let task = watch(
            self.instance.conn.clone(),
            self.shared.clone(),
            page.clone(),
            None,
            page,
        );
        self.tasks.push(task);
    }

    /// The current page's frames out of process, in the order they attached (a parent before
    /// the frames inside it).
    pub(crate) fn remote_frames(&self) -> Vec<Remote> {
        self.shared
            .remote_frames
            .lock()
            .expect("remote frames lock")
            .iter()
            .filter(|f| f.page == self.cdp_session_id)
            .map(|f| Remote {
                frame_id: f.frame_id.clone(),
                session: f.session.clone(),
                parent: f.parent.clone(),
            })
            .collect()
    }

    /// Forgets every frame out of process (a reset tab starts with none).
    pub(super) fn forget_remote_frames(&self) {
        self.shared
            .remote_frames
            .lock()
            .expect("remote frames lock")
            .clear();
    }
}

/// Watches `session` (`me`: None for the page's own) for frames attached and detached.
fn watch(
    conn: Arc<Connection>,
    shared: Arc<Shared>,
    page: String,
    me: Option<String>,
    session: String,
) -> JoinHandle<()> {
    let mut events = conn.subscribe(Some(&session));
    tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            match event.method.as_str() {
                AttachedToTarget::METHOD => {
                    let Some(attached) = event.parse::<AttachedToTarget>() else {
                        continue;
                    };
                    if attached.target_info.kind != "iframe" {
                        continue;
                    }
                    let child = attached.session_id;
                    let watcher = watch(
                        conn.clone(),
                        shared.clone(),
                        page.clone(),
                        Some(child.clone()),
                        child.clone(),
                    );
                    // The frames out of process inside it are attached to its own session.
                    let c = conn.clone();
                    let s = child.clone();
                    tokio::spawn(async move {
                        let _ = c.send(Some(&s), &auto_attach()).await;
                    });
                    shared
                        .remote_frames
                        .lock()
                        .expect("remote frames lock")
                        .push(RemoteFrame {
                            frame_id: attached.target_info.target_id,
                            session: child,
                            parent: me.clone(),
                            page: page.clone(),
                            watcher,
                        });
                    shared.subframes.store(true, Ordering::SeqCst);
                }
                DetachedFromTarget::METHOD => {
                    if let Some(gone) = event.parse::<DetachedFromTarget>() {
                        forget(&shared, &gone.session_id);
                    }
                }
                _ => {}
            }
        }
    })
}

/// Forgets a detached frame's session and every frame recorded inside it.
fn forget(shared: &Shared, session: &str) {
    let mut frames = shared.remote_frames.lock().expect("remote frames lock");
    let mut gone = vec![session.to_string()];
    while let Some(s) = gone.pop() {
        frames.retain(|f| {
            if f.session == s {
                return false;
            }
            if f.parent.as_deref() == Some(s.as_str()) {
                gone.push(f.session.clone());
            }
            true
        });
    }
}
