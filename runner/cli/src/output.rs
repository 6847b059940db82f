//! The terminal: a line per finished scenario and a final summary, on stderr.

use std::io::Write;

use windup_engine::events::{Event, EventSink};
use windup_model::{CacheOutcome, RunReport, ScenarioStatus};

pub struct Terminal {
    quiet: bool,
}

impl Terminal {
    pub fn new(quiet: bool) -> Self {
        Terminal { quiet }
    }

    pub fn summary(&self, report: &RunReport) {
        let t = &report.totals;
        let cost = t.cost_micro_usd as f64 / 1_000_000.0;
        let _ = writeln!(
            std::io::stderr(),
            "\n{} passed, {} failed, {} skipped in {:.2}s · {} LLM calls · ${cost:.4} · {} cache hits",
            t.passed,
            t.failed,
            t.skipped,
            t.duration_ms as f64 / 1000.0,
            t.llm_calls,
            t.cache_hits
        );
    }
}

fn cache_word(c: CacheOutcome) -> &'static str {
    match c {
        CacheOutcome::Hit => "cache hit",
        CacheOutcome::Miss => "cache miss",
        CacheOutcome::StaleReplanned => "re-planned",
        CacheOutcome::None => "no cache",
    }
}

impl EventSink for Terminal {
    fn on_event(&self, event: &Event) {
        let Event::ScenarioFinished { result } = event else {
            return;
        };
        let mut err = std::io::stderr().lock();
        match result.status {
            ScenarioStatus::Passed if !self.quiet => {
                let _ = writeln!(
                    err,
                    "  PASS  {} ({} ms, {})",
                    result.scenario_id,
                    result.duration_ms,
                    cache_word(result.cache)
                );
            }
            ScenarioStatus::Failed => {
                let class = result.failure_class.map(|c| c.as_str()).unwrap_or("failed");
                let at = result
                    .failed_action_id
                    .as_deref()
                    .map(|a| format!(" at {a}"))
                    .unwrap_or_default();
                let _ = writeln!(
                    err,
                    "  FAIL  {} ({} ms, {}): {class}{at}: {}",
                    result.scenario_id,
                    result.duration_ms,
                    cache_word(result.cache),
                    result.message.as_deref().unwrap_or("")
                );
            }
            ScenarioStatus::Skipped if !self.quiet => {
                let _ = writeln!(err, "  SKIP  {}", result.scenario_id);
            }
            _ => {}
        }
    }
}
