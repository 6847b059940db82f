//! The run report as JUnit XML for CI test-report tools: one `<testsuite name="windup">`, one
//! `<testcase>` per scenario. A failure's `message` is `CLASS at ACTION: MESSAGE` (what those
//! tools show in their list) and its text holds the failing step, the URL and the target
//! diagnosis; a flaky scenario is a passed testcase with a `<flakyFailure>` per failed attempt.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use quick_junit::{
    NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestRerun, TestSuite,
};
use windup_model::{RunReport, ScenarioResult, ScenarioStatus};

use super::usd;

/// Writes the JUnit XML of the run to `path`, atomically; each testcase names its scenario
/// file under the project root `root`.
pub fn write_report(path: &Path, report: &RunReport, root: &Path) -> std::io::Result<()> {
    crate::fsutil::write_atomic(path, render(report, Some(root))?.as_bytes())
}

/// The XML text (quick-junit escapes every value). With the project root, each testcase has a
/// `file` attribute, as GitHub's and GitLab's test reporters and IDEs read it: its scenario
/// file, relative to the working directory when it is under it (a CI job's checkout).
pub fn render(report: &RunReport, root: Option<&Path>) -> std::io::Result<String> {
    let mut junit = Report::new("windup");
    let started = timestamp(report.started_at);
    junit
        .set_timestamp(started)
        .set_time(Duration::from_millis(report.totals.duration_ms));

    let mut suite = TestSuite::new("windup");
    suite
        .set_timestamp(started)
        .set_time(Duration::from_millis(report.totals.duration_ms));
    let t = &report.totals;
    let mut props = vec![
        Property::new("run_id", report.run_id.as_str()),
        Property::new("windup_version", report.windup_version.as_str()),
    ];
    if let Some(base_url) = &report.base_url {
        props.push(Property::new("base_url", base_url.as_str()));
    }
    if let Some(git) = &report.git {
        props.push(Property::new("git_commit", git.commit.as_str()));
        if let Some(branch) = &git.branch {
            props.push(Property::new("git_branch", branch.as_str()));
        }
    }
    if let Some(ci) = &report.ci {
        props.push(Property::new("ci_provider", ci.provider.as_str()));
    }
    props.extend([
        Property::new("flaky", t.flaky.to_string()),
        Property::new("healed", t.healed.to_string()),
        Property::new("llm_calls", t.llm_calls.to_string()),
        Property::new("cost_usd", usd(t.cost_micro_usd)),
        Property::new("cost_micro_usd", t.cost_micro_usd.to_string()),
        Property::new("cache_hits", t.cache_hits.to_string()),
    ]);
    suite.add_properties(props);
    suite.add_test_cases(report.scenarios.iter().map(|s| {
        let mut case = test_case(s);
        if let Some(file) = root.and_then(|root| scenario_file(root, &s.scenario_id)) {
            case.extra.insert("file".into(), file.into());
        }
        case
    }));
    junit.add_test_suite(suite);
    junit.to_string().map_err(std::io::Error::other)
}

fn test_case(s: &ScenarioResult) -> TestCase {
    let status = match s.status {
        ScenarioStatus::Passed if s.flaky => {
            // Only the last failure's details are kept in the report; earlier failed attempts
            // are counted.
            let failed = s.attempts.saturating_sub(1).max(1);
            let runs = (0..failed).map(|_| {
                let mut rerun = TestRerun::new(NonSuccessKind::Failure);
                rerun.set_message(s.message.as_deref().map_or_else(
                    || "failed, then passed on a retry".to_string(),
                    |m| headline(s, m),
                ));
                if let Some(class) = s.failure_class {
                    rerun.set_type(class.as_str());
                }
                rerun.set_description(format!(
                    "failed, then passed on attempt {} of this run",
                    s.attempts
                ));
                rerun
            });
            TestCaseStatus::Success {
                flaky_runs: runs.collect(),
            }
        }
        ScenarioStatus::Passed => match &s.heal {
            // Healed: passed, flagged as flaky is, with the failed replay and the step diff.
            Some(heal) => {
                let mut rerun = TestRerun::new(NonSuccessKind::Failure);
                rerun
                    .set_type("selector_not_found")
                    .set_message(format!(
                        "healed without an LLM at {}: {}",
                        heal.action_id,
                        heal.describe()
                    ))
                    .set_description(s.message.as_deref().unwrap_or("healed"));
                TestCaseStatus::Success {
                    flaky_runs: vec![rerun],
                }
            }
            None => TestCaseStatus::success(),
        },
        ScenarioStatus::Failed => {
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status
                .set_message(headline(s, s.message.as_deref().unwrap_or("failed")))
                .set_description(failure_text(s));
            if let Some(class) = s.failure_class {
                status.set_type(class.as_str());
            }
            status
        }
        ScenarioStatus::Skipped => {
            let mut status = TestCaseStatus::skipped();
            status.set_message(s.message.as_deref().unwrap_or("skipped"));
            status
        }
    };
    let mut case = TestCase::new(s.scenario_id.as_str(), status);
    case.set_classname("windup")
        .set_time(Duration::from_millis(s.duration_ms));
    let mut props = vec![
        Property::new("cache", cache_word(s)),
        Property::new("llm_calls", s.llm_calls.to_string()),
        Property::new("cost_usd", usd(s.cost_micro_usd)),
        Property::new("attempts", s.attempts.to_string()),
    ];
    if s.flaky {
        props.push(Property::new("flaky", "true"));
    }
    if let Some(heal) = &s.heal {
        props.push(Property::new("healed", heal.describe()));
    }
    if let Some(p) = &s.proposal {
        props.push(Property::new("proposal", p.file.as_str()));
    }
    case.add_properties(props);
    case.set_system_out(system_out(s));
    case
}

