//! Why a run could not happen at all, as opposed to a scenario that failed: bad input (exit 2,
//! a `--cdp-url` the preflight refuses among it) or a browser that would not start (exit 3).

use windup_model::{InputError, Problems};

use crate::browser::BrowserError;

/// Why a run could not happen at all.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// Bad usage, configuration or input (exit 2).
    #[error("{0}")]
    Input(Problems),
    /// The browser would not start (exit 3).
    #[error("{0}")]
    Infrastructure(BrowserError),
}

impl From<Problems> for RunError {
    fn from(p: Problems) -> Self {
        RunError::Input(p)
    }
}

impl From<InputError> for RunError {
    fn from(e: InputError) -> Self {
        RunError::Input(e.into())
    }
}

/// A browser that would not start is infrastructure; one that could not be attached to
/// (`--cdp-url`: unreachable, not Chromium, too old) is bad input.
impl From<BrowserError> for RunError {
    fn from(e: BrowserError) -> Self {
        match e.as_input_error() {
            Some(input) => RunError::Input(input.into()),
            None => RunError::Infrastructure(e),
        }
    }
}
