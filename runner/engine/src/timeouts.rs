//! The time limits in force for a run (from `[timeouts]` in `windup.toml`, else the defaults). A
//! leaf: the executor and the runner read it, the config builds it.

use std::time::Duration;

/// Time limits in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    pub action: Duration,
    pub navigation: Duration,
    pub scenario: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            action: Duration::from_millis(5_000),
            navigation: Duration::from_millis(15_000),
            scenario: Duration::from_millis(60_000),
        }
    }
}
