//! The `windup` binary end to end: exit codes, messages, files on disk. Real Chromium, the
//! bundled example app served on loopback, a local fake LLM provider for planning.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;
use windup_testkit::{Server, repo_root};

fn windup(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(dir)
        .args(args)
        .env_remove("WINDUP_BASE_URL")
        .env("ACME_ADMIN_EMAIL", "admin@acme.test")
        .env("ACME_ADMIN_PASSWORD", "correct horse battery staple")
        .output()
        .expect("run windup")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

fn copy_dir(from: &Path, to: &Path) {
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
fn example() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_root().join("examples/acme"), dir.path());
    dir
}

/// Every file under `dir` with its content, to prove nothing changed.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
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
fn serve(project: &Path) -> (Server, String) {
    let server = Server::start(&project.join("app"));
    let base = server.base.to_string();
    (server, base)
}

/// Runs `windup ARGS --base-url BASE --report json=REPORT` in `dir`, checks the exit code and
/// returns the report.
fn run_reported(dir: &Path, args: &[&str], base: &str, report_name: &str, code: i32) -> Value {
    let mut all = args.to_vec();
    let spec = format!("json={report_name}");
    all.extend(["--base-url", base, "--report", &spec]);
    let out = windup(dir, &all);
    assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
    report(&dir.join(report_name))
}

