//! Attaching to a Chromium the user started (`--cdp-url`): a run passes and leaves the browser,
//! its tab and its cookie alone; `--reuse-context` runs in the profile's signed-in context; a
//! URL that is not a usable Chromium exits 2 naming what is wrong; and `windup browser`, the
//! debug Chrome to attach to: an owner-only profile, a debugging port on loopback only.
//!
//! The user's browser is checked from outside, by `/json/list` and a CDP client of the test's
//! own (`windup_testkit::chromium`), never through Windup.

use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use windup_testkit::chromium::{
    UserChromium, debug_json, listening_addresses, processes_mentioning,
};
use windup_testkit::{Canned, Server};

use crate::support::*;

/// The user's own page: it signs the user in with a cookie of the app's host.
const MINE: &str = "<!doctype html><title>mine</title><p>My own tab</p>\
    <script>document.cookie = 'session=alice; max-age=3600; path=/';</script>";

/// What the app shows: who the session cookie says is signed in.
const ACCOUNT: &str = "<!doctype html><title>account</title><main><p id=who></p></main>\
    <script>document.getElementById('who').textContent = \
    document.cookie.includes('session=alice') ? 'Signed in as alice' : 'Signed out';</script>";

const ACCOUNT_PLAN: &str = r#"{
  "plan_version": "0.1",
  "scenario_id": "account",
  "task": "Open the account page: alice is signed in.",
  "start_url": "/account.html",
  "generated_by": "human",
  "actions": [
    {"id": "a1", "type": "wait_for", "target": {"selector": "css=main"},
     "expect": {"visible": "text=\"Signed in as alice\""}}
  ]
}"#;

fn has_session_cookie(chromium: &UserChromium) -> bool {
    chromium
        .default_cookies()
        .iter()
        .any(|c| c["name"] == "session" && c["value"] == "alice")
}

/// Starts the user's Chromium with a tab on `/mine.html` of `server`, signed in.
fn users_chromium(server: &Server) -> (UserChromium, String) {
    server.page("/mine.html", MINE);
    let mine = format!("{}mine.html", server.base);
    let chromium = UserChromium::start(&mine);
    chromium.wait_until(has_session_cookie, "the tab's cookie");
    (chromium, mine)
}

/// What Windup must leave as it found it: the process, the user's one tab and its cookie, and
/// no context of Windup's.
fn assert_left_alone(chromium: &mut UserChromium, mine: &str) {
    assert!(
        chromium.is_running(),
        "Windup never closes a browser it did not start"
    );
    assert_eq!(
        chromium.page_urls(),
        vec![mine.to_string()],
        "the user's tab is still open at its URL, and Windup's own tabs are gone"
    );
    assert!(
        chromium.contexts().is_empty(),
        "every context Windup made was disposed of"
    );
    assert!(
        has_session_cookie(chromium),
        "the user's cookie is still there"
    );
}

#[test]
fn an_attached_run_passes_and_leaves_the_browser_its_tab_and_its_cookie_alone() {
    let dir = example();
    let (server, base) = serve(dir.path());
    let (mut chromium, mine) = users_chromium(&server);
    let r = run_reported(
        dir.path(),
        &["run", "--cdp-url", &chromium.cdp_url()],
        &base,
        "r.json",
        0,
    );
    assert_eq!(r["totals"]["passed"], 4, "{r}");
    assert_eq!(r["totals"]["llm_calls"], 0);
    assert_left_alone(&mut chromium, &mine);
    // The browser's own WebSocket works too, for `replay`, one scenario at a time.
    let plan = dir.path().join("e2e/.windup/cache/sign-in.json");
    let entry: Value = serde_json::from_str(&std::fs::read_to_string(plan).unwrap()).unwrap();
    std::fs::write(
        dir.path().join("sign-in.plan.json"),
        entry["plan"].to_string(),
    )
    .unwrap();
    let r = run_reported(
        dir.path(),
        &[
            "replay",
            "sign-in.plan.json",
            "--cdp-url",
            &chromium.ws_url(),
        ],
        &base,
        "ws.json",
        0,
    );
    assert_eq!(r["totals"]["passed"], 1, "{r}");
    assert_left_alone(&mut chromium, &mine);
}

