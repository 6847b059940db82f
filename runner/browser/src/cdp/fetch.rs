//! The Fetch domain, for documents only: every document request of a page is paused, and the
//! navigation guard lets it go on or fails it before it leaves the browser.

use serde::{Deserialize, Serialize};

use super::{Command, Event, Ignored};

/// Which requests pause: documents (top-level and frames), before they are sent.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestPattern {
    pub url_pattern: &'static str,
    pub resource_type: &'static str,
    pub request_stage: &'static str,
}

impl RequestPattern {
    /// Every document request, paused before it is sent.
    pub(crate) fn documents() -> RequestPattern {
        RequestPattern {
            url_pattern: "*",
            resource_type: "Document",
            request_stage: "Request",
        }
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct Enable {
    pub patterns: Vec<RequestPattern>,
}

impl Command for Enable {
    const METHOD: &'static str = "Fetch.enable";
    type Response = Ignored;
}

/// A paused request's URL.
#[derive(Debug, Deserialize)]
pub(crate) struct PausedRequest {
    pub url: String,
}

/// A request paused by [`Enable`]'s patterns; it waits until it is continued or failed.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RequestPaused {
    pub request_id: String,
    pub request: PausedRequest,
    /// The frame the document is for: the page's target id for the top-level document.
    pub frame_id: String,
    #[serde(default)]
    pub resource_type: Option<String>,
}

impl Event for RequestPaused {
    const METHOD: &'static str = "Fetch.requestPaused";
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ContinueRequest {
    pub request_id: String,
}

impl Command for ContinueRequest {
    const METHOD: &'static str = "Fetch.continueRequest";
    type Response = Ignored;
}

/// Fails a paused request: it never reaches the network.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct FailRequest {
    pub request_id: String,
    /// `BlockedByClient`: the page sees `net::ERR_BLOCKED_BY_CLIENT`.
    pub error_reason: &'static str,
}

impl Command for FailRequest {
    const METHOD: &'static str = "Fetch.failRequest";
    type Response = Ignored;
}

#[derive(Debug, Serialize)]
pub(crate) struct Disable {}

impl Command for Disable {
    const METHOD: &'static str = "Fetch.disable";
    type Response = Ignored;
}
