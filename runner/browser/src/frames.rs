//! The page's frames as realms of the in-page engine. The top document's engine searches its
//! own document and every frame of the same origin inside it (their documents are open to its
//! scripts); a frame of another origin is closed to it, so the engine runs again there, in an
//! isolated world of Windup's own (`Page.createIsolatedWorld`: the page's scripts cannot see or
//! change it). Chromium runs with site isolation off (`launch`), so every frame of a page lives
//! in the page's own session and renderer; a browser attached with `--cdp-url` keeps its site
//! isolation, and a frame of another site there answers in a session of its own
//! (`remote_frames.rs`), where its world is made the same way. Coordinates from a frame's
//! engine are in its own viewport: the frame element's content box (`DOM.getBoxModel`, in the
//! coordinates of its session's top frame) is added to them, and for a frame out of process
//! that of the frame holding it, up to the page.

use super::cdp::dom::{
    DescribeBackendNode, DescribeNode, GetBoxModel, GetFrameOwner, GetNodeForLocation,
    NodeAtLocation,
};
use super::cdp::page::{CreateIsolatedWorld, FrameTree, GetFrameTree};
use super::cdp::runtime::ReleaseObject;
use super::error::BrowserError;
use super::page::Page;
use super::remote_frames::{Remote, Subframes};

/// The name of Windup's isolated world in each frame; Chromium keeps one world per name and
/// frame, so asking again returns the same context while the frame's document lives.
const WORLD: &str = "windup";

/// Where the in-page engine runs: the top document's main world, or the isolated world of a
/// frame whose origin differs from its parent's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Realm {
    /// The session it answers in: None for the page's own, else a frame's out of process.
    pub(crate) session: Option<String>,
    /// The execution context; None for the top document's main world.
    pub(crate) context: Option<i64>,
    /// The frame; None for the top document.
    pub frame_id: Option<String>,
    /// The frame document's origin as Chromium tells it (`null` for an opaque one); None for
    /// the top document, whose origin is its URL's.
    pub origin: Option<String>,
}

impl Realm {
    /// The top document's main world.
    pub fn top() -> Realm {
        Realm {
            session: None,
            context: None,
            frame_id: None,
            origin: None,
        }
    }
}

/// The frames of a session's page ([`super::Session::frames`]): the realms to search, and
/// where each frame is.
pub struct Frames<'a> {
    pub(super) page: &'a Page,
    pub(super) subframes: &'a Subframes,
}

