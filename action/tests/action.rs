//! The Action's entrypoint end to end, as GitHub runs it: the `windup-action` binary with
//! `INPUT_*` variables, a `pull_request` event file, temp `GITHUB_STEP_SUMMARY` and
//! `GITHUB_OUTPUT` files, the bundled example app on loopback, real Chromium and the committed
//! plans. No LLM: planning is off or refused. A fake GitHub API on loopback takes the comment.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use windup_action::inputs::{INPUTS, Inputs, env_name};
use windup_testkit::fake_dashboard::{FakeDashboard, closed_port_url};
use windup_testkit::{Server, repo_root};

// Further tests of this binary live in `action/` (`#[path]`: a crate root's modules would
// otherwise sit beside it, where cargo would take each for a test binary of its own).
#[path = "action/comment_author.rs"]
mod comment_author;
#[path = "action/fork.rs"]
mod fork;
#[path = "action/secrets.rs"]
mod secrets;
#[path = "action/untrusted.rs"]
mod untrusted;

/// A simulated workflow run: a workspace holding the example project under `acme/`.
struct Workflow {
    dir: tempfile::TempDir,
    env: BTreeMap<String, String>,
}

const HEAD_SHA: &str = "0123456789abcdef0123456789abcdef01234567";

impl Workflow {
    fn new() -> Workflow {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&repo_root().join("examples/acme"), &dir.path().join("acme"));
        let ws = dir.path().display().to_string();
        let mut env = BTreeMap::new();
        for (k, v) in [
            ("GITHUB_ACTIONS", "true".to_string()),
            ("GITHUB_WORKSPACE", ws.clone()),
            ("GITHUB_REPOSITORY", "acme/app".into()),
            ("GITHUB_RUN_ID", "4242".into()),
            ("GITHUB_JOB", "e2e".into()),
            (
                "GITHUB_SHA",
                "fedcba9876543210fedcba9876543210fedcba98".into(),
            ),
            ("GITHUB_REF", "refs/pull/7/merge".into()),
            ("GITHUB_EVENT_NAME", "pull_request".into()),
            ("GITHUB_EVENT_PATH", format!("{ws}/event.json")),
            ("GITHUB_STEP_SUMMARY", format!("{ws}/summary.md")),
            ("GITHUB_OUTPUT", format!("{ws}/output.txt")),
            ("INPUT_WORKING-DIRECTORY", "acme".into()),
            ("ACME_ADMIN_EMAIL", "admin@acme.test".into()),
            ("ACME_ADMIN_PASSWORD", "correct horse battery staple".into()),
        ] {
            env.insert(k.to_string(), v);
        }
        let w = Workflow { dir, env };
        w.event("acme/app");
        w
    }

    /// A `pull_request` event whose head lives in `head_repo` (another repository: a fork).
    fn event(&self, head_repo: &str) {
        let event = json!({
            "action": "synchronize",
            "number": 7,
            "pull_request": {
                "number": 7,
                "head": {"sha": HEAD_SHA, "ref": "feature/x", "repo": {"full_name": head_repo}},
                "base": {"sha": "1111111111111111111111111111111111111111", "ref": "main", "repo": {"full_name": "acme/app"}}
            },
            "repository": {"full_name": "acme/app"}
        });
        std::fs::write(self.path("event.json"), event.to_string()).unwrap();
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn input(&mut self, name: &str, value: &str) -> &mut Self {
        self.env.insert(env_name(name), value.to_string());
        self
    }

    /// Runs the entrypoint; the summary and output files start empty each time.
    fn run(&self) -> Output {
        self.command().output().expect("run windup-action")
    }

    /// The entrypoint as GitHub starts it, with empty summary and output files.
    fn command(&self) -> Command {
        let _ = std::fs::remove_file(self.path("summary.md"));
        let _ = std::fs::remove_file(self.path("output.txt"));
        let mut cmd = Command::new(entrypoint());
        for (k, _) in std::env::vars() {
            if k.starts_with("INPUT_") || k.starts_with("GITHUB_") || k.starts_with("WINDUP_") {
                cmd.env_remove(k);
            }
        }
        cmd.current_dir(self.dir.path()).envs(&self.env);
        cmd
    }

    fn summary(&self) -> String {
        std::fs::read_to_string(self.path("summary.md")).unwrap_or_default()
    }

    /// `$GITHUB_OUTPUT` parsed from its `name<<DELIMITER` blocks.
    fn outputs(&self) -> BTreeMap<String, String> {
        let text = std::fs::read_to_string(self.path("output.txt")).unwrap();
        let mut out = BTreeMap::new();
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            let (name, delimiter) = line.split_once("<<").expect("multi-line form");
            let mut value = Vec::new();
            for l in lines.by_ref() {
                if l == delimiter {
                    break;
                }
                value.push(l);
            }
            out.insert(name.to_string(), value.join("\n"));
        }
        out
    }
}

/// The image's runtime layout without Docker (`scripts/action-runtime.sh`), around the binary
/// cargo built for this test; one per test process.
fn entrypoint() -> &'static Path {
    static ENTRYPOINT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ENTRYPOINT.get_or_init(|| {
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_windup-action"));
        let out = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("action-runtime-{}", std::process::id()));
        let run = Command::new("bash")
            .arg(repo_root().join("scripts/action-runtime.sh"))
            .arg("--prebuilt")
            .arg(bin.parent().unwrap())
            .arg(&out)
            .output()
            .expect("run scripts/action-runtime.sh");
        assert!(run.status.success(), "{}", stdout(&run));
        let text = String::from_utf8_lossy(&run.stdout).to_string();
        text.lines()
            .find_map(|l| l.strip_prefix("ENTRYPOINT="))
            .map(PathBuf::from)
            .unwrap_or_else(|| panic!("no ENTRYPOINT= in {text}"))
    })
}

