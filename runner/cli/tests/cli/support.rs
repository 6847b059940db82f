//! Helpers shared by the CLI tests: run the binary, copy the bundled example project, serve
//! its app, read reports, and point a project at a fake provider or a dashboard.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use windup_testkit::{Server, repo_root};

pub(crate) fn windup(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(dir)
        .args(args)
        .env_remove("WINDUP_BASE_URL")
        .env("ACME_ADMIN_EMAIL", "admin@acme.test")
        .env("ACME_ADMIN_PASSWORD", "correct horse battery staple")
        .output()
        .expect("run windup")
}

/// Progress, logs and errors.
pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// A run's results: a line per scenario, the summary, where the HTML report is.
pub(crate) fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// Everything the process printed, on both streams (to prove a value is in neither).
pub(crate) fn printed(o: &Output) -> String {
    format!("{}{}", stdout(o), stderr(o))
}

pub(crate) fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A private copy of the bundled example project (scenarios, plans, app).
pub(crate) fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_root().join("examples/acme"), dir.path());
    dir
}

/// Every file under `dir` with its content, to prove nothing changed.
pub(crate) fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(p.clone(), std::fs::read(&p).unwrap());
            }
        }
    }
    out
}

/// Serves a project's `app/` folder on loopback; returns the server and its base URL.
pub(crate) fn serve(project: &Path) -> (Server, String) {
    let server = Server::start(&project.join("app"));
    let base = server.base.to_string();
    (server, base)
}

/// Runs `windup ARGS --base-url BASE --report json=REPORT` in `dir`, checks the exit code and
/// returns the report.
pub(crate) fn run_reported(
    dir: &Path,
    args: &[&str],
    base: &str,
    report_name: &str,
    code: i32,
) -> Value {
    let mut all = args.to_vec();
    let spec = format!("json={report_name}");
    all.extend(["--base-url", base, "--report", &spec]);
    let out = windup(dir, &all);
    assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
    report(&dir.join(report_name))
}

/// Runs one scenario against `base` with a JSON and a JUnit report (`r.json`, `r.xml`); returns
/// the exit code, the scenario's result, the JUnit text and the results the terminal printed
/// (stdout).
pub(crate) fn run_one(root: &Path, id: &str, base: &str) -> (i32, Value, String, String) {
    let out = windup(
        root,
        &[
            "run",
            id,
            "--base-url",
            base,
            "--report",
            "json=r.json",
            "--report",
            "junit=r.xml",
        ],
    );
    let r = report(&root.join("r.json"));
    let junit = std::fs::read_to_string(root.join("r.xml")).unwrap();
    (
        out.status.code().unwrap_or(-1),
        r["scenarios"][0].clone(),
        junit,
        stdout(&out),
    )
}

pub(crate) fn report(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Adds a `[providers.fake]` (OpenAI wire format) served by `llm` to the project's windup.toml.
pub(crate) fn with_fake_provider(dir: &Path, llm: &windup_testkit::fake_llm::FakeLlm) {
    let toml = dir.join("windup.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str(&format!(
        "\n[providers.fake]\nkind = \"openai\"\nmodel = \"gpt-4.1-mini\"\nbase_url = \"{}\"\n",
        llm.openai_base_url()
    ));
    std::fs::write(&toml, text).unwrap();
}

/// Adds `[dashboard]` pointing at `url` (one retry, to keep outages quick).
pub(crate) fn with_dashboard(dir: &Path, url: &str) {
    let toml = dir.join("windup.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str(&format!(
        "\n[dashboard]\nurl = \"{url}\"\nmax_retries = 1\n"
    ));
    std::fs::write(&toml, text).unwrap();
}

/// The dashboard token the dashboard tests use; it must show up nowhere.
pub(crate) const DASH_TOKEN: &str = "wd-canary-token-31d7";

/// `windup ARGS` with the dashboard token set, debug logs on and no GitHub context but `env`.
pub(crate) fn windup_dash(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    windup_dash_token(dir, args, env, DASH_TOKEN)
}

/// [`windup_dash`] with another token.
pub(crate) fn windup_dash_token(
    dir: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    token: &str,
) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_windup"));
    cmd.current_dir(dir)
        .args(args)
        .env_remove("WINDUP_BASE_URL")
        .env_remove("WINDUP_DASHBOARD_URL")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_REPOSITORY")
        .env_remove("GITHUB_HEAD_REF")
        .env_remove("GITHUB_REF_NAME")
        .env("WINDUP_DASHBOARD_TOKEN", token)
        .env("WINDUP_LOG", "debug")
        .env("ACME_ADMIN_EMAIL", "admin@acme.test")
        .env("ACME_ADMIN_PASSWORD", "correct horse battery staple");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run windup")
}

