//! The Runtime domain: evaluating the in-page engine's calls.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Command, Event, Ignored};

/// Evaluates an expression in the page's main world.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Evaluate {
    pub expression: String,
    /// The result as JSON rather than a handle to a remote object.
    pub return_by_value: bool,
    /// Waits for a returned promise to settle.
    pub await_promise: bool,
    /// The execution context (a frame's isolated world); none for the top document's main
    /// world.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_id: Option<i64>,
    /// Runs as if the user acted: lets a field in another origin's frame take focus, which
    /// Chromium refuses to a frame's script without a gesture.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub user_gesture: bool,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Evaluated {
    #[serde(default)]
    pub result: RemoteObject,
    /// Set when the expression threw (or its promise rejected).
    #[serde(default)]
    pub exception_details: Option<ExceptionDetails>,
}

impl Command for Evaluate {
    const METHOD: &'static str = "Runtime.evaluate";
    type Response = Evaluated;
}

/// A JavaScript value: by value (`value`) or described, or a handle to it (`object_id`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RemoteObject {
    /// `node` for a DOM node.
    #[serde(default)]
    pub subtype: Option<String>,
    /// A handle to the object in the page, when it was not returned by value.
    #[serde(default)]
    pub object_id: Option<String>,
    /// Absent for `undefined` and for values that are not JSON.
    #[serde(default)]
    pub value: Option<Value>,
    #[serde(default)]
    pub description: Option<String>,
}

/// Lets go of a handle from [`Evaluate`] without `return_by_value`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ReleaseObject {
    pub object_id: String,
}

impl Command for ReleaseObject {
    const METHOD: &'static str = "Runtime.releaseObject";
    type Response = Ignored;
}

/// Turns the Runtime domain's events on: console calls and uncaught exceptions (and, once on,
/// those the page logged before).
#[derive(Debug, Serialize)]
pub(crate) struct Enable {}

impl Command for Enable {
    const METHOD: &'static str = "Runtime.enable";
    type Response = Ignored;
}

/// The page called `console.log`, `console.error`…
#[derive(Debug, Deserialize)]
pub(crate) struct ConsoleApiCalled {
    /// `log`, `info`, `warning`, `error`, `debug`…
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub args: Vec<RemoteObject>,
}

impl Event for ConsoleApiCalled {
    const METHOD: &'static str = "Runtime.consoleAPICalled";
}

/// An exception nothing in the page caught.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ExceptionThrown {
    pub exception_details: ExceptionDetails,
}

impl Event for ExceptionThrown {
    const METHOD: &'static str = "Runtime.exceptionThrown";
}

#[derive(Debug, Deserialize)]
pub(crate) struct ExceptionDetails {
    #[serde(default)]
    pub text: Option<String>,
    /// The thrown value.
    #[serde(default)]
    pub exception: Option<RemoteObject>,
}

impl ExceptionDetails {
    /// The thrown error's description (with its stack), else the short text.
    pub(crate) fn message(&self) -> String {
        self.exception
            .as_ref()
            .and_then(|e| e.description.clone())
            .or_else(|| self.text.clone())
            .unwrap_or_else(|| "an exception without a message".to_string())
    }
}