fn stdout(o: &Output) -> String {
    format!(
        "{}\n--- stderr ---\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
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

#[test]
fn a_green_run_writes_outputs_summary_reports_and_exits_0() {
    let mut w = Workflow::new();
    let app = Server::start(&w.path("acme/app"));
    w.input("base-url", app.base.as_str())
        .input("scenarios", "sign-in search-*")
        .input("parallel", "2");
    let out = w.run();
    let log = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{log}");
    assert!(!log.contains("::error"), "{log}");
    let o = w.outputs();
    assert_eq!(o["passed"], "2", "{o:?}");
    assert_eq!(o["failed"], "0");
    assert_eq!(o["flaky"], "0");
    assert_eq!(o["llm-calls"], "0");
    assert_eq!(o["cost-usd"], "0.000000");
    assert_eq!(o["cache-hits"], "2");
    assert_eq!(o["replanned"], "0");
    assert_eq!(o["report-json"], "acme/windup-report/report.json");
    assert_eq!(o["report-junit"], "acme/windup-report/junit.xml");
    assert_eq!(o["report-html"], "acme/windup-report/report.html");
    for rel in [&o["report-junit"], &o["report-html"]] {
        assert!(w.path(rel).is_file(), "{rel}");
    }
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(w.path(&o["report-json"])).unwrap()).unwrap();
    assert_eq!(
        report["git"]["commit"], HEAD_SHA,
        "the PR's head, not the merge"
    );
    assert_eq!(report["git"]["branch"], "feature/x");
    assert_eq!(report["ci"]["workflow_run"], "4242");
    let summary = w.summary();
    assert!(
        summary.contains("**2 passed, 0 failed · 0 LLM calls · $0.0000 · 2 cache hits"),
        "{summary}"
    );
    assert!(
        summary.contains("| scenario | status | plan | LLM calls | cost | time |"),
        "{summary}"
    );
    assert!(
        summary.contains("| `sign-in` | ✅ passed | cached | 0 | $0.0000 |"),
        "{summary}"
    );
    assert!(summary.contains("| `search-projects` | ✅ passed | cached |"));
    assert!(!summary.contains("create-project"), "not selected");
    assert!(summary.contains("[workflow run](https://github.com/acme/app/actions/runs/4242)"));
}

/// A renamed button heals in CI, and says so: a `::warning` on the scenario file naming the
/// step diff and what to commit (the heal is paid again on every run until then); with
/// `heal: false` the same run fails.
#[test]
fn a_heal_is_a_warning_on_its_scenario_file_naming_the_step_diff() {
    let mut w = Workflow::new();
    // A model's plan (a person's would be proposed, not replaced).
    let cache = w.path("acme/e2e/.windup/cache/archive-project.json");
    let mut entry: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    entry["plan"]["generated_by"] = "openai/gpt-4.1-mini".into();
    std::fs::write(&cache, entry.to_string()).unwrap();
    let projects = w.path("acme/app/projects.html");
    let page = std::fs::read_to_string(&projects).unwrap();
    assert!(page.contains("'Archive'"));
    std::fs::write(
        &projects,
        page.replacen("'Archive'", "'Move to archive'", 1),
    )
    .unwrap();
    let app = Server::start(&w.path("acme/app"));
    w.input("base-url", app.base.as_str())
        .input("scenarios", "archive-project")
        .input("heal", "false");
    let out = w.run();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    w.input("heal", "true");
    let out = w.run();
    let log = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{log}");
    let warning = log
        .lines()
        .find(|l| {
            l.starts_with(
                "::warning file=acme/e2e/scenarios/archive-project.yaml,title=healed without an LLM%3A archive-project::",
            )
        })
        .unwrap_or_else(|| panic!("no heal warning in:\n{log}"));
    assert!(
        warning.contains("a4: ")
            && warning.contains("role=button[name=\"Move to archive\"] (renamed)")
            && warning
                .contains("commit the healed plan, acme/e2e/.windup/cache/archive-project.json"),
        "{warning}"
    );
}

#[test]
fn a_failure_is_annotated_on_its_scenario_file_and_exits_1() {
    let mut w = Workflow::new();
    let login = w.path("acme/app/login.html");
    let page = std::fs::read_to_string(&login).unwrap();
    std::fs::write(
        &login,
        page.replace(">Sign in</button>", ">Log in, 100%</button>"),
    )
    .unwrap();
    let app = Server::start(&w.path("acme/app"));
    w.input("base-url", app.base.as_str())
        .input("scenarios", "@smoke")
        .input("summary", "true");
    let out = w.run();
    let log = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{log}");
    let annotation = log
        .lines()
        .find(|l| l.starts_with("::error file=acme/e2e/scenarios/sign-in.yaml,title="))
        .unwrap_or_else(|| panic!("no annotation in:\n{log}"));
    // The one reason line: class and step as the title, then the scenario and one sentence;
    // the evidence, triage and advice on lines of their own, the message never repeated.
    let (title, message) = annotation.split_once("::sign-in: ").unwrap();
    assert!(
        title.ends_with(",title=selector_not_found at a3"),
        "{annotation}"
    );
    let (sentence, rest) = message.split_once("%0A").unwrap_or((message, ""));
    assert!(
        sentence.contains("nearest names: \"Log in, 100%25\""),
        "the page's text is escaped: {annotation}"
    );
    assert!(!rest.contains(sentence), "{annotation}");
    assert!(rest.contains("screenshot: "), "{annotation}");
    assert!(!annotation.contains('\n'));
    let o = w.outputs();
    assert_eq!((o["passed"].as_str(), o["failed"].as_str()), ("0", "1"));
    let summary = w.summary();
    assert!(summary.contains("### ❌ Windup"), "{summary}");
    assert!(summary.contains("| `sign-in` | ❌ failed |"), "{summary}");
    assert!(
        summary.contains("- `sign-in` (acme/e2e/scenarios/sign-in.yaml): **"),
        "{summary}"
    );
    assert!(
        summary.contains("**Stale plans**") && summary.contains("- `sign-in`: not re-planned"),
        "{summary}"
    );
}

#[test]
fn bad_inputs_exit_2_naming_the_input_and_the_fix() {
    let cases: &[(&str, &str, &str)] = &[
        ("shard", "4/3", "bad input `shard`"),
        ("budget-usd", "lots", "bad input `budget-usd`"),
        ("require-cached", "yes please", "bad input `require-cached`"),
        ("scenarios", "nope-*", "bad input `scenarios`"),
        (
            "working-directory",
            "missing",
            "bad input `working-directory`",
        ),
        ("model", "gpt-4.1", "bad input `model`"),
        ("trace", "always", "bad input `trace`"),
        (
            "start-command",
            "python3 -m http.server",
            "bad input `wait-for`",
        ),
    ];
    for (input, value, expected) in cases {
        let mut w = Workflow::new();
        w.input(input, value);
        let out = w.run();
        let log = stdout(&out);
        assert_eq!(out.status.code(), Some(2), "{input}: {log}");
        let line = log
            .lines()
            .find(|l| l.starts_with("::error "))
            .unwrap_or_else(|| panic!("{input}: no ::error in {log}"));
        assert!(line.contains(expected), "{input}: {line}");
        assert!(line.contains("fix: "), "{input}: {line}");
        assert!(
            !w.path("output.txt").exists(),
            "{input}: nothing is written"
        );
    }
    // The engine's own input problems name their file.
    let w = Workflow::new();
    std::fs::write(w.path("acme/windup.toml"), "base_ulr = 1\n").unwrap();
    let out = w.run();
    let log = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{log}");
    assert!(
        log.contains("::error file=acme/windup.toml,title=windup%3A bad input::"),
        "{log}"
    );
}

#[test]
fn start_command_serves_the_app_in_the_container_and_is_stopped_after() {
    let port = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/");
    let mut w = Workflow::new();
    w.input(
        "start-command",
        &format!("cd app && exec python3 -m http.server {port} --bind 127.0.0.1"),
    )
    .input("wait-for", &format!("{url}login.html"))
    .input("base-url", &url)
    .input("scenarios", "sign-in");
    let out = w.run();
    let log = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{log}");
    assert!(log.contains("Starting the app"), "{log}");
    assert_eq!(w.outputs()["passed"], "1");
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the app is stopped when the run ends"
    );
}

