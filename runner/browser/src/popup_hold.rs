//! Tabs a held page opens (`target=_blank` links and forms, `window.open`), held before their
//! first request. A page's own Fetch hold (`guard`) pauses only the documents of its own frame
//! tree, and a new tab's first request leaves before anyone can attach to the tab: a page could
//! post a typed credential to another origin through a `target=_blank` form. So once any page
//! is held, the browser's own session pauses every document request too (the Fetch domain at
//! the browser's level covers every tab); one whose frame is a tab opened by a held page (or
//! by a tab it opened) is decided by that page's hold, before it is sent; any other goes on.
//! A tab's main frame id is its target id, and the browser names its opener.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use super::cdp::Event;
use super::cdp::fetch::{ContinueRequest, Enable, RequestPattern, RequestPaused};
use super::cdp::target::GetTargetInfo;
use super::connection::Connection;
use super::error::BrowserError;
use super::guard::{Decision, Guard};

/// A tab known to the browser-wide hold.
#[derive(Clone)]
struct Known {
    /// The hold that decides for it (the page's own, or its opener's).
    guard: Weak<Guard>,
    /// Whether the page opened it: a page's own documents are its own hold's to decide.
    opened: bool,
}

/// The browser-wide hold: the held pages and the tabs they opened, by target id.
#[derive(Default)]
pub(super) struct PopupHold {
    known: Mutex<HashMap<String, Known>>,
    /// Whether the browser's session pauses documents yet (from the first hold on).
    started: tokio::sync::OnceCell<()>,
}

impl PopupHold {
    /// Records `target` as a held page whose tabs its hold decides, pausing every document of
    /// the browser from the first one on.
    pub(super) async fn hold(
        self: &Arc<Self>,
        conn: &Arc<Connection>,
        target: &str,
        guard: &Arc<Guard>,
    ) -> Result<(), BrowserError> {
        {
            let mut known = self.known.lock().expect("known lock");
            known.retain(|_, k| k.guard.strong_count() > 0);
            known.insert(
                target.to_string(),
                Known {
                    guard: Arc::downgrade(guard),
                    opened: false,
                },
            );
        }
        self.started
            .get_or_try_init(|| async {
                let hold = Arc::clone(self);
                let events = conn.subscribe(None);
                conn.send(
                    None,
                    &Enable {
                        patterns: vec![RequestPattern::documents()],
                    },
                )
                .await?;
                tokio::spawn(hold.watch(Arc::clone(conn), events));
                Ok::<(), BrowserError>(())
            })
            .await
            .map(|_| ())
    }

    async fn watch(
        self: Arc<Self>,
        conn: Arc<Connection>,
        mut events: tokio::sync::mpsc::UnboundedReceiver<super::connection::CdpEvent>,
    ) {
        while let Some(event) = events.recv().await {
            if event.method != RequestPaused::METHOD {
                continue;
            }
            let Some(paused) = event.parse::<RequestPaused>() else {
                continue;
            };
            // Every paused request must be answered, or its tab waits for ever.
            let hold = Arc::clone(&self);
            let conn = Arc::clone(&conn);
            tokio::spawn(async move {
                let frame = paused.frame_id.clone();
                let decision = match hold.deciding(&conn, &frame).await {
                    Some(guard) => guard.decide(&frame, paused),
                    None => Decision::Continue(ContinueRequest {
                        request_id: paused.request_id,
                    }),
                };
                let _ = match decision {
                    Decision::Continue(go) => conn.send(None, &go).await.map(|_| ()),
                    Decision::Fail(stop) => conn.send(None, &stop).await.map(|_| ()),
                };
            });
        }
    }

    /// The hold that decides a document of `frame`: its opener's, when `frame` is a tab a held
    /// page (or a tab of one) opened; none for anything else.
    async fn deciding(&self, conn: &Connection, frame: &str) -> Option<Arc<Guard>> {
        let known = self.known.lock().expect("known lock").get(frame).cloned();
        if let Some(k) = known {
            return if k.opened { k.guard.upgrade() } else { None };
        }
        // A frame, or a tab not yet known: the browser says whether it is a tab and who opened
        // it (a frame is no target, and the question fails).
        let info = conn
            .send(
                None,
                &GetTargetInfo {
                    target_id: frame.to_string(),
                },
            )
            .await
            .ok()?
            .target_info;
        let opener = info.opener_id.filter(|_| info.kind == "page")?;
        let mut known = self.known.lock().expect("known lock");
        let guard = known.get(&opener)?.guard.clone();
        let upgraded = guard.upgrade()?;
        known.insert(
            frame.to_string(),
            Known {
                guard,
                opened: true,
            },
        );
        Some(upgraded)
    }
}
