//! Why a run could not happen at all, as opposed to a scenario that failed: bad input (exit 2)
//! or a browser that would not start (exit 3).

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