/// The committed entry of a scenario, as JSON.
pub(crate) fn committed(dir: &Path, id: &str) -> Value {
    let path = dir.join(format!("e2e/.windup/cache/{id}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// What a model answers to plan the example's sign-in, by the refs the prompt lists (the email
/// field labelled `email_label`), then the closing call's pick of the fact that proves it.
pub(crate) fn sign_in_answers(email_label: &str) -> [windup_testkit::fake_llm::Reply; 2] {
    use windup_testkit::fake_llm::Reply;
    [
        Reply::Grounded(serde_json::json!({"actions": [
            {"type": "fill", "target": {"ref": format!("@textbox {email_label:?}")}, "value_ref": "ACME_ADMIN_EMAIL"},
            {"type": "fill", "target": {"ref": "@textbox \"Password\""}, "value_ref": "ACME_ADMIN_PASSWORD"},
            {"type": "click", "target": {"ref": "@button \"Sign in\""}}
        ], "complete": true})),
        Reply::Grounded(serde_json::json!({"proofs": ["#url: /projects.html"]})),
    ]
}

/// Writes `plan` (a plan file's JSON) into `root`'s cache as a verified entry, keyed to the
/// current text of its scenario `e2e/scenarios/<id>.yaml`, as a committed plan would be.
pub(crate) fn cache_plan(root: &Path, plan: serde_json::Value) {
    let id = plan["scenario_id"].as_str().unwrap().to_string();
    let scenario = windup_model::validate::scenario_from_yaml(
        "scenario",
        &std::fs::read_to_string(root.join(format!("e2e/scenarios/{id}.yaml"))).unwrap(),
        Some(&id),
    )
    .unwrap();
    let entry = serde_json::json!({
        "cache_version": "0.2",
        "key": {"scenario_id": id, "start_url": scenario.start_url, "scenario_sha": scenario.sha()},
        "plan": plan,
        "status": "active",
        "stats": {"created_at": "2026-12-01T00:00:00Z", "last_verified_at": "2026-12-01T00:00:00Z",
                  "verified_runs": 1, "last_duration_ms": 1},
    });
    let cache = root.join("e2e/.windup/cache");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(cache.join(format!("{id}.json")), entry.to_string()).unwrap();
}

/// What Playwright saw when a spec under `out` failed, for an assertion's message: from each
/// failure's `error-context.md` (the page's accessibility snapshot at the failure), every
/// dialog and alert with its contents, or the snapshot's last lines when it holds none. The
/// project is temporary, and CI keeps only the start and the end of a long failure, so this is
/// kept short: without it a failure in CI leaves only the error's first line.
pub(crate) fn playwright_failures(out: &Path) -> String {
    let mut seen = String::new();
    for entry in walkdir(&out.join("test-results")) {
        if entry.file_name().is_some_and(|n| n == "error-context.md") {
            let text = std::fs::read_to_string(&entry).unwrap_or_default();
            seen.push_str(&format!("\n--- {}\n", entry.display()));
            seen.push_str(&snapshot_dialogs(&text));
        }
    }
    seen
}

/// The subtrees of a Playwright aria snapshot (`- role "name" [ref=…]:` lines, nested by
/// indent) whose role is `dialog`, `alertdialog` or `alert`; the last 30 lines when none is.
fn snapshot_dialogs(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let indent = |l: &str| l.len() - l.trim_start().len();
    let mut kept = String::new();
    let mut i = 0;
    while i < lines.len() {
        let role = lines[i].trim_start().trim_start_matches("- ");
        if ["dialog", "alertdialog", "alert"]
            .iter()
            .any(|r| role.starts_with(&format!("{r} ")) || role.starts_with(&format!("{r}:")))
        {
            let depth = indent(lines[i]);
            kept.push_str(lines[i]);
            kept.push('\n');
            i += 1;
            while i < lines.len() && indent(lines[i]) > depth {
                kept.push_str(lines[i]);
                kept.push('\n');
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    if kept.is_empty() {
        let from = lines.len().saturating_sub(30);
        kept = lines[from..].join("\n");
    }
    kept
}

/// With `WINDUP_KEEP_EXPORTS=DIR`, a project's exported specs and cached plans are copied to
/// `DIR/<name>` for a person to read or measure (the tests' projects are temporary).
pub(crate) fn keep_exports(root: &Path, name: &str) {
    let Some(keep) = std::env::var_os("WINDUP_KEEP_EXPORTS") else {
        return;
    };
    let to = Path::new(&keep).join(name);
    let _ = std::fs::remove_dir_all(&to);
    for entry in walkdir(root) {
        let rel = entry.strip_prefix(root).unwrap();
        let s = rel.to_string_lossy();
        let wanted = s.ends_with(".ts") && !s.contains("node_modules")
            || s.starts_with("e2e/")
            || s == "windup.toml";
        if wanted {
            let dest = to.join(rel);
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::copy(&entry, dest).unwrap();
        }
    }
}

/// Every file under `dir`, not following links.
fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            out.extend(walkdir(&path));
        } else if kind.is_file() {
            out.push(path);
        }
    }
    out
}