#[test]
fn reuse_context_runs_in_the_profiles_signed_in_context_and_closes_only_its_tabs() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    server.page("/account.html", ACCOUNT);
    std::fs::write(dir.path().join("account.json"), ACCOUNT_PLAN).unwrap();
    let base = server.base.to_string();
    let (mut chromium, mine) = users_chromium(&server);
    let cdp = chromium.cdp_url();
    // By default a scenario gets a new, empty context: the user's sign-in is not there.
    let r = run_reported(
        dir.path(),
        &["replay", "account.json", "--cdp-url", &cdp],
        &base,
        "new.json",
        1,
    );
    assert_eq!(r["totals"]["failed"], 1, "{r}");
    assert_left_alone(&mut chromium, &mine);
    // With --reuse-context it runs in the profile's own context, signed in.
    let r = run_reported(
        dir.path(),
        &[
            "replay",
            "account.json",
            "--cdp-url",
            &cdp,
            "--reuse-context",
        ],
        &base,
        "reused.json",
        0,
    );
    assert_eq!(r["totals"]["passed"], 1, "{r}");
    assert_left_alone(&mut chromium, &mine);
    // No windup.toml here: replaying a plan file wrote no HTML report (the failed replay's
    // screenshot is its evidence, kept).
    let written = files_under(&dir.path().join("e2e"));
    assert!(
        written.iter().any(|p| p.ends_with("account.png")),
        "{written:?}"
    );
    assert!(
        !written.iter().any(|p| p.ends_with("report.html")),
        "{written:?}"
    );
}

