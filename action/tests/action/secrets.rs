//! The processes the Action starts hold none of its secrets: start-command's app (the pull
//! request's code) and Chromium get the environment without tokens and keys, and both run as
//! `nobody` (Chromium through whatever `[browser] executable` names), so they cannot read them
//! from the Action's `/proc/PID/environ` either. Real processes throughout: the entrypoint,
//! `sh`, `python3`, Chromium; `/proc` is the witness.

use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::fs::PermissionsExt;
use std::process::{Output, Stdio};
use std::time::Duration;

use super::{Workflow, stdout};

/// One process seen while the Action ran.
#[derive(Debug)]
struct Seen {
    pid: u32,
    parent: u32,
    /// The effective uid.
    uid: Option<u32>,
    cmdline: String,
    environ: BTreeMap<String, String>,
}

fn read_proc(pid: u32, parent: u32) -> Option<Seen> {
    let nul_separated = |file: &str| -> Option<Vec<String>> {
        let raw = std::fs::read(format!("/proc/{pid}/{file}")).ok()?;
        Some(
            String::from_utf8_lossy(&raw)
                .split('\0')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        )
    };
    let environ = nul_separated("environ")?
        .iter()
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let cmdline = nul_separated("cmdline")?.join(" ");
    // An empty command line is a process caught in the middle of `execve` or already exiting:
    // nothing to read yet (or any more); a later poll reads it once it runs its program.
    if cmdline.is_empty() {
        return None;
    }
    let uid = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()?
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1)?.parse().ok());
    Some(Seen {
        pid,
        parent,
        uid,
        cmdline,
        environ,
    })
}

fn parent_of(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("PPid:"))
        .and_then(|p| p.trim().parse().ok())
}

