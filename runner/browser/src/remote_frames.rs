//! Frames in a process of their own (out-of-process iframes). A browser Windup starts runs
//! with site isolation off, so every frame lives in its page's renderer; a browser attached with
//! `--cdp-url` keeps its site isolation, and a frame of another site there is a target of its
//! own. The page's session auto-attaches to such frames (`Target.setAutoAttach`, flat
//! sessions), and each frame's session to the frames out of process inside it; each is
//! recorded with its session and the session its parent frame lives in, until it detaches.
//! `frames.rs` makes realms of them. [`Subframes`] holds what the page's listeners learn of
//! its frames.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::task::JoinHandle;

use super::cdp::Event;
use super::cdp::target::{AttachedToTarget, DetachedFromTarget, SetAutoAttach, TargetFilter};
use super::connection::Connection;

/// What the listeners of a session's pages learn of their frames.
#[derive(Default)]
pub(super) struct Subframes {
    /// Whether a frame's document ever committed in the page: until then there is no frame
    /// tree to ask for realms.
    committed: AtomicBool,
    /// The frames out of process, in the order they attached.
    remote: Mutex<Vec<RemoteFrame>>,
}

/// A frame whose document runs in another process than its parent's.
struct RemoteFrame {
    /// Its frame id (also its target id).
    frame_id: String,
    /// The flat session its document answers in.
    session: String,
    /// The session of the frame's parent document, where its `<iframe>` element is; None for
    /// the page's own.
    parent: Option<String>,
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
pub(super) struct Remote {
    pub frame_id: String,
    pub session: String,
    pub parent: Option<String>,
}

/// Auto-attach to frames only (not workers), without pausing them, in flat sessions: sent in
/// a page's set-up batch, and to each frame's own session.
pub(super) fn auto_attach() -> SetAutoAttach {
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

impl Subframes {
    /// Notes that a frame's document committed in the page.
    pub(super) fn committed(&self) {
        self.committed.store(true, Ordering::SeqCst);
    }

    /// Whether a frame's document ever committed in the page.
    pub(super) fn any(&self) -> bool {
        self.committed.load(Ordering::SeqCst)
    }

    /// The frames out of process of the page whose session is `page`, in the order they
    /// attached (a parent before the frames inside it).
    pub(super) fn remote(&self, page: &str) -> Vec<Remote> {
        self.remote
            .lock()
            .expect("remote frames lock")
            .iter()
            .filter(|f| f.page == page)
            .map(|f| Remote {
                frame_id: f.frame_id.clone(),
                session: f.session.clone(),
                parent: f.parent.clone(),
            })
            .collect()
    }

    /// Forgets every frame (a reset tab is on about:blank, which has none): the next scenario
    /// asks for realms only once it makes one.
    pub(super) fn forget(&self) {
        self.remote.lock().expect("remote frames lock").clear();
        self.committed.store(false, Ordering::SeqCst);
    }
}

/// Records the frames out of process the page whose session is `page` attaches (see the
/// module).
pub(super) fn watch_page(
    conn: Arc<Connection>,
    frames: Arc<Subframes>,
    page: String,
) -> JoinHandle<()> {
    watch(conn, frames, page.clone(), None, page)
}

/// Watches `session` (`me`: None for the page's own) for frames attached and detached.
fn watch(
    conn: Arc<Connection>,
    frames: Arc<Subframes>,
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
                        frames.clone(),
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
                    frames
                        .remote
                        .lock()
                        .expect("remote frames lock")
                        .push(RemoteFrame {
                            frame_id: attached.target_info.target_id,
                            session: child,
                            parent: me.clone(),
                            page: page.clone(),
                            watcher,
                        });
                    frames.committed();
                }
                DetachedFromTarget::METHOD => {
                    if let Some(gone) = event.parse::<DetachedFromTarget>() {
                        forget(&frames, &gone.session_id);
                    }
                }
                _ => {}
            }
        }
    })
}

/// Forgets a detached frame's session and every frame recorded inside it.
fn forget(frames: &Subframes, session: &str) {
    let mut frames = frames.remote.lock().expect("remote frames lock");
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