#[test]
fn without_a_provider_key_a_fork_runs_cached_plans_only_and_says_so() {
    let mut w = Workflow::new();
    w.event("someone/app-fork");
    let toml = w.path("acme/windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(
        &toml,
        format!(
            "{text}\n[providers.openai]\nkind = \"openai\"\nmodel = \"gpt-4.1-mini\"\napi_key_env = \"WINDUP_TEST_OPENAI_KEY\"\nbase_url = \"http://127.0.0.1:9/v1\"\n"
        ),
    )
    .unwrap();
    std::fs::remove_file(w.path("acme/e2e/.windup/cache/create-project.json")).unwrap();
    let app = Server::start(&w.path("acme/app"));
    w.input("base-url", app.base.as_str())
        .input("provider-base-urls", "http://127.0.0.1:9/v1")
        .input("scenarios", "sign-in,create-project");
    let out = w.run();
    let log = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{log}");
    assert!(
        log.contains("::warning title=windup%3A planning is off::"),
        "{log}"
    );
    assert!(
        log.contains(
            "::error file=acme/e2e/scenarios/create-project.yaml,title=not_cached::create-project"
        ),
        "{log}"
    );
    let o = w.outputs();
    assert_eq!(
        (
            o["passed"].as_str(),
            o["failed"].as_str(),
            o["llm-calls"].as_str()
        ),
        ("1", "1", "0")
    );
    let summary = w.summary();
    assert!(summary.contains("Planning was off"), "{summary}");
    assert!(summary.contains("`WINDUP_TEST_OPENAI_KEY`"), "{summary}");
    assert!(summary.contains("a pull request from a fork"), "{summary}");
    assert!(summary.contains("**not_cached**"), "{summary}");

    // With the key (a pull request from the repository itself), planning is on and the budget
    // gates it: a tiny budget stops planning before any call is made.
    w.event("acme/app");
    w.env
        .insert("WINDUP_TEST_OPENAI_KEY".into(), "sk-test-not-used".into());
    w.input("budget-usd", "0.000001");
    let out = w.run();
    let log = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{log}");
    assert!(!log.contains("planning is off"), "{log}");
    assert!(
        log.contains("::error file=acme/e2e/scenarios/create-project.yaml,title=budget_exceeded::"),
        "{log}"
    );
    assert_eq!(w.outputs()["llm-calls"], "0");
    assert!(!w.summary().contains("Planning was off"));
}

