//! Uploads, downloads and one-time codes, end to end through `windup replay` against loopback
//! apps in real Chromium: a file from `e2e/files/` set on a hidden file input and read back by
//! the page; a `Content-Disposition` download and a blob download saved under the run's folder
//! and checked by name and size (a wrong size fails, naming it); a TOTP sign-in checked by the
//! server, whose secret and codes reach no report, log line or file; bad upload names refused
//! with exit 2; a `plan_version` 0.1 plan still replayed.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};
use windup_engine::secrets::TotpSecret;
use windup_testkit::app::{App, AppRequest, AppResponse};

use crate::support::*;

const UPLOAD_PAGE: &str = r#"<!doctype html><title>Upload</title>
<label>Invoice <input type="file" id="f" style="opacity:0;position:absolute;width:1px;height:1px"></label>
<p id="out"></p>
<script>
document.getElementById('f').addEventListener('change', async (e) => {
  const f = e.target.files[0];
  document.getElementById('out').textContent = f.name + ' (' + f.size + ' bytes): ' + (await f.text());
});
</script>"#;

const DOWNLOAD_PAGE: &str = r#"<!doctype html><title>Downloads</title>
<a href="/report">Report</a>
<button id="x">Export</button>
<script>
document.getElementById('x').addEventListener('click', () => {
  const blob = new Blob(['{"ok":true}'], { type: 'application/json' });
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = 'export.json';
  document.body.appendChild(a);
  a.click();
});
</script>"#;

const REPORT_CSV: &str = "a,b\n1,2\n";

/// The upload and download pages, and a two-factor form whose server checks the code.
pub(crate) fn files_app() -> App {
    let checker = TotpSecret::parse(TOTP_SECRET).unwrap();
    App::start(move |r: &AppRequest| match r.path.as_str() {
        "/upload.html" => AppResponse::html(UPLOAD_PAGE),
        "/otp.html" => AppResponse::html(
            "<!doctype html><title>Two-factor</title><form action=\"/verify\">\
             <label>Code <input name=\"code\" autocomplete=\"one-time-code\"></label>\
             <button>Verify</button></form>",
        ),
        // The server checks the code itself: this step's or the one before (a step boundary).
        "/verify" => {
            let code = r.param("code").unwrap_or_default();
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs();
            let ok = code == checker.code_at(now) || code == checker.code_at(now - 30);
            AppResponse::html(if ok {
                "<!doctype html><title>Home</title><h1>Signed in</h1>"
            } else {
                "<!doctype html><title>Two-factor</title><h1>Wrong code</h1>"
            })
        }
        "/download.html" => AppResponse::html(DOWNLOAD_PAGE),
        "/report" => AppResponse {
            status: 200,
            headers: vec![
                ("content-type".into(), "text/csv".into()),
                (
                    "content-disposition".into(),
                    "attachment; filename=\"report-2026.csv\"".into(),
                ),
            ],
            body: REPORT_CSV.into(),
        },
        _ => AppResponse {
            status: 404,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: "not found".into(),
        },
    })
}

/// A project with `windup.toml`, `e2e/files/invoice.txt` and `manifest`.
pub(crate) fn project(manifest: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("windup.toml"), "").unwrap();
    std::fs::create_dir_all(dir.path().join("e2e/files")).unwrap();
    std::fs::write(dir.path().join("e2e/files/invoice.txt"), "hello, upload").unwrap();
    std::fs::write(dir.path().join("e2e/manifest.yaml"), manifest).unwrap();
    dir
}

