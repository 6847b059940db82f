//! The Target domain: browser contexts, their pages, and the flat sessions attached to them.

use serde::{Deserialize, Serialize};

use super::{Command, Event, Ignored};

/// A page, worker or other target, as the browser lists it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TargetInfo {
    pub target_id: String,
    /// `page`, `iframe`, `service_worker`, `browser`, …
    #[serde(rename = "type")]
    pub kind: String,
    /// None for targets outside any context (the browser itself).
    #[serde(default)]
    pub browser_context_id: Option<String>,
    /// The target that opened this one (`window.open`, `target=_blank`).
    #[serde(default)]
    pub opener_id: Option<String>,
    /// The URL of its document, as it last committed.
    #[serde(default)]
    pub url: String,
}

impl TargetInfo {
    pub(crate) fn is_page(&self) -> bool {
        self.kind == "page"
    }
}

/// Turns on `Target.targetCreated` and friends for every target.
#[derive(Debug, Serialize)]
pub(crate) struct SetDiscoverTargets {
    pub discover: bool,
}

impl Command for SetDiscoverTargets {
    const METHOD: &'static str = "Target.setDiscoverTargets";
    type Response = Ignored;
}

#[derive(Debug, Serialize)]
pub(crate) struct GetTargets {}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Targets {
    pub target_infos: Vec<TargetInfo>,
}

impl Command for GetTargets {
    const METHOD: &'static str = "Target.getTargets";
    type Response = Targets;
}

/// A new isolated context (like an incognito profile).
#[derive(Debug, Serialize)]
pub(crate) struct CreateBrowserContext {}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct BrowserContextCreated {
    pub browser_context_id: String,
}

impl Command for CreateBrowserContext {
    const METHOD: &'static str = "Target.createBrowserContext";
    type Response = BrowserContextCreated;
}

/// Closes a context and every page in it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DisposeBrowserContext {
    pub browser_context_id: String,
}

impl Command for DisposeBrowserContext {
    const METHOD: &'static str = "Target.disposeBrowserContext";
    type Response = Ignored;
}

/// Opens a page.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CreateTarget {
    pub url: String,
    /// None: the browser's default context (an attached browser's signed-in profile).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<String>,
    /// A window of its own: a tab opened beside another in the same window would push that one
    /// to the background, where Chromium throttles its timers and stops painting.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub new_window: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TargetCreatedAnswer {
    pub target_id: String,
}

impl Command for CreateTarget {
    const METHOD: &'static str = "Target.createTarget";
    type Response = TargetCreatedAnswer;
}

/// Closes one page (a tab Windup opened in a browser's default context, which cannot be
/// disposed of as a whole).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct CloseTarget {
    pub target_id: String,
}

impl Command for CloseTarget {
    const METHOD: &'static str = "Target.closeTarget";
    type Response = Ignored;
}

/// Attaches a session to a target; with `flatten` its messages share this connection, told
/// apart by `sessionId`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AttachToTarget {
    pub target_id: String,
    pub flatten: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Attached {
    pub session_id: String,
}

impl Command for AttachToTarget {
    const METHOD: &'static str = "Target.attachToTarget";
    type Response = Attached;
}

/// Brings a page to the front (a background tab of a headed browser paints nothing).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ActivateTarget {
    pub target_id: String,
}

impl Command for ActivateTarget {
    const METHOD: &'static str = "Target.activateTarget";
    type Response = Ignored;
}

/// A target appeared (with discovery on).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TargetCreated {
    pub target_info: TargetInfo,
}

impl Event for TargetCreated {
    const METHOD: &'static str = "Target.targetCreated";
}

/// A target's details changed: a page's document committed a new URL (with discovery on).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TargetInfoChanged {
    pub target_info: TargetInfo,
}

impl Event for TargetInfoChanged {
    const METHOD: &'static str = "Target.targetInfoChanged";
}

/// Attaches to the target's children (with `filter`, only frames of another process) as they
/// appear, each in a flat session of its own (`Target.attachedToTarget`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetAutoAttach {
    pub auto_attach: bool,
    pub wait_for_debugger_on_start: bool,
    pub flatten: bool,
    pub filter: Vec<TargetFilter>,
}

/// One entry of an auto-attach filter.
#[derive(Debug, Serialize)]
pub(crate) struct TargetFilter {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub exclude: bool,
}

impl Command for SetAutoAttach {
    const METHOD: &'static str = "Target.setAutoAttach";
    type Response = Ignored;
}

/// A child target was attached (auto-attach): its session and what it is.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AttachedToTarget {
    pub session_id: String,
    pub target_info: TargetInfo,
}

impl Event for AttachedToTarget {
    const METHOD: &'static str = "Target.attachedToTarget";
}

/// A child target's session ended (its frame went away or came back into its parent's
/// process).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DetachedFromTarget {
    pub session_id: String,
}

impl Event for DetachedFromTarget {
    const METHOD: &'static str = "Target.detachedFromTarget";
}

/// What the browser knows of one target: for a document request paused at the browser's
/// level, whether its frame is a tab and which tab opened it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GetTargetInfo {
    pub target_id: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TargetInfoAnswer {
    pub target_info: TargetInfo,
}

impl Command for GetTargetInfo {
    const METHOD: &'static str = "Target.getTargetInfo";
    type Response = TargetInfoAnswer;
}