#[test]
fn three_shards_of_one_workflow_run_cover_every_scenario_once() {
    let dashboard = RealDashboard::start(None);
    let mut w = Workflow::new();
    let app = Server::start(&w.path("acme/app"));
    // A glob names the scenarios, so the shard splits named scenarios too.
    w.input("base-url", app.base.as_str())
        .input("scenarios", "*")
        .input("dashboard-url", &dashboard.url)
        .input("dashboard-token", &dashboard.token);
    let mut seen = Vec::new();
    for i in 1..=3 {
        w.input("shard", &format!("{i}/3"))
            .input("reports", &format!("json=shard-{i}.json"));
        let out = w.run();
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
        let o = w.outputs();
        assert_eq!(o["report-json"], format!("acme/shard-{i}.json"));
        let report: Value =
            serde_json::from_str(&std::fs::read_to_string(w.path(&o["report-json"])).unwrap())
                .unwrap();
        assert_eq!(report["ci"]["shard"], format!("{i}/3"));
        assert_eq!(
            report["ci"]["workflow_run"], "4242",
            "one run for the dashboard"
        );
        for s in report["scenarios"].as_array().unwrap() {
            seen.push(s["scenario_id"].as_str().unwrap().to_string());
        }
        if report["scenarios"].as_array().unwrap().is_empty() {
            assert!(w.summary().contains("No scenario ran"), "{}", w.summary());
        } else {
            assert!(w.summary().contains(&format!("Windup (shard {i}/3)")));
        }
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "archive-project",
            "create-project",
            "search-projects",
            "sign-in"
        ],
        "every scenario exactly once"
    );
    // On the real dashboard: three runs of workflow run 4242, one per shard, which its pages
    // group as one (`web/runs.rs`, `runs_of_one_workflow_run_are_grouped`).
    let runs = dashboard.runs();
    assert_eq!(runs.len(), 3, "{runs:?}");
    assert!(
        runs.iter()
            .all(|r| r.workflow_run.as_deref() == Some("4242")),
        "{runs:?}"
    );
    let mut shards: Vec<_> = runs.iter().filter_map(|r| r.shard.clone()).collect();
    shards.sort();
    assert_eq!(shards, ["1/3", "2/3", "3/3"]);
    assert_eq!(runs.iter().map(|r| r.scenarios).sum::<i64>(), 4);
}

/// A fake GitHub REST API: the comments of issue 7 of acme/app, in memory, and who each token
/// is: `ghs_…` an installation token (`GET /user` answers 403, its comments are
/// `github-actions[bot]`'s, as with `GITHUB_TOKEN`), `ghp_LOGIN` the personal token of LOGIN.
struct FakeGitHub {
    base: String,
    comments: Arc<Mutex<Vec<Value>>>,
    requests: Arc<Mutex<Vec<String>>>,
    fail: Arc<Mutex<bool>>,
}

impl FakeGitHub {
    fn start() -> FakeGitHub {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let comments: Arc<Mutex<Vec<Value>>> = Arc::default();
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let fail: Arc<Mutex<bool>> = Arc::default();
        let (c, r, f, b) = (
            comments.clone(),
            requests.clone(),
            fail.clone(),
            base.clone(),
        );
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { break };
                let (c, r, f, b) = (c.clone(), r.clone(), f.clone(), b.clone());
                std::thread::spawn(move || serve_github(stream, &b, &c, &r, &f));
            }
        });
        FakeGitHub {
            base,
            comments,
            requests,
            fail,
        }
    }
}

/// A comment by `github-actions[bot]`.
fn comment_json(base: &str, id: u64, body: &str) -> Value {
    comment_by(base, id, body, "github-actions[bot]")
}

fn comment_by(base: &str, id: u64, body: &str, login: &str) -> Value {
    let u = |p: &str| format!("{base}/{p}");
    json!({
        "id": id, "node_id": format!("IC_{id}"),
        "url": u(&format!("repos/acme/app/issues/comments/{id}")),
        "html_url": u(&format!("acme/app/pull/7#issuecomment-{id}")),
        "body": body,
        "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z",
        "user": user_json(base, login)
    })
}

/// A user as GitHub's REST API spells one.
fn user_json(base: &str, login: &str) -> Value {
    let u = |p: &str| format!("{base}/{p}");
    let bot = login.ends_with("[bot]");
    json!({
        "login": login, "id": if bot { 41898282 } else { 1000 + login.len() as u64 },
        "node_id": format!("U_{login}"),
        "avatar_url": u("a"), "gravatar_id": "", "url": u("u"), "html_url": u("h"),
        "followers_url": u("f"), "following_url": u("g"), "gists_url": u("g"),
        "starred_url": u("s"), "subscriptions_url": u("s"), "organizations_url": u("o"),
        "repos_url": u("r"), "events_url": u("e"), "received_events_url": u("e"),
        "type": if bot { "Bot" } else { "User" }, "site_admin": false
    })
}

/// Whom a token of the fake belongs to: `None` for an installation token (`ghs_…`).
fn login_of(token: &str) -> Option<&str> {
    token.strip_prefix("ghp_")
}

