//! How Chromium is started: with exactly the environment the caller gives, when it gives one,
//! and as the user the caller gives, when it gives one.

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};

use windup_engine::browser::{Browser, BrowserOptions, RunAs, find_chromium};
use windup_engine::env::ChildEnv;
use windup_testkit::app::{App, AppRequest, AppResponse};

use crate::support::*;

/// `/proc/PID/environ`: NUL-separated `NAME=VALUE`, as the process was started.
fn environ(pid: u32) -> BTreeMap<String, String> {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).expect("read /proc/PID/environ");
    String::from_utf8_lossy(&raw)
        .split('\0')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn chromium_gets_exactly_the_environment_it_is_given_and_inherits_nothing() {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let inherited: Vec<String> = std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| k != "PATH")
        .collect();
    assert!(
        !inherited.is_empty(),
        "the test process has variables to leak"
    );
    let given = ChildEnv::new([
        ("PATH".into(), path),
        ("WINDUP_PROBE".into(), "given".into()),
    ]);
    block_on(async {
        let browser = Browser::new(BrowserOptions {
            env: Some(given),
            ..browser_options()
        });
        browser.ensure_started().await.expect("Chromium starts");
        let pid = browser.pid().await.expect("a pid");
        let seen = environ(pid);
        browser.close().await;
        assert_eq!(seen.get("WINDUP_PROBE").map(String::as_str), Some("given"));
        for name in &inherited {
            assert!(!seen.contains_key(name), "{name} was inherited: {seen:?}");
        }
    });
}

/// The effective uid of a process, from `/proc/PID/status`.
fn uid_of(pid: u32) -> Option<u32> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|ids| ids.split_whitespace().nth(1)?.parse().ok())
}

/// The processes whose parent is `pid`, and theirs.
fn descendants(pid: u32) -> Vec<u32> {
    let all: Vec<(u32, u32)> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter_map(|p: u32| {
            let status = std::fs::read_to_string(format!("/proc/{p}/status")).ok()?;
            let parent = status
                .lines()
                .find_map(|l| l.strip_prefix("PPid:"))?
                .trim()
                .parse()
                .ok()?;
            Some((p, parent))
        })
        .collect();
    let mut out = vec![pid];
    let mut i = 0;
    while i < out.len() {
        let parent = out[i];
        out.extend(all.iter().filter(|(_, pp)| *pp == parent).map(|(p, _)| *p));
        i += 1;
    }
    out
}

#[expect(unsafe_code, reason = "geteuid(2): whether this test may switch users")]
fn running_as_root() -> bool {
    // SAFETY: geteuid(2) takes no arguments, always succeeds and touches no memory.
    unsafe { libc::geteuid() == 0 }
}

const NOBODY: RunAs = RunAs {
    uid: 65534,
    gid: 65534,
};

