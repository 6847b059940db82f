//! A real app nobody here wrote: JupyterLab (PyPI `jupyterlab`, a single-page app over a
//! Python server). Five flows of its own Playwright suite (galata's `save`, `menus`,
//! `filebrowser` and `notebook-create` tests), translated locator for locator into hand-written
//! plans (`runner/cli/tests/jupyterlab-project`, mapped step by step in
//! `docs/real-apps-jupyterlab.md`), are replayed by `windup run`, then exported and run under
//! `@playwright/test`. The oracle is JupyterLab's own REST API (the folders, files, notebook
//! outputs and kernel sessions it reports), never Windup's verdict; a mutant of the app's data
//! (the target name already taken) makes the flows fail.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use windup_testkit::jupyterlab::JupyterLab;
use windup_testkit::{fixtures, repo_root};

use crate::support::*;

/// The scenarios of the project; each works in a folder named after it.
const FLOWS: [&str; 5] = [
    "jl-new-folder-rename",
    "jl-rename-text-file",
    "jl-save-prompts-rename",
    "jl-notebook-run-cell",
    "jl-menus-close",
];

/// A copy of the JupyterLab project whose committed plans are cached, keyed to their scenarios'
/// text (a plan written by a person: protected, never re-planned), with each flow's folder
/// created on the server as galata's `tmpPath` fixture creates a test's folder.
fn project(lab: &JupyterLab) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    copy_dir(
        &repo_root().join("runner/cli/tests/jupyterlab-project"),
        root,
    );
    for id in FLOWS {
        let plan: Value = serde_json::from_str(
            &std::fs::read_to_string(root.join(format!("plans/{id}.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(plan["generated_by"], "human", "{id}");
        cache_plan(root, plan);
        lab.mkdir(id);
    }
    dir
}

/// Each flow's folder emptied and its documents' kernels shut down: the server as the flows
/// first found it.
fn reset(lab: &JupyterLab) {
    lab.close_sessions();
    for id in FLOWS {
        std::fs::remove_dir_all(lab.root.join(id)).unwrap();
        lab.mkdir(id);
    }
}

/// `windup ARGS` in `dir` with the environment an exported spec reads.
fn windup_export(dir: &Path, args: &[&str], base: &str) -> Output {
    let chromium = windup_engine::browser::find_chromium(None, false).expect("Debian's chromium");
    Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(dir)
        .args(args)
        .env_remove("WINDUP_BASE_URL")
        .env("BASE_URL", base)
        .env("CHROMIUM_PATH", chromium)
        .output()
        .expect("run windup")
}

/// What each flow did, as JupyterLab reports it.
fn assert_jupyterlab_did_the_flows(lab: &JupyterLab, who: &str) {
    // File browser: the new folder carries its new name, and no Untitled Folder is left.
    assert_eq!(lab.names("jl-new-folder-rename"), ["results"], "{who}");
    let folder = lab.contents("jl-new-folder-rename/results").unwrap();
    assert_eq!(folder["type"], "directory", "{who}");
    // Rename, then save: one text file, under its new name.
    assert_eq!(lab.names("jl-rename-text-file"), ["dummy.txt"], "{who}");
    // The rename prompt was cancelled: the notebook kept its name, with the kernel chosen in
    // the kernel dialog running for it.
    assert_eq!(
        lab.names("jl-save-prompts-rename"),
        ["Untitled.ipynb"],
        "{who}"
    );
    // JupyterLab starts a notebook's session under a temporary path and moves it to the
    // notebook's a moment later, on the server: read until it has moved (or 15 s went by).
    let path = "jl-save-prompts-rename/Untitled.ipynb";
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(15);
    let mut sessions = lab.sessions();
    while !sessions.iter().any(|s| s["path"] == path) && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(200));
        sessions = lab.sessions();
    }
    let session = sessions
        .iter()
        .find(|s| s["path"] == path)
        .unwrap_or_else(|| panic!("{who}: no kernel session for the new notebook: {sessions:?}"));
    assert_eq!(session["kernel"]["name"], "python3", "{who}");
    // The notebook saved under its new name holds the cell and the kernel's answer.
    assert_eq!(
        lab.names("jl-notebook-run-cell"),
        ["squares.ipynb"],
        "{who}"
    );
    let notebook = lab.contents("jl-notebook-run-cell/squares.ipynb").unwrap();
    let cell = &notebook["content"]["cells"][0];
    assert_eq!(cell["source"], "2 ** 3", "{who}: {cell}");
    assert_eq!(
        cell["outputs"][0]["data"]["text/plain"], "8",
        "{who}: {cell}"
    );
    assert_eq!(
        notebook["content"]["metadata"]["kernelspec"]["name"], "python3",
        "{who}"
    );
    // Opening and closing menus changes nothing on the server.
    assert!(lab.names("jl-menus-close").is_empty(), "{who}");
}

#[test]
fn galatas_flows_pass_on_a_real_jupyterlab_and_its_own_state_agrees() {
    let lab = JupyterLab::start();
    let base = lab.base.to_string();
    let project = project(&lab);
    let root = project.path();

    let run = windup(root, &["run", "--require-cached", "--base-url", &base]);
    // The results and the summary go to stdout.
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(0), "{out}\n{}", lab.log());
    assert!(out.contains("5 passed, 0 failed"), "{out}");
    assert_jupyterlab_did_the_flows(&lab, "windup run");

    // The same plans exported: Playwright's own run of the specs does the same to JupyterLab.
    reset(&lab);
    let node_modules = fixtures()
        .playwright_test
        .parent()
        .unwrap()
        .parent()
        .unwrap();
    std::fs::create_dir_all(root.join("pw")).unwrap();
    std::os::unix::fs::symlink(node_modules, root.join("pw/node_modules")).unwrap();
    let export = ["export", "--format", "playwright", "--out", "pw", "--check"];
    let o = windup_export(root, &export, &base);
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}\n{text}\n{}",
        playwright_failures(&root.join("pw")),
        stderr(&o)
    );
    for id in FLOWS {
        assert!(
            text.contains(&format!("passed pw/{id}.spec.ts")),
            "{id}: {text}"
        );
    }
    assert_jupyterlab_did_the_flows(&lab, "the exported specs");
    keep_exports(root, "jupyterlab");

    // Dropped, the server takes its kernels with it.
    let home = lab.home().to_string_lossy().to_string();
    drop(lab);
    let left = windup_testkit::chromium::processes_mentioning(&home);
    assert!(left.is_empty(), "still running: {left:?}");
}