fn serve_github(
    stream: std::net::TcpStream,
    base: &str,
    comments: &Mutex<Vec<Value>>,
    requests: &Mutex<Vec<String>>,
    fail: &Mutex<bool>,
) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut stream = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (
            parts.next().unwrap_or("").to_string(),
            parts.next().unwrap_or("").to_string(),
        );
        let mut length = 0;
        let mut token = String::new();
        loop {
            let mut h = String::new();
            reader.read_line(&mut h).unwrap();
            if h == "\r\n" || h.is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse().unwrap();
                } else if k.eq_ignore_ascii_case("authorization") {
                    let v = v.trim();
                    token = v.strip_prefix("Bearer ").unwrap_or(v).to_string();
                }
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body).unwrap();
        let path = target.split('?').next().unwrap_or("").to_string();
        requests.lock().unwrap().push(format!("{method} {path}"));
        let sent: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let (status, answer) = if *fail.lock().unwrap() {
            (500, json!({"message": "Server Error"}))
        } else {
            let mut comments = comments.lock().unwrap();
            match (method.as_str(), path.as_str()) {
                ("GET", "/user") => match login_of(&token) {
                    Some(login) => (200, user_json(base, login)),
                    None => (
                        403,
                        json!({"message": "Resource not accessible by integration", "status": "403"}),
                    ),
                },
                ("GET", "/repos/acme/app/issues/7/comments") => {
                    (200, Value::Array(comments.clone()))
                }
                ("POST", "/repos/acme/app/issues/7/comments") => {
                    let c = comment_by(
                        base,
                        100 + comments.len() as u64,
                        sent["body"].as_str().unwrap(),
                        login_of(&token).unwrap_or("github-actions[bot]"),
                    );
                    comments.push(c.clone());
                    (201, c)
                }
                ("PATCH" | "POST", p) if p.starts_with("/repos/acme/app/issues/comments/") => {
                    let id: u64 = p.rsplit('/').next().unwrap().parse().unwrap();
                    match comments.iter_mut().find(|c| c["id"] == id) {
                        Some(c) => {
                            c["body"] = sent["body"].clone();
                            (200, c.clone())
                        }
                        None => (404, json!({"message": "Not Found"})),
                    }
                }
                _ => (404, json!({"message": "Not Found"})),
            }
        };
        let text = answer.to_string();
        let reply = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{text}",
            text.len()
        );
        if stream.write_all(reply.as_bytes()).is_err() {
            return;
        }
    }
}

#[test]
fn the_sticky_comment_is_created_then_updated_and_a_github_outage_is_a_warning() {
    let github = FakeGitHub::start();
    let mut w = Workflow::new();
    let app = Server::start(&w.path("acme/app"));
    w.input("base-url", app.base.as_str())
        .input("scenarios", "sign-in")
        .input("comment", "true");
    w.env.insert("GITHUB_API_URL".into(), github.base.clone());
    w.env.insert("GITHUB_TOKEN".into(), "ghs_test".into());
    // An unrelated comment is left alone.
    github
        .comments
        .lock()
        .unwrap()
        .push(comment_json(&github.base, 1, "LGTM"));

    let first = w.run();
    assert_eq!(first.status.code(), Some(0), "{}", stdout(&first));
    let second = w.run();
    assert_eq!(second.status.code(), Some(0), "{}", stdout(&second));
    {
        let comments = github.comments.lock().unwrap();
        assert_eq!(comments.len(), 2, "one sticky comment besides the other");
        let body = comments[1]["body"].as_str().unwrap();
        assert!(body.starts_with("<!-- windup -->\n"), "{body}");
        assert!(
            body.contains("| `sign-in` | ✅ passed | cached |"),
            "{body}"
        );
        assert_eq!(comments[0]["body"], "LGTM");
    }
    let requests = github.requests.lock().unwrap().clone();
    assert_eq!(
        requests
            .iter()
            .filter(|r| r.starts_with("POST /repos/acme/app/issues/7/comments"))
            .count(),
        1,
        "{requests:?}"
    );
    assert!(
        requests.contains(&"PATCH /repos/acme/app/issues/comments/101".to_string()),
        "{requests:?}"
    );

    *github.fail.lock().unwrap() = true;
    let third = w.run();
    let log = stdout(&third);
    assert_eq!(third.status.code(), Some(0), "the verdict stands: {log}");
    assert!(
        log.contains("::warning title=windup::no pull request comment: could not find whom the token belongs to (GET /user): GitHub answered 500"),
        "{log}"
    );
}

#[test]
fn runs_go_to_the_dashboard_and_an_outage_is_a_warning_that_loses_nothing() {
    let dashboard = FakeDashboard::start("dash-token");
    let github = FakeGitHub::start();
    let mut w = Workflow::new();
    let app = Server::start(&w.path("acme/app"));
    w.input("base-url", app.base.as_str())
        .input("scenarios", "sign-in")
        .input("comment", "true")
        .input("dashboard-token", "dash-token");
    w.env.insert("GITHUB_API_URL".into(), github.base.clone());
    w.env.insert("GITHUB_TOKEN".into(), "ghs_test".into());

    // The dashboard is down: same verdict, a warning, the run waits in the spool.
    w.input("dashboard-url", &closed_port_url());
    let down = w.run();
    let log = stdout(&down);
    assert_eq!(down.status.code(), Some(0), "{log}");
    assert!(
        log.lines()
            .any(|l| l.starts_with("::warning title=windup::") && l.contains("spool")),
        "{log}"
    );
    assert!(!log.contains("::error"), "{log}");
    assert_eq!(w.outputs()["passed"], "1");
    let spool = w.path("acme/e2e/.windup/spool");
    assert_eq!(
        std::fs::read_dir(&spool).unwrap().count(),
        1,
        "one spooled run"
    );

    // It is back: this run and the spooled one arrive; the dashboard, not the Action, comments.
    w.input("dashboard-url", &dashboard.url());
    let up = w.run();
    let log = stdout(&up);
    assert_eq!(up.status.code(), Some(0), "{log}");
    assert_eq!(dashboard.runs().len(), 2, "nothing lost: {log}");
    assert_eq!(std::fs::read_dir(&spool).unwrap().count(), 0);
    assert!(w.summary().contains("[dashboard run]("), "{}", w.summary());
    assert!(
        log.contains("the dashboard posts the pull request comment"),
        "{log}"
    );
    assert!(github.requests.lock().unwrap().is_empty());
    assert!(!log.contains("dash-token"), "the token is never printed");
}

