//! The run report as ONE self-contained HTML page for people: inline CSS, no script, no network
//! (a Content-Security-Policy forbids any), screenshots and trace frames inlined as `data:` URIs. Every value from
//! the report is escaped by askama (the report holds page text: a hostile page must not be able
//! to inject markup), and URLs are shown as text, never as links.

use std::path::Path;

use askama::Template;
use time::format_description::well_known::Rfc3339;
use windup_model::{
    ActionResult, ActionStatus, CacheOutcome, RunReport, ScenarioResult, ScenarioStatus,
};

use super::inline::{NotInlined, inline_image};
use super::{duration, usd};

/// A screenshot bigger than this is left out, so that one odd file cannot make the page slow.
const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// Writes the page atomically. `root` is the project root: screenshot paths are relative to it.
pub fn write_report(path: &Path, report: &RunReport, root: &Path) -> std::io::Result<()> {
    crate::fsutil::write_atomic(path, render(report, root)?.as_bytes())
}

/// The page's text.
pub fn render(report: &RunReport, root: &Path) -> std::io::Result<String> {
    Page::new(report, root)
        .render()
        .map_err(std::io::Error::other)
}

#[derive(Template)]
#[template(path = "report.html", whitespace = "minimize")]
struct Page<'a> {
    title: String,
    verdict: &'static str,
    counts: Vec<Count>,
    meta: Vec<(&'static str, String)>,
    /// The run debrief (`--debrief`), when the run has one.
    debrief: Option<&'a windup_model::Debrief>,
    scenarios: Vec<ScenarioView<'a>>,
}

struct Count {
    label: &'static str,
    value: String,
    /// A CSS class: `failed` or `flaky` when non-zero, to draw the eye.
    class: &'static str,
}

struct ScenarioView<'a> {
    id: &'a str,
    task: Option<&'a str>,
    /// `failed`, `flaky`, `passed` or `skipped`: CSS class and label.
    state: &'static str,
    open: bool,
    headline: Option<String>,
    cache: &'static str,
    llm_calls: u32,
    cost: String,
    duration: String,
    attempts: u32,
    final_url: Option<&'a str>,
    failure: Option<FailureView<'a>>,
    /// A passing scenario's last page (`screenshots = "on"`): a `data:` URI, or why not shown.
    screenshot: Option<Result<String, NotInlined>>,
    actions: Vec<ActionView<'a>>,
    /// The trace (`--trace`), as a filmstrip.
    frames: Vec<super::filmstrip::FrameView<'a>>,
}

/// What the page looked like at the failure (the message is the scenario's headline).
struct FailureView<'a> {
    url: Option<&'a str>,
    target: Option<&'a str>,
    /// A `data:image/png;base64,` URI.
    screenshot: Option<String>,
    /// Why a screenshot named in the report is not shown.
    screenshot_note: Option<String>,
    console_errors: &'a [String],
    failed_requests: &'a [String],
    snapshot: Option<&'a str>,
    snapshot_lines: usize,
    /// `--suggest`'s advice: (by, summary, fix).
    suggestion: Option<(&'a str, &'a str, &'a str)>,
    /// The triage verdict and the facts that decided it.
    triage: Option<(&'static str, &'a [String])>,
    /// The plan proposed in place of a protected one.
    proposal: Option<ProposalView<'a>>,
}

/// A proposal: its file, how it was made, the diff's headline and lines.
struct ProposalView<'a> {
    file: &'a str,
    source: &'static str,
    headline: String,
    lines: Vec<String>,
}

struct ActionView<'a> {
    id: &'a str,
    step: String,
    fragment: Option<&'a str>,
    status: &'static str,
    duration: String,
    /// `wait 10 ms · act 5 ms · verify 40 ms`, the bar's tooltip.
    breakdown: String,
    /// The timeline's CSS variables: where the step starts (`--s`) and where its wait, act and
    /// verify phases end (`--w`, `--a`, `--v`), as percentages of the scenario's duration.
    bar: String,
    error: Option<&'a str>,
}

