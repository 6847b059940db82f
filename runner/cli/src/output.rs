//! The terminal: results on stdout (a line per finished scenario, suggestions, the debrief, the
//! summary with counts, time, LLM calls and cost, and where the HTML report is), so
//! `windup run > results.txt` keeps them; progress on stderr (a live bar when stderr is a
//! terminal (indicatif), plain lines otherwise or with NO_COLOR), with the logs. `-q` prints
//! only failures and the summary, `-v` every step with its timings.

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use windup_engine::events::{Event, EventSink};
use windup_engine::planner::Purpose;
use windup_model::{ActionStatus, CacheOutcome, RunReport, ScenarioResult, ScenarioStatus};

/// How much the terminal says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verbosity {
    Quiet,
    Normal,
    Verbose,
}

pub(crate) struct Terminal {
    verbosity: Verbosity,
    /// The live view, when stderr is a terminal and colour is allowed.
    bar: Mutex<Option<ProgressBar>>,
    live: bool,
}

impl Terminal {
    pub(crate) fn new(verbosity: Verbosity) -> Self {
        let live = std::io::stderr().is_terminal()
            && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            && verbosity != Verbosity::Quiet;
        Terminal {
            verbosity,
            bar: Mutex::new(None),
            live,
        }
    }

    /// Prints a result on stdout, the live view (on stderr) set aside while it is written.
    fn result(&self, text: &str) {
        let print = || {
            let _ = writeln!(std::io::stdout().lock(), "{text}");
        };
        match self.bar.lock().expect("terminal lock").as_ref() {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }

    /// Where the run's HTML report is, after the summary.
    pub(crate) fn report_path(&self, path: &str) {
        self.result(&format!("HTML report: {path}"));
    }

    /// Prints a line of progress above the live view, or plainly, on stderr.
    fn line(&self, text: &str) {
        match self.bar.lock().expect("terminal lock").as_ref() {
            Some(bar) => bar.println(text),
            None => {
                let _ = writeln!(std::io::stderr().lock(), "{text}");
            }
        }
    }

    pub(crate) fn summary(&self, report: &RunReport) {
        if let Some(bar) = self.bar.lock().expect("terminal lock").take() {
            bar.finish_and_clear();
        }
        for r in &report.scenarios {
            if let Some(s) = &r.suggestion {
                self.result(&format!(
                    "\n  {} — suggestion by {}:\n    why: {}\n    fix: {}",
                    r.scenario_id, s.by, s.summary, s.fix
                ));
            }
        }
        if let Some(d) = &report.debrief {
            self.result(&format!("\n{}", debrief_text(d)));
        }
        let t = &report.totals;
        self.result(&format!(
            "\n{} passed{}, {} failed, {} skipped in {}.{:02}s · {} · {} · {}",
            t.passed,
            match (t.flaky, t.healed) {
                (0, 0) => String::new(),
                (f, 0) => format!(" ({f} flaky)"),
                (0, h) => format!(" ({h} healed)"),
                (f, h) => format!(" ({f} flaky, {h} healed)"),
            },
            t.failed,
            t.skipped,
            t.duration_ms / 1000,
            t.duration_ms % 1000 / 10,
            counted(u64::from(t.llm_calls), "LLM call"),
            usd(t.cost_micro_usd),
            counted(u64::from(t.cache_hits), "cache hit")
        ));
    }

    fn finished(&self, result: &ScenarioResult) {
        if let Some(bar) = self.bar.lock().expect("terminal lock").as_ref() {
            bar.inc(1);
            if result.status == ScenarioStatus::Failed {
                bar.set_message(format!("last failure: {}", result.scenario_id));
            }
        }
        match result.status {
            ScenarioStatus::Passed if self.verbosity != Verbosity::Quiet => {
                self.result(&format!(
                    "  {}  {} ({} ms, {}{}){}",
                    if result.flaky {
                        "FLKY"
                    } else if result.heal.is_some() {
                        "HEAL"
                    } else {
                        "PASS"
                    },
                    result.scenario_id,
                    result.duration_ms,
                    cache_word(result.cache),
                    spend(result),
                    if result.flaky || result.heal.is_some() {
                        format!(": {}", result.message.as_deref().unwrap_or(""))
                    } else {
                        String::new()
                    }
                ));
            }
            ScenarioStatus::Failed => {
                let Some(reason) = windup_model::reason::reason(result) else {
                    return;
                };
                // The one reason line first, then the evidence, the triage's deciding fact
                // and the advice: the message is never repeated.
                let mut text = format!(
                    "  FAIL  {} ({} ms, {}{}): {}",
                    result.scenario_id,
                    result.duration_ms,
                    cache_word(result.cache),
                    spend(result),
                    reason.line()
                );
                for e in &reason.evidence {
                    text.push_str(&format!("\n        {e}"));
                }
                if let Some(t) = &reason.triage {
                    text.push_str(&format!("\n        triage: {t}"));
                }
                if let Some(a) = &reason.advice {
                    text.push_str(&format!("\n        advice: {a}"));
                }
                if let Some(p) = &result.proposal {
                    text.push_str(&format!(
                        "\n        proposal: {} ({}, {}): `windup accept {}` adopts it",
                        p.file,
                        p.source.as_str(),
                        p.diff.headline(),
                        result.scenario_id
                    ));
                    for line in p.diff.lines() {
                        text.push_str(&format!("\n          {line}"));
                    }
                }
                self.result(&text);
            }
            ScenarioStatus::Skipped if self.verbosity != Verbosity::Quiet => {
                self.result(&format!("  SKIP  {}", result.scenario_id));
            }
            _ => {}
        }
    }
}

fn cache_word(c: CacheOutcome) -> &'static str {
    match c {
        CacheOutcome::Hit => "cache hit",
        CacheOutcome::HitChangedPage => "cache hit, page changed",
        CacheOutcome::Miss => "cache miss",
        CacheOutcome::StaleReplanned => "re-planned",
        CacheOutcome::Healed => "healed, no LLM",
        CacheOutcome::None => "no cache",
    }
}