#[test]
fn the_flows_fail_when_jupyterlab_refuses_the_new_name() {
    let lab = JupyterLab::start();
    let base = lab.base.to_string();
    let project = project(&lab);
    let root = project.path();
    // The mutant: the names the flows give are taken before they run.
    lab.mkdir("jl-new-folder-rename/results");
    std::fs::write(lab.root.join("jl-rename-text-file/dummy.txt"), "taken\n").unwrap();

    let run = windup(
        root,
        &[
            "run",
            "jl-new-folder-rename",
            "jl-rename-text-file",
            "--require-cached",
            "--base-url",
            &base,
        ],
    );
    let out = stdout(&run);
    assert_eq!(run.status.code(), Some(1), "{out}\n{}", stderr(&run));
    assert!(out.contains("0 passed, 2 failed"), "{out}");
    // Each fails at its rename, on a check of the plan: JupyterLab asks to overwrite instead.
    for (id, step) in [
        ("jl-new-folder-rename", "a4"),
        ("jl-rename-text-file", "a8"),
    ] {
        let line = out
            .lines()
            .find(|l| l.contains(&format!("FAIL  {id} ")))
            .unwrap_or_else(|| panic!("{id} did not fail: {out}"));
        assert!(
            line.contains(&format!("postcondition_failed at {step}")),
            "{line}\n{out}"
        );
    }
    // JupyterLab agrees: neither rename happened.
    assert_eq!(
        lab.names("jl-new-folder-rename"),
        ["Untitled Folder", "results"]
    );
    assert_eq!(
        lab.names("jl-rename-text-file"),
        ["dummy.txt", "untitled.txt"]
    );
    assert_eq!(
        std::fs::read_to_string(lab.root.join("jl-rename-text-file/dummy.txt")).unwrap(),
        "taken\n"
    );
}
