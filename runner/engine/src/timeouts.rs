//! The time limits in force for a run (from `[timeouts]` in `windup.toml`, else the defaults). A
//! leaf: the executor and the runner read it, the config builds it.

use std::time::Duration;

/// Pauses between two looks at the page while waiting for a target or a postcondition, in
/// milliseconds: short at first (most pages answer a step within a task or two), then 100 ms.
const POLL_MS: [u64; 7] = [0, 2, 5, 10, 20, 50, 100];

/// How long a replayed step's target must stay missing from a quiet page (no request waiting),
/// with its document unchanged and the same single element in its place at two asks this far
/// apart, before healing starts without waiting out the step's time (`ExecContext::early_heal`).
pub const STILL: Duration = Duration::from_millis(100);

/// How long the same single element in a missing target's place is enough on its own, while
/// the rest of the document keeps changing (a clock, an animation): healing starts once the
/// target has been missing this long.
pub const SETTLED: Duration = Duration::from_millis(500);

/// The pause before look `attempt + 1` at the page.
pub fn poll_pause(attempt: usize) -> Duration {
    Duration::from_millis(POLL_MS[attempt.min(POLL_MS.len() - 1)])
}

/// Time limits in force.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// How long one step may wait for its target and its postconditions, unless the step sets
    /// its own `timeout_ms`.
    pub action: Duration,
    /// How long a `goto` or the start URL may take to load.
    pub navigation: Duration,
    /// The whole scenario's budget, unless the scenario sets its own `timeout_ms`.
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