impl Frames<'_> {
    /// The page's frames out of process.
    fn remote_frames(&self) -> Vec<Remote> {
        self.subframes.remote(&self.page.session_id)
    }

    /// The realms to search, in order: the top document, then every frame of another origin
    /// than its parent's, depth first in the order the page made them; then the frames out of
    /// process (and the frames of another origin inside each), in the order they attached. A
    /// frame whose world cannot be made (gone meanwhile) is left out.
    pub async fn realms(&self) -> Result<Vec<Realm>, BrowserError> {
        let mut realms = vec![Realm::top()];
        if !self.subframes.any() {
            return Ok(realms);
        }
        let remote = self.remote_frames();
        let tree = self.page.send(&GetFrameTree {}).await?.frame_tree;
        let mut closed = Vec::new();
        cross_origin_frames(&tree, &remote, &mut closed);
        let mut found: Vec<(Option<String>, String, String)> = closed
            .into_iter()
            .map(|(frame, origin)| (None, frame, origin))
            .collect();
        for r in &remote {
            let Ok(tree) = self.page.send_in(Some(&r.session), &GetFrameTree {}).await else {
                continue;
            };
            let tree = tree.frame_tree;
            let at = Some(r.session.clone());
            found.push((
                at.clone(),
                r.frame_id.clone(),
                tree.frame.security_origin.clone(),
            ));
            let mut inside = Vec::new();
            cross_origin_frames(&tree, &remote, &mut inside);
            found.extend(inside.into_iter().map(|(f, o)| (at.clone(), f, o)));
        }
        for (session, frame_id, origin) in found {
            match self.world(session.as_deref(), &frame_id).await {
                Ok(context) => realms.push(Realm {
                    session,
                    context: Some(context),
                    frame_id: Some(frame_id),
                    origin: Some(origin),
                }),
                Err(e) => tracing::debug!("frame {frame_id} is not searched: {e}"),
            }
        }
        Ok(realms)
    }

    /// The realm of one frame (found by a `frame=` step), whatever its origin.
    pub async fn frame_realm(&self, frame_id: &str) -> Result<Realm, BrowserError> {
        let remote = self.remote_frames();
        let session = self.home_of(frame_id, &remote).await?;
        let tree = self
            .page
            .send_in(session.as_deref(), &GetFrameTree {})
            .await?
            .frame_tree;
        let origin = find_origin(&tree, frame_id).ok_or(BrowserError::ContextLost)?;
        Ok(Realm {
            context: Some(self.world(session.as_deref(), frame_id).await?),
            session,
            frame_id: Some(frame_id.to_string()),
            origin: Some(origin),
        })
    }

    async fn world(&self, session: Option<&str>, frame_id: &str) -> Result<i64, BrowserError> {
        let world = self
            .page
            .send_in(
                session,
                &CreateIsolatedWorld {
                    frame_id: frame_id.to_string(),
                    world_name: WORLD,
                },
            )
            .await?;
        Ok(world.execution_context_id)
    }

    /// The session a frame's document answers in: a frame out of process's own, the one of
    /// the frame out of process it lies in, else the page's (None).
    async fn home_of(
        &self,
        frame_id: &str,
        remote: &[Remote],
    ) -> Result<Option<String>, BrowserError> {
        if let Some(r) = remote.iter().find(|r| r.frame_id == frame_id) {
            return Ok(Some(r.session.clone()));
        }
        // Inner frames attach after the frames holding them: the last to hold it is its home.
        for r in remote.iter().rev() {
            if let Ok(tree) = self.page.send_in(Some(&r.session), &GetFrameTree {}).await
                && subtree(&tree.frame_tree, frame_id).is_some()
            {
                return Ok(Some(r.session.clone()));
            }
        }
        Ok(None)
    }

    /// The session where a frame's `<iframe>` element is: its parent document's.
    async fn owner_home(
        &self,
        frame_id: &str,
        remote: &[Remote],
    ) -> Result<Option<String>, BrowserError> {
        match remote.iter().find(|r| r.frame_id == frame_id) {
            Some(r) => Ok(r.parent.clone()),
            None => self.home_of(frame_id, remote).await,
        }
    }

    /// Where a frame's viewport starts in the top-level viewport: its element's content box,
    /// plus, for an element inside a frame out of process, where that frame starts.
    pub async fn frame_offset(&self, frame_id: &str) -> Result<(f64, f64), BrowserError> {
        let remote = self.remote_frames();
        let (mut x, mut y) = (0.0, 0.0);
        let mut frame = frame_id.to_string();
        // At most one hop per frame out of process, whatever the page claims.
        for _ in 0..=remote.len() {
            let home = self.owner_home(&frame, &remote).await?;
            let (dx, dy) = self.content_box(home.as_deref(), &frame).await?;
            x += dx;
            y += dy;
            match home.and_then(|s| remote.iter().find(|r| r.session == s)) {
                Some(holder) => frame = holder.frame_id.clone(),
                None => return Ok((x, y)),
            }
        }
        Err(BrowserError::Protocol(
            "frames out of process in a loop".into(),
        ))
    }

    /// The top-left corner of a frame element's content box, in the coordinates of the top
    /// frame of `session` (the session the element is in).
    async fn content_box(
        &self,
        session: Option<&str>,
        frame_id: &str,
    ) -> Result<(f64, f64), BrowserError> {
        let owner = self
            .page
            .send_in(
                session,
                &GetFrameOwner {
                    frame_id: frame_id.to_string(),
                },
            )
            .await?;
        let model = self
            .page
            .send_in(
                session,
                &GetBoxModel {
                    backend_node_id: owner.backend_node_id,
                },
            )
            .await?
            .model;
        match model.content.as_slice() {
            [x, y, ..] => Ok((*x, *y)),
            _ => Err(BrowserError::Protocol(
                "a box model without a content quad".into(),
            )),
        }
    }

    /// Whether a pointer event at a point of the top-level viewport reaches `frame` (or a frame
    /// inside it), rather than something drawn over the frame element in a parent document,
    /// which the frame's own engine cannot see. Through a frame out of process, the point must
    /// hit that frame's element, and is then tested again inside it.
    pub async fn point_reaches_frame(
        &self,
        frame: &str,
        (x, y): (f64, f64),
    ) -> Result<bool, BrowserError> {
        let remote = self.remote_frames();
        // The frames out of process between the page and `frame`'s document, outermost first.
        let mut chain = Vec::new();
        let mut at = self.home_of(frame, &remote).await?;
        while let Some(s) = at {
            let Some(r) = remote.iter().find(|r| r.session == s) else {
                break;
            };
            if chain.len() > remote.len() {
                return Err(BrowserError::Protocol(
                    "frames out of process in a loop".into(),
                ));
            }
            chain.push(r);
            at = r.parent.clone();
        }
        chain.reverse();
        let (mut x, mut y) = (x, y);
        let mut session: Option<String> = None;
        for r in chain {
            let hit = self.node_at(session.as_deref(), (x, y)).await?;
            let owner = self
                .page
                .send_in(
                    session.as_deref(),
                    &GetFrameOwner {
                        frame_id: r.frame_id.clone(),
                    },
                )
                .await?;
            if hit.backend_node_id != Some(owner.backend_node_id) {
                return Ok(false);
            }
            let (dx, dy) = self.content_box(session.as_deref(), &r.frame_id).await?;
            x -= dx;
            y -= dy;
            session = Some(r.session.clone());
        }
        let hit = self.node_at(session.as_deref(), (x, y)).await?;
        let Some(hit) = hit.frame_id else {
            return Ok(false);
        };
        if hit == frame {
            return Ok(true);
        }
        let tree = self
            .page
            .send_in(session.as_deref(), &GetFrameTree {})
            .await?
            .frame_tree;
        Ok(subtree(&tree, frame).is_some_and(|t| subtree(t, &hit).is_some()))
    }

    /// The node hit at a point of `session`'s top frame.
    async fn node_at(
        &self,
        session: Option<&str>,
        (x, y): (f64, f64),
    ) -> Result<NodeAtLocation, BrowserError> {
        self.page
            .send_in(
                session,
                &GetNodeForLocation {
                    x: x.round() as i64,
                    y: y.round() as i64,
                    include_user_agent_shadow_dom: true,
                    ignore_pointer_events_none: true,
                },
            )
            .await
    }

    /// The attributes of a frame's element (`title`, `name`, `id`…), for a selector that
    /// reaches it.
    pub async fn frame_attributes(
        &self,
        frame_id: &str,
    ) -> Result<Vec<(String, String)>, BrowserError> {
        let remote = self.remote_frames();
        let session = self.owner_home(frame_id, &remote).await?;
        let owner = self
            .page
            .send_in(
                session.as_deref(),
                &GetFrameOwner {
                    frame_id: frame_id.to_string(),
                },
            )
            .await?;
        let node = self
            .page
            .send_in(
                session.as_deref(),
                &DescribeBackendNode {
                    backend_node_id: owner.backend_node_id,
                },
            )
            .await?
            .node;
        Ok(node
            .attributes
            .chunks(2)
            .filter_map(|pair| match pair {
                [name, value] => Some((name.clone(), value.clone())),
                _ => None,
            })
            .collect())
    }
}

