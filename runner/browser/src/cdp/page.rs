//! The Page domain: navigation, the lifecycle of documents, dialogs, scripts for new
//! documents, screenshots.

use serde::{Deserialize, Serialize};

use super::{Command, Event, Ignored};

#[derive(Debug, Serialize)]
pub(crate) struct Enable {}

impl Command for Enable {
    const METHOD: &'static str = "Page.enable";
    type Response = Ignored;
}

/// Turns on `Page.lifecycleEvent` (init, commit, DOMContentLoaded, load, …).
#[derive(Debug, Serialize)]
pub(crate) struct SetLifecycleEventsEnabled {
    pub enabled: bool,
}

impl Command for SetLifecycleEventsEnabled {
    const METHOD: &'static str = "Page.setLifecycleEventsEnabled";
    type Response = Ignored;
}

#[derive(Debug, Serialize)]
pub(crate) struct Navigate {
    pub url: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Navigated {
    /// The new document's loader; none for a same-document navigation.
    #[serde(default)]
    pub loader_id: Option<String>,
    /// Why the navigation failed (empty or absent when it did not).
    #[serde(default)]
    pub error_text: Option<String>,
}

impl Command for Navigate {
    const METHOD: &'static str = "Page.navigate";
    type Response = Navigated;
}

/// Runs `source` in every new document of the page (every frame), before the page's scripts.
#[derive(Debug, Serialize)]
pub(crate) struct AddScriptToEvaluateOnNewDocument {
    pub source: String,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ScriptAdded {
    pub identifier: String,
}

impl Command for AddScriptToEvaluateOnNewDocument {
    const METHOD: &'static str = "Page.addScriptToEvaluateOnNewDocument";
    type Response = ScriptAdded;
}

#[derive(Debug, Serialize)]
pub(crate) struct RemoveScriptToEvaluateOnNewDocument {
    pub identifier: String,
}

impl Command for RemoveScriptToEvaluateOnNewDocument {
    const METHOD: &'static str = "Page.removeScriptToEvaluateOnNewDocument";
    type Response = Ignored;
}

#[derive(Debug, Serialize)]
pub(crate) struct ResetNavigationHistory {}

impl Command for ResetNavigationHistory {
    const METHOD: &'static str = "Page.resetNavigationHistory";
    type Response = Ignored;
}

/// Answers an open `alert`, `confirm`, `prompt` or `beforeunload` dialog.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HandleJavaScriptDialog {
    pub accept: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_text: Option<String>,
}

impl Command for HandleJavaScriptDialog {
    const METHOD: &'static str = "Page.handleJavaScriptDialog";
    type Response = Ignored;
}

#[derive(Debug, Serialize)]
pub(crate) struct CaptureScreenshot {
    /// `png`, `jpeg` or `webp`.
    pub format: &'static str,
    /// 0 to 100, for `jpeg` and `webp`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub quality: Option<u8>,
    /// The region to capture, in the document's CSS pixels, and its scale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clip: Option<Clip>,
}

/// `Page.Viewport`: a region of the document and the scale it is captured at.
#[derive(Debug, Serialize)]
pub(crate) struct Clip {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
    pub scale: f64,
}

/// The page's layout: where the visual viewport is, in CSS pixels.
#[derive(Debug, Serialize)]
pub(crate) struct GetLayoutMetrics {}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LayoutMetrics {
    pub css_visual_viewport: VisualViewport,
}

/// The visual viewport: its offset in the document and its size, in CSS pixels.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VisualViewport {
    pub page_x: f64,
    pub page_y: f64,
    pub client_width: f64,
    pub client_height: f64,
}

impl Command for GetLayoutMetrics {
    const METHOD: &'static str = "Page.getLayoutMetrics";
    type Response = LayoutMetrics;
}

#[derive(Debug, Deserialize)]
pub(crate) struct Screenshot {
    /// The image, base64-encoded.
    pub data: String,
}

impl Command for CaptureScreenshot {
    const METHOD: &'static str = "Page.captureScreenshot";
    type Response = Screenshot;
}

/// A step in the life of a frame's document.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LifecycleEvent {
    pub frame_id: String,
    pub loader_id: String,
    /// `init`, `commit`, `DOMContentLoaded`, `load`, `networkIdle`, …
    pub name: String,
}

impl Event for LifecycleEvent {
    const METHOD: &'static str = "Page.lifecycleEvent";
}

/// A frame's new document committed.
#[derive(Debug, Deserialize)]
pub(crate) struct FrameNavigated {
    pub frame: NavigatedFrame,
}

/// The frame of [`FrameNavigated`].
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct NavigatedFrame {
    pub id: String,
    /// None for a top-level document.
    #[serde(default)]
    pub parent_id: Option<String>,
    pub url: String,
    /// The load that committed this document.
    #[serde(default)]
    pub loader_id: Option<String>,
}

impl Event for FrameNavigated {
    const METHOD: &'static str = "Page.frameNavigated";
}

/// A JavaScript dialog opened; the page waits until it is handled.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct JavascriptDialogOpening {
    /// `alert`, `confirm`, `prompt` or `beforeunload`.
    #[serde(default, rename = "type")]
    pub kind: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
    /// A prompt's default answer.
    #[serde(default)]
    pub default_prompt: Option<String>,
}

impl Event for JavascriptDialogOpening {
    const METHOD: &'static str = "Page.javascriptDialogOpening";
}

/// The page's frames, as a tree from the main frame.
#[derive(Debug, Serialize)]
pub(crate) struct GetFrameTree {}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FrameTreeAnswer {
    pub frame_tree: FrameTree,
}

impl Command for GetFrameTree {
    const METHOD: &'static str = "Page.getFrameTree";
    type Response = FrameTreeAnswer;
}

/// One frame and the frames inside it, in the order the page made them.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FrameTree {
    pub frame: TreeFrame,
    #[serde(default)]
    pub child_frames: Vec<FrameTree>,
}

/// A frame of [`FrameTree`].
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TreeFrame {
    pub id: String,
    /// The document's origin (`http://host:port`, or `null` for an opaque one).
    #[serde(default)]
    pub security_origin: String,
}

/// A world of the engine's own in a frame, apart from the page's scripts: where the in-page
/// engine runs in a frame of another origin, which the top document's engine cannot reach.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreateIsolatedWorld {
    pub frame_id: String,
    pub world_name: &'static str,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct IsolatedWorld {
    pub execution_context_id: i64,
}

impl Command for CreateIsolatedWorld {
    const METHOD: &'static str = "Page.createIsolatedWorld";
    type Response = IsolatedWorld;
}
