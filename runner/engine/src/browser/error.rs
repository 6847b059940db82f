//! The one error type of the browser boundary, and how a navigation can fail.

/// Errors at the browser boundary.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BrowserError {
    #[error(
        "no Chromium found; install it (`apt-get install chromium`) or set `[browser] executable` in windup.toml or WINDUP_CHROMIUM"
    )]
    NotFound,
    #[error("the browser at {path} would not start: {detail}")]
    Launch { path: String, detail: String },
    #[error("the browser crashed or stopped answering: {0}")]
    Crashed(String),
    #[error("the page's document was replaced while it was being read")]
    ContextLost,
    #[error("a script in the page failed: {0}")]
    Script(String),
    #[error("{0}")]
    Protocol(String),
}

/// Result of waiting for a document to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NavError {
    Failed(String),
    Timeout,
    Crashed(String),
}

/// A CDP error answer, worded as before: `Error <code>: <message>`.
pub(super) fn protocol_error(code: i64, message: &str) -> BrowserError {
    if is_context_lost(message) {
        BrowserError::ContextLost
    } else {
        BrowserError::Protocol(format!("Error {code}: {message}"))
    }
}

/// Whether an error says the page's document went away under the command.
pub(super) fn is_context_lost(text: &str) -> bool {
    text.contains("Execution context was destroyed")
        || text.contains("Cannot find context")
        || text.contains("Inspected target navigated or closed")
        || text.contains("Cannot find default execution context")
}
