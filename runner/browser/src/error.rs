//! The one error type of the browser boundary, and how a navigation can fail.

/// Errors at the browser boundary.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BrowserError {
    #[error(
        "no Chromium found; install it (`apt-get install chromium`) or set `[browser] executable` in windup.toml or WINDUP_CHROMIUM"
    )]
    /// No Chromium executable was found where [`super::find_chromium`] looks.
    NotFound,
    /// Chromium was found but did not start, or did not answer on the pipe in time.
    #[error("the browser at {path} would not start: {detail}")]
    Launch {
        /// The executable that was started.
        path: String,
        /// Why it failed (no pipe, no process, no answer), with the last lines it wrote to
        /// stderr when it wrote any.
        detail: String,
    },
    /// The browser at `--cdp-url` cannot be attached to: nothing answers there, it is not
    /// Chromium's debugging endpoint, or its Chromium is older than Windup supports. Bad input
    /// (exit 2), found before anything ran.
    #[error("{url}: {problem}; {fix}")]
    Attach {
        /// The URL given.
        url: String,
        /// What is wrong.
        problem: String,
        /// What to do about it.
        fix: String,
    },
    /// The browser process or the page's renderer is gone, or a command timed out: the session
    /// cannot go on.
    #[error("the browser crashed or stopped answering: {0}")]
    Crashed(String),
    /// A navigation replaced the document under a command; trying again on the new document
    /// usually works.
    #[error("the page's document was replaced while it was being read")]
    ContextLost,
    /// An evaluated expression threw: the exception's text.
    #[error("a script in the page failed: {0}")]
    Script(String),
    /// Chromium answered with a CDP error, or with something we could not read.
    #[error("{0}")]
    Protocol(String),
}

/// Result of waiting for a document to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NavError {
    /// The navigation did not produce a usable document: a network error, or an HTTP status of
    /// 400 or more.
    Failed(String),
    /// The document did not finish loading before the deadline.
    Timeout,
    /// The browser or the page's renderer is gone.
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

impl BrowserError {
    /// The bad-input error of an attach that failed its checks (the flag, the URL, the problem
    /// and the fix), or None for any other error, which is infrastructure.
    pub fn as_input_error(&self) -> Option<windup_model::InputError> {
        match self {
            BrowserError::Attach { url, problem, fix } => Some(windup_model::InputError::new(
                "--cdp-url (or [browser] cdp_url)",
                url.clone(),
                problem.clone(),
                fix.clone(),
            )),
            _ => None,
        }
    }
}