impl<'a> Page<'a> {
    fn new(report: &'a RunReport, root: &Path) -> Page<'a> {
        let t = &report.totals;
        let verdict = if t.failed > 0 { "failed" } else { "passed" };
        let mut counts = vec![
            count("passed", t.passed, ""),
            count("failed", t.failed, "failed"),
            count("flaky", t.flaky, "flaky"),
            count("healed", t.healed, "flaky"),
            count("skipped", t.skipped, ""),
            count("LLM calls", t.llm_calls, ""),
        ];
        counts.extend([
            Count {
                label: "cost",
                value: usd(t.cost_micro_usd),
                class: "",
            },
            count("cache hits", t.cache_hits, ""),
            Count {
                label: "duration",
                value: duration(t.duration_ms),
                class: "",
            },
        ]);

        let mut meta = vec![
            ("run", report.run_id.clone()),
            (
                "started",
                report.started_at.format(&Rfc3339).unwrap_or_default(),
            ),
            ("windup", report.windup_version.clone()),
        ];
        if let Some(base_url) = &report.base_url {
            meta.push(("base URL", base_url.clone()));
        }
        if let Some(git) = &report.git {
            let value = match &git.branch {
                Some(branch) => format!("{} ({branch})", git.commit),
                None => git.commit.clone(),
            };
            meta.push(("commit", value));
        }
        if let Some(ci) = &report.ci {
            let mut value = ci.provider.clone();
            for part in [&ci.workflow_run, &ci.job, &ci.shard].into_iter().flatten() {
                value.push_str(" · ");
                value.push_str(part);
            }
            meta.push(("CI", value));
        }

        let mut scenarios: Vec<ScenarioView> =
            report.scenarios.iter().map(|s| scenario(s, root)).collect();
        // Failures first, then flaky ones; otherwise the run's order (the sort is stable).
        scenarios.sort_by_key(|s| match s.state {
            "failed" => 0,
            "flaky" | "healed" => 1,
            _ => 2,
        });
        Page {
            title: format!(
                "Windup: {} passed, {} failed, {} skipped",
                t.passed, t.failed, t.skipped
            ),
            verdict,
            counts,
            meta,
            debrief: report.debrief.as_ref(),
            scenarios,
        }
    }
}

fn count(label: &'static str, value: u32, class_when_nonzero: &'static str) -> Count {
    Count {
        label,
        value: value.to_string(),
        class: if value > 0 { class_when_nonzero } else { "" },
    }
}

fn scenario<'a>(s: &'a ScenarioResult, root: &Path) -> ScenarioView<'a> {
    let state = match s.status {
        ScenarioStatus::Failed => "failed",
        ScenarioStatus::Passed if s.flaky => "flaky",
        ScenarioStatus::Passed if s.heal.is_some() => "healed",
        ScenarioStatus::Passed => "passed",
        ScenarioStatus::Skipped => "skipped",
    };
    let headline = match s.status {
        ScenarioStatus::Failed => {
            let class = s.failure_class.map_or("failed", |c| c.as_str());
            let at = s
                .failed_action_id
                .as_deref()
                .map(|a| format!(" at {a}"))
                .unwrap_or_default();
            let message = s.message.as_deref().map(|m| format!(": {m}"));
            Some(format!("{class}{at}{}", message.unwrap_or_default()))
        }
        ScenarioStatus::Passed if s.flaky => Some(format!(
            "failed, then passed on attempt {}{}",
            s.attempts,
            s.message
                .as_deref()
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        )),
        _ => s.message.clone(),
    };
    let failure = (s.status == ScenarioStatus::Failed).then(|| failure(s, root));
    // The timeline's full width is the scenario's duration (or the last step's end, if later).
    let scale = s
        .actions
        .iter()
        .map(|a| a.started_ms + a.duration_ms)
        .fold(s.duration_ms, u64::max)
        .max(1);
    ScenarioView {
        id: &s.scenario_id,
        task: s.task.as_deref(),
        state,
        open: s.status == ScenarioStatus::Failed,
        headline,
        cache: match s.cache {
            CacheOutcome::Hit => "cache hit",
            CacheOutcome::HitChangedPage => "cache hit, page changed",
            CacheOutcome::Miss => "cache miss",
            CacheOutcome::StaleReplanned => "stale, re-planned",
            CacheOutcome::Healed => "healed, no LLM",
            CacheOutcome::None => "no cache",
        },
        llm_calls: s.llm_calls,
        cost: usd(s.cost_micro_usd),
        duration: duration(s.duration_ms),
        attempts: s.attempts,
        final_url: s.final_url.as_deref(),
        failure,
        screenshot: s.screenshot.as_deref().map(|rel| inline_png(root, rel)),
        actions: s.actions.iter().map(|a| action(a, scale)).collect(),
        frames: super::filmstrip::frames(s, root),
    }
}