fn replay(dir: &Path, plan: &Value, base: &str, env: &[(&str, &str)]) -> Output {
    std::fs::write(
        dir.join("plan.json"),
        serde_json::to_string_pretty(plan).unwrap(),
    )
    .unwrap();
    Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(dir)
        .args([
            "replay",
            "plan.json",
            "--base-url",
            base,
            "--report",
            "json=r.json",
        ])
        .env_remove("WINDUP_BASE_URL")
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

pub(crate) fn files_plan(report_size: u64) -> Value {
    json!({
        "plan_version": "0.2", "scenario_id": "files", "task": "upload and download",
        "start_url": "/upload.html", "generated_by": "human",
        "actions": [
            {"id": "a1", "type": "upload", "target": {"selector": "label=\"Invoice\""},
             "files": ["invoice.txt"],
             "expect": {"value": {"selector": "css=#out", "equals": "invoice.txt (13 bytes): hello, upload"}}},
            {"id": "a2", "type": "goto", "url": "/download.html"},
            {"id": "a3", "type": "download", "target": {"selector": "role=link[name=\"Report\"]"},
             "expect": {"download": {"name": "report-*.csv", "size": report_size}}},
            {"id": "a4", "type": "download", "target": {"selector": "role=button[name=\"Export\"]"},
             "expect": {"download": {"name": "export.json", "min_size": 5, "max_size": 100}}}
        ]
    })
}

#[test]
fn uploads_and_downloads_pass_and_the_files_are_saved_under_the_run() {
    let dir = project("accounts: {}\n");
    let app = files_app();
    let out = replay(
        dir.path(),
        &files_plan(REPORT_CSV.len() as u64),
        app.base.as_str(),
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = report(&dir.path().join("r.json"));
    let run_id = r["run_id"].as_str().unwrap();
    let actions = r["scenarios"][0]["actions"].as_array().unwrap();
    let folder = format!("e2e/.windup/runs/{run_id}/downloads/files");
    assert_eq!(
        actions[2]["download"],
        json!({"path": format!("{folder}/report-2026.csv"), "name": "report-2026.csv", "size": 8})
    );
    assert_eq!(
        actions[3]["download"]["path"],
        format!("{folder}/export.json")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join(format!("{folder}/report-2026.csv"))).unwrap(),
        REPORT_CSV
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join(format!("{folder}/export.json"))).unwrap(),
        "{\"ok\":true}"
    );
    // Nothing else is left in the folder (no file still named by its download id).
    assert_eq!(
        std::fs::read_dir(dir.path().join(&folder)).unwrap().count(),
        2
    );
}

