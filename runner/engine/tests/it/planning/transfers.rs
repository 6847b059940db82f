//! Planned uploads and downloads: the planner is shown the project's `e2e/files/` by name, a
//! file input hidden behind its label as one ref, and one hidden with no label (a drop zone's); it answers an `upload` and a `download` on
//! refs; they run in real Chromium against a loopback app, and the saved download step checks
//! the file by a name whose numbers may change, so the cached plan replays with no call.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::json;
use windup_engine::config::Overrides;
use windup_model::{CacheOutcome, ScenarioStatus};
use windup_testkit::app::{App, AppRequest, AppResponse};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

const FILES_PAGE: &str = r#"<!doctype html><title>Invoices</title>
<label class="button">Invoice <input type="file" id="f" style="display:none"></label>
<ul id="attached"></ul>
<a href="/report">Report</a>
<script>
document.getElementById('f').addEventListener('change', (e) => {
  for (const f of e.target.files) {
    const li = document.createElement('li');
    li.textContent = f.name;
    document.getElementById('attached').appendChild(li);
  }
});
</script>"#;

/// A drop zone: a script opens a file input no one sees and no label names.
const DROP_PAGE: &str = r#"<!doctype html><title>Photo</title>
<div id="drop" role="button" tabindex="0">Drop a photo here</div>
<input type="file" name="photo" hidden>
<ul id="attached"></ul>
<script>
const input = document.querySelector('input[name=photo]');
document.getElementById('drop').addEventListener('click', () => input.click());
input.addEventListener('change', (e) => {
  for (const f of e.target.files) {
    const li = document.createElement('li');
    li.textContent = f.name;
    document.getElementById('attached').appendChild(li);
  }
});
</script>"#;

/// The app: the pages, and a report whose file name carries a number that changes each time.
fn app() -> App {
    let served = Arc::new(AtomicU32::new(41));
    App::start(move |r: &AppRequest| match r.path.as_str() {
        "/files.html" => AppResponse::html(FILES_PAGE),
        "/drop.html" => AppResponse::html(DROP_PAGE),
        "/report" => {
            let n = served.fetch_add(1, Ordering::SeqCst);
            AppResponse {
                status: 200,
                headers: vec![
                    ("content-type".into(), "text/csv".into()),
                    (
                        "content-disposition".into(),
                        format!("attachment; filename=\"report-{n}.csv\""),
                    ),
                ],
                body: "a,b\n1,2\n".into(),
            }
        }
        _ => AppResponse {
            status: 404,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: "not found".into(),
        },
    })
}

const TASK: &str = "Attach \"invoice.txt\" and check it is listed, then download the report";

fn project(app: &App, fake: &FakeLlm) -> Project {
    project_with(app, fake, "invoices", TASK, "/files.html")
}

/// A project with `e2e/files/invoice.txt` and the one scenario `id`.
fn project_with(app: &App, fake: &FakeLlm, id: &str, task: &str, start_url: &str) -> Project {
    let p = Project::new(&app.base, &provider_toml(fake, Wire::OpenAi, ""));
    p.write("e2e/files/invoice.txt", "hello, upload");
    p.scenario(id, task, start_url);
    p
}

fn upload_answer(file: &str) -> serde_json::Value {
    json!({"actions": [
        {"type": "upload", "target": {"ref": "@button \"Invoice\""}, "files": [file]},
        {"type": "download", "target": {"ref": "@link \"Report\""}}
    ], "complete": true})
}

#[test]
fn an_upload_and_a_download_are_planned_on_refs_verified_cached_and_replayed() {
    let app = app();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(upload_answer("invoice.txt")));
        let p = project(&app, &fake);
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        assert_eq!((r.cache, r.llm_calls), (CacheOutcome::Miss, 1));
        // The prompt named the files (not their contents) and listed the hidden input.
        let body = fake.requests()[0].json();
        let user = body["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains("FILES (for upload): invoice.txt\n"), "{user}");
        assert!(!user.contains("hello, upload"), "{user}");
        assert!(user.contains("button \"Invoice\" type=file"), "{user}");
        let schema = body["response_format"]["json_schema"]["schema"].to_string();
        assert!(schema.contains("\"upload\""), "{schema}");
        let plan = p.cached("invoices").expect("verified and cached");
        let actions = plan["plan"]["actions"].as_array().unwrap();
        assert_eq!(actions[0]["type"], "upload");
        assert_eq!(actions[0]["files"], json!(["invoice.txt"]));
        assert_eq!(actions[0]["target"]["selector"], "label=\"Invoice\"");
        assert_eq!(
            actions[0]["expect"]["visible"], "text=\"invoice.txt\"",
            "{plan}"
        );
        assert_eq!(actions[1]["type"], "download");
        assert_eq!(
            actions[1]["expect"]["download"],
            json!({"name": "report-*.csv", "min_size": 1}),
            "{plan}"
        );
        // The next report has another number: the glob still matches, with no call.
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        assert_eq!((r.cache, r.llm_calls), (CacheOutcome::Hit, 0));
        let name = r.actions[1]
            .download
            .as_ref()
            .map(|d| d.name.clone())
            .unwrap();
        let n: u32 = name
            .strip_prefix("report-")
            .and_then(|n| n.strip_suffix(".csv"))
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{name}"));
        assert!(n > 41, "a report downloaded after the plan's runs: {name}");
        assert_eq!(fake.requests().len(), 1);
    });
}

#[test]
fn an_upload_naming_a_file_not_in_e2e_files_is_rejected_back_to_the_model() {
    let app = app();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(upload_answer("secret.pdf")));
        fake.push(Reply::Grounded(upload_answer("invoice.txt")));
        let p = project(&app, &fake);
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        assert_eq!(r.llm_calls, 2, "the rejected answer and its correction");
        let body = fake.requests()[1].json();
        let user = body["messages"][1]["content"].as_str().unwrap();
        assert!(user.contains("YOUR PREVIOUS ANSWER WAS REJECTED"), "{user}");
        assert!(
            user.contains("`secret.pdf` is not in e2e/files/ (fix: name only files listed in FILES: invoice.txt)"),
            "{user}"
        );
        let plan = p.cached("invoices").expect("the corrected plan is cached");
        assert_eq!(plan["plan"]["actions"][0]["files"], json!(["invoice.txt"]));
    });
}

#[test]
fn a_file_input_hidden_with_no_label_is_listed_and_its_upload_replays() {
    let app = app();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "upload", "target": {"ref": "@button \"Choose File\""}, "files": ["invoice.txt"]}
        ], "complete": true})));
        let p = project_with(
            &app,
            &fake,
            "photo",
            "Attach \"invoice.txt\" to the drop zone and check it is listed",
            "/drop.html",
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        let body = fake.requests()[0].json();
        let user = body["messages"][1]["content"].as_str().unwrap();
        // The drop zone a person clicks, and the input an upload sets, each with its ref.
        assert!(user.contains("button \"Drop a photo here\""), "{user}");
        assert!(user.contains("button \"Choose File\" type=file"), "{user}");
        let plan = p.cached("photo").expect("verified and cached");
        let action = &plan["plan"]["actions"][0];
        // The selector matches that input alone among every element, hidden ones included.
        assert_eq!(
            action["target"]["selector"], "css=input[type=\"file\"][name=\"photo\"]",
            "{plan}"
        );
        assert_eq!(
            action["expect"]["visible"], "text=\"invoice.txt\"",
            "{plan}"
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        assert_eq!((r.cache, r.llm_calls), (CacheOutcome::Hit, 0));
    });
}
