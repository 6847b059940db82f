//! What the executor reports while it runs. Reporters, progress displays and (later) passive
//! site-map collection subscribe; the executor knows nothing of output formats.

use windup_model::{ActionResult, ScenarioResult};

use crate::planner::Purpose;

#[derive(Debug, Clone)]
pub enum Event {
    /// A run is about to start this many scenarios.
    RunStarted {
        scenarios: usize,
    },
    ScenarioStarted {
        scenario_id: String,
    },
    ActionStarted {
        scenario_id: String,
        action_id: String,
    },
    /// A step finished, passed or failed.
    ActionFinished {
        scenario_id: String,
        result: ActionResult,
    },
    /// The executor saw a page: its URL and structural signature.
    PageSeen {
        scenario_id: String,
        url: String,
        signature: Option<String>,
    },
    /// A JavaScript dialog was accepted.
    Dialog {
        scenario_id: String,
        kind: String,
        message: String,
    },
    /// An LLM planning call is about to be made, for this purpose.
    Planning {
        scenario_id: String,
        purpose: Purpose,
    },
    ScenarioFinished {
        result: ScenarioResult,
    },
}

/// Receives events. Implementations must be quick: they run on the executor's task.
pub trait EventSink: Send + Sync {
    fn on_event(&self, event: &Event);
}

/// Ignores everything.
pub struct NoEvents;

impl EventSink for NoEvents {
    fn on_event(&self, _: &Event) {}
}

/// Sends every event to several sinks.
pub struct Fanout(pub Vec<Box<dyn EventSink>>);

impl EventSink for Fanout {
    fn on_event(&self, event: &Event) {
        for sink in &self.0 {
            sink.on_event(event);
        }
    }
}
