//! The Browser domain: browser-wide settings of a context, and what the browser is.

use serde::{Deserialize, Serialize};

use super::{Command, Ignored};

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
