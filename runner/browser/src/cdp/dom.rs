//! The DOM domain: setting the files of a file input, as a person choosing them would;
//! which frame a frame element holds, and where that element's box is.

use serde::{Deserialize, Serialize};

use super::{Command, Ignored};

/// Sets the files of an `<input type=file>` (absolute paths on the machine running the
/// browser); the page gets its `input` and `change` events.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetFileInputFiles {
    pub files: Vec<String>,
    /// The input, as the in-page engine handed it back (`Runtime.evaluate` without
    /// `returnByValue`).
    pub object_id: String,
}

impl Command for SetFileInputFiles {
    const METHOD: &'static str = "DOM.setFileInputFiles";
    type Response = Ignored;
}

/// The `<iframe>` (or `<frame>`) element that holds a frame, in its parent's document.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GetFrameOwner {
    pub frame_id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FrameOwner {
    pub backend_node_id: i64,
}

impl Command for GetFrameOwner {
    const METHOD: &'static str = "DOM.getFrameOwner";
    type Response = FrameOwner;
}

/// An element's boxes, in the top-level viewport's CSS pixels.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GetBoxModel {
    pub backend_node_id: i64,
}

#[derive(Debug, Deserialize)]
pub(crate) struct BoxModelAnswer {
    pub model: BoxModel,
}

/// Each box as a quad: four (x, y) corners, clockwise from the top left.
#[derive(Debug, Deserialize)]
pub(crate) struct BoxModel {
    pub content: Vec<f64>,
}

impl Command for GetBoxModel {
    const METHOD: &'static str = "DOM.getBoxModel";
    type Response = BoxModelAnswer;
}

/// A node by a handle from `Runtime.evaluate`: for a frame element, the frame it holds.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DescribeNode {
    pub object_id: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Described {
    pub node: DescribedNode,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DescribedNode {
    /// Set on a frame element: the id of the frame it holds.
    #[serde(default)]
    pub frame_id: Option<String>,
    /// `[name, value, name, value, …]`.
    #[serde(default)]
    pub attributes: Vec<String>,
}

impl Command for DescribeNode {
    const METHOD: &'static str = "DOM.describeNode";
    type Response = Described;
}

/// A node by its backend id (a frame's owner element): its attributes.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DescribeBackendNode {
    pub backend_node_id: i64,
}

impl Command for DescribeBackendNode {
    const METHOD: &'static str = "DOM.describeNode";
    type Response = Described;
}

/// The node hit at a point of the top-level viewport, and its frame.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GetNodeForLocation {
    pub x: i64,
    pub y: i64,
    pub include_user_agent_shadow_dom: bool,
    pub ignore_pointer_events_none: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NodeAtLocation {
    #[serde(default)]
    pub frame_id: Option<String>,
    #[serde(default)]
    pub backend_node_id: Option<i64>,
}

impl Command for GetNodeForLocation {
    const METHOD: &'static str = "DOM.getNodeForLocation";
    type Response = NodeAtLocation;
}
