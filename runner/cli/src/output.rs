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
        let _ = writeln!(
            std::io::stderr(),
            "\n{} passed{}, {} failed, {} skipped in {}.{:02}s · {} LLM calls · {} · {} cache hits",
            t.passed,
            if t.flaky > 0 {
                format!(" ({} flaky)", t.flaky)
            } else {
                String::new()
            },
            t.failed,
            t.skipped,
            t.duration_ms / 1000,
            t.duration_ms % 1000 / 10,
            t.llm_calls,
            usd(t.cost_micro_usd),
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

/// Integer micro-dollars as `$0.0012` (rounded up to the displayed digit: never under-stated).
pub fn usd(micro: u64) -> String {
    let tenth_mills = micro.div_ceil(100);
    format!("${}.{:04}", tenth_mills / 10_000, tenth_mills % 10_000)
}

fn spend(result: &windup_model::ScenarioResult) -> String {
    if result.llm_calls == 0 {
        String::new()
    } else {
        format!(
            ", {} LLM call{}, {}",
            result.llm_calls,
            if result.llm_calls == 1 { "" } else { "s" },
            usd(result.cost_micro_usd)
        )
    }
}

impl EventSink for Terminal {
    fn on_event(&self, event: &Event) {
        if let Event::Planning {
            scenario_id,
            purpose,
        } = event
        {
            if !self.quiet {
                let what = match purpose.as_str() {
                    "repair" => "re-planning from where the replay failed",
                    "continue" => "continuing the plan on a new page",
                    _ => "planning",
                };
                let _ = writeln!(std::io::stderr(), "  ....  {scenario_id}: {what}");
            }
            return;
        }
        let Event::ScenarioFinished { result } = event else {
            return;
        };
        let mut err = std::io::stderr().lock();
        match result.status {
            ScenarioStatus::Passed if !self.quiet => {
                let _ = writeln!(
                    err,
                    "  {}  {} ({} ms, {}{})",
                    if result.flaky { "FLKY" } else { "PASS" },
                    result.scenario_id,
                    result.duration_ms,
                    cache_word(result.cache),
                    spend(result)
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
                    "  FAIL  {} ({} ms, {}{}): {class}{at}: {}",
                    result.scenario_id,
                    result.duration_ms,
                    cache_word(result.cache),
                    spend(result),
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
