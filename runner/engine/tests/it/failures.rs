//! Every failure class the engine owns, produced for real; and the behaviours that keep a
//! correct plan from failing (overlays that leave in time, reloads, dialogs, new tabs).

use std::time::Duration;

use windup_engine::browser::{Browser, kill_pid};
use windup_engine::events::Event;
use windup_model::FailureClass;

use crate::support::*;

/// Kills the browser when a given step finishes.
struct KillAfter {
    pid: u32,
    action: &'static str,
}

impl windup_engine::events::EventSink for KillAfter {
    fn on_event(&self, event: &Event) {
        if let Event::ActionFinished { result, .. } = event
            && result.id == self.action
        {
            kill_pid(self.pid);
        }
    }
}

fn pages() -> Server {
    Server::start(&engine_dir().join("tests/fixtures/pages"))
}

/// Runs a one-page plan that must fail, with the given step timeout, and returns its failure.
fn failure(start: &str, actions: &str, action_ms: u64) -> windup_engine::executor::Failure {
    let server = pages();
    let p = plan(start, actions);
    block_on(async {
        Run::new(&server.base)
            .action_timeout(action_ms)
            .exec(browser(), &p)
            .await
            .failure
            .expect("must fail")
    })
}

fn plan(start: &str, actions: &str) -> windup_model::Plan {
    plan_from_str(&format!(
        r#"{{"plan_version":"0.1","scenario_id":"t","task":"t","start_url":"{start}","generated_by":"human","actions":{actions}}}"#
    ))
}

#[test]
fn missing_element_is_selector_not_found_with_what_was_found() {
    let f = failure(
        "/basic.html",
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Sav\"]"},"expect":{"visible":"text=\"Saved\""}}]"#,
        600,
    );
    assert_eq!(f.class, FailureClass::SelectorNotFound);
    assert_eq!(f.action_id.as_deref(), Some("a1"));
    assert!(f.message.contains("0 visible matches"), "{}", f.message);
    assert!(
        f.message.contains("\"Save\""),
        "nearest name offered: {}",
        f.message
    );
}

#[test]
fn element_under_an_overlay_is_not_actionable() {
    let f = failure(
        "/overlay.html",
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Continue\"]"},"expect":{"visible":"text=\"Clicked\""}}]"#,
        700,
    );
    assert_eq!(f.class, FailureClass::NotActionable);
    assert!(
        f.message.contains("overlay"),
        "names the cover: {}",
        f.message
    );
}

#[test]
fn overlay_that_leaves_in_time_passes() {
    let server = pages();
    let p = plan(
        "/overlay.html",
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Continue\"]"},"expect":{"visible":"text=\"Clicked\""}}]"#,
    );
    block_on(async {
        let mut session = browser().acquire_session().await.unwrap();
        note_pid(browser()).await;
        let url = server.base.join("overlay.html").unwrap();
        session
            .goto(url.as_str(), Duration::from_secs(10))
            .await
            .unwrap();
        session
            .eval::<serde_json::Value>("removeOverlayAfter(800); null")
            .await
            .unwrap();
        let x = Run::new(&server.base)
            .action_timeout(6_000)
            .exec_in(&mut session, &p, false)
            .await;
        // Passing proves the wait: a click while the overlay was there lands on the overlay.
        assert_passed(&x, "overlay leaving");
        session.close().await;
    });
}

#[test]
fn false_postcondition_is_postcondition_failed() {
    let f = failure(
        "/basic.html",
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Save\"]"},"expect":{"visible":"text=\"Deleted\"","url":"/other.html"}}]"#,
        600,
    );
    assert_eq!(f.class, FailureClass::PostconditionFailed);
    assert!(f.message.contains("text=\"Deleted\""), "{}", f.message);
    assert!(
        f.message.contains("/basic.html"),
        "says the URL seen: {}",
        f.message
    );
}

#[test]
fn start_url_that_does_not_load_is_navigation_failed() {
    // A port nobody listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let base = url::Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap();
    let p = plan(
        "/",
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button"},"expect":{"visible":"role=button"}}]"#,
    );
    block_on(async {
        let x = Run::new(&base).exec(browser(), &p).await;
        let f = x.failure.expect("must fail");
        assert_eq!(f.class, FailureClass::NavigationFailed);
        assert!(
            f.message.contains("ERR_CONNECTION_REFUSED"),
            "{}",
            f.message
        );
        assert!(f.action_id.is_none(), "the start page, not a step");
        assert_eq!(x.actions[0].status, windup_model::ActionStatus::Skipped);
    });
}