pub(crate) use windup_model::money::usd;

fn spend(result: &ScenarioResult) -> String {
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
        match event {
            Event::RunStarted { scenarios } if self.live => {
                let bar = ProgressBar::with_draw_target(
                    Some(*scenarios as u64),
                    ProgressDrawTarget::stderr(),
                );
                bar.set_style(
                    ProgressStyle::with_template(
                        "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} scenarios {msg}",
                    )
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                bar.enable_steady_tick(Duration::from_millis(120));
                *self.bar.lock().expect("terminal lock") = Some(bar);
            }
            Event::Planning {
                scenario_id,
                purpose,
            } if self.verbosity != Verbosity::Quiet => {
                let what = match purpose {
                    Purpose::Repair { .. } => "re-planning from where the replay failed",
                    Purpose::Continue { .. } => "continuing the plan on a new page",
                    Purpose::Correct { .. } => "correcting a step that missed its page",
                    Purpose::Restart { .. } => {
                        "starting again: the last steps covered what the task still needs"
                    }
                    Purpose::Finish { .. } => "planning what the task says that no step shows yet",
                    Purpose::Plan => "planning",
                    Purpose::Prove => "choosing the facts that prove the task",
                };
                self.line(&format!("  ....  {scenario_id}: {what}"));
            }
            Event::Proved { scenario_id, notes } if self.verbosity != Verbosity::Quiet => {
                let dropped = notes.iter().filter(|n| n.ends_with("dropped")).count();
                self.line(&format!(
                    "  ....  {scenario_id}: proven with no LLM ({} decisions, {dropped} dropped{})",
                    notes.len(),
                    if self.verbosity == Verbosity::Verbose {
                        ""
                    } else {
                        "; -v lists them"
                    }
                ));
                if self.verbosity == Verbosity::Verbose {
                    for n in notes {
                        self.line(&format!("          {n}"));
                    }
                }
            }
            Event::ActionFinished {
                scenario_id,
                result,
            } if self.verbosity == Verbosity::Verbose => {
                let mark = match result.status {
                    ActionStatus::Passed => "ok",
                    ActionStatus::Failed => "FAILED",
                    ActionStatus::Skipped => "skipped",
                };
                self.line(&format!(
                    "        {scenario_id} {} {} {mark} ({} ms: wait {}, act {}, verify {})",
                    result.id,
                    result.step.as_deref().unwrap_or(result.kind.as_str()),
                    result.duration_ms,
                    result.wait_ms,
                    result.act_ms,
                    result.verify_ms
                ));
            }
            Event::ScenarioFinished { result } => self.finished(result),
            _ => {}
        }
    }
}

/// The run debrief for the terminal: what the failures share, what to look at first, notes; or
/// why none was made.
fn debrief_text(d: &windup_model::Debrief) -> String {
    if let Some(why) = &d.not_made {
        return format!("debrief: not made: {why}");
    }
    let mut out = format!(
        "debrief by {} (advice; it changes no verdict):",
        d.by.as_deref().unwrap_or("the model")
    );
    if !d.shared_cause.is_empty() {
        out.push_str(&format!("\n  shared cause: {}", d.shared_cause));
    }
    if !d.look_first.is_empty() {
        out.push_str(&format!("\n  look first at: {}", d.look_first.join(", ")));
    }
    if !d.notes.is_empty() {
        out.push_str(&format!("\n  notes: {}", d.notes));
    }
    out
}

/// `1 cache hit`, `3 cache hits`.
fn counted(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}