#[test]
fn action_yml_declares_exactly_the_inputs_the_entrypoint_reads() {
    use serde_norway::Value as Yaml;
    let keys = |v: &Yaml| -> Vec<String> {
        v.as_mapping()
            .expect("a mapping")
            .keys()
            .map(|k| k.as_str().expect("a name").to_string())
            .collect()
    };
    let text = std::fs::read_to_string(repo_root().join("action.yml")).unwrap();
    let yml: Yaml = serde_norway::from_str(&text).unwrap();
    assert_eq!(yml["runs"]["using"].as_str(), Some("docker"));
    assert_eq!(
        yml["runs"]["image"].as_str(),
        Some(format!("docker://{IMAGE}:v1").as_str()),
        "a published image, so jobs do not compile Rust; the major version users write"
    );
    let declared = keys(&yml["inputs"]);
    let known: Vec<String> = INPUTS.iter().map(|s| s.name.to_string()).collect();
    assert_eq!(declared, known, "action.yml and inputs::INPUTS, in order");
    for spec in INPUTS {
        let input = &yml["inputs"][spec.name];
        assert!(
            input["description"].as_str().is_some_and(|d| d.len() > 20),
            "{} is documented",
            spec.name
        );
        assert_eq!(
            input["default"].as_str(),
            Some(spec.default),
            "{}: action.yml's default is the entrypoint's",
            spec.name
        );
    }
    // What the entrypoint reads, recorded as it reads.
    let read: Mutex<BTreeSet<String>> = Mutex::default();
    let _ = Inputs::read(&|k: &str| {
        read.lock().unwrap().insert(k.to_string());
        None
    });
    let read: BTreeSet<String> = read
        .into_inner()
        .unwrap()
        .into_iter()
        .filter(|k| k.starts_with("INPUT_"))
        .collect();
    let declared: BTreeSet<String> = declared.iter().map(|n| env_name(n)).collect();
    assert_eq!(
        read, declared,
        "every declared input is read and vice versa"
    );
    assert_eq!(keys(&yml["outputs"]), windup_action::OUTPUTS);
    // The composite setup action parses too.
    let setup: Yaml = serde_norway::from_str(
        &std::fs::read_to_string(repo_root().join("setup/action.yml")).unwrap(),
    )
    .unwrap();
    assert_eq!(setup["runs"]["using"].as_str(), Some("composite"));
}

/// The repository as users name it (`uses: windup/action@v1`), its image and its releases.
const REPOSITORY: &str = "windup/action";
const IMAGE: &str = "ghcr.io/windup/action";

#[test]
fn the_action_has_one_name_everywhere() {
    let read = |rel: &str| std::fs::read_to_string(repo_root().join(rel)).unwrap();
    let url = format!("https://github.com/{REPOSITORY}");
    assert!(
        read("Cargo.toml").contains(&format!("repository = \"{url}\"")),
        "the crates' repository"
    );
    assert!(
        read("setup/action.yml").contains(&format!("{url}/releases/")),
        "setup downloads this repository's releases"
    );
    let release = read(".github/workflows/release.yml");
    assert!(
        release.contains(&format!("{IMAGE}:")),
        "release pushes {IMAGE}"
    );
    assert!(
        release.contains("cargo build --release --locked -p windup-action"),
        "the release builds the entrypoint too"
    );
    assert!(read("Dockerfile").contains(&format!("image.source=\"{url}\"")));
    // The user guide's Action page shows both actions; the README's brief shows the first.
    let readme = read("README.md");
    let guide = read("docs/action.md");
    assert!(guide.contains(&format!("uses: {REPOSITORY}@v1")));
    assert!(guide.contains(&format!("uses: {REPOSITORY}/setup@v1")));
    assert!(readme.contains(&format!("uses: {REPOSITORY}@v1")));
    for (file, text) in [
        ("README.md", &readme),
        ("docs/action.md", &guide),
        ("Cargo.toml", &read("Cargo.toml")),
    ] {
        assert!(
            !text.contains("windup/windup"),
            "{file} names another repository"
        );
    }
}

/// The real dashboard (`windup-dashboard`'s library on real SQLite, served on 127.0.0.1), with
/// GitHub comments on when given the fake GitHub API's address.
struct RealDashboard {
    url: String,
    token: String,
    store: Arc<dyn windup_dashboard::store::Store>,
    project_id: i64,
    project: windup_dashboard::store::Project,
    rt: tokio::runtime::Runtime,
    _db: tempfile::TempDir,
}