/// The frame a frame element (a handle from the in-page engine in `realm`) holds; lets go of
/// the handle.
pub(super) async fn frame_of(
    page: &Page,
    realm: &Realm,
    object_id: String,
) -> Result<Option<String>, BrowserError> {
    let session = realm.session.as_deref();
    let described = page
        .send_in(
            session,
            &DescribeNode {
                object_id: object_id.clone(),
            },
        )
        .await;
    let _ = page.send_in(session, &ReleaseObject { object_id }).await;
    Ok(described?.node.frame_id)
}

/// Frames of `tree`'s document whose origin differs from their parent's, depth first; a frame
/// out of process (and what is inside it) is its own session's.
fn cross_origin_frames(tree: &FrameTree, remote: &[Remote], out: &mut Vec<(String, String)>) {
    for child in &tree.child_frames {
        if remote.iter().any(|r| r.frame_id == child.frame.id) {
            continue;
        }
        if child.frame.security_origin != tree.frame.security_origin {
            out.push((child.frame.id.clone(), child.frame.security_origin.clone()));
        }
        cross_origin_frames(child, remote, out);
    }
}

fn find_origin(tree: &FrameTree, frame_id: &str) -> Option<String> {
    subtree(tree, frame_id).map(|t| t.frame.security_origin.clone())
}

/// The tree of `frame_id` inside `tree`.
fn subtree<'a>(tree: &'a FrameTree, frame_id: &str) -> Option<&'a FrameTree> {
    if tree.frame.id == frame_id {
        return Some(tree);
    }
    tree.child_frames.iter().find_map(|c| subtree(c, frame_id))
}