#[test]
fn http_error_page_is_navigation_failed() {
    let f = failure(
        "/missing.html",
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button"},"expect":{"visible":"role=button"}}]"#,
        3_000,
    );
    assert_eq!(f.class, FailureClass::NavigationFailed);
    assert!(f.message.contains("404"), "{}", f.message);
}

#[test]
fn scenario_budget_is_scenario_timeout() {
    let server = pages();
    let p = plan(
        "/basic.html",
        r#"[{"id":"a1","type":"wait_for","target":{"selector":"text=\"Never\""},"expect":{"visible":"text=\"Never\""}}]"#,
    );
    block_on(async {
        let mut run = Run::new(&server.base).action_timeout(5_000);
        run.scenario_timeout = Duration::from_millis(1_500);
        let x = run.exec(browser(), &p).await;
        let f = x.failure.expect("must fail");
        assert_eq!(f.class, FailureClass::ScenarioTimeout);
        assert!(
            x.duration < Duration::from_millis(4_000),
            "{:?}",
            x.duration
        );
    });
}

#[test]
fn killed_browser_is_browser_crashed_and_the_next_scenario_gets_a_new_one() {
    let server = pages();
    let p = plan(
        "/basic.html",
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Slowly\"]"}},
            {"id":"a2","type":"wait_for","target":{"selector":"text=\"Eventually\""},"expect":{"visible":"text=\"Eventually\""}}]"#,
    );
    // Its own browser: killing the shared one would disturb the other tests.
    let own = Browser::new(browser_options());
    block_on(async {
        own.ensure_started().await.unwrap();
        let pid = own.pid().await.expect("pid");
        // Killed right after the first step, while the second waits.
        let killer = KillAfter { pid, action: "a1" };
        let mut run = Run::new(&server.base).action_timeout(8_000);
        run.events = Some(&killer);
        let x = run.exec(&own, &p).await;
        let f = x.failure.expect("must fail");
        assert_eq!(f.class, FailureClass::BrowserCrashed, "{}", f.message);
        // The browser is restarted for what comes next.
        let ok = plan(
            "/basic.html",
            r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Save\"]"},"expect":{"visible":"text=\"Saved\""}}]"#,
        );
        let x = Run::new(&server.base).exec(&own, &ok).await;
        assert_passed(&x, "after restart");
        assert_ne!(own.pid().await, Some(pid));
        own.close().await;
    });
}

#[test]
fn typing_after_a_slow_reload_lands_in_the_new_document() {
    let server = pages();
    let page = std::fs::read(engine_dir().join("tests/fixtures/pages/reload.html")).unwrap();
    server.route(
        "/slow-reload",
        Canned {
            status: 200,
            content_type: "text/html",
            body: page,
            delay: Duration::from_millis(600),
        },
    );
    let p = plan(
        "/reload.html",
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Reload slowly\"]"}},
            {"id":"a2","type":"fill","target":{"selector":"label=\"Note\""},"value":"kept"},
            {"id":"a3","type":"wait_for","target":{"selector":"text=\"Loaded /slow-reload\""},
             "expect":{"value":{"selector":"label=\"Note\"","equals":"kept"}}}]"#,
    );
    block_on(async {
        let x = Run::new(&server.base).exec(browser(), &p).await;
        assert_passed(&x, "reload race");
        assert_eq!(server.hits("/slow-reload"), 1);
    });
}

#[test]
fn dialogs_are_accepted_and_recorded() {
    let server = pages();
    let p = plan(
        "/basic.html",
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Confirm\"]"},"expect":{"visible":"text=\"Confirmed\""}}]"#,
    );
    let events = Recorder::default();
    block_on(async {
        let mut run = Run::new(&server.base);
        run.events = Some(&events);
        let x = run.exec(browser(), &p).await;
        assert_passed(&x, "dialog");
    });
    let events = events.0.lock().unwrap();
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Event::Dialog { message, .. } if message == "Are you sure?")),
        "dialog recorded"
    );
    assert!(events.iter().any(|e| matches!(
        e,
        Event::PageSeen {
            signature: Some(_),
            ..
        }
    )));
}

#[test]
fn a_link_that_opens_a_new_tab_is_followed() {
    let server = pages();
    let p = plan(
        "/basic.html",
        r#"[{"id":"a1","type":"click","target":{"selector":"role=link[name=\"Open details\"]"}},
            {"id":"a2","type":"click","target":{"selector":"role=button[name=\"Acknowledge\"]"},
             "expect":{"visible":"text=\"Acknowledged\"","url":"/second.html"}}]"#,
    );
    block_on(async {
        let x = Run::new(&server.base).exec(browser(), &p).await;
        assert_passed(&x, "new tab");
    });
}