/// As root: Chromium, the executable the options name (a wrapper script) and every helper run
/// as the given user, with a profile and `HOME` of their own (owner-only, removed after), and
/// cannot read the caller's `/proc/PID/environ`; the pipe still carries CDP, and an upload and
/// two downloads still work. Not root: the launch fails, naming the user it could not become.
#[test]
fn chromium_launched_as_another_user_runs_as_it_and_cannot_read_the_callers_environ() {
    let chromium = find_chromium(None, true).expect("a Chromium");
    // The wrapper, where the user may read and run it; and a folder it may write its report in.
    let dir = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    for d in [dir.path(), out.path()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    let report = out.path().join("wrapper.txt");
    let wrapper = dir.path().join("chromium-wrapper.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\n{{ echo \"uid=$(id -u) gid=$(id -g)\"; echo \"home=$HOME\"; \
             cat /proc/$PPID/environ >/dev/null 2>&1 && echo caller=readable || echo caller=denied; \
             cat /proc/1/environ >/dev/null 2>&1 && echo init=readable || echo init=denied; \
             }} > {report}\nexec {chromium} \"$@\"\n",
            report = report.display(),
            chromium = chromium.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let options = BrowserOptions {
        executable: Some(wrapper.clone()),
        run_as: Some(NOBODY),
        reuse_tabs: false,
        ..browser_options()
    };
    if !running_as_root() {
        // Switching user needs root: the launch says so instead of running as the caller.
        let err = block_on(async {
            let browser = Browser::new(options);
            let err = browser.ensure_started().await.expect_err("no switch");
            browser.close().await;
            err
        });
        let text = err.to_string();
        assert!(
            text.contains("as uid 65534") && text.contains("root"),
            "{text}"
        );
        assert!(!report.exists(), "the wrapper never ran as the caller");
        return;
    }
    // A project whose files and downloads folders the user may reach, as actions/checkout
    // leaves a workspace.
    let project = tempfile::tempdir().unwrap();
    std::fs::set_permissions(project.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(project.path().join("e2e/files")).unwrap();
    std::fs::write(
        project.path().join("e2e/files/invoice.txt"),
        "hello, upload",
    )
    .unwrap();
    let app = App::start(|r: &AppRequest| match r.path.as_str() {
        "/upload.html" => AppResponse::html(
            "<!doctype html><title>Upload</title><label>Invoice <input type=file id=f></label>\
             <p id=out></p><a href=\"/report\">Report</a><script>\
             f.addEventListener('change', async (e) => { const x = e.target.files[0]; \
             out.textContent = x.name + ': ' + (await x.text()); });</script>",
        ),
        "/report" => AppResponse {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/csv".into()),
                (
                    "content-disposition".into(),
                    "attachment; filename=\"report.csv\"".into(),
                ),
            ],
            body: "a,b\n1,2\n".into(),
        },
        _ => AppResponse {
            status: 404,
            headers: vec![],
            body: String::new(),
        },
    });
    let plan = plan_from_str(
        r#"{"plan_version": "0.2", "scenario_id": "files", "task": "upload and download",
            "start_url": "/upload.html", "generated_by": "human", "actions": [
              {"id": "a1", "type": "upload", "target": {"selector": "label=\"Invoice\""},
               "files": ["invoice.txt"],
               "expect": {"value": {"selector": "css=#out", "equals": "invoice.txt: hello, upload"}}},
              {"id": "a2", "type": "download", "target": {"selector": "role=link[name=\"Report\"]"},
               "expect": {"download": {"name": "report.csv", "size": 8}}}]}"#,
    );
    let given = ChildEnv::new([
        ("PATH".into(), std::env::var_os("PATH").unwrap_or_default()),
        ("WINDUP_PROBE".into(), "given".into()),
        ("HOME".into(), "/root".into()),
    ]);
    let (execution, pids, uids, profile) = block_on(async {
        let browser = Browser::new(BrowserOptions {
            env: Some(given),
            ..options
        });
        browser
            .ensure_started()
            .await
            .expect("Chromium starts as nobody");
        let pid = browser.pid().await.expect("a pid");
        let run = Run {
            transfers_root: Some(project.path().to_path_buf()),
            ..Run::new(&app.base)
        };
        let execution = run.exec(&browser, &plan).await;
        let pids = descendants(pid);
        let uids: Vec<(u32, Option<u32>)> = pids.iter().map(|p| (*p, uid_of(*p))).collect();
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
        let profile = String::from_utf8_lossy(&cmdline)
            .split('\0')
            .find_map(|a| {
                a.strip_prefix("--user-data-dir=")
                    .map(std::path::PathBuf::from)
            })
            .expect("a profile");
        let meta = std::fs::metadata(&profile).unwrap();
        assert_eq!((meta.uid(), meta.gid()), (65534, 65534));
        assert_eq!(meta.permissions().mode() & 0o777, 0o700);
        let environ = environ(pid);
        browser.close().await;
        (execution, pids, uids, (profile, environ))
    });
    let (profile, environ) = profile;
    assert_passed(&execution, "upload and download as nobody");
    assert!(pids.len() > 1, "Chromium and its helpers: {pids:?}");
    for (pid, uid) in &uids {
        // A helper may be gone by the time it is read.
        assert!(
            matches!(uid, None | Some(65534)),
            "pid {pid} ran as {uid:?}"
        );
    }
    assert!(
        uids.iter().filter(|(_, u)| u.is_some()).count() > 1,
        "{uids:?}"
    );
    assert_eq!(
        environ.get("WINDUP_PROBE").map(String::as_str),
        Some("given")
    );
    assert_eq!(
        environ.get("HOME").map(std::path::PathBuf::from),
        Some(profile.clone()),
        "its HOME is its own profile"
    );
    // Removed with the last hold on the browser: a tab still being reset in the background
    // (the pool) lets go of it a moment after `close`, when its next command fails (on a
    // machine busy with other work that took over 10 s once).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while profile.exists() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(
        !profile.exists(),
        "the profile is removed after the browser"
    );
    let said = std::fs::read_to_string(&report).expect("the wrapper ran");
    assert!(said.contains("uid=65534 gid=65534"), "{said}");
    assert!(said.contains("caller=denied"), "{said}");
    assert!(said.contains("init=denied"), "{said}");
    let saved = project
        .path()
        .join("e2e/.windup/runs/it/downloads/files/report.csv");
    assert_eq!(std::fs::read_to_string(&saved).unwrap(), "a,b\n1,2\n");
    let folder = std::fs::metadata(saved.parent().unwrap()).unwrap();
    assert_eq!(
        (folder.uid(), folder.permissions().mode() & 0o777),
        (65534, 0o755),
        "the browser's to write, anyone's to read"
    );
}
