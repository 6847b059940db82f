//! A run told to stop (Ctrl-C, or the SIGTERM a CI runner sends a cancelled job) while a step
//! waits: it exits 130 at once, saying so, and no Chromium process it started outlives it. The
//! same for `windup mcp` with a page open and its stdin still open.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::mcp::Client;
use crate::support::{example, serve};

/// The processes whose parent is `pid`, and theirs.
fn descendants(pid: u32) -> Vec<u32> {
    let mut parents = std::collections::HashMap::<u32, Vec<u32>>::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(child) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if let Some(parent) = parent_of(child) {
            parents.entry(parent).or_default().push(child);
        }
    }
    let mut out = Vec::new();
    let mut stack = vec![pid];
    while let Some(p) = stack.pop() {
        for &c in parents.get(&p).into_iter().flatten() {
            out.push(c);
            stack.push(c);
        }
    }
    out
}

/// `pid`'s parent, from `/proc/PID/stat` (the field after the parenthesised name and state).
fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after = &stat[stat.rfind(')')? + 1..];
    after.split_whitespace().nth(1)?.parse().ok()
}

/// Whether `pid` still runs (a zombie no longer does).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            let after = &s[s.rfind(')')? + 1..];
            after.split_whitespace().next().map(|state| state != "Z")
        })
        .unwrap_or(false)
}

fn is_chromium(pid: u32) -> bool {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|c| String::from_utf8_lossy(&c).contains("--user-data-dir="))
        .unwrap_or(false)
}

/// `windup run archive-project` on an app whose Archive button is gone, with healing off and
/// a step's wait of a minute: it waits at a4 until told to stop.
fn waiting_run(root: &Path, base: &str) -> Child {
    let toml = root.join("windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{text}\n[timeouts]\naction_ms = 60000\n")).unwrap();
    let page = root.join("app/projects.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("'Archive'"));
    std::fs::write(&page, html.replacen("'Archive'", "'Gone'", 1)).unwrap();
    Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(root)
        .args(["run", "archive-project", "--no-heal", "--base-url", base])
        .env_remove("WINDUP_BASE_URL")
        .env("ACME_ADMIN_EMAIL", "admin@acme.test")
        .env("ACME_ADMIN_PASSWORD", "correct horse battery staple")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run windup")
}

fn stops_on(signal: &str) {
    let project = example();
    let root = project.path();
    let (_server, base) = serve(root);
    let child = waiting_run(root, &base);
    let pid = child.id();
    // Its Chromium, once it runs (the run then soon waits at a4).
    let deadline = Instant::now() + Duration::from_secs(20);
    let chromium = loop {
        let found: Vec<u32> = descendants(pid)
            .into_iter()
            .filter(|p| is_chromium(*p))
            .collect();
        if !found.is_empty() || Instant::now() > deadline {
            break found;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!chromium.is_empty(), "windup started a Chromium");
    std::thread::sleep(Duration::from_millis(1500));
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "SIG{signal}: {stderr}");
    assert!(stderr.contains("the browser is closed"), "{stderr}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while chromium.iter().any(|p| running(*p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<u32> = chromium.into_iter().filter(|p| running(*p)).collect();
    assert!(left.is_empty(), "Chromium outlived windup: {left:?}");
}

#[test]
fn a_run_told_to_stop_by_sigterm_exits_130_and_leaves_no_chromium_behind() {
    stops_on("TERM");
}

#[test]
fn a_run_interrupted_by_ctrl_c_exits_130_and_leaves_no_chromium_behind() {
    stops_on("INT");
}

/// `windup mcp` with a page open, told to stop while its client keeps stdin open: it exits 130
/// and its Chromium goes with it.
#[test]
fn windup_mcp_told_to_stop_by_sigterm_exits_130_and_leaves_no_chromium_behind() {
    let project = example();
    let root = project.path();
    let (_server, base) = serve(root);
    let mut mcp = Client::start(root, &["--base-url", &base]);
    let page = mcp.ok("browser_open", json!({"url": "/login.html"}));
    assert!(page.contains("Email"), "{page}");
    let pid = mcp.pid();
    let chromium: Vec<u32> = descendants(pid)
        .into_iter()
        .filter(|p| is_chromium(*p))
        .collect();
    assert!(!chromium.is_empty(), "windup mcp started a Chromium");
    let sent = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let status = mcp.wait();
    assert_eq!(status.code(), Some(130), "{status}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while chromium.iter().any(|p| running(*p)) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let left: Vec<u32> = chromium.into_iter().filter(|p| running(*p)).collect();
    assert!(left.is_empty(), "Chromium outlived windup mcp: {left:?}");
}
