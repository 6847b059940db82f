//! The Browser domain: browser-wide settings of a context (permissions, downloads), what the
//! browser is, and the progress of downloads.

use serde::{Deserialize, Serialize};

use super::{Command, Event, Ignored};

/// Forgets the permissions granted in a context (the default one when `None`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResetPermissions {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<String>,
}

impl Command for ResetPermissions {
    const METHOD: &'static str = "Browser.resetPermissions";
    type Response = Ignored;
}

/// What the browser is: asked of a browser Windup attaches to by a `ws://` URL, which has no
/// `/json/version` to read first.
#[derive(Debug, Serialize)]
pub(crate) struct GetVersion {}

#[derive(Debug, Deserialize)]
pub(crate) struct Version {
    /// `Chrome/156.0.8078.114`, `HeadlessChrome/…`: the same as `/json/version`'s `Browser`.
    pub product: String,
}

impl Command for GetVersion {
    const METHOD: &'static str = "Browser.getVersion";
    type Response = Version;
}

/// Where a context's downloads go: `allowAndName` saves each as `<download_path>/<guid>`, so
/// a file is found by its download's id whatever the site named it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetDownloadBehavior {
    /// `allowAndName`, or `default` to hand the context back as it was.
    pub behavior: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub browser_context_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download_path: Option<String>,
    /// Sends `Browser.downloadWillBegin` and `Browser.downloadProgress`.
    pub events_enabled: bool,
}

impl Command for SetDownloadBehavior {
    const METHOD: &'static str = "Browser.setDownloadBehavior";
    type Response = Ignored;
}

/// A download starts: its id and the name the site suggests.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DownloadWillBegin {
    pub guid: String,
    #[serde(default)]
    pub suggested_filename: String,
}

impl Event for DownloadWillBegin {
    const METHOD: &'static str = "Browser.downloadWillBegin";
}

/// A download moves on: `inProgress`, `completed` or `canceled`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DownloadProgress {
    pub guid: String,
    pub state: String,
    #[serde(default)]
    pub received_bytes: f64,
}

impl Event for DownloadProgress {
    const METHOD: &'static str = "Browser.downloadProgress";
}
