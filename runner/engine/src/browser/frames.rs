//! The page's frames as realms of the in-page engine. The top document's engine searches its
//! own document and every frame of the same origin inside it (their documents are open to its
//! scripts); a frame of another origin is closed to it, so the engine runs again there, in an
//! isolated world of Windup's own (`Page.createIsolatedWorld`: the page's scripts cannot see or
//! change it). Chromium runs with site isolation off (`launch`), so every frame of a page lives
//! in the page's own session and renderer; a browser attached with `--cdp-url` keeps its site
//! isolation, and its out-of-process frames are not reached (they are not in the frame tree's
//! session). Coordinates from a frame's engine are in its own viewport: the frame element's
//! content box in the top viewport (`DOM.getBoxModel`) is added to them.

use std::sync::atomic::Ordering;

use super::cdp::dom::{
    DescribeBackendNode, DescribeNode, GetBoxModel, GetFrameOwner, GetNodeForLocation,
};
use super::cdp::page::{CreateIsolatedWorld, FrameTree, GetFrameTree};
use super::cdp::runtime::ReleaseObject;
use super::error::BrowserError;
use super::session::Session;

/// The name of Windup's isolated world in each frame; Chromium keeps one world per name and
/// frame, so asking again returns the same context while the frame's document lives.
const WORLD: &str = "windup";

/// Where the in-page engine runs: the top document's main world, or the isolated world of a
/// frame whose origin differs from its parent's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Realm {
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
            context: None,
            frame_id: None,
            origin: None,
        }
    }
}

impl Session {
    /// The realms to search, in order: the top document, then every frame of another origin
    /// than its parent's, depth first in the order the page made them. A frame whose world
    /// cannot be made (gone meanwhile, or out of process) is left out.
    pub async fn realms(&self) -> Result<Vec<Realm>, BrowserError> {
        let mut realms = vec![Realm::top()];
        if !self.shared.subframes.load(Ordering::SeqCst) {
            return Ok(realms);
        }
        let tree = self.send(&GetFrameTree {}).await?.frame_tree;
        let mut closed = Vec::new();
        cross_origin_frames(&tree, &mut closed);
        for (frame_id, origin) in closed {
            match self.world(&frame_id).await {
                Ok(context) => realms.push(Realm {
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
    pub(crate) async fn frame_realm(&self, frame_id: &str) -> Result<Realm, BrowserError> {
        let tree = self.send(&GetFrameTree {}).await?.frame_tree;
        let origin = find_origin(&tree, frame_id).ok_or(BrowserError::ContextLost)?;
        Ok(Realm {
            context: Some(self.world(frame_id).await?),
            frame_id: Some(frame_id.to_string()),
            origin: Some(origin),
        })
    }

    async fn world(&self, frame_id: &str) -> Result<i64, BrowserError> {
        let world = self
            .send(&CreateIsolatedWorld {
                frame_id: frame_id.to_string(),
                world_name: WORLD,
            })
            .await?;
        Ok(world.execution_context_id)
    }

    /// Where a frame's viewport starts in the top-level viewport: its element's content box.
    pub(crate) async fn frame_offset(&self, frame_id: &str) -> Result<(f64, f64), BrowserError> {
        let owner = self
            .send(&GetFrameOwner {
                frame_id: frame_id.to_string(),
            })
            .await?;
        let model = self
            .send(&GetBoxModel {
                backend_node_id: owner.backend_node_id,
            })
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
    /// which the frame's own engine cannot see.
    pub(crate) async fn point_reaches_frame(
        &self,
        frame: &str,
        (x, y): (f64, f64),
    ) -> Result<bool, BrowserError> {
        let hit = self
            .send(&GetNodeForLocation {
                x: x.round() as i64,
                y: y.round() as i64,
                include_user_agent_shadow_dom: true,
                ignore_pointer_events_none: true,
            })
            .await?;
        let Some(hit) = hit.frame_id else {
            return Ok(false);
        };
        if hit == frame {
            return Ok(true);
        }
        let tree = self.send(&GetFrameTree {}).await?.frame_tree;
        Ok(subtree(&tree, frame).is_some_and(|t| subtree(t, &hit).is_some()))
    }

    /// The frame a frame element (a handle from the in-page engine) holds; lets go of the
    /// handle.
    pub(crate) async fn frame_of(&self, object_id: String) -> Result<Option<String>, BrowserError> {
        let described = self
            .send(&DescribeNode {
                object_id: object_id.clone(),
            })
            .await;
        let _ = self.send(&ReleaseObject { object_id }).await;
        Ok(described?.node.frame_id)
    }

    /// The attributes of a frame's element (`title`, `name`, `id`…), for a selector that
    /// reaches it.
    pub(crate) async fn frame_attributes(
        &self,
        frame_id: &str,
    ) -> Result<Vec<(String, String)>, BrowserError> {
        let owner = self
            .send(&GetFrameOwner {
                frame_id: frame_id.to_string(),
            })
            .await?;
        let node = self
            .send(&DescribeBackendNode {
                backend_node_id: owner.backend_node_id,
            })
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

/// Frames whose origin differs from their parent's, depth first.
fn cross_origin_frames(tree: &FrameTree, out: &mut Vec<(String, String)>) {
    for child in &tree.child_frames {
        if child.frame.security_origin != tree.frame.security_origin {
            out.push((child.frame.id.clone(), child.frame.security_origin.clone()));
        }
        cross_origin_frames(child, out);
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
