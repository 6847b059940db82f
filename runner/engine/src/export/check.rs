//! `--check`: the exported specs run with the `@playwright/test` installed beside them (in a
//! `node_modules` of the output folder or of a folder above it), the outcome reported per
//! spec from Playwright's JSON report, and what probing specs found (`resolve`) read back.
//! Nothing is installed or downloaded here.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use super::resolve::{Evidence, PROBE_ENV};

/// One exported spec's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecOutcome {
    /// The spec file.
    pub file: PathBuf,
    /// Whether every test in it passed (false when Playwright did not run it).
    pub passed: bool,
    /// The first error Playwright reported for it, or why it did not run.
    pub message: Option<String>,
}

/// Why the specs could not be run at all.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// No `node_modules/@playwright/test` in the output folder or above it.
    #[error(
        "@playwright/test is not installed in {0} or a folder above it; install it there (`npm install --save-dev @playwright/test`, with PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 to use your own Chromium)"
    )]
    NotInstalled(String),
    /// Node or Playwright failed before reporting.
    #[error("playwright test could not run: {0}")]
    Run(String),
}

/// What a check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checked {
    /// Each spec's outcome, in the order asked.
    pub outcomes: Vec<SpecOutcome>,
    /// What the specs that passed found while probing (nothing for specs that do not probe).
    pub evidence: Evidence,
}

/// Runs every spec in `out` with its `playwright.config.ts` and reports on each of `specs`.
pub fn check(out: &Path, specs: &[PathBuf]) -> Result<Checked, CheckError> {
    let out = std::path::absolute(out).map_err(|e| CheckError::Run(e.to_string()))?;
    let cli = find_cli(&out).ok_or_else(|| CheckError::NotInstalled(out.display().to_string()))?;
    let report = tempfile::Builder::new()
        .prefix("windup-playwright-")
        .suffix(".json")
        .tempfile()
        .map_err(|e| CheckError::Run(format!("no temporary file: {e}")))?;
    let findings = tempfile::Builder::new()
        .prefix("windup-probe-")
        .suffix(".jsonl")
        .tempfile()
        .map_err(|e| CheckError::Run(format!("no temporary file: {e}")))?;
    // Playwright's own progress goes to the terminal; the JSON report to the file.
    let status = Command::new("node")
        .arg(&cli)
        .args(["test", "--config"])
        .arg(out.join("playwright.config.ts"))
        .arg("--reporter=list,json")
        .env("PLAYWRIGHT_JSON_OUTPUT_NAME", report.path())
        .env(PROBE_ENV, findings.path())
        .current_dir(&out)
        .status()
        .map_err(|e| CheckError::Run(format!("cannot start node: {e}")))?;
    let text = std::fs::read_to_string(report.path()).unwrap_or_default();
    let json: Value = serde_json::from_str(&text).map_err(|_| {
        CheckError::Run(format!(
            "it exited with {status} and wrote no JSON report; its output above says why"
        ))
    })?;
    let outcomes = outcomes(&json, &out, specs);
    let passed: Vec<String> = outcomes
        .iter()
        .filter(|o| o.passed)
        .filter_map(|o| scenario_id(&o.file))
        .collect();
    let found = std::fs::read_to_string(findings.path()).unwrap_or_default();
    Ok(Checked {
        evidence: Evidence::read(&found, &passed),
        outcomes,
    })
}

/// The scenario a spec file was exported from: `<id>.spec.ts` or `<id>.setup.ts`.
fn scenario_id(file: &Path) -> Option<String> {
    let name = file.file_name()?.to_str()?;
    name.strip_suffix(".spec.ts")
        .or_else(|| name.strip_suffix(".setup.ts"))
        .map(str::to_string)
}

/// `node_modules/@playwright/test/cli.js` in `dir` or the nearest folder above with one.
fn find_cli(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .map(|d| d.join("node_modules/@playwright/test/cli.js"))
        .find(|p| p.is_file())
}

/// Each spec's outcome from the JSON report: top-level suites are files (relative to the
/// config's folder), their specs nested below.
fn outcomes(report: &Value, out: &Path, specs: &[PathBuf]) -> Vec<SpecOutcome> {
    let suites = report["suites"].as_array().cloned().unwrap_or_default();
    specs
        .iter()
        .map(|file| {
            let absolute = std::path::absolute(file).unwrap_or_else(|_| file.clone());
            let name = absolute
                .strip_prefix(out)
                .unwrap_or(&absolute)
                .to_string_lossy()
                .to_string();
            let mine: Vec<&Value> = suites
                .iter()
                .filter(|s| s["file"] == name.as_str())
                .collect();
            let mut tests = Vec::new();
            for s in &mine {
                collect_specs(s, &mut tests);
            }
            if tests.is_empty() {
                return SpecOutcome {
                    file: file.clone(),
                    passed: false,
                    message: Some(
                        "Playwright ran no test from it (does the config's testMatch take it?)"
                            .into(),
                    ),
                };
            }
            let failed = tests.iter().find(|t| t["ok"] != true);
            SpecOutcome {
                file: file.clone(),
                passed: failed.is_none(),
                message: failed.map(|t| first_error(t).unwrap_or_else(|| "failed".into())),
            }
        })
        .collect()
}

fn collect_specs<'a>(suite: &'a Value, out: &mut Vec<&'a Value>) {
    if let Some(specs) = suite["specs"].as_array() {
        out.extend(specs.iter());
    }
    if let Some(suites) = suite["suites"].as_array() {
        for s in suites {
            collect_specs(s, out);
        }
    }
}

/// The first line of the first error of a spec's tests.
fn first_error(spec: &Value) -> Option<String> {
    spec["tests"]
        .as_array()?
        .iter()
        .flat_map(|t| t["results"].as_array().cloned().unwrap_or_default())
        .find_map(|r| r["error"]["message"].as_str().map(str::to_string))
        .map(|m| strip_ansi(m.lines().next().unwrap_or_default()))
}

/// Playwright colours its messages even in a report file.
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_each_specs_outcome_from_the_json_report() {
        let report = serde_json::json!({
            "suites": [
                {"file": "a.spec.ts", "specs": [{"ok": true, "tests": []}]},
                {"file": "b.spec.ts", "suites": [{"specs": [{"ok": false, "tests": [
                    {"results": [{"error": {"message": "\u{1b}[31mError: expect(locator).toHaveCount(1) failed\u{1b}[39m\nmore"}}]}
                ]}]}]},
            ]
        });
        let out = Path::new("/x");
        let got = outcomes(
            &report,
            out,
            &[
                out.join("a.spec.ts"),
                out.join("b.spec.ts"),
                out.join("c.spec.ts"),
            ],
        );
        assert!(got[0].passed);
        assert!(!got[1].passed);
        assert_eq!(
            got[1].message.as_deref(),
            Some("Error: expect(locator).toHaveCount(1) failed")
        );
        assert!(!got[2].passed);
        assert!(got[2].message.as_deref().unwrap().contains("ran no test"));
    }
}