impl RealDashboard {
    fn start(github_api: Option<&str>) -> RealDashboard {
        use windup_dashboard::{AppState, Config, GithubAuth, GithubConfig, admin, store};
        let db = tempfile::tempdir().unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let (url, token, store, project) = rt.block_on(async {
            let st = store::open(db.path().join("dashboard.db").to_str().unwrap())
                .await
                .unwrap();
            let project = admin::create_project(&*st, "acme", Some("main"))
                .await
                .unwrap();
            // The dashboard comments only on the repository set for the project.
            admin::set_repo(&*st, &project, "acme/app").await.unwrap();
            let scopes = ["ingest", "cache:read", "cache:write"].map(String::from);
            let token = admin::create_token(&*st, &project, &scopes, None)
                .await
                .unwrap()
                .token;
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let url = format!("http://{}", listener.local_addr().unwrap());
            let config = Config {
                public_url: url.clone(),
                secure_cookies: false,
                github: github_api.map(|api| GithubConfig {
                    // A bot account's token: GitHub names its owner (`GET /user`), whose
                    // comments alone the dashboard edits.
                    auth: GithubAuth::Token("ghp_windup-dashboard".into()),
                    api_url: api.to_string(),
                }),
            };
            tokio::spawn(windup_dashboard::launch(
                listener,
                AppState::new(st.clone(), config),
            ));
            (url, token, st, project)
        });
        RealDashboard {
            url,
            token,
            store,
            project_id: project.id,
            project,
            rt,
            _db: db,
        }
    }

    /// A token with the Action's scopes that may write the cache only on branches matching
    /// `branch_glob`.
    fn scoped_token(&self, branch_glob: &str) -> String {
        let scopes = ["ingest", "cache:read", "cache:write"].map(String::from);
        self.rt
            .block_on(windup_dashboard::admin::create_token(
                &*self.store,
                &self.project,
                &scopes,
                Some(branch_glob),
            ))
            .unwrap()
            .token
    }

    /// The active plan on `branch` for the key of `entry` (a cache entry, as JSON).
    fn plan_on(&self, entry: &Value, branch: &str) -> Option<Value> {
        let key = |k: &str| entry["key"][k].as_str().unwrap().to_string();
        let row = self
            .rt
            .block_on(self.store.cache_get(
                self.project_id,
                &key("scenario_id"),
                &key("start_url"),
                &key("scenario_sha"),
                branch,
            ))
            .unwrap()?;
        Some(serde_json::from_str(&row.entry_json).unwrap())
    }

    fn runs(&self) -> Vec<windup_dashboard::store::RunSummary> {
        let filter = windup_dashboard::store::RunFilter {
            limit: 100,
            ..Default::default()
        };
        self.rt
            .block_on(self.store.runs(self.project_id, &filter))
            .unwrap()
    }
}

#[test]
fn a_pull_request_run_reaches_the_real_dashboard_which_comments_once_and_an_outage_loses_nothing() {
    let github = FakeGitHub::start();
    let dashboard = RealDashboard::start(Some(&github.base));
    let mut w = Workflow::new();
    // The app changed under the plan: sign-in fails, with an annotation, in both runs.
    let login = w.path("acme/app/login.html");
    let page = std::fs::read_to_string(&login).unwrap();
    std::fs::write(
        &login,
        page.replace(">Sign in</button>", ">Continue</button>"),
    )
    .unwrap();
    let app = Server::start(&w.path("acme/app"));
    w.input("base-url", app.base.as_str())
        .input("scenarios", "sign-in")
        .input("dashboard-token", &dashboard.token);
    let annotated = |log: &str| {
        log.lines().any(|l| {
            l.starts_with(
                "::error file=acme/e2e/scenarios/sign-in.yaml,title=selector_not_found at ",
            )
        })
    };

    // The dashboard is down: the same verdict, a warning, the run kept in the spool.
    w.input("dashboard-url", &closed_port_url());
    let down = w.run();
    let log = stdout(&down);
    assert_eq!(down.status.code(), Some(1), "{log}");
    assert!(annotated(&log), "{log}");
    assert!(
        log.lines()
            .any(|l| l.starts_with("::warning title=windup::") && l.contains("spool")),
        "{log}"
    );
    assert_eq!(
        (
            w.outputs()["passed"].as_str(),
            w.outputs()["failed"].as_str()
        ),
        ("0", "1")
    );

    // It is up: this run and the spooled one arrive, and the dashboard comments on the PR. The
    // next job checks out the committed plan again, as a CI job does.
    std::fs::copy(
        repo_root().join("examples/acme/e2e/.windup/cache/sign-in.json"),
        w.path("acme/e2e/.windup/cache/sign-in.json"),
    )
    .unwrap();
    w.input("dashboard-url", &dashboard.url);
    let up = w.run();
    let log = stdout(&up);
    assert_eq!(up.status.code(), Some(1), "the same verdict: {log}");
    assert!(annotated(&log), "{log}");
    assert!(!log.contains("::warning"), "{log}");
    let o = w.outputs();
    assert_eq!((o["passed"].as_str(), o["failed"].as_str()), ("0", "1"));
    let summary = w.summary();
    assert!(
        summary.contains(&format!("[dashboard run]({}/p/acme/runs/", dashboard.url)),
        "{summary}"
    );
    assert!(summary.contains("| `sign-in` | ❌ failed |"), "{summary}");
    assert!(
        !log.contains(&dashboard.token),
        "the token is never printed"
    );

    // The dashboard holds both runs, on the PR, each with its failure.
    let mut runs = dashboard.runs();
    for _ in 0..100 {
        if runs.iter().all(|r| r.comment_status.is_some()) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
        runs = dashboard.runs();
    }
    assert_eq!(runs.len(), 2, "nothing lost: {runs:?}");
    for r in &runs {
        assert_eq!((r.scenarios, r.failed), (1, 1), "{r:?}");
        assert_eq!(r.pr_repo.as_deref(), Some("acme/app"));
        assert_eq!(r.pr_number, Some(7));
        assert_eq!(r.workflow_run.as_deref(), Some("4242"));
        let status = r.comment_status.as_deref().unwrap_or_default();
        assert!(
            status.ends_with("comment on acme/app#7"),
            "commented: {status}"
        );
    }
    // One sticky comment: created for the first run to arrive, updated for the second.
    let comments = github.comments.lock().unwrap().clone();
    assert_eq!(comments.len(), 1, "{comments:?}");
    let body = comments[0]["body"].as_str().unwrap();
    assert!(body.starts_with("<!-- windup:acme -->"), "{body}");
    assert!(body.contains("sign-in"), "{body}");
    assert_eq!(comments[0]["user"]["login"], "windup-dashboard");
    let requests = github.requests.lock().unwrap().clone();
    assert_eq!(
        requests
            .iter()
            .filter(|r| *r == "POST /repos/acme/app/issues/7/comments")
            .count(),
        1,
        "{requests:?}"
    );
}

