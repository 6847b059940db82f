//! The planner is shown a page once it has settled, never its loading screen: each page below
//! shows only "Loading" for two seconds (longer than the old grace of about a second) and then
//! the form, held back each time by one thing alone: a request waiting for its answer, a region
//! marked `aria-busy`, a document that keeps changing. The oracle is the page itself: the
//! answer clicks `button "Save"`, a ref that exists only in the settled page, and the page
//! says "Saved" only when that button was clicked.

use std::time::Duration;

use windup_engine::config::Overrides;
use windup_model::ScenarioStatus;
use windup_testkit::Canned;
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

/// The form every page ends in: the Save button that says "Saved".
const FORM: &str = r#"'<button onclick="document.getElementById(\'status\').textContent = \'Saved\'">Save</button><p id="status" role="status"></p>'"#;

fn page(body: &str, script: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Late</title></head><body>{body}<script>const FORM = {FORM};\n{script}</script></body></html>"
    )
}

/// A project whose steps wait `action_ms`: the bound of the wait for a page to settle.
fn project(server: &Server, fake: &FakeLlm, action_ms: u64) -> Project {
    let p = Project::new(&server.base, "");
    p.write(
        "windup.toml",
        &format!(
            "base_url = \"{}\"\n[timeouts]\naction_ms = {action_ms}\n{}",
            server.base,
            provider_toml(fake, Wire::OpenAi, "")
        ),
    );
    p
}

/// Plans the Save task on a page that shows "Loading" for two seconds, then the form, and
/// asserts the model was shown the form.
fn planned_once_settled(name: &str, body: &str, script: &str) {
    let server = pages();
    server.route(
        "/data",
        Canned {
            status: 200,
            content_type: "application/json",
            body: b"{}".to_vec(),
            delay: Duration::from_millis(2000),
        },
    );
    server.page(&format!("/{name}.html"), &page(body, script));
    let fake = FakeLlm::start();
    fake.push(Reply::Grounded(save_plan()));
    // A step waits 4 s: the bound of the wait for the page to settle, past its two seconds.
    let p = project(&server, &fake, 4000);
    p.scenario("save", SAVE_TASK, &format!("/{name}.html"));
    let report = block_on(p.run(Overrides::default()));
    let r = single(&report);
    assert_eq!(r.status, ScenarioStatus::Passed, "{name}: {:?}", r.message);
    let body = fake.requests()[0].body.clone();
    assert!(
        body.contains("button \\\"Save\\\""),
        "{name}: the model was shown the settled page: {body}"
    );
}

#[test]
fn the_planner_sees_a_page_once_its_request_is_answered() {
    // The document is still and nothing is busy: only the request holds the page back.
    planned_once_settled(
        "request",
        "<main>Loading</main>",
        "fetch('/data').then(() => { document.querySelector('main').innerHTML = FORM; });",
    );
}

#[test]
fn the_planner_sees_a_page_once_no_region_says_aria_busy() {
    // No request, the document still: only `aria-busy` says the page is not ready.
    planned_once_settled(
        "busy",
        "<main aria-busy=\"true\">Loading</main>",
        "setTimeout(() => { const m = document.querySelector('main'); m.innerHTML = FORM; m.setAttribute('aria-busy', 'false'); }, 2000);",
    );
}

#[test]
fn the_planner_sees_a_page_once_its_document_stops_changing() {
    // No request, nothing busy: only the changing document says the page is not ready.
    planned_once_settled(
        "changing",
        "<main>Loading</main>",
        "const m = document.querySelector('main'); const t = setInterval(() => { m.textContent += '.'; }, 100);\n\
         setTimeout(() => { clearInterval(t); m.innerHTML = FORM; }, 2000);",
    );
}

#[test]
fn a_page_that_never_settles_is_read_once_a_steps_wait_is_over() {
    let server = pages();
    // The form is there from the start, under a region that stays busy and changes forever.
    server.page(
        "/restless.html",
        &page(
            "<main aria-busy=\"true\"></main><p id=\"clock\"></p>",
            "document.querySelector('main').innerHTML = FORM;\n\
             setInterval(() => { document.getElementById('clock').textContent = String(Date.now()); }, 50);",
        ),
    );
    let fake = FakeLlm::start();
    fake.push(Reply::Grounded(save_plan()));
    let p = project(&server, &fake, 1500);
    p.scenario("save", SAVE_TASK, "/restless.html");
    let report = block_on(p.run(Overrides::default()));
    let r = single(&report);
    assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
    assert_eq!(fake.requests().len(), 1);
}