/// The scenario's file (`e2e/scenarios/ID.yaml` or `.yml` under `root`), relative to the working
/// directory when it is under it; none when it is not there (a plan replayed on its own).
fn scenario_file(root: &Path, id: &str) -> Option<String> {
    let dir = root.join(crate::project::Layout::SCENARIOS_DIR);
    let path = ["yaml", "yml"]
        .iter()
        .map(|ext| dir.join(format!("{id}.{ext}")))
        .find(|p| p.is_file())?;
    let path = match std::env::current_dir() {
        Ok(cwd) if path.is_absolute() => path.strip_prefix(&cwd).unwrap_or(&path).to_path_buf(),
        _ => path,
    };
    let shown: PathBuf = path
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .collect();
    Some(shown.to_string_lossy().into_owned())
}

/// `CLASS at ACTION: MESSAGE`, the one line CI tools show.
fn headline(s: &ScenarioResult, message: &str) -> String {
    let class = s.failure_class.map_or("failed", |c| c.as_str());
    match &s.failed_action_id {
        Some(action) => format!("{class} at {action}: {message}"),
        None => format!("{class}: {message}"),
    }
}

fn failure_text(s: &ScenarioResult) -> String {
    let mut lines = Vec::new();
    if let Some(action) = s
        .failed_action_id
        .as_ref()
        .and_then(|id| s.actions.iter().find(|a| &a.id == id))
    {
        let step = action
            .step
            .clone()
            .unwrap_or_else(|| action.kind.as_str().to_string());
        lines.push(format!("step {}: {step}", action.id));
        if let Some(error) = &action.error {
            lines.push(format!("error: {error}"));
        }
    }
    if let Some(message) = &s.message {
        lines.push(format!("message: {message}"));
    }
    if let Some(t) = &s.triage {
        lines.push(format!(
            "triage: {}: {}",
            t.verdict.as_str(),
            t.facts_line()
        ));
    }
    if let Some(p) = &s.proposal {
        lines.push(format!(
            "proposal: {} ({}, {}); adopt it with `windup accept {}`",
            p.file,
            p.source.as_str(),
            p.diff.headline(),
            s.scenario_id
        ));
        lines.extend(p.diff.lines().into_iter().map(|l| format!("  {l}")));
    }
    let evidence = s.evidence.as_ref();
    if let Some(url) = evidence
        .and_then(|e| e.url.as_ref())
        .or(s.final_url.as_ref())
    {
        lines.push(format!("url: {url}"));
    }
    if let Some(e) = evidence {
        if let Some(target) = &e.target {
            lines.push(format!("target: {target}"));
        }
        if let Some(shot) = &e.screenshot {
            lines.push(format!("screenshot: {shot}"));
        }
        if !e.console_errors.is_empty() {
            lines.push("console errors:".into());
            lines.extend(e.console_errors.iter().map(|c| format!("  {c}")));
        }
        if !e.failed_requests.is_empty() {
            lines.push("failed requests:".into());
            lines.extend(e.failed_requests.iter().map(|r| format!("  {r}")));
        }
    }
    lines.join("\n")
}

/// The task, where the plan came from and what it cost, then the steps with their status.
fn system_out(s: &ScenarioResult) -> String {
    let mut lines = Vec::new();
    if let Some(task) = &s.task {
        lines.push(format!("task: {task}"));
    }
    lines.push(format!(
        "cache: {} · {} LLM call{} · {}",
        cache_word(s),
        s.llm_calls,
        if s.llm_calls == 1 { "" } else { "s" },
        usd(s.cost_micro_usd)
    ));
    if s.flaky {
        lines.push(format!(
            "flaky: failed, then passed on attempt {} of this run",
            s.attempts
        ));
    }
    if let Some(heal) = &s.heal {
        lines.push(format!("healed without an LLM: {}", heal.describe()));
    }
    for a in &s.actions {
        let step = a.step.as_deref().unwrap_or(a.kind.as_str());
        let status = match a.status {
            windup_model::ActionStatus::Passed => "ok  ",
            windup_model::ActionStatus::Failed => "FAIL",
            windup_model::ActionStatus::Skipped => "skip",
        };
        lines.push(format!("{status} {} {step} ({} ms)", a.id, a.duration_ms));
    }
    lines.join("\n")
}

fn cache_word(s: &ScenarioResult) -> &'static str {
    s.cache.as_str()
}

fn timestamp(at: time::OffsetDateTime) -> chrono::DateTime<chrono::FixedOffset> {
    let offset = chrono::FixedOffset::east_opt(at.offset().whole_seconds())
        .unwrap_or(chrono::FixedOffset::east_opt(0).expect("zero offset"));
    chrono::DateTime::from_timestamp(at.unix_timestamp(), at.nanosecond())
        .unwrap_or_default()
        .with_timezone(&offset)
}