#[test]
fn a_download_of_the_wrong_size_fails_naming_the_size() {
    let dir = project("accounts: {}\n");
    let app = files_app();
    let out = replay(dir.path(), &files_plan(9), app.base.as_str(), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = report(&dir.path().join("r.json"));
    let s = &r["scenarios"][0];
    assert_eq!(s["failure_class"], "postcondition_failed", "{s}");
    assert_eq!(s["failed_action_id"], "a3", "{s}");
    let message = s["message"].as_str().unwrap();
    assert!(
        message.contains("the download `report-2026.csv` is 8 bytes, not 9 (expect.download.size)"),
        "{message}"
    );
    assert!(
        s["actions"][2]["download"]["path"]
            .as_str()
            .unwrap()
            .ends_with("/report-2026.csv")
    );
}

/// The attack of issue 33: links committed in `e2e/files/` to the project's `.env.local` and
/// to a system file. No road uploads them: a plan naming one stops with exit 2 before any
/// browser starts, and `windup validate` names each link whether or not a plan uses it.
#[test]
fn a_link_in_the_files_folder_is_never_uploaded_and_validate_names_it() {
    let dir = project("accounts: {}\n");
    std::fs::write(
        dir.path().join(".env.local"),
        "ADMIN_PASSWORD=canary-in-env\n",
    )
    .unwrap();
    let files = dir.path().join("e2e/files");
    std::os::unix::fs::symlink("../../.env.local", files.join("notes.txt")).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", files.join("users.txt")).unwrap();
    let app = files_app();
    let mut plan = files_plan(8);
    for name in ["notes.txt", "users.txt"] {
        plan["actions"][0]["files"] = json!([name]);
        let out = replay(dir.path(), &plan, app.base.as_str(), &[]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("actions[0].files[0]"), "{err}");
        assert!(err.contains(&format!("`{name}` is a link")), "{err}");
        assert!(err.contains("copy the file into e2e/files/"), "{err}");
        assert!(
            !err.contains("canary-in-env") && !err.contains("root:"),
            "{err}"
        );
        assert!(!dir.path().join("r.json").exists(), "nothing ran");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(dir.path())
        .arg("validate")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    for name in ["e2e/files/notes.txt", "e2e/files/users.txt"] {
        assert!(err.contains(name) && err.contains("is a link"), "{err}");
    }
    // The real file beside them is still fine.
    assert!(!err.contains("invoice.txt"), "{err}");
}

#[test]
fn bad_upload_file_names_are_refused_with_exit_2_naming_the_field() {
    let dir = project("accounts: {}\n");
    let app = files_app();
    let mut plan = files_plan(8);
    plan["actions"][0]["files"] = json!(["../windup.toml"]);
    let out = replay(dir.path(), &plan, app.base.as_str(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("actions[0].files[0]"), "{err}");
    assert!(err.contains("is a path"), "{err}");

    plan["actions"][0]["files"] = json!(["missing.pdf"]);
    let out = replay(dir.path(), &plan, app.base.as_str(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("actions[0].files[0]"), "{err}");
    assert!(err.contains("`missing.pdf` is not in e2e/files/"), "{err}");
    assert!(err.contains("add the file to e2e/files/"), "{err}");
}

#[test]
fn an_older_plan_version_still_replays() {
    let dir = project("accounts: {}\n");
    let app = files_app();
    let plan = json!({
        "plan_version": "0.1", "scenario_id": "old", "task": "t",
        "start_url": "/download.html", "generated_by": "human",
        "actions": [{"id": "a1", "type": "wait_for", "target": {"selector": "role=link[name=\"Report\"]"},
                     "expect": {"visible": "role=button[name=\"Export\"]"}}]
    });
    let out = replay(dir.path(), &plan, app.base.as_str(), &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A 0.1 plan cannot hold a step 0.2 brought.
    let mut newer = files_plan(8);
    newer["plan_version"] = json!("0.1");
    let out = replay(dir.path(), &newer, app.base.as_str(), &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("actions[0].type"), "{}", stderr(&out));
}

/// A base32 secret for the test account (not RFC 6238's, so its codes are this test's own).
pub(crate) const TOTP_SECRET: &str = "KRUGS4ZANFZSAYJAORSXG5BAONSWG4TF";

#[test]
fn a_totp_sign_in_passes_and_neither_secret_nor_code_is_kept_anywhere() {
    let dir = project("accounts:\n  admin:\n    otp: {totp_secret: ACME_TOTP}\n");
    let secret = TotpSecret::parse(TOTP_SECRET).unwrap();
    let app = files_app();
    let plan = otp_plan();
    let out = replay(
        dir.path(),
        &plan,
        app.base.as_str(),
        &[("ACME_TOTP", TOTP_SECRET), ("WINDUP_LOG", "debug")],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = std::fs::read_to_string(dir.path().join("r.json")).unwrap();
    // The final URL carried the code the form sent: masked.
    assert!(r.contains("code=•••"), "{r}");
    let mut everything = vec![
        r,
        stderr(&out),
        String::from_utf8_lossy(&out.stdout).to_string(),
    ];
    for (_, bytes) in tree(&dir.path().join("e2e")) {
        everything.push(String::from_utf8_lossy(&bytes).to_string());
    }
    let everything = everything.join("\n");
    assert!(
        !everything.contains(TOTP_SECRET),
        "the secret leaked:\n{everything}"
    );
    for code in secret.recent() {
        assert!(
            !everything.contains(&code),
            "a code ({code}) leaked:\n{everything}"
        );
    }
}

#[test]
fn a_cached_plan_whose_upload_file_is_gone_stops_the_run_with_exit_2_and_stays_cached() {
    let dir = project("accounts: {}\n");
    let app = files_app();
    std::fs::create_dir_all(dir.path().join("e2e/scenarios")).unwrap();
    std::fs::write(
        dir.path().join("e2e/scenarios/files.yaml"),
        "id: files\ntask: upload and download\nstart_url: /upload.html\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("plan.json"),
        serde_json::to_string_pretty(&files_plan(8)).unwrap(),
    )
    .unwrap();
    let windup = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_windup"))
            .current_dir(dir.path())
            .args(args)
            .args(["--base-url", app.base.as_str()])
            .env_remove("WINDUP_BASE_URL")
            .output()
            .unwrap()
    };
    let saved = windup(&["replay", "plan.json", "--save"]);
    assert_eq!(saved.status.code(), Some(0), "{}", stderr(&saved));
    let entry = dir.path().join("e2e/.windup/cache/files.json");
    let before = std::fs::read(&entry).expect("the plan is cached");
    std::fs::remove_file(dir.path().join("e2e/files/invoice.txt")).unwrap();
    let out = windup(&["run"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("e2e/.windup/cache/files.json"), "{err}");
    assert!(err.contains("plan.actions[0].files[0]"), "{err}");
    assert!(err.contains("add the file to e2e/files/"), "{err}");
    // Nothing ran: the entry is as it was, and nothing went stale.
    assert_eq!(std::fs::read(&entry).unwrap(), before);
    assert!(!dir.path().join("e2e/.windup/stale").exists());
}

/// A sign-in with the one-time code of the manifest's `ACME_TOTP` account.
pub(crate) fn otp_plan() -> Value {
    json!({
        "plan_version": "0.2", "scenario_id": "otp", "task": "sign in with a one-time code",
        "start_url": "/otp.html", "generated_by": "human",
        "actions": [
            {"id": "a1", "type": "fill", "target": {"selector": "label=\"Code\""}, "value_ref": "ACME_TOTP"},
            {"id": "a2", "type": "click", "target": {"selector": "role=button[name=\"Verify\"]"},
             "expect": {"visible": "role=heading[name=\"Signed in\"]"}}
        ]
    })
}
