//! The Inspector domain: a page's renderer crashing.

use serde::Deserialize;

use super::Event;

/// The page's renderer process crashed.
#[derive(Debug, Deserialize)]
pub(crate) struct TargetCrashed {}

impl Event for TargetCrashed {
    const METHOD: &'static str = "Inspector.targetCrashed";
}
