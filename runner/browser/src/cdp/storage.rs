//! The Storage domain: what a reused tab's reset clears.

use serde::Serialize;

use super::{Command, Ignored};

/// Clears the given storage types (`all`) of one or more origins (comma-separated).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClearDataForOrigin {
    pub origin: String,
    pub storage_types: &'static str,
}

impl Command for ClearDataForOrigin {
    const METHOD: &'static str = "Storage.clearDataForOrigin";
    type Response = Ignored;
}
