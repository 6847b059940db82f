//! The Browser domain: browser-wide settings of a context.

use serde::Serialize;

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