fn failure<'a>(s: &'a ScenarioResult, root: &Path) -> FailureView<'a> {
    let e = s.evidence.as_ref();
    let (screenshot, screenshot_note) = match e.and_then(|e| e.screenshot.as_deref()) {
        Some(rel) => match inline_png(root, rel) {
            Ok(uri) => (Some(uri), None),
            Err(note) => (None, Some(note.to_string())),
        },
        None => (None, None),
    };
    let snapshot = e.and_then(|e| e.snapshot.as_deref());
    FailureView {
        url: e.and_then(|e| e.url.as_deref()).or(s.final_url.as_deref()),
        target: e.and_then(|e| e.target.as_deref()),
        screenshot,
        screenshot_note,
        console_errors: e.map_or(&[], |e| &e.console_errors),
        failed_requests: e.map_or(&[], |e| &e.failed_requests),
        snapshot,
        snapshot_lines: snapshot.map_or(0, |t| t.lines().count()),
        suggestion: s
            .suggestion
            .as_ref()
            .map(|x| (x.by.as_str(), x.summary.as_str(), x.fix.as_str())),
        triage: s
            .triage
            .as_ref()
            .map(|t| (t.verdict.as_str(), t.facts.as_slice())),
        proposal: s.proposal.as_ref().map(|p| ProposalView {
            file: &p.file,
            source: p.source.as_str(),
            headline: p.diff.headline(),
            lines: p.diff.lines(),
        }),
    }
}

fn action(a: &ActionResult, scale: u64) -> ActionView<'_> {
    // Where the step starts and where its wait, act and verify phases end, for a CSS gradient:
    // one short `style` per step keeps a large report small.
    let wait_end = a.started_ms.saturating_add(a.wait_ms);
    let act_end = wait_end.saturating_add(a.act_ms);
    let verify_end = act_end.saturating_add(a.verify_ms);
    let bar = format!(
        "--s:{};--w:{};--a:{};--v:{}",
        percent(a.started_ms, scale),
        percent(wait_end, scale),
        percent(act_end, scale),
        percent(verify_end, scale)
    );
    ActionView {
        id: &a.id,
        step: a
            .step
            .clone()
            .unwrap_or_else(|| a.kind.as_str().to_string()),
        fragment: a.fragment.as_deref(),
        status: match a.status {
            ActionStatus::Passed => "passed",
            ActionStatus::Failed => "failed",
            ActionStatus::Skipped => "skipped",
        },
        duration: duration(a.duration_ms),
        breakdown: format!(
            "starts at {} · wait {} · act {} · verify {}",
            duration(a.started_ms),
            duration(a.wait_ms),
            duration(a.act_ms),
            duration(a.verify_ms)
        ),
        bar,
        error: a.error.as_deref(),
    }
}

/// `part` of `whole` as a CSS width with one decimal, rounded down so the bars never overflow.
fn percent(part: u64, whole: u64) -> String {
    let tenths = (u128::from(part) * 1000 / u128::from(whole.max(1))).min(1000);
    format!("{}.{}%", tenths / 10, tenths % 10)
}

/// The screenshot as a `data:` URI, or why it is not shown.
fn inline_png(root: &Path, rel: &str) -> Result<String, NotInlined> {
    inline_image(root, rel, "image/png", PNG_SIGNATURE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_are_integer_and_never_overflow() {
        assert_eq!(percent(0, 0), "0.0%");
        assert_eq!(percent(1, 3), "33.3%");
        assert_eq!(percent(2, 3), "66.6%");
        assert_eq!(percent(5, 4), "100.0%");
        assert_eq!(percent(u64::MAX, u64::MAX), "100.0%");
    }

    #[test]
    fn screenshots_outside_the_project_or_not_png_are_not_inlined() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.png"), b"not a png").unwrap();
        assert!(
            inline_png(dir.path(), "notes.png")
                .unwrap_err()
                .to_string()
                .contains("not a PNG")
        );
        assert!(
            inline_png(dir.path(), "../etc/passwd")
                .unwrap_err()
                .to_string()
                .contains("inside")
        );
        assert!(
            inline_png(dir.path(), "/etc/passwd")
                .unwrap_err()
                .to_string()
                .contains("inside")
        );
        assert!(
            inline_png(dir.path(), "gone.png")
                .unwrap_err()
                .to_string()
                .contains("cannot be read")
        );
    }
}