/// `windup run` with `--cdp-url URL` exits 2, naming the flag and each of `wanted`.
fn refused(dir: &std::path::Path, url: &str, wanted: &[&str]) {
    let out = windup(
        dir,
        &[
            "run",
            "sign-in",
            "--cdp-url",
            url,
            "--base-url",
            "http://127.0.0.1:9",
        ],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{url}: {err}");
    assert!(err.contains("--cdp-url"), "{err}");
    for w in wanted {
        assert!(err.contains(w), "{url}: wanted {w:?} in {err}");
    }
}

fn json_version(server: &Server, body: &str) {
    server.route(
        "/json/version",
        Canned {
            status: 200,
            content_type: "application/json",
            body: body.as_bytes().to_vec(),
            delay: Duration::ZERO,
        },
    );
}

#[test]
fn a_cdp_url_that_is_not_a_usable_chromium_exits_2_naming_what_is_wrong() {
    let dir = example();
    let free = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    refused(
        dir.path(),
        &format!("http://127.0.0.1:{free}"),
        &["nothing answers", "windup browser"],
    );
    let empty = tempfile::tempdir().unwrap();
    let server = Server::start(empty.path());
    let url = server.base.to_string();
    refused(dir.path(), &url, &["not Chromium"]);
    json_version(&server, r#"{"hello": "world"}"#);
    refused(dir.path(), &url, &["not Chromium"]);
    json_version(
        &server,
        r#"{"Browser": "Firefox/128.0", "webSocketDebuggerUrl": "ws://127.0.0.1:1/x"}"#,
    );
    refused(dir.path(), &url, &["`Firefox/128.0`, not Chromium"]);
    json_version(
        &server,
        r#"{"Browser": "Chrome/90.0.4430.93", "webSocketDebuggerUrl": "ws://127.0.0.1:1/devtools/browser/x"}"#,
    );
    refused(
        dir.path(),
        &url,
        &[&format!(
            "older than Chromium {}",
            windup_engine::browser::MIN_CHROMIUM_MAJOR
        )],
    );
    refused(dir.path(), "https://127.0.0.1:9222", &["no https"]);
    // windup.toml's key is named like any other.
    let toml = dir.path().join("windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(
        &toml,
        format!("{text}\n[browser]\ncdp_url = \"wss://127.0.0.1:9222\"\n"),
    )
    .unwrap();
    let out = windup(dir.path(), &["run", "sign-in"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("browser.cdp_url"), "{}", stderr(&out));
    // A context to reuse needs a browser to attach to.
    std::fs::write(&toml, text).unwrap();
    let out = windup(dir.path(), &["run", "sign-in", "--reuse-context"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--reuse-context"), "{}", stderr(&out));
}

#[test]
fn windup_browser_keeps_an_owner_only_profile_and_listens_on_loopback_only() {
    use std::os::unix::fs::PermissionsExt;
    let dir = example();
    let (_server, base) = serve(dir.path());
    let (child, stdout, port) = debug_browser(dir.path(), 0, &base);
    let profile = dir.path().join("e2e/.windup/profile");
    let mode = std::fs::metadata(&profile).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700, "the profile is owner-only");
    let version = debug_json(port, "/json/version");
    assert!(
        version["Browser"].as_str().unwrap().starts_with("Chrome/"),
        "{version}"
    );
    assert_eq!(
        listening_addresses(port),
        vec!["127.0.0.1".to_string()],
        "the debugging port listens on loopback only"
    );
    let list = debug_json(port, "/json/list");
    assert!(
        list.to_string().contains(&base),
        "it opened the base URL: {list}"
    );
    // A second one on the same profile is refused, as is a port that is taken.
    let second = windup(dir.path(), &["browser", "--headless", "--port", "0"]);
    assert_eq!(second.status.code(), Some(2), "{}", stderr(&second));
    assert!(stderr(&second).contains("in use by a running Chromium"));
    let elsewhere = tempfile::tempdir().unwrap();
    let taken = windup(
        elsewhere.path(),
        &["browser", "--headless", "--port", &port.to_string()],
    );
    assert_eq!(taken.status.code(), Some(2), "{}", stderr(&taken));
    assert!(stderr(&taken).contains("is taken"), "{}", stderr(&taken));
    // Ctrl-C stops it, and its Chromium with it.
    stop_debug_browser(child, stdout, "INT", &profile);
}

/// `windup browser --headless --port PORT --base-url BASE` in `dir`, once it printed its CDP
/// URL: the process, its stdout (kept open until it exits: a write to a closed pipe would be
/// its failure, not Chromium's) and the port the URL names.
fn debug_browser(
    dir: &Path,
    port: u16,
    base: &str,
) -> (Child, std::io::BufReader<std::process::ChildStdout>, u16) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(dir)
        .args(["browser", "--headless", "--port", &port.to_string()])
        .args(["--base-url", base])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let url = (&mut stdout)
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.strip_prefix("CDP URL: ").map(str::to_string));
    let Some(url) = url else {
        let out = child.wait_with_output().unwrap();
        panic!("no CDP URL printed: {}", stderr(&out));
    };
    let port: u16 = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("{url}"));
    (child, stdout, port)
}

/// Sends `signal` to a `windup browser`, and checks that it exits 0 and that no Chromium
/// process with its profile outlives it.
fn stop_debug_browser(
    mut child: Child,
    stdout: std::io::BufReader<std::process::ChildStdout>,
    signal: &str,
    profile: &Path,
) {
    Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "windup browser did not stop");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut said = String::new();
    let _ = std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut said);
    assert_eq!(status.code(), Some(0), "SIG{signal}: {said}");
    drop(stdout);
    let profile = profile.canonicalize().unwrap();
    let profile = profile.to_str().unwrap();
    while !processes_mentioning(profile).is_empty() {
        assert!(
            Instant::now() < deadline,
            "Chromium outlived windup browser"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// On a port given, as a user gives 9222 (Chromium writes no `DevToolsActivePort` for one, so
/// a start that waited for it timed out): it answers there at once, and SIGTERM stops it and
/// its Chromium.
#[test]
fn windup_browser_listens_on_the_port_it_is_given_and_sigterm_stops_it() {
    let dir = example();
    let (_server, base) = serve(dir.path());
    let free = std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (child, stdout, port) = debug_browser(dir.path(), free, &base);
    assert_eq!(port, free);
    let version = debug_json(port, "/json/version");
    assert!(
        version["Browser"].as_str().unwrap().starts_with("Chrome/"),
        "{version}"
    );
    stop_debug_browser(
        child,
        stdout,
        "TERM",
        &dir.path().join("e2e/.windup/profile"),
    );
}

#[test]
fn the_debug_profile_is_git_ignored_by_init_and_in_the_example() {
    let ignore =
        std::fs::read_to_string(windup_testkit::repo_root().join("examples/acme/.gitignore"))
            .unwrap();
    for entry in windup_engine::project::Layout::GIT_IGNORED {
        assert!(ignore.lines().any(|l| l == entry), "{entry} in {ignore}");
    }
    assert!(windup_engine::project::Layout::GIT_IGNORED.contains(&"e2e/.windup/profile/"));
}

/// `[browser] args` cannot open `windup browser`'s debugging port to web pages (issue 33: it
/// passed `--remote-allow-origins=*` through, so any site could drive the signed-in profile):
/// refused with exit 2 naming the flag, before any Chromium starts.
#[test]
fn browser_args_that_open_the_debugging_port_are_refused_before_chromium_starts() {
    let dir = example();
    let config = dir.path().join("windup.toml");
    let base = std::fs::read_to_string(&config).unwrap();
    for flag in [
        "--remote-allow-origins=*",
        "Remote-Allow-Origins=https://evil.example",
        "remote-debugging-address=0.0.0.0",
    ] {
        std::fs::write(&config, format!("{base}\n[browser]\nargs = [\"{flag}\"]\n")).unwrap();
        let out = windup(dir.path(), &["browser", "--headless", "--port", "0"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains("browser.args[0]"), "{flag}: {err}");
        assert!(err.contains("debugging port"), "{flag}: {err}");
        assert!(
            !dir.path().join("e2e/.windup/profile").exists(),
            "{flag}: a browser was started"
        );
        // A run refuses it too: the same config, whatever the command.
        let run = windup(dir.path(), &["validate"]);
        assert_eq!(run.status.code(), Some(2), "{flag}: {}", stderr(&run));
    }
}

/// Every file and folder under `dir`.
fn files_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = vec![];
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        out.push(e.path());
        out.extend(files_under(&e.path()));
    }
    out
}