#[test]
fn fill_from_a_secret_types_the_value() {
    let server = pages();
    let p = plan(
        "/basic.html",
        r#"[{"id":"a1","type":"fill","target":{"selector":"label=\"Note\""},"value_ref":"NOTE_USER",
             "expect":{"value":{"selector":"css=#note","equals":"s3cr3t-canary"}}}]"#,
    );
    block_on(async {
        let mut run = Run::new(&server.base);
        run.secrets
            .insert("NOTE_USER".into(), "s3cr3t-canary".into());
        let x = run.exec(browser(), &p).await;
        assert_passed(&x, "secret fill");
        // Nothing the executor reports carries the value.
        let text = format!("{:?}", x.actions);
        assert!(!text.contains("s3cr3t-canary"));
    });
}

#[test]
fn a_redirect_before_load_is_followed() {
    let server = pages();
    let p = plan(
        "/redirect.html",
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Acknowledge\"]"},
             "expect":{"visible":"text=\"Acknowledged\"","url":"/second.html"}}]"#,
    );
    block_on(async {
        let x = Run::new(&server.base).exec(browser(), &p).await;
        assert_passed(&x, "early redirect");
        assert!(x.duration < Duration::from_secs(5), "{:?}", x.duration);
    });
}

#[test]
fn failure_evidence_names_the_target_and_covers_credential_fields() {
    let server = pages();
    let p = plan(
        "/errors.html",
        r#"[{"id": "a1", "type": "fill", "target": {"selector": "label=\"Secret\""}, "value_ref": "EVIDENCE_USER"},
            {"id": "a2", "type": "click", "target": {"selector": "role=button[name=\"Missing\"]"}, "expect": {"visible": "text=\"x\""}}]"#,
    );
    block_on(async {
        let mut run = Run::new(&server.base).action_timeout(600);
        run.secrets
            .insert("EVIDENCE_USER".into(), "hunter2-on-screen".into());
        let mut session = browser().acquire_session().await.unwrap();
        note_pid(browser()).await;
        let x = run.exec_in(&mut session, &p, true).await;
        let centre: Vec<f64> = session
            .eval("(() => { const r = document.getElementById('secret').getBoundingClientRect(); return [r.left, r.right, r.top + r.height / 2]; })()")
            .await
            .unwrap();
        let masks_left: u32 = session
            .eval("document.querySelectorAll('[data-windup-mask]').length")
            .await
            .unwrap();
        session.close().await;
        assert_eq!(x.failure.unwrap().class, FailureClass::SelectorNotFound);
        assert_eq!(masks_left, 0, "the cover is removed after the screenshot");
        let c = x.evidence.expect("a failure carries evidence");
        let e = &c.evidence;
        assert!(e.url.as_deref().unwrap().ends_with("/errors.html"), "{e:?}");
        let target = e.target.as_deref().unwrap();
        assert!(
            target.starts_with("role=button[name=\"Missing\"]: "),
            "{target}"
        );
        assert!(
            target.contains("0 visible"),
            "what was found instead: {target}"
        );
        assert!(
            e.snapshot.as_deref().unwrap().contains("Broken things"),
            "{e:?}"
        );
        assert!(
            e.console_errors
                .iter()
                .any(|m| m.contains("boom: the widget failed")),
            "{:?}",
            e.console_errors
        );
        assert!(
            e.console_errors.iter().any(|m| m.contains("late failure")),
            "{:?}",
            e.console_errors
        );
        assert!(
            e.failed_requests
                .iter()
                .any(|r| r.starts_with("404 ") && r.ends_with("/missing.png")),
            "{:?}",
            e.failed_requests
        );
        let png = c.screenshot.expect("a screenshot");
        assert_eq!(&png[1..4], b"PNG");
        // Every point across the field is dark: an uncovered field would show its white
        // background between the glyphs.
        for i in 1..10 {
            let x = centre[0] + (centre[1] - centre[0]) * f64::from(i) / 10.0;
            let [r, g, b] = pixel(&png, x as u32, centre[2] as u32);
            assert!(
                r < 0x30 && g < 0x30 && b < 0x30,
                "the credential field is covered at x={x}: {r},{g},{b}"
            );
        }
    });
}