/// The sh block of a healed plan in a comment: its command line and the whole block.
fn sh_block(body: &str) -> (String, String) {
    let start = body
        .find("```sh\n")
        .unwrap_or_else(|| panic!("no sh block in:\n{body}"));
    let rest = &body[start + "```sh\n".len()..];
    let block = &rest[..rest.find("\n```\n").unwrap()];
    (block.lines().next().unwrap().to_string(), block.to_string())
}

/// A healed plan is offered in the pull request comment as a change to its committed file: a
/// collapsed block whose one command, run by a shell from a checkout's root, writes the file
/// the run healed; a person's plan is offered as a proposal that `windup accept` adopts.
#[test]
fn a_healed_plan_is_a_suggested_change_in_the_comment_and_a_person_s_a_proposal() {
    let github = FakeGitHub::start();
    let mut w = Workflow::new();
    let cache = w.path("acme/e2e/.windup/cache/archive-project.json");
    let committed = std::fs::read_to_string(&cache).unwrap();
    let mut entry: Value = serde_json::from_str(&committed).unwrap();
    entry["plan"]["generated_by"] = "openai/gpt-4.1-mini".into();
    std::fs::write(&cache, entry.to_string()).unwrap();
    let projects = w.path("acme/app/projects.html");
    let page = std::fs::read_to_string(&projects).unwrap();
    std::fs::write(
        &projects,
        page.replacen("'Archive'", "'Move to archive'", 1),
    )
    .unwrap();
    let app = Server::start(&w.path("acme/app"));
    w.input("base-url", app.base.as_str())
        .input("scenarios", "archive-project")
        .input("comment", "true");
    w.env.insert("GITHUB_API_URL".into(), github.base.clone());
    w.env.insert("GITHUB_TOKEN".into(), "ghs_test".into());
    let out = w.run();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let body = github.comments.lock().unwrap()[0]["body"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        body.contains("<details><summary>healed plan for <code>archive-project</code>: <code>acme/e2e/.windup/cache/archive-project.json</code></summary>"),
        "{body}"
    );
    let (command, block) = sh_block(&body);
    assert_eq!(
        command,
        "cat > 'acme/e2e/.windup/cache/archive-project.json' <<'WINDUP_PLAN'"
    );
    // The oracle is a shell: in a checkout of the branch, the command writes the healed file.
    let checkout = tempfile::tempdir().unwrap();
    copy_dir(
        &repo_root().join("examples/acme"),
        &checkout.path().join("acme"),
    );
    let ran = Command::new("sh")
        .arg("-c")
        .arg(&block)
        .current_dir(checkout.path())
        .output()
        .unwrap();
    assert!(
        ran.status.success(),
        "{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let healed = std::fs::read_to_string(&cache).unwrap();
    assert!(healed.contains("Move to archive"), "{healed}");
    assert_eq!(
        std::fs::read_to_string(
            checkout
                .path()
                .join("acme/e2e/.windup/cache/archive-project.json")
        )
        .unwrap()
        .trim_end(),
        healed.trim_end()
    );

    // A person's plan: the same heal is a proposal, adopted only by `windup accept`.
    std::fs::write(&cache, &committed).unwrap();
    let out = w.run();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    let body = github.comments.lock().unwrap()[0]["body"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        body.contains("<details><summary>proposed plan for <code>archive-project</code>: <code>acme/e2e/.windup/cache/proposals/archive-project.json</code></summary>"),
        "{body}"
    );
    let (command, block) = sh_block(&body);
    assert_eq!(
        command,
        "mkdir -p 'acme/e2e/.windup/cache/proposals' && cat > 'acme/e2e/.windup/cache/proposals/archive-project.json' <<'WINDUP_PLAN' && windup accept 'archive-project' --root 'acme'"
    );
    let proposal =
        std::fs::read_to_string(w.path("acme/e2e/.windup/cache/proposals/archive-project.json"))
            .unwrap();
    assert!(block.contains(proposal.trim_end()), "{block}");
    assert_eq!(std::fs::read_to_string(&cache).unwrap(), committed);
}
