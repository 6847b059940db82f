//! Reports of real runs (a pass, a failure, a flaky retry, a re-plan, a budget stop) as snapshots, with what changes from run to
//! run redacted; their JUnit XML checked by a real XML tool (xmllint, installed by
//! `scripts/install-deps.sh`).

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use windup_engine::config::{Config, Overrides};
use windup_engine::reporters::junit;
use windup_engine::runner::Runner;
use windup_model::{CacheOutcome, FailureClass, RunReport, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

fn page(button: &str) -> Canned {
    Canned {
        status: 200,
        content_type: "text/html; charset=utf-8",
        body: format!(
            "<!doctype html><html lang=\"en\"><head><title>Notes</title></head><body><h1>Notes</h1>\
             <button onclick=\"document.getElementById('status').textContent = 'Saved'\">{button}</button>\
             <button disabled>Publish</button>\
             <p id=\"status\" role=\"status\"></p></body></html>"
        )
        .into_bytes(),
        delay: Duration::ZERO,
    }
}

/// Clicks the button named `button`, by the ref the prompt lists for it.
fn click_plan(button: &str) -> Value {
    json!({"actions": [{"type": "click", "target": {"ref": format!("@button {button:?}")}}], "complete": true})
}

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new(base: &url::Url, fake: &FakeLlm) -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("e2e/scenarios")).unwrap();
        std::fs::write(
            dir.path().join("windup.toml"),
            format!(
                "base_url = \"{base}\"\n[timeouts]\naction_ms = 1200\n[providers.fake]\nkind = \"openai\"\nmodel = \"gpt-4.1-mini\"\nbase_url = \"{}\"\nmax_retries = 1\ntimeout_ms = 3000\n",
                fake.openai_base_url()
            ),
        )
        .unwrap();
        Project { dir }
    }

    fn scenario(&self, id: &str, task: &str) {
        self.scenario_at(id, task, "/notes.html");
    }

    fn scenario_at(&self, id: &str, task: &str, start: &str) {
        std::fs::write(
            self.dir.path().join(format!("e2e/scenarios/{id}.yaml")),
            format!("id: {id}\ntask: {task:?}\nstart_url: {start}\n"),
        )
        .unwrap();
    }

    async fn run(&self, overrides: Overrides) -> RunReport {
        let config = Config::load(self.dir.path(), &overrides).unwrap();
        let runner = Runner::with_browser(config, browser().clone()).unwrap();
        let report = runner
            .run(&[], &windup_engine::events::NoEvents)
            .await
            .unwrap();
        note_pid(browser()).await;
        report
    }

    async fn run_selected(&self, selection: &windup_engine::runner::Selection) -> RunReport {
        let config = Config::load(self.dir.path(), &Overrides::default()).unwrap();
        let runner = Runner::with_browser(config, browser().clone()).unwrap();
        let report = runner
            .run_selected(selection, &windup_engine::events::NoEvents)
            .await
            .unwrap();
        note_pid(browser()).await;
        report
    }
}

/// The report with what differs between runs made constant: ids, times, durations, the
/// server's port, the machine's git and CI.
fn redacted(report: &RunReport, base: &url::Url) -> RunReport {
    let text = serde_json::to_string(report)
        .unwrap()
        .replace(&report.run_id, "RUN_ID")
        .replace(base.as_str().trim_end_matches('/'), "http://127.0.0.1:PORT");
    let mut r: RunReport = serde_json::from_str(&text).unwrap();
    r.run_id = "RUN_ID".into();
    r.started_at = time::macros::datetime!(2026-11-30 03:00:00 UTC);
    r.finished_at = r.started_at;
    r.windup_version = "VERSION".into();
    r.git = None;
    r.ci = None;
    r.totals.duration_ms = 0;
    for s in &mut r.scenarios {
        s.duration_ms = 0;
        for a in &mut s.actions {
            (
                a.started_ms,
                a.duration_ms,
                a.wait_ms,
                a.act_ms,
                a.verify_ms,
            ) = (0, 0, 0, 0, 0);
        }
    }
    r
}

