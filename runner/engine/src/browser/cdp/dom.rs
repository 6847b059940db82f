//! The DOM domain: setting the files of a file input, as a person choosing them would.

use serde::Serialize;

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