/// Runs the entrypoint and, while it runs, reads the environment of every process it starts
/// (and theirs), each once, from `/proc`. Returns the output, the entrypoint's pid and what
/// was seen.
fn run_watching(w: &Workflow) -> (Output, u32, Vec<Seen>) {
    let child = w
        .command()
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start windup-action");
    let action = child.id();
    let output = std::thread::spawn(move || child.wait_with_output().expect("windup-action"));
    let exe = |pid: u32| std::fs::read_link(format!("/proc/{pid}/exe")).ok();
    let mut family = BTreeMap::from([(action, 0)]);
    let mut read = BTreeSet::new();
    let mut seen = Vec::new();
    while !output.is_finished() {
        let action_exe = exe(action);
        let pids: Vec<u32> = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
            .collect();
        // Twice: a child listed before its parent joins on the second pass.
        for _ in 0..2 {
            for &pid in &pids {
                if !family.contains_key(&pid)
                    && let Some(parent) = parent_of(pid).filter(|p| family.contains_key(p))
                {
                    family.insert(pid, parent);
                }
                // A child between fork and exec still shows the Action's own environment:
                // it is read once it runs a program of its own.
                if let Some(&parent) = family.get(&pid)
                    && pid != action
                    && !read.contains(&pid)
                    && exe(pid) != action_exe
                    && let Some(s) = read_proc(pid, parent)
                {
                    read.insert(pid);
                    seen.push(s);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    (output.join().unwrap(), action, seen)
}

/// The processes under the Action's children that `is_root` picks, with those children.
fn subtrees(seen: &[Seen], action: u32, is_root: impl Fn(&Seen) -> bool) -> Vec<&Seen> {
    let mut pids: BTreeSet<u32> = seen
        .iter()
        .filter(|s| s.parent == action && is_root(s))
        .map(|s| s.pid)
        .collect();
    loop {
        let before = pids.len();
        let children: Vec<u32> = seen
            .iter()
            .filter(|s| pids.contains(&s.parent))
            .map(|s| s.pid)
            .collect();
        pids.extend(children);
        if pids.len() == before {
            break;
        }
    }
    seen.iter().filter(|s| pids.contains(&s.pid)).collect()
}

#[expect(
    unsafe_code,
    reason = "geteuid(2): whether the Action runs as root here"
)]
fn running_as_root() -> bool {
    // SAFETY: geteuid(2) takes no arguments, always succeeds and touches no memory.
    unsafe { libc::geteuid() == 0 }
}

/// A push to main: the workspace is the repository's own, and its `[browser] executable` is
/// used; as root, it and Chromium run as `nobody` all the same.
#[test]
fn start_command_and_chromium_see_no_secret_and_the_app_runs_as_nobody() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/");
    let mut w = Workflow::new();
    // The workspace as actions/checkout leaves it: readable by others.
    std::fs::set_permissions(w.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    // Somewhere `nobody` may write what the app saw.
    let out_dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(out_dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let report = out_dir.path().join("app.txt");
    // A wrapper as `[browser] executable`: says who it runs as and what it can read, then runs
    // Chromium.
    let wrapper = out_dir.path().join("chromium.sh");
    let wrapper_saw = out_dir.path().join("wrapper.txt");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n{{ echo \"uid=$(id -u) gid=$(id -g)\"; echo \"home=$HOME\"; \
             cat /proc/$PPID/environ >/dev/null 2>&1 && echo parent=readable || echo parent=denied; \
             cat /proc/1/environ >/dev/null 2>&1 && echo init=readable || echo init=denied; \
             }} > {saw}\nexec {chromium} \"$@\"\n",
            saw = wrapper_saw.display(),
            chromium = windup_engine::browser::find_chromium(None, true)
                .expect("a Chromium")
                .display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(w.path("event.json"), r#"{"ref": "refs/heads/main"}"#).unwrap();
    w.env.insert("GITHUB_EVENT_NAME".into(), "push".into());
    w.env.insert("GITHUB_REF".into(), "refs/heads/main".into());
    let toml = w.path("acme/windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(
        &toml,
        format!(
            "{text}\n[browser]\nexecutable = \"{wrapper}\"\n\n[providers.acme]\nkind = \"openai\"\nmodel = \"gpt-4.1-mini\"\napi_key_env = \"ACME_LLM_KEY\"\nbase_url = \"http://127.0.0.1:9/v1\"\n\n[dashboard]\ntoken_env = \"ACME_DASH_TOKEN\"\n",
            wrapper = wrapper.display()
        ),
    )
    .unwrap();
    let github_token = "ghs_githubtoken0123456789";
    let dashboard_token = "wdp_dashboardtoken0123456789";
    let secrets: &[(&str, &str)] = &[
        ("GITHUB_TOKEN", github_token),
        ("GH_TOKEN", "gho_ghclitoken0123456789"),
        ("ACTIONS_RUNTIME_TOKEN", "runtimetoken0123456789"),
        ("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "oidctoken0123456789"),
        ("ACTIONS_ID_TOKEN_REQUEST_URL", "https://oidc.example/token"),
        ("OPENAI_API_KEY", "sk-openaikey0123456789"),
        ("ANTHROPIC_API_KEY", "sk-ant-anthropickey0123456789"),
        ("ACME_LLM_KEY", "sk-acmekey0123456789"),
        ("ACME_DASH_TOKEN", dashboard_token),
        ("WINDUP_DASHBOARD_TOKEN", dashboard_token),
        // A copy of a token under a name of the app's own.
        (
            "APP_WEBHOOK",
            "https://x-access-token:ghs_githubtoken0123456789@github.com/acme/app",
        ),
        ("GITHUB_ENV", "/github/file_commands/set_env_0"),
    ];
    let kept: &[(&str, &str)] = &[
        ("NODE_ENV", "test"),
        ("APP_SETTING", "kept-for-the-app"),
        ("CI", "true"),
    ];
    for (k, v) in secrets.iter().chain(kept) {
        w.env.insert(k.to_string(), v.to_string());
    }
    w.input(
        "start-command",
        &format!(
            "{{ env; echo \"uid=$(id -u) gid=$(id -g)\"; echo \"home_is=$(stat -c %a:%u \"$HOME\")\"; \
             cat /proc/$PPID/environ >/dev/null 2>&1 && echo parent=readable || echo parent=denied; \
             cat /proc/1/environ >/dev/null 2>&1 && echo init=readable || echo init=denied; \
             }} > {report}; cd app && exec python3 -m http.server {port} --bind 127.0.0.1",
            report = report.display()
        ),
    )
    .input("wait-for", &format!("{url}login.html"))
    .input("base-url", &url)
    .input("scenarios", "sign-in")
    .input("require-cached", "true")
    // The provider's address is the workflow's to allow (no call is made: require-cached).
    .input("provider-base-urls", "http://127.0.0.1:9/v1")
    .input("dashboard-url", &windup_testkit::fake_dashboard::closed_port_url())
    .input("dashboard-token", dashboard_token);

    let (out, action, seen) = run_watching(&w);
    let log = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{log}");
    assert_eq!(w.outputs()["passed"], "1", "nobody served the app: {log}");

    // What the app saw, in its own words.
    let app = std::fs::read_to_string(&report).expect("the app wrote what it saw");
    let app_env: BTreeMap<&str, &str> = app.lines().filter_map(|l| l.split_once('=')).collect();
    assert!(app.contains("uid=65534 gid=65534"), "{app}");
    assert!(app.contains("parent=denied"), "the Action's environ: {app}");
    assert!(app.contains("init=denied"), "{app}");
    let home = app_env.get("HOME").copied().unwrap_or_default();
    assert!(home.contains("windup-app-home-"), "a private HOME: {app}");
    assert_eq!(app_env.get("home_is"), Some(&"700:65534"), "{app}");
    assert!(
        !std::path::Path::new(home).exists(),
        "removed after the app"
    );
    for (k, v) in kept {
        assert_eq!(app_env.get(k), Some(v), "{k} is kept: {app}");
    }
    for k in [
        "PATH",
        "GITHUB_WORKSPACE",
        "GITHUB_REPOSITORY",
        "ACME_ADMIN_PASSWORD",
    ] {
        assert!(app_env.contains_key(k), "{k} is kept: {app}");
    }
    assert!(
        !app.lines().any(|l| l.starts_with("INPUT_")),
        "no input: {app}"
    );

    // The wrapper Chromium was started through, in its own words.
    let said = std::fs::read_to_string(&wrapper_saw).expect("the wrapper ran");
    let root = running_as_root();
    if root {
        assert!(said.contains("uid=65534 gid=65534"), "{said}");
        assert!(said.contains("windup-chromium-"), "{said}");
        assert!(
            said.contains("parent=denied"),
            "the Action's environ: {said}"
        );
        assert!(said.contains("init=denied"), "{said}");
    } else {
        // Not root: nobody to switch to; the wrapper runs as the Action's own user.
        println!("not root: Chromium keeps the Action's user, so only its environment is checked");
    }

    // The app (its shell, the server, their children) and Chromium (the wrapper, the browser
    // and its helpers); the engine's own `git` calls are Windup's, not theirs.
    let browser = subtrees(&seen, action, |s| {
        s.cmdline.contains("--remote-debugging-pipe")
    });
    for p in browser.iter().filter(|_| root) {
        assert!(
            matches!(p.uid, Some(65534)),
            "`{}` ran as {:?}",
            p.cmdline,
            p.uid
        );
    }
    // `sh -c '…; exec python3 -m http.server'`, read before or after its exec.
    let app = subtrees(&seen, action, |s| s.cmdline.contains("http.server"));
    assert!(!browser.is_empty(), "Chromium was seen: {seen:#?}");
    assert!(!app.is_empty(), "the app was seen: {seen:#?}");
    let processes: Vec<&Seen> = browser.into_iter().chain(app).collect();
    for p in &processes {
        for (name, value) in secrets {
            assert!(
                !p.environ.contains_key(*name),
                "{name} reached `{}`: {:?}",
                p.cmdline,
                p.environ.keys()
            );
            assert!(
                !p.environ.values().any(|v| v.contains(value)),
                "the value of {name} reached `{}`",
                p.cmdline
            );
        }
        assert!(
            !p.environ.keys().any(|k| k.starts_with("INPUT_")),
            "an input reached `{}`",
            p.cmdline
        );
    }
    // The stripped copy, not an empty one (Chromium's helper processes get less still).
    for p in processes.iter().filter(|p| p.parent == action) {
        assert_eq!(
            p.environ.get("APP_SETTING").map(String::as_str),
            Some("kept-for-the-app"),
            "`{}`",
            p.cmdline
        );
    }
}