fn report(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn bad_input_exits_2_naming_file_field_and_fix_and_changes_nothing() {
    let cases: &[(&str, &str, &str, &str)] = &[
        // (file to break, replace this, with this, expected in stderr)
        (
            "e2e/scenarios/sign-in.yaml",
            "id: sign-in",
            "id: sign-in\ntask: [unclosed",
            "e2e/scenarios/sign-in.yaml: (file): not valid YAML",
        ),
        (
            "e2e/scenarios/sign-in.yaml",
            "id: sign-in",
            "id: sign-in\nowner: qa",
            "e2e/scenarios/sign-in.yaml: owner: unknown field `owner`",
        ),
        (
            "e2e/.windup/cache/sign-in.json",
            "\"plan_version\"",
            ",,\"plan_version\"",
            "e2e/.windup/cache/sign-in.json: (file): not valid JSON",
        ),
        (
            "e2e/.windup/cache/sign-in.json",
            "\"type\": \"click\"",
            "\"type\": \"tap\"",
            "e2e/.windup/cache/sign-in.json: plan.actions[2].type: \"tap\" is not an accepted value",
        ),
        (
            "e2e/.windup/cache/sign-in.json",
            "\"value_ref\": \"ACME_ADMIN_EMAIL\"",
            "\"value_ref\": \"ACME_ADMIN_EMAIL\", \"value\": \"x\"",
            "plan.actions[0].value: `fill` has both `value` and `value_ref`",
        ),
        (
            "e2e/.windup/cache/sign-in.json",
            "role=button[name=\\\"Sign in\\\"]",
            "role=button[name=\\\"Sign in",
            "plan.actions[2].target.selector: bad selector",
        ),
        (
            "windup.toml",
            "base_url = \"http://127.0.0.1:8080\"",
            "# no base URL",
            "windup.toml: base_url: no base URL is set",
        ),
    ];
    for (file, from, to, expected) in cases {
        let dir = example();
        let path = dir.path().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file} has no {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
        let before = tree(dir.path());
        for args in [&["run"][..], &["run", "sign-in"][..]] {
            let out = windup(dir.path(), args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{file} {args:?}: {err}");
            assert!(
                err.contains(expected),
                "{file}: wanted {expected:?} in:\n{err}"
            );
            assert!(err.contains("fix: "), "{err}");
        }
        if *file != "windup.toml" {
            let out = windup(dir.path(), &["validate"]);
            assert_eq!(out.status.code(), Some(2), "validate: {}", stderr(&out));
            assert!(stderr(&out).contains(expected), "{}", stderr(&out));
        }
        assert!(
            before == tree(dir.path()),
            "{file}: a bad-input run changed files"
        );
    }
}

#[test]
fn bad_command_lines_exit_2() {
    let dir = example();
    let out = windup(
        dir.path(),
        &[
            "run",
            "no-such-scenario",
            "--base-url",
            "http://127.0.0.1:9",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no scenario `no-such-scenario`"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("sign-in"), "lists the known ones");
    let out = windup(dir.path(), &["run", "--report", "xml=r.xml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown report format `xml`"));
    let out = windup(dir.path(), &["run", "--base-url", "not a url"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("base_url"), "{}", stderr(&out));
    let out = windup(
        dir.path(),
        &["replay", "missing.json", "--base-url", "http://127.0.0.1:9"],
    );
    assert_eq!(out.status.code(), Some(2));
    let out = windup(dir.path(), &["frobnicate"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "clap's usage errors are 2 as well"
    );
}

#[test]
fn validate_accepts_the_example_and_checks_named_files() {
    let dir = example();
    let out = windup(dir.path(), &["validate"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plan = dir.path().join("plan.json");
    std::fs::write(&plan, r#"{"plan_version":"0.1"}"#).unwrap();
    let out = windup(dir.path(), &["validate", "plan.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("plan.json: actions: required field `actions` is missing"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn example_replays_from_its_committed_plans() {
    let dir = example();
    let (_server, base) = serve(dir.path());
    let out = windup(
        dir.path(),
        &[
            "run",
            "--base-url",
            &base,
            "--report",
            "json=out/report.json",
            "--report",
            "junit=out/junit.xml",
            "--report",
            "html=out/report.html",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = report(&dir.path().join("out/report.json"));
    assert_eq!(r["report_version"], windup_model::report::REPORT_VERSION);
    let junit = std::fs::read_to_string(dir.path().join("out/junit.xml")).unwrap();
    assert!(
        junit.contains(r#"<testsuite name="windup" tests="4" skipped="0" errors="0" failures="0""#),
        "{junit}"
    );
    let html = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert_eq!(html.matches(r#"<details class="sc passed">"#).count(), 4);
    for text in [&junit, &html] {
        assert!(!text.contains("correct horse battery staple"));
    }
    assert_eq!(r["totals"]["passed"], 4);
    assert_eq!(r["totals"]["cache_hits"], 4);
    assert_eq!(r["totals"]["llm_calls"], 0);
    assert_eq!(r["totals"]["cost_micro_usd"], 0);
    let run_id = r["run_id"].as_str().unwrap();
    assert_eq!(uuid::Uuid::parse_str(run_id).unwrap().get_version_num(), 7);
    for s in r["scenarios"].as_array().unwrap() {
        assert_eq!(s["cache"], "hit");
        assert!(
            s["actions"]
                .as_array()
                .unwrap()
                .iter()
                .all(|a| a["status"] == "passed")
        );
    }
    // Credentials typed through value_ref are in no report.
    let text = std::fs::read_to_string(dir.path().join("out/report.json")).unwrap();
    assert!(!text.contains("correct horse battery staple"));
    assert!(!stderr(&out).contains("correct horse battery staple"));
}

#[test]
fn a_failed_replay_moves_the_plan_to_stale_with_evidence() {
    let dir = example();
    // The app changed: the Archive buttons are now called "Shelve".
    let page = dir.path().join("app/projects.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Archive"));
    std::fs::write(
        &page,
        html.replace("'Archive'", "'Shelve'")
            .replace(">Archive<", ">Shelve<"),
    )
    .unwrap();
    let (_server, base) = serve(dir.path());
    let r = run_reported(
        dir.path(),
        &["run", "archive-project", "sign-in"],
        &base,
        "r.json",
        1,
    );
    let archive = &r["scenarios"][0];
    assert_eq!(archive["scenario_id"], "archive-project");
    assert_eq!(archive["status"], "failed");
    assert_eq!(archive["failure_class"], "selector_not_found");
    assert!(archive["failed_action_id"].is_string());
    assert_eq!(
        r["scenarios"][1]["status"], "passed",
        "other plans are unaffected"
    );
    let cache = dir.path().join("e2e/.windup/cache");
    assert!(
        !cache.join("archive-project.json").exists(),
        "no longer active"
    );
    assert!(cache.join("sign-in.json").exists());
    let stale: Vec<_> = std::fs::read_dir(cache.join("stale"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(stale.len(), 1);
    let entry: Value = serde_json::from_str(&std::fs::read_to_string(&stale[0]).unwrap()).unwrap();
    assert_eq!(entry["status"], "stale");
    assert_eq!(entry["invalidation"]["reason"], "replay failed");
    assert_eq!(entry["invalidation"]["failure_class"], "selector_not_found");
    assert_eq!(entry["invalidation"]["run_id"], r["run_id"]);
    assert!(
        entry["invalidation"]["message"]
            .as_str()
            .unwrap()
            .contains("0 visible matches")
    );
    // The next run has no plan for it (planning arrives with the planner).
    let r2 = run_reported(dir.path(), &["run", "archive-project"], &base, "r2.json", 1);
    assert_eq!(r2["scenarios"][0]["failure_class"], "no_plan");
}

#[test]
fn editing_a_scenario_is_a_miss_never_a_silent_replay() {
    let dir = example();
    let path = dir.path().join("e2e/scenarios/search-projects.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("task:", "task: Then sign out.", 1)).unwrap();
    let (_server, base) = serve(dir.path());
    let r = run_reported(dir.path(), &["run", "search-projects"], &base, "r.json", 1);
    assert_eq!(r["scenarios"][0]["cache"], "miss");
    assert_eq!(r["scenarios"][0]["failure_class"], "no_plan");
    let stale = dir.path().join("e2e/.windup/cache/stale");
    let entry = std::fs::read_dir(&stale)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let entry: Value = serde_json::from_str(&std::fs::read_to_string(entry).unwrap()).unwrap();
    assert_eq!(entry["invalidation"]["reason"], "scenario changed");
}

#[test]
fn replay_runs_a_plan_file_and_save_makes_it_the_cached_plan() {
    let dir = example();
    let cache = dir.path().join("e2e/.windup/cache/sign-in.json");
    let entry: Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    let plan = dir.path().join("sign-in.plan.json");
    std::fs::write(&plan, serde_json::to_string_pretty(&entry["plan"]).unwrap()).unwrap();
    std::fs::remove_file(&cache).unwrap();
    let (_server, base) = serve(dir.path());
    // Needs no project: run from an empty folder.
    let empty = tempfile::tempdir().unwrap();
    let r = run_reported(
        empty.path(),
        &["replay", plan.to_str().unwrap()],
        &base,
        "r.json",
        0,
    );
    assert_eq!(r["scenarios"][0]["cache"], "none");
    assert!(!cache.exists(), "a plain replay caches nothing");
    let out = windup(
        dir.path(),
        &["replay", "sign-in.plan.json", "--save", "--base-url", &base],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    assert_eq!(saved["cache_version"], "0.2");
    assert_eq!(saved["status"], "active");
    assert!(
        saved["key"]["start_sig"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    let out = windup(dir.path(), &["run", "sign-in", "--base-url", &base]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_browser_that_will_not_start_exits_3() {
    let dir = example();
    let toml = dir.path().join("windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(
        &toml,
        format!("{text}\n[browser]\nexecutable = \"/nonexistent/chromium\"\n"),
    )
    .unwrap();
    let out = windup(dir.path(), &["run"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("/nonexistent/chromium"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn readme_usage_matches_help() {
    // The README quotes `windup --help`; this fails when they drift apart.
    let out = Command::new(env!("CARGO_BIN_EXE_windup"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout).to_string();
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let start = readme
        .find("<!-- help-start -->")
        .expect("README has a help block");
    let end = readme
        .find("<!-- help-end -->")
        .expect("README has a help block");
    let quoted = readme[start..end]
        .lines()
        .skip_while(|l| !l.starts_with("```"))
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        quoted.trim(),
        help.trim(),
        "update the README's usage block"
    );
}

#[test]
fn a_plan_runs_a_fragment_in_place() {
    let dir = example();
    let entry: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("e2e/.windup/cache/search-projects.json"))
            .unwrap(),
    )
    .unwrap();
    let mut plan = entry["plan"].clone();
    let actions = plan["actions"].as_array().unwrap().clone();
    // The sign-in steps become a fragment with its own postcondition.
    let fragment = serde_json::json!({
        "fragment_version": "0.1",
        "id": "sign-in-admin",
        "description": "Sign in as the admin",
        "actions": actions[..3],
        "expect": {"url": "/projects.html"}
    });
    std::fs::create_dir_all(dir.path().join("e2e/fragments")).unwrap();
    std::fs::write(
        dir.path().join("e2e/fragments/sign-in-admin.json"),
        serde_json::to_string_pretty(&fragment).unwrap(),
    )
    .unwrap();
    let mut steps = vec![serde_json::json!({"id": "a1", "type": "use", "use": "sign-in-admin"})];
    steps.push(actions[3].clone());
    plan["actions"] = Value::Array(steps);
    let path = dir.path().join("with-fragment.json");
    std::fs::write(&path, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let (_server, base) = serve(dir.path());
    let r = run_reported(
        dir.path(),
        &["replay", "with-fragment.json"],
        &base,
        "r.json",
        0,
    );
    let ran: Vec<(String, String)> = r["scenarios"][0]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["id"].as_str().unwrap().to_string(),
                a["fragment"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        ran,
        [
            ("a1", "a1:sign-in-admin"),
            ("a2", "a1:sign-in-admin"),
            ("a3", "a1:sign-in-admin"),
            ("a1", ""),
            ("a4", ""),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    // A plan naming a fragment that does not exist is bad input, found before anything runs.
    plan["actions"][0]["use"] = Value::from("sign-in-nobody");
    std::fs::write(&path, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let out = windup(
        dir.path(),
        &["replay", "with-fragment.json", "--base-url", &base],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no fragment `sign-in-nobody`"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("use one of: sign-in-admin"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn credentials_from_env_local_never_reach_reports_evidence_or_the_terminal() {
    let dir = example();
    let password = "canary-7f3e correct horse";
    std::fs::write(
        dir.path().join(".env.local"),
        format!("ACME_ADMIN_EMAIL=admin@acme.test\nACME_ADMIN_PASSWORD=\"{password}\"\n"),
    )
    .unwrap();
    // The app accepts this password, and the plan checks the field against another value,
    // so the failure message would quote the password if nothing masked it.
    let login = dir.path().join("app/login.html");
    let html = std::fs::read_to_string(&login).unwrap();
    std::fs::write(
        &login,
        html.replace("correct horse battery staple", password),
    )
    .unwrap();
    let cache = dir.path().join("e2e/.windup/cache/sign-in.json");
    let mut entry: Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    entry["plan"]["actions"][1]["expect"] = serde_json::json!({"value": {"selector": "label=\"Password\"", "equals": "something else"}});
    std::fs::write(&cache, serde_json::to_string_pretty(&entry).unwrap()).unwrap();
    let (_server, base) = serve(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(dir.path())
        .args([
            "run",
            "sign-in",
            "--base-url",
            &base,
            "--report",
            "json=r.json",
        ])
        .env_remove("ACME_ADMIN_EMAIL")
        .env_remove("ACME_ADMIN_PASSWORD")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = std::fs::read_to_string(dir.path().join("r.json")).unwrap();
    assert!(r.contains("postcondition_failed"), "{r}");
    assert!(r.contains("•••"), "the value is masked: {r}");
    let stale_dir = dir.path().join("e2e/.windup/cache/stale");
    let stale = std::fs::read_dir(&stale_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let everything = [
        r,
        stderr(&out),
        String::from_utf8_lossy(&out.stdout).to_string(),
        std::fs::read_to_string(stale).unwrap(),
    ]
    .join("\n");
    assert!(
        !everything.contains("canary-7f3e"),
        "a credential leaked:\n{everything}"
    );
}

/// A project holding only a ledger: two days, two models, and cache hits that made no call.
fn ledger_project() -> tempfile::TempDir {
    let line = |day: &str, scenario: &str, call: Option<(&str, &str)>, tokens: [u64; 3], cost| {
        let mut v = serde_json::json!({
            "ledger_version": "0.1",
            "run_id": format!("run-{day}"),
            "scenario_id": scenario,
            "started_at": format!("{day}T10:00:00Z"),
            "finished_at": format!("{day}T10:00:04Z"),
            "status": "passed",
            "cache": if call.is_some() { "miss" } else { "hit" },
            "calls": {"planning": u32::from(call.is_some()), "continuation": 0, "replan": 0},
            "tokens": {"input": tokens[0], "output": tokens[1], "cached": tokens[2]},
            "cost_micro_usd": cost,
            "timings": {"plan_ms": 0, "execute_ms": 900, "verify_ms": 100},
        });
        if let Some((provider, model)) = call {
            v["provider"] = provider.into();
            v["model"] = model.into();
            v["price_table_date"] = "2025-04-14".into();
        }
        v.to_string()
    };
    let flash = Some(("gemini", "gemini-2.5-flash"));
    let mini = Some(("openai", "gpt-4.1-mini"));
    let lines = [
        // 100k × $0.30 + 10k × $2.50 per Mtok = $0.055.
        line("2025-07-01", "sign-in", flash, [100_000, 10_000, 0], 55_000),
        line("2025-07-01", "todos", None, [0, 0, 0], 0),
        // 100k × $0.40 + 100k cached × $0.10 + 20k × $1.60 per Mtok = $0.082.
        line(
            "2025-07-02",
            "todos",
            mini,
            [200_000, 20_000, 100_000],
            82_000,
        ),
        line("2025-07-02", "sign-in", None, [0, 0, 0], 0),
    ];
    let dir = tempfile::tempdir().unwrap();
    let ledger = dir.path().join("e2e/.windup/ledger.jsonl");
    std::fs::create_dir_all(ledger.parent().unwrap()).unwrap();
    std::fs::write(&ledger, lines.join("\n") + "\n").unwrap();
    dir
}

fn costs(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = windup(dir, &[&["costs"][..], args].concat());
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    (out.status.code().unwrap(), stdout, stderr(&out))
}

fn costs_json(dir: &Path, args: &[&str]) -> Value {
    let (code, stdout, err) = costs(dir, &[&["--json"][..], args].concat());
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

/// `[(key, runs, cost_micro_usd)]` of one grouping in `windup costs --json`.
fn grouped(report: &Value, by: &str) -> Vec<(String, u64, u64)> {
    report["by"][by]
        .as_array()
        .unwrap_or_else(|| panic!("no {by}: {report}"))
        .iter()
        .map(|r| {
            (
                r["key"].as_str().unwrap().to_string(),
                r["runs"].as_u64().unwrap(),
                r["cost_micro_usd"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn costs_totals_the_ledger_by_model_provider_scenario_and_day() {
    let dir = ledger_project();
    let (code, text, err) = costs(dir.path(), &[]);
    assert_eq!(code, 0, "{err}");
    for heading in ["model ", "provider ", "scenario ", "day "] {
        assert!(
            text.lines().any(|l| l.starts_with(heading)),
            "{heading}: {text}"
        );
    }
    let row = |key: &str| {
        text.lines()
            .find(|l| l.starts_with(key))
            .unwrap_or_else(|| panic!("no row {key}: {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        row("gemini-2.5-flash"),
        [
            "gemini-2.5-flash",
            "1",
            "1",
            "100000",
            "10000",
            "0",
            "$0.055000"
        ]
    );
    assert_eq!(
        row("openai"),
        ["openai", "1", "1", "200000", "20000", "100000", "$0.082000"]
    );
    assert_eq!(row("(none)")[1], "2");
    assert_eq!(row("2025-07-02").last(), Some(&"$0.082000"));
    assert!(
        text.contains("total: 4 runs, 2 LLM calls, 300000 input / 30000 output / 100000 cached tokens, $0.137000"),
        "{text}"
    );
    // Each table's columns line up: the cost column ends at the same place on every line.
    let model_table: Vec<&str> = text.lines().take_while(|l| !l.is_empty()).collect();
    assert_eq!(model_table.len(), 4, "{text}");
    assert!(
        model_table.iter().all(|l| l.len() == model_table[0].len()),
        "{text}"
    );

    let report = costs_json(dir.path(), &[]);
    assert_eq!(report["total"]["cost_micro_usd"], 137_000);
    assert_eq!(report["total"]["runs"], 4);
    assert_eq!(report["prices"], "recorded");
    assert_eq!(
        grouped(&report, "model"),
        [
            ("(none)".into(), 2, 0),
            ("gemini-2.5-flash".into(), 1, 55_000),
            ("gpt-4.1-mini".into(), 1, 82_000)
        ]
    );
    assert_eq!(
        grouped(&report, "day"),
        [
            ("2025-07-01".into(), 2, 55_000),
            ("2025-07-02".into(), 2, 82_000)
        ]
    );
    assert_eq!(
        grouped(&report, "scenario"),
        [("sign-in".into(), 2, 55_000), ("todos".into(), 2, 82_000)]
    );

    let only = costs_json(dir.path(), &["--by", "provider", "--by", "day,provider"]);
    let groupings: Vec<&String> = only["by"].as_object().unwrap().keys().collect();
    assert_eq!(groupings, ["day", "provider"]);
}

#[test]
fn costs_since_keeps_the_later_days() {
    let dir = ledger_project();
    let report = costs_json(dir.path(), &["--since", "2025-07-02"]);
    assert_eq!(report["since"], "2025-07-02");
    assert_eq!(report["total"]["runs"], 2);
    assert_eq!(report["total"]["cost_micro_usd"], 82_000);
    assert_eq!(
        grouped(&report, "model"),
        [("(none)".into(), 1, 0), ("gpt-4.1-mini".into(), 1, 82_000)]
    );
    let (code, text, _) = costs(dir.path(), &["--since", "2030-01-01"]);
    assert_eq!(
        (code, text.as_str()),
        (0, "no ledger records since 2030-01-01\n")
    );
}

#[test]
fn costs_recompute_uses_the_project_prices() {
    let dir = ledger_project();
    // The shipped list reproduces the recorded costs…
    let report = costs_json(dir.path(), &["--recompute"]);
    assert_eq!(report["prices"], "recomputed");
    assert_eq!(report["total"]["cost_micro_usd"], 137_000);
    // …and an override changes them: 100k × $1 + 10k × $10 = $0.20 instead of $0.055.
    std::fs::write(
        dir.path().join("windup.toml"),
        "[prices.\"gemini-2.5-flash\"]\ninput_usd_per_mtok = 1.0\noutput_usd_per_mtok = 10\n",
    )
    .unwrap();
    let report = costs_json(dir.path(), &["--recompute"]);
    assert_eq!(report["total"]["cost_micro_usd"], 282_000);
    assert_eq!(
        grouped(&report, "model")[1],
        ("gemini-2.5-flash".into(), 1, 200_000)
    );
    // Without --recompute the ledger's own costs stand.
    assert_eq!(
        costs_json(dir.path(), &[])["total"]["cost_micro_usd"],
        137_000
    );

    let (code, text, _) = costs(dir.path(), &["--recompute"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("$0.282000") && text.contains("recomputed"),
        "{text}"
    );

    // A bad price in windup.toml is bad input.
    std::fs::write(
        dir.path().join("windup.toml"),
        "[prices.\"gemini-2.5-flash\"]\ninput_usd_per_mtok = -1\noutput_usd_per_mtok = 10\n",
    )
    .unwrap();
    let (code, _, err) = costs(dir.path(), &["--recompute"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("windup.toml: prices.gemini-2.5-flash.input_usd_per_mtok"),
        "{err}"
    );
}

#[test]
fn costs_bad_input_exits_2_naming_the_flag_or_the_line() {
    let dir = ledger_project();
    let (code, _, err) = costs(dir.path(), &["--since", "July"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--since") && err.contains("YYYY-MM-DD"),
        "{err}"
    );
    let (code, _, err) = costs(dir.path(), &["--since", "2025-02-30"]);
    assert_eq!(code, 2, "{err}");

    let ledger = dir.path().join("e2e/.windup/ledger.jsonl");
    let text = std::fs::read_to_string(&ledger).unwrap();
    let (first, rest) = text.split_once('\n').unwrap();
    std::fs::write(
        &ledger,
        format!("{first}\n{{\"ledger_version\": \"0.1\"}}\n{rest}"),
    )
    .unwrap();
    let (code, _, err) = costs(dir.path(), &["--json"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("e2e/.windup/ledger.jsonl:2"), "{err}");
    assert!(err.contains("fix:"), "{err}");

    // A torn last line (a run killed mid-write) is skipped with a warning.
    std::fs::write(
        &ledger,
        format!("{text}{{\"ledger_version\": \"0.1\", \"run_"),
    )
    .unwrap();
    let (code, _, err) = costs(dir.path(), &["--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("torn"), "{err}");
}

#[test]
fn costs_without_a_ledger_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let (code, text, err) = costs(dir.path(), &[]);
    assert_eq!(
        (code, text.as_str()),
        (0, "no ledger records yet\n"),
        "{err}"
    );
    let report = costs_json(dir.path(), &[]);
    assert_eq!(report["total"]["runs"], 0);
    assert_eq!(report["total"]["cost_micro_usd"], 0);
}

/// `windup run` planning through a local fake provider: `--require-cached` makes no call, a
/// planned run passes, and the credential values reach no log line (at debug level), no
/// terminal output, no file under e2e/.windup and no request the provider received.
#[test]
fn planning_from_the_cli_leaks_no_credential_and_require_cached_makes_no_call() {
    use windup_testkit::fake_llm::{FakeLlm, Reply};
    let dir = example();
    let password = "canary-91c2 correct horse";
    let email = "canary-91c2@acme.test";
    std::fs::write(
        dir.path().join(".env.local"),
        format!("ACME_ADMIN_EMAIL={email}\nACME_ADMIN_PASSWORD=\"{password}\"\n"),
    )
    .unwrap();
    let login = dir.path().join("app/login.html");
    let html = std::fs::read_to_string(&login).unwrap();
    std::fs::write(
        &login,
        html.replace("correct horse battery staple", password)
            .replace("admin@acme.test", email),
    )
    .unwrap();
    // Forget the committed plan: the next run must plan it.
    let cache = dir.path().join("e2e/.windup/cache/sign-in.json");
    let entry: Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    std::fs::remove_file(&cache).unwrap();
    let fake = FakeLlm::start();
    fake.push(Reply::Json(
        serde_json::json!({"actions": entry["plan"]["actions"], "complete": true}),
    ));
    with_fake_provider(dir.path(), &fake);
    let (_server, base) = serve(dir.path());
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_windup"))
            .current_dir(dir.path())
            .args([
                "run",
                "sign-in",
                "--base-url",
                &base,
                "--report",
                "json=r.json",
            ])
            .args(extra)
            .env_remove("ACME_ADMIN_EMAIL")
            .env_remove("ACME_ADMIN_PASSWORD")
            .env_remove("WINDUP_PROVIDER")
            .env("WINDUP_LOG", "debug")
            .output()
            .unwrap()
    };
    let gated = run(&["--require-cached"]);
    assert_eq!(gated.status.code(), Some(1), "{}", stderr(&gated));
    assert!(stderr(&gated).contains("not_cached"), "{}", stderr(&gated));
    assert!(fake.requests().is_empty(), "--require-cached made a call");

    let planned = run(&[]);
    assert_eq!(planned.status.code(), Some(0), "{}", stderr(&planned));
    let err = stderr(&planned);
    assert!(err.contains("sign-in: planning"), "{err}");
    assert!(err.contains("1 LLM calls"), "{err}");
    assert_eq!(fake.requests().len(), 1);
    let r = report(&dir.path().join("r.json"));
    assert_eq!(r["scenarios"][0]["cache"], "miss");
    assert_eq!(r["scenarios"][0]["llm_calls"], 1);
    assert!(dir.path().join("e2e/.windup/cache/sign-in.json").exists());

    let mut everything = vec![
        err,
        String::from_utf8_lossy(&planned.stdout).to_string(),
        stderr(&gated),
        std::fs::read_to_string(dir.path().join("r.json")).unwrap(),
        fake.requests()[0].body.clone(),
    ];
    for (path, bytes) in tree(&dir.path().join("e2e/.windup")) {
        everything.push(format!(
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&bytes)
        ));
    }
    let everything = everything.join("\n");
    assert!(
        everything.contains("ledger.jsonl"),
        "the ledger was checked too"
    );
    assert!(
        !everything.contains("canary-91c2"),
        "a credential leaked:\n{everything}"
    );
}

#[test]
fn init_scaffolds_a_valid_project_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".gitignore"), "target/\n.env.local\n").unwrap();
    let out = windup(dir.path(), &["init", "--base-url", "http://127.0.0.1:4000"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for f in [
        "windup.toml",
        "e2e/scenarios/home-page.yaml",
        "e2e/manifest.yaml",
    ] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    let config = std::fs::read_to_string(dir.path().join("windup.toml")).unwrap();
    assert!(config.contains("http://127.0.0.1:4000"));
    let ignore = std::fs::read_to_string(dir.path().join(".gitignore")).unwrap();
    assert_eq!(ignore.matches(".env.local").count(), 1, "{ignore}");
    assert!(
        ignore.contains("e2e/.windup/runs/") && ignore.starts_with("target/\n"),
        "{ignore}"
    );
    assert!(
        !ignore.lines().any(|l| l.starts_with("e2e/.windup/cache")),
        "the plan cache is meant to be committed: {ignore}"
    );
    let v = windup(dir.path(), &["validate"]);
    assert_eq!(v.status.code(), Some(0), "{}", stderr(&v));
    // A second init changes nothing.
    std::fs::write(
        dir.path().join("windup.toml"),
        "base_url = \"http://mine\"\n",
    )
    .unwrap();
    let before = tree(dir.path());
    let again = windup(dir.path(), &["init"]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(tree(dir.path()), before, "init never overwrites");
    let bad = windup(
        dir.path(),
        &["init", "--root", "elsewhere", "--base-url", "not a url"],
    );
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn verbose_prints_every_step_and_quiet_only_the_summary() {
    let dir = example();
    let (_server, base) = serve(dir.path());
    let v = windup(dir.path(), &["run", "sign-in", "-v", "--base-url", &base]);
    assert_eq!(v.status.code(), Some(0), "{}", stderr(&v));
    let err = stderr(&v);
    assert!(
        err.contains("sign-in a1 fill label=\"Email\" value_ref=ACME_ADMIN_EMAIL ok ("),
        "{err}"
    );
    assert!(err.contains("PASS  sign-in"), "{err}");
    let q = windup(dir.path(), &["run", "sign-in", "-q", "--base-url", &base]);
    assert_eq!(q.status.code(), Some(0), "{}", stderr(&q));
    let err = stderr(&q);
    assert!(!err.contains("PASS"), "{err}");
    assert!(err.contains("1 passed, 0 failed"), "{err}");
}

#[test]
fn windup_toml_reports_are_written_every_run_and_checked() {
    let dir = example();
    let toml = dir.path().join("windup.toml");
    let base_config = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("reports = [\"pdf=x.pdf\"]\n{base_config}")).unwrap();
    let (_server, base) = serve(dir.path());
    let bad = windup(dir.path(), &["run", "sign-in", "--base-url", &base]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("windup.toml: reports[0]"),
        "{}",
        stderr(&bad)
    );
    std::fs::write(
        &toml,
        format!("reports = [\"junit=out/e2e.xml\"]\n{base_config}"),
    )
    .unwrap();
    let sub = dir.path().join("e2e");
    let ok = windup(
        &sub,
        &["run", "sign-in", "--root", "..", "--base-url", &base],
    );
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    let xml = std::fs::read_to_string(dir.path().join("out/e2e.xml")).unwrap();
    assert!(xml.contains("name=\"sign-in\""), "{xml}");
}

// ---- the team dashboard ----

const DASH_TOKEN: &str = "wd-canary-token-31d7";

/// Adds `[dashboard]` pointing at `url` (one retry, to keep outages quick).
/// Adds a `[providers.fake]` (OpenAI wire format) served by `llm` to the project's windup.toml.
fn with_fake_provider(dir: &Path, llm: &windup_testkit::fake_llm::FakeLlm) {
    let toml = dir.join("windup.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str(&format!(
        "\n[providers.fake]\nkind = \"openai\"\nmodel = \"gpt-4.1-mini\"\nbase_url = \"{}\"\n",
        llm.openai_base_url()
    ));
    std::fs::write(&toml, text).unwrap();
}

fn with_dashboard(dir: &Path, url: &str) {
    let toml = dir.join("windup.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str(&format!(
        "\n[dashboard]\nurl = \"{url}\"\nmax_retries = 1\n"
    ));
    std::fs::write(&toml, text).unwrap();
}

/// `windup ARGS` with the dashboard token set, debug logs on and no GitHub context but `env`.
fn windup_dash(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    windup_dash_token(dir, args, env, DASH_TOKEN)
}

/// [`windup_dash`] with another token.
fn windup_dash_token(dir: &Path, args: &[&str], env: &[(&str, &str)], token: &str) -> Output {
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

fn assert_no_token(outputs: &[&Output]) {
    for o in outputs {
        let text = format!("{}{}", stderr(o), String::from_utf8_lossy(&o.stdout));
        assert!(!text.contains(DASH_TOKEN), "the token leaked:\n{text}");
    }
}

#[test]
fn a_run_uploads_its_report_ledger_and_screenshots_once() {
    use windup_testkit::fake_dashboard::FakeDashboard;
    let dir = example();
    // archive-project fails (its button was renamed), so the run has a screenshot.
    let page = dir.path().join("app/projects.html");
    let html = std::fs::read_to_string(&page).unwrap();
    std::fs::write(
        &page,
        html.replace("'Archive'", "'Shelve'")
            .replace(">Archive<", ">Shelve<"),
    )
    .unwrap();
    let fake = FakeDashboard::start(DASH_TOKEN);
    with_dashboard(dir.path(), &fake.url());
    let event = dir.path().join("event.json");
    std::fs::write(
        &event,
        r#"{"action":"synchronize","pull_request":{"number":7,"head":{"sha":"c0ffee"}}}"#,
    )
    .unwrap();
    let event = event.display().to_string();
    let github = [
        ("GITHUB_EVENT_PATH", event.as_str()),
        ("GITHUB_REPOSITORY", "acme/shop"),
        ("GITHUB_HEAD_REF", "feature/shelve"),
    ];
    let (_server, base) = serve(dir.path());
    let run = windup_dash(
        dir.path(),
        &["run", "--base-url", &base, "--report", "json=r.json"],
        &github,
    );
    assert_eq!(run.status.code(), Some(1), "the verdict: {}", stderr(&run));
    let r = report(&dir.path().join("r.json"));
    let run_id = r["run_id"].as_str().unwrap();
    assert!(
        stderr(&run).contains(&format!("run {run_id} uploaded to the dashboard")),
        "{}",
        stderr(&run)
    );
    let runs = fake.runs();
    assert_eq!(runs.len(), 1);
    let body = &runs[run_id];
    assert_eq!(body["report"], r, "the report as written");
    let ledger = body["ledger"].as_array().unwrap();
    assert_eq!(ledger.len(), 4, "one record per scenario of this run");
    assert!(ledger.iter().all(|l| l["run_id"] == run_id));
    assert_eq!(
        body["pull_request"],
        serde_json::json!({"repo": "acme/shop", "number": 7, "head_sha": "c0ffee"})
    );
    let post = &fake.requests_to("POST", "/api/v1/runs")[0];
    assert_eq!(
        post.header("authorization"),
        Some(format!("Bearer {DASH_TOKEN}").as_str())
    );
    assert_eq!(post.header("content-type"), Some("application/json"));
    let shot = r["scenarios"][0]["evidence"]["screenshot"]
        .as_str()
        .unwrap();
    let png = std::fs::read(dir.path().join(shot)).unwrap();
    assert_eq!(
        fake.artifact(run_id, "archive-project.png"),
        Some(png),
        "the screenshot, byte for byte"
    );
    // Restore asked for each scenario on the run's branch; nothing new was saved.
    let gets = fake.requests_to("GET", "/api/v1/cache/");
    assert_eq!(gets.len(), 4);
    assert!(
        gets.iter()
            .all(|g| g.query("branch") == Some("feature/shelve"))
    );
    assert!(
        gets.iter()
            .all(|g| g.query("scenario_sha").is_some_and(|s| s.len() == 64))
    );
    assert!(fake.requests_to("PUT", "/api/v1/cache/").is_empty());
    assert!(remote_spool(dir.path()).is_empty());

    // Pushing the same run again is safe: the dashboard keeps one copy.
    let push = windup_dash(dir.path(), &["push"], &github);
    assert_eq!(push.status.code(), Some(0), "{}", stderr(&push));
    assert!(
        stderr(&push).contains("already on the dashboard"),
        "{}",
        stderr(&push)
    );
    assert_eq!(fake.requests_to("POST", "/api/v1/runs").len(), 2);
    assert_eq!(fake.runs().len(), 1);
    assert_no_token(&[&run, &push]);
    assert!(
        stderr(&run).contains("dashboard request"),
        "debug logs were on"
    );
}

fn remote_spool(root: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(root.join("e2e/.windup/spool"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default()
}

#[test]
fn a_dashboard_outage_changes_no_verdict_and_the_spool_delivers_later() {
    use windup_testkit::fake_dashboard::{FakeDashboard, closed_port_url};
    let dir = example();
    let fake = FakeDashboard::start(DASH_TOKEN);
    with_dashboard(dir.path(), &fake.url());
    let (_server, base) = serve(dir.path());
    let down = closed_port_url();
    let mut run_ids = Vec::new();
    let mut outputs = Vec::new();
    for name in ["r1.json", "r2.json"] {
        // WINDUP_DASHBOARD_URL wins over windup.toml: the dashboard is down for these runs.
        let out = windup_dash(
            dir.path(),
            &[
                "run",
                "--base-url",
                &base,
                "--report",
                &format!("json={name}"),
            ],
            &[("WINDUP_DASHBOARD_URL", &down)],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let r = report(&dir.path().join(name));
        assert_eq!(r["totals"]["passed"], 4, "as without a dashboard");
        let id = r["run_id"].as_str().unwrap().to_string();
        let spool = format!("e2e/.windup/spool/{id}.json");
        assert!(
            stderr(&out).contains(&format!("spooled in {spool}")),
            "{}",
            stderr(&out)
        );
        assert!(stderr(&out).contains("the run's result is unchanged"));
        let spooled: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join(&spool)).unwrap())
                .unwrap();
        assert_eq!(spooled["upload"]["report"], r);
        assert_eq!(spooled["upload"]["ledger"].as_array().unwrap().len(), 4);
        run_ids.push(id);
        outputs.push(out);
    }
    assert!(fake.requests().is_empty());
    let spooled = remote_spool(dir.path());
    assert_eq!(spooled.len(), 2);
    for path in &spooled {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(!text.contains(DASH_TOKEN), "the token is never spooled");
    }

    // Back up, with one 503 first: the push retries it, then sends the older spooled run too.
    fake.fail_next(503, &[]);
    let push = windup_dash(dir.path(), &["push"], &[]);
    assert_eq!(push.status.code(), Some(0), "{}", stderr(&push));
    let posts = fake.requests_to("POST", "/api/v1/runs");
    assert_eq!(posts.len(), 3, "503, the last run, the spooled one");
    assert_eq!(posts[0].json()["report"]["run_id"], run_ids[1].as_str());
    assert_eq!(posts[1].json()["report"]["run_id"], run_ids[1].as_str());
    assert_eq!(posts[2].json()["report"]["run_id"], run_ids[0].as_str());
    assert_eq!(
        fake.runs().keys().cloned().collect::<Vec<_>>(),
        {
            let mut ids = run_ids.clone();
            ids.sort();
            ids
        },
        "every run, once"
    );
    assert!(
        remote_spool(dir.path()).is_empty(),
        "delivered uploads leave the spool"
    );
    let again = windup_dash(dir.path(), &["push"], &[]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(fake.runs().len(), 2, "no duplicates");
    outputs.extend([push, again]);
    assert_no_token(&outputs.iter().collect::<Vec<_>>());
}

#[test]
fn push_without_a_dashboard_or_a_token_exits_2_naming_the_fix() {
    let dir = example();
    let out = windup_dash(dir.path(), &["push"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("dashboard.url"), "{}", stderr(&out));
    with_dashboard(dir.path(), "http://127.0.0.1:9");
    let out = Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(dir.path())
        .arg("push")
        .env_remove("WINDUP_DASHBOARD_TOKEN")
        .env_remove("WINDUP_DASHBOARD_URL")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("export WINDUP_DASHBOARD_TOKEN"),
        "{}",
        stderr(&out)
    );
    let toml = dir.path().join("windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, text.replace("max_retries = 1", "retries = 1")).unwrap();
    let out = windup_dash(dir.path(), &["run"], &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown field `retries`"),
        "{}",
        stderr(&out)
    );
}

/// The committed entry of a scenario, as JSON.
fn committed(dir: &Path, id: &str) -> Value {
    let path = dir.join(format!("e2e/.windup/cache/{id}.json"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn restore_takes_the_dashboard_plan_only_for_the_same_scenario_and_when_newer() {
    use windup_testkit::fake_dashboard::FakeDashboard;
    let dir = example();
    let fake = FakeDashboard::start(DASH_TOKEN);
    with_dashboard(dir.path(), &fake.url());
    // A dashboard plan by `by`, last verified (and saved) at `at`.
    let marked = |id: &str, by: &str, at: &str| {
        let mut e = committed(dir.path(), id);
        e["plan"]["generated_by"] = by.into();
        e["stats"]["last_verified_at"] = at.into();
        e
    };
    const NEWER: &str = "2099-01-01T00:00:00Z";
    // sign-in: not cached locally, newer on the dashboard's default branch.
    let sign_in = marked("sign-in", "dashboard", NEWER);
    std::fs::remove_file(dir.path().join("e2e/.windup/cache/sign-in.json")).unwrap();
    fake.set_plan("main", NEWER, sign_in.clone());
    // archive-project: cached locally, newer on the run's own branch.
    let archive = marked("archive-project", "dashboard", NEWER);
    fake.set_plan("feature/x", NEWER, archive.clone());
    // search-projects: the dashboard's was verified before the local one, though uploaded later.
    let old = marked("search-projects", "older", "2001-01-01T00:00:00Z");
    fake.set_plan("feature/x", NEWER, old);
    // create-project: newer, but for another text of the scenario.
    let mut other = marked("create-project", "other-sha", NEWER);
    other["key"]["scenario_sha"] = "0".repeat(64).into();
    fake.set_plan("feature/x", NEWER, other);
    let local_search = committed(dir.path(), "search-projects");
    let local_create = committed(dir.path(), "create-project");

    let (_server, base) = serve(dir.path());
    let out = windup_dash(
        dir.path(),
        &[
            "run",
            "--require-cached",
            "--base-url",
            &base,
            "--report",
            "json=r.json",
        ],
        &[("GITHUB_HEAD_REF", "feature/x")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = report(&dir.path().join("r.json"));
    assert_eq!(
        r["totals"]["cache_hits"], 4,
        "a restored plan counts as cached"
    );
    assert_eq!(r["totals"]["llm_calls"], 0);
    assert_eq!(committed(dir.path(), "sign-in"), sign_in, "restored");
    assert_eq!(
        committed(dir.path(), "archive-project"),
        archive,
        "restored"
    );
    assert_eq!(committed(dir.path(), "search-projects"), local_search);
    assert_eq!(committed(dir.path(), "create-project"), local_create);
    // The replaced local plan is kept as evidence.
    let stale: Vec<_> = std::fs::read_dir(dir.path().join("e2e/.windup/cache/stale"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(stale.len(), 1, "{stale:?}");
    assert!(stale[0].starts_with("archive-project-"));
    // Restored plans were not newly verified: nothing is saved back.
    assert!(fake.requests_to("PUT", "/api/v1/cache/").is_empty());
    let sign_in_get = &fake.requests_to("GET", "/api/v1/cache/sign-in")[0];
    assert_eq!(sign_in_get.query("start_url"), Some("/login.html"));
    assert_eq!(
        sign_in_get.query("scenario_sha"),
        sign_in["key"]["scenario_sha"].as_str()
    );
    assert_no_token(&[&out]);
}

#[test]
fn a_plan_verified_in_a_run_is_saved_to_the_dashboard_under_the_run_branch() {
    use windup_testkit::fake_dashboard::FakeDashboard;
    use windup_testkit::fake_llm::{FakeLlm, Reply};
    let dir = example();
    let entry = committed(dir.path(), "sign-in");
    std::fs::remove_file(dir.path().join("e2e/.windup/cache/sign-in.json")).unwrap();
    let llm = FakeLlm::start();
    llm.push(Reply::Json(
        serde_json::json!({"actions": entry["plan"]["actions"], "complete": true}),
    ));
    with_fake_provider(dir.path(), &llm);
    let fake = FakeDashboard::start(DASH_TOKEN);
    with_dashboard(dir.path(), &fake.url());
    let (_server, base) = serve(dir.path());
    let out = windup_dash(
        dir.path(),
        &["run", "sign-in", "archive-project", "--base-url", &base],
        &[("GITHUB_REF_NAME", "feature/login")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(llm.requests().len(), 1, "planned once");
    let puts = fake.requests_to("PUT", "/api/v1/cache/");
    assert_eq!(puts.len(), 1, "only the newly verified plan");
    assert_eq!(puts[0].path, "/api/v1/cache/sign-in");
    assert_eq!(puts[0].query("branch"), Some("feature/login"));
    let saved = committed(dir.path(), "sign-in");
    assert_eq!(puts[0].json(), saved);
    assert_eq!(puts[0].query("reason"), None, "it replaced no failed plan");
    assert_eq!(fake.plan("sign-in", "feature/login"), Some(saved));

    // The cached plan breaks: its replay fails, the re-planned one is saved with the reason.
    let path = dir.path().join("e2e/.windup/cache/sign-in.json");
    let mut broken: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    broken["plan"]["actions"][0]["target"]["selector"] = "css=#no-such-field".into();
    std::fs::write(&path, serde_json::to_string_pretty(&broken).unwrap()).unwrap();
    llm.push(Reply::Json(
        serde_json::json!({"actions": entry["plan"]["actions"], "complete": true}),
    ));
    let out = windup_dash(
        dir.path(),
        &["run", "sign-in", "--base-url", &base, "--no-push"],
        &[("GITHUB_REF_NAME", "feature/login")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let puts = fake.requests_to("PUT", "/api/v1/cache/");
    assert_eq!(puts.len(), 2);
    let reason = puts[1].query("reason").expect("a reason");
    assert!(
        reason.starts_with("the cached plan failed at a1 (selector_not_found"),
        "{reason}"
    );

    // A branch the token may not write: a warning, the same verdict.
    std::fs::remove_file(dir.path().join("e2e/.windup/cache/sign-in.json")).unwrap();
    llm.push(Reply::Json(
        serde_json::json!({"actions": entry["plan"]["actions"], "complete": true}),
    ));
    fake.read_only("main");
    let out = windup_dash(
        dir.path(),
        &["run", "sign-in", "--base-url", &base, "--no-push"],
        &[("GITHUB_REF_NAME", "main")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("the plan of sign-in is not saved to the dashboard")
            && stderr(&out).contains("HTTP 403"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        fake.requests_to("POST", "/api/v1/runs").len(),
        1,
        "--no-push"
    );
    assert_no_token(&[&out]);
}

/// A real dashboard (`windup-dashboard`'s library on real SQLite, served on 127.0.0.1) that the
/// real runner filled: project `acme` with three runs on `feature/login` (planned, re-planned
/// after a broken replay, replayed) and the stale plan the broken replay left.
struct SeededDashboard {
    url: String,
    store: std::sync::Arc<dyn windup_dashboard::store::Store>,
    rt: tokio::runtime::Runtime,
    _db: tempfile::TempDir,
}

/// The runner against the real dashboard, not a fake: runs arrive, a plan planned on a branch is
/// saved there, a failed replay's reason reaches the stale entry, and another checkout restores
/// the plan and replays it with no LLM call. Asserts each of those on the way.
fn seed_dashboard_through_the_runner() -> SeededDashboard {
    use windup_dashboard::{AppState, Config, admin, store};
    use windup_testkit::fake_llm::{FakeLlm, Reply};
    let dir = example();
    let db = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (url, token, st, project) = rt.block_on(async {
        let st = store::open(db.path().join("dashboard.db").to_str().unwrap())
            .await
            .unwrap();
        let project = admin::create_project(&*st, "acme", Some("main"))
            .await
            .unwrap();
        let scopes = ["ingest", "cache:read", "cache:write"].map(String::from);
        let token = admin::create_token(&*st, &project, &scopes, None)
            .await
            .unwrap()
            .token;
        admin::create_user(&*st, DASHBOARD_EMAIL, DASHBOARD_PASSWORD)
            .await
            .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let config = Config {
            public_url: url.clone(),
            secure_cookies: false,
            github: None,
        };
        tokio::spawn(windup_dashboard::launch(
            listener,
            AppState::new(st.clone(), config),
        ));
        (url, token, st, project)
    });
    let entry = committed(dir.path(), "sign-in");
    let llm = FakeLlm::start();
    with_fake_provider(dir.path(), &llm);
    with_dashboard(dir.path(), &url);
    let (_server, base) = serve(dir.path());
    let branch = [
        ("GITHUB_REF_NAME", "feature/login"),
        ("GITHUB_SHA", "4f2c1d0e9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e"),
    ];
    let run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--base-url", &base]);
        let out = windup_dash_token(dir.path(), &all, &branch, &token);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        out
    };
    let answer =
        |actions: &Value| Reply::Json(serde_json::json!({"actions": actions, "complete": true}));

    // Planned on the branch: saved there.
    let cache_file = dir.path().join("e2e/.windup/cache/sign-in.json");
    std::fs::remove_file(&cache_file).unwrap();
    llm.push(answer(&entry["plan"]["actions"]));
    run(&["run", "sign-in"]);
    let sha = entry["key"]["scenario_sha"].as_str().unwrap().to_string();
    let start = entry["key"]["start_url"].as_str().unwrap().to_string();
    let on_dashboard = |branch: &'static str| {
        let got = rt
            .block_on(st.cache_get(project.id, "sign-in", &start, &sha, branch))
            .unwrap();
        got.map(|row| serde_json::from_str::<Value>(&row.entry_json).unwrap())
    };
    assert_eq!(
        on_dashboard("feature/login"),
        Some(committed(dir.path(), "sign-in"))
    );
    assert_eq!(on_dashboard("main"), None, "never written to main");

    // The app changes ("Email" becomes "Work email"): the replay fails, the re-planned plan
    // replaces it on the dashboard, with the reason.
    let login = dir.path().join("app/login.html");
    let page = std::fs::read_to_string(&login).unwrap();
    let relabelled = page.replace(">Email</label>", ">Work email</label>");
    assert_ne!(page, relabelled);
    std::fs::write(&login, relabelled).unwrap();
    let mut healed = entry["plan"]["actions"].clone();
    healed[0]["target"]["selector"] = "label=\"Work email\"".into();
    llm.push(answer(&healed));
    run(&["run", "sign-in"]);
    assert_eq!(llm.requests().len(), 2);
    let stale = rt.block_on(st.stale_entries(project.id, 10)).unwrap();
    assert_eq!(stale.len(), 1);
    assert!(
        stale[0]
            .stale_reason
            .starts_with("the cached plan failed at a1 (selector_not_found"),
        "{}",
        stale[0].stale_reason
    );

    // A fresh checkout of the branch without the plan restores it and replays it: 0 calls.
    std::fs::remove_file(&cache_file).unwrap();
    let out = run(&["run", "sign-in", "--require-cached"]);
    assert_eq!(llm.requests().len(), 2, "no LLM call: {}", stderr(&out));
    assert_eq!(
        Some(committed(dir.path(), "sign-in")),
        on_dashboard("feature/login")
    );
    let runs = rt
        .block_on(st.runs(
            project.id,
            &windup_dashboard::store::RunFilter {
                limit: 50,
                ..Default::default()
            },
        ))
        .unwrap();
    assert_eq!(runs.len(), 3, "every run arrived once");
    SeededDashboard {
        url,
        store: st,
        rt,
        _db: db,
    }
}

const DASHBOARD_EMAIL: &str = "owner@windup.test";
const DASHBOARD_PASSWORD: &str = "a long dashboard passphrase 7";

#[test]
fn the_runner_and_the_real_dashboard_share_runs_plans_and_stale_reasons() {
    let seeded = seed_dashboard_through_the_runner();
    let stale = seeded.rt.block_on(async {
        let project = seeded.store.project("acme").await.unwrap().unwrap();
        seeded.store.stale_entries(project.id, 10).await.unwrap()
    });
    assert_eq!(stale.len(), 1, "exactly the one broken plan is stale");
}

/// Windup tests its own dashboard: the committed scenarios and plans of `dashboard/` replay in
/// headless Chromium against the dashboard the runner filled, through sign-in, the overview, a
/// run and a stale plan's diff, each step checked on the rendered page. Every scenario's last
/// page is kept as a PNG under `target/dashboard-e2e/` for people to look at.
#[test]
fn windup_drives_the_dashboard_through_sign_in_overview_run_and_stale_diff() {
    let seeded = seed_dashboard_through_the_runner();
    let dir = tempfile::tempdir().unwrap();
    let project = repo_root().join("dashboard");
    std::fs::copy(project.join("windup.toml"), dir.path().join("windup.toml")).unwrap();
    copy_dir(&project.join("e2e"), &dir.path().join("e2e"));
    let _ = std::fs::remove_dir_all(dir.path().join("e2e/.windup/runs"));
    let out = Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(dir.path())
        .args(["run", "--require-cached", "--report", "json=report.json"])
        .args(["--base-url", &seeded.url])
        .env_remove("WINDUP_DASHBOARD_URL")
        .env("WINDUP_DASHBOARD_EMAIL", DASHBOARD_EMAIL)
        .env("WINDUP_DASHBOARD_PASSWORD", DASHBOARD_PASSWORD)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{text}");
    let run = report(&dir.path().join("report.json"));
    let scenarios = run["scenarios"].as_array().unwrap();
    let ids: Vec<&str> = scenarios
        .iter()
        .map(|s| s["scenario_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["overview", "run-detail", "sign-in", "stale-diff"]);
    let shots = repo_root().join("target/dashboard-e2e");
    std::fs::create_dir_all(&shots).unwrap();
    for s in scenarios {
        let id = s["scenario_id"].as_str().unwrap();
        assert_eq!(s["status"], "passed", "{id}: {s}");
        assert_eq!(s["cache"], "hit", "{id} replays its committed plan");
        assert_eq!(s["llm_calls"], 0, "{id}");
        let rel = s["screenshot"]
            .as_str()
            .expect("screenshots = \"on\" keeps the last page");
        let png = std::fs::read(dir.path().join(rel)).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{id}: a PNG");
        std::fs::write(shots.join(format!("{id}.png")), &png).unwrap();
    }
    // The password went through value_ref; it is in no file the run wrote, nor its output.
    for (path, content) in tree(dir.path()) {
        let content = String::from_utf8_lossy(&content);
        assert!(
            !content.contains(DASHBOARD_PASSWORD),
            "in {}",
            path.display()
        );
    }
    assert!(!text.contains(DASHBOARD_PASSWORD));
}