/// `xmllint --xpath EXPR` on a file.
fn xpath(file: &Path, expr: &str) -> String {
    let out = std::process::Command::new("xmllint")
        .arg("--xpath")
        .arg(expr)
        .arg(file)
        .output()
        .expect("xmllint: run scripts/install-deps.sh (apt package libxml2-utils)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Writes the JUnit report, checks it is well-formed XML and returns (testcases, failures).
fn junit_counts(report: &RunReport) -> (String, String) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("junit.xml");
    junit::write_report(&file, report, dir.path()).unwrap();
    let lint = std::process::Command::new("xmllint")
        .arg("--noout")
        .arg(&file)
        .output()
        .expect("xmllint: run scripts/install-deps.sh (apt package libxml2-utils)");
    assert!(
        lint.status.success(),
        "{}",
        String::from_utf8_lossy(&lint.stderr)
    );
    (
        xpath(&file, "count(//testsuite/testcase)"),
        xpath(&file, "count(//testsuite/testcase/failure)"),
    )
}

#[test]
fn a_replanned_run_reports_stale_replanned_and_passes() {
    let server = Server::start(&engine_dir().join("tests/fixtures/pages"));
    server.route("/notes.html", page("Save"));
    block_on(async {
        let fake = FakeLlm::start();
        let p = Project::new(&server.base, &fake);
        p.scenario("notes", "Save the notes until they say \"Saved\"");
        fake.push(Reply::Grounded(click_plan("Save")));
        let first = p.run(Overrides::default()).await;
        assert_eq!(first.totals.passed, 1, "{:#?}", first.scenarios);

        // The app renames its button: the replay fails, the plan goes stale, one re-plan heals it.
        server.route("/notes.html", page("Store"));
        fake.push(Reply::Grounded(click_plan("Store")));
        let report = p.run(Overrides::default()).await;
        let s = &report.scenarios[0];
        assert_eq!(
            (s.status, s.cache, s.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::StaleReplanned, 1),
            "{s:#?}"
        );
        let r = redacted(&report, &server.base);
        insta::assert_snapshot!("replan_json", serde_json::to_string_pretty(&r).unwrap());
        insta::assert_snapshot!("replan_junit", junit::render(&r, None).unwrap());
        assert_eq!(junit_counts(&report), ("1".into(), "0".into()));
    });
}

/// The HTML report with its stylesheet left out: the snapshot is about what it says.
fn html_without_style(report: &RunReport) -> String {
    let nowhere = tempfile::tempdir().unwrap();
    let html = windup_engine::reporters::html::render(report, nowhere.path()).unwrap();
    let (start, end) = (
        html.find("<style>").unwrap(),
        html.find("</style>").unwrap(),
    );
    format!("{}<style>STYLE{}", &html[..start], &html[end..])
}

#[test]
fn a_pass_a_failure_and_a_flaky_retry_in_every_format() {
    let server = Server::start(&engine_dir().join("tests/fixtures/pages"));
    server.route("/notes.html", page("Save"));
    server.route("/flaky.html", page("Save"));
    block_on(async {
        let fake = FakeLlm::start();
        let p = Project::new(&server.base, &fake);
        p.scenario("notes", "Save the notes until they say \"Saved\"");
        p.scenario_at(
            "flaky",
            "Save the notes until they say \"Saved\", on a flaky server",
            "/flaky.html",
        );
        fake.push(Reply::Grounded(click_plan("Save")));
        fake.push(Reply::Grounded(click_plan("Save")));
        let one_at_a_time = windup_engine::runner::Selection {
            jobs: 1,
            retries: 1,
            ..Default::default()
        };
        let first = p.run_selected(&one_at_a_time).await;
        assert_eq!(first.totals.passed, 2, "{:#?}", first.scenarios);

        // A new scenario whose plan (and its one correction) clicks a disabled button; the flaky page's
        // first load answers 500, the retry passes.
        p.scenario("broken", "Publish the notes");
        // Two attempts (it is retried), each a plan and its correction.
        for _ in 0..4 {
            fake.push(Reply::Grounded(click_plan("Publish")));
        }
        server.route_once(
            "/flaky.html",
            Canned {
                status: 500,
                content_type: "text/plain",
                body: b"busy".to_vec(),
                delay: Duration::ZERO,
            },
        );
        let report = p.run_selected(&one_at_a_time).await;
        let by_id = |id: &str| {
            report
                .scenarios
                .iter()
                .find(|s| s.scenario_id == id)
                .unwrap()
        };
        assert_eq!(by_id("notes").status, ScenarioStatus::Passed);
        assert_eq!(
            by_id("broken").failure_class,
            Some(FailureClass::NotActionable),
            "{:#?}",
            report.scenarios
        );
        assert!(by_id("flaky").flaky, "{:#?}", by_id("flaky"));
        let mut r = redacted(&report, &server.base);
        for s in &mut r.scenarios {
            if let Some(e) = &mut s.evidence {
                // Chromium asks for /favicon.ico when it likes: not part of the snapshot.
                e.failed_requests.retain(|l| !l.contains("favicon"));
            }
        }
        insta::assert_snapshot!("mixed_json", serde_json::to_string_pretty(&r).unwrap());
        insta::assert_snapshot!("mixed_junit", junit::render(&r, None).unwrap());
        insta::assert_snapshot!("mixed_html", html_without_style(&r));
        assert_eq!(junit_counts(&report), ("3".into(), "1".into()));
    });
}

#[test]
fn a_budget_stop_reports_budget_exceeded_next_to_a_replay() {
    let server = Server::start(&engine_dir().join("tests/fixtures/pages"));
    server.route("/notes.html", page("Save"));
    block_on(async {
        let fake = FakeLlm::start();
        let p = Project::new(&server.base, &fake);
        p.scenario("cached", "Save the notes until they say \"Saved\"");
        fake.push(Reply::Grounded(click_plan("Save")));
        assert_eq!(p.run(Overrides::default()).await.totals.passed, 1);

        // A budget below any call's worst case: the new scenario stops before its call.
        p.scenario("uncached", "Save the notes again until they say \"Saved\"");
        let report = p
            .run(Overrides {
                budget_usd: Some(0.000_01),
                ..Overrides::default()
            })
            .await;
        assert_eq!(
            report.scenarios[1].failure_class,
            Some(FailureClass::BudgetExceeded),
            "{:#?}",
            report.scenarios
        );
        assert_eq!(fake.requests().len(), 1, "no call was made");
        let r = redacted(&report, &server.base);
        insta::assert_snapshot!("budget_json", serde_json::to_string_pretty(&r).unwrap());
        insta::assert_snapshot!("budget_junit", junit::render(&r, None).unwrap());
        assert_eq!(junit_counts(&report), ("2".into(), "1".into()));
    });
}

#[test]
fn the_html_report_of_a_failure_renders_its_screenshot_and_step_offline() {
    let server = Server::start(&engine_dir().join("tests/fixtures/pages"));
    server.route("/notes.html", page("Save"));
    block_on(async {
        let fake = FakeLlm::start();
        let p = Project::new(&server.base, &fake);
        p.scenario("notes", "Publish the notes");
        // The plan, and the one correction a step that does not fit its page gets: its button
        // stays disabled.
        fake.push(Reply::Grounded(click_plan("Publish")));
        fake.push(Reply::Grounded(click_plan("Publish")));
        let report = p.run(Overrides::default()).await;
        let s = &report.scenarios[0];
        assert_eq!(s.failure_class, Some(FailureClass::NotActionable), "{s:#?}");
        assert!(
            s.evidence
                .as_ref()
                .and_then(|e| e.screenshot.as_ref())
                .is_some(),
            "{s:#?}"
        );
        let out = tempfile::tempdir().unwrap();
        let file = out.path().join("report.html");
        windup_engine::reporters::html::write_report(&file, &report, p.dir.path()).unwrap();
        drop(server);

        // Offline, with every http(s) URL blocked: the page may only use what is inside it.
        let session = browser().acquire_session().await.unwrap();
        note_pid(browser()).await;
        session
            .send_raw(
                "Network.emulateNetworkConditions",
                json!({"offline": true, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}),
            )
            .await
            .unwrap();
        session
            .send_raw(
                "Network.setBlockedURLs",
                json!({"urls": ["http://*", "https://*", "ws://*", "wss://*"]}),
            )
            .await
            .unwrap();
        let url = url::Url::from_file_path(&file).unwrap();
        session
            .goto(url.as_str(), Duration::from_secs(10))
            .await
            .unwrap();
        let shot: Value = session
            .eval(
                "(() => { const img = document.querySelector('img[alt=\"the page when notes failed\"]'); \
                 return img && { complete: img.complete, width: img.naturalWidth, height: img.naturalHeight, \
                 shown: img.checkVisibility(), inline: img.src.startsWith('data:image/png;base64,') }; })()",
            )
            .await
            .unwrap();
        let step = "click role=button[name=\"Publish\"]";
        let step_shown: Value = session
            .eval(&format!(
                "(() => {{ const want = {}; \
                 const cells = [...document.querySelectorAll('tr.failed code')].filter((c) => c.textContent === want); \
                 return {{ cells: cells.length, shown: cells.some((c) => c.checkVisibility() && c.getBoundingClientRect().width > 0), \
                 inText: document.body.innerText.includes(want) }}; }})()",
                serde_json::to_string(step).unwrap()
            ))
            .await
            .unwrap();
        let requests = session.log().failed_requests;
        session.close().await;
        assert_eq!(shot["complete"], true, "{shot}");
        assert_eq!(shot["inline"], true, "{shot}");
        assert_eq!(shot["shown"], true, "{shot}");
        assert!(
            shot["width"].as_u64().unwrap() > 0,
            "the screenshot rendered: {shot}"
        );
        assert!(shot["height"].as_u64().unwrap() > 0, "{shot}");
        assert_eq!(step_shown["cells"], 1, "{step_shown}");
        assert_eq!(
            step_shown["shown"], true,
            "the failing step is visible: {step_shown}"
        );
        assert_eq!(step_shown["inText"], true, "{step_shown}");
        assert!(
            requests.is_empty(),
            "the report asked the network for {requests:?}"
        );
    });
}
