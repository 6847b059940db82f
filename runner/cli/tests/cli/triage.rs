//! LLM-free triage on real failures of the bundled example: each kind of change to the app (or
//! to where it runs) gets its verdict in the report, the terminal and the JUnit file.

use std::path::Path;

use serde_json::Value;

use crate::support::{example, run_one, serve};

/// Runs one scenario against `base`; returns the report's scenario and the terminal text.
fn run_failing(root: &Path, id: &str, base: &str) -> (Value, String) {
    let (code, s, junit, terminal) = run_one(root, id, base);
    assert_eq!(code, 1, "{terminal}");
    let verdict = s["triage"]["verdict"].as_str().unwrap_or_default();
    assert!(junit.contains(&format!("triage: {verdict}")), "{junit}");
    (s, terminal)
}

fn edit(root: &Path, file: &str, from: &str, to: &str) {
    let path = root.join("app").join(file);
    let html = std::fs::read_to_string(&path).unwrap();
    assert!(html.contains(from), "{file} holds {from}");
    std::fs::write(&path, html.replace(from, to)).unwrap();
}

#[test]
fn a_renamed_button_is_app_changed_with_the_close_name_the_page_has() {
    let project = example();
    let root = project.path();
    edit(root, "projects.html", "'Archive'", "'Move to archive'");
    // Healing would mend this rename (see heal.rs): off, the failure itself is triaged.
    let toml = root.join("windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{text}\nheal = false\n")).unwrap();
    let (_server, base) = serve(root);
    let (s, terminal) = run_failing(root, "archive-project", &base);
    assert_eq!(s["triage"]["verdict"], "app_changed", "{s}");
    assert!(
        s["triage"]["facts"][0]
            .as_str()
            .unwrap()
            .contains("Move to archive"),
        "{s}"
    );
    // One reason line: class, step and the message's first sentence; then the evidence, the
    // triage's verdict with only its deciding fact, and advice for that verdict.
    let fail = terminal
        .lines()
        .find(|l| l.starts_with("  FAIL  archive-project ("))
        .unwrap_or_else(|| panic!("no FAIL line in:\n{terminal}"));
    let (_, reason) = fail.split_once("): ").unwrap();
    let sentence = reason
        .strip_prefix(&format!(
            "selector_not_found at {}: ",
            s["failed_action_id"].as_str().unwrap()
        ))
        .unwrap_or_else(|| panic!("{fail}"));
    let message = s["message"].as_str().unwrap();
    assert!(
        message.starts_with(sentence.trim_end_matches('…')),
        "{sentence} / {message}"
    );
    assert_eq!(
        terminal.matches(sentence).count(),
        1,
        "the message is not repeated: {terminal}"
    );
    let lines: Vec<&str> = terminal.lines().collect();
    let at = lines.iter().position(|l| *l == fail).unwrap();
    let triage = lines[at + 1..]
        .iter()
        .find(|l| l.trim_start().starts_with("triage: "))
        .unwrap();
    assert_eq!(
        triage.trim(),
        format!(
            "triage: app_changed: {}",
            s["triage"]["facts"][0].as_str().unwrap()
        )
    );
    let advice = lines[at + 1..]
        .iter()
        .find(|l| l.trim_start().starts_with("advice: "))
        .unwrap();
    assert!(advice.contains("if not, fix the app"), "{advice}");
    assert!(
        lines[at + 1..]
            .iter()
            .any(|l| l.trim_start().starts_with("screenshot: e2e/.windup/runs/")),
        "{terminal}"
    );
}

#[test]
fn a_changed_success_message_is_test_outdated() {
    let project = example();
    let root = project.path();
    edit(root, "projects.html", "'Archived '", "'Shelved '");
    let (_server, base) = serve(root);
    let (s, terminal) = run_failing(root, "archive-project", &base);
    assert_eq!(s["failure_class"], "postcondition_failed", "{s}");
    assert_eq!(s["triage"]["verdict"], "test_outdated", "{s}");
    assert!(
        terminal.contains("  FAIL  archive-project (")
            && terminal.contains("): postcondition_failed at a"),
        "{terminal}"
    );
    assert!(
        terminal
            .contains("advice: the steps still work but what the scenario checks no longer holds"),
        "{terminal}"
    );
}

#[test]
fn a_page_answering_500_is_app_broken_and_an_app_that_is_not_there_is_environment() {
    let project = example();
    let root = project.path();
    let (server, base) = serve(root);
    server.route(
        "/login.html",
        windup_testkit::Canned {
            status: 500,
            content_type: "text/html",
            body: b"<h1>Internal Server Error</h1>".to_vec(),
            delay: std::time::Duration::ZERO,
        },
    );
    let (s, _) = run_failing(root, "sign-in", &base);
    assert_eq!(s["triage"]["verdict"], "app_broken", "{s}");

    // Nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (s, _) = run_failing(root, "sign-in", &format!("http://127.0.0.1:{port}/"));
    assert_eq!(s["triage"]["verdict"], "environment", "{s}");
}

/// What a real app's pages do on every load, as TodoMVC's `base.js` and a React app do: a
/// `learn.json` that answers 404, and a promise rejection the app leaves unhandled. And a badly
/// made one: an audit request whose path carries the password the login page kept.
const NOISE: &str = "<script>fetch('learn.json');\
    fetch('audit/' + encodeURIComponent(sessionStorage.getItem('pw') || ''));\
    Promise.reject(new TypeError(\"Cannot read properties of undefined (reading 'id')\"));\
    </script></body>";

#[test]
fn the_apps_usual_background_noise_decides_no_verdict_once_a_plan_was_verified_with_it() {
    let project = example();
    let root = project.path();
    edit(root, "projects.html", "</body>", NOISE);
    edit(
        root,
        "login.html",
        "form.addEventListener('submit', (event) => {",
        "form.addEventListener('submit', (event) => { sessionStorage.setItem('pw', password.value);",
    );
    let toml = root.join("windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{text}\nheal = false\n")).unwrap();
    let (_server, base) = serve(root);
    let entry_file = root.join("e2e/.windup/cache/archive-project.json");
    let committed: Value =
        serde_json::from_str(&std::fs::read_to_string(&entry_file).unwrap()).unwrap();
    assert!(
        committed.get("baseline").is_none(),
        "an older entry has none"
    );

    // The label a person gives: the Archive button was renamed, so the app changed. With no
    // baseline, the page's usual noise reads as the app failing, and the verdict says it is
    // unsure.
    edit(root, "projects.html", "'Archive'", "'Move to archive'");
    let (s, _) = run_failing(root, "archive-project", &base);
    assert_eq!(s["triage"]["verdict"], "app_broken", "{s}");
    assert_eq!(s["triage"]["unconfirmed"], true, "{s}");

    // The same plan verified against the app as it normally is records its noise.
    edit(root, "projects.html", "'Move to archive'", "'Archive'");
    let plan_file = root.join("archive.plan.json");
    std::fs::write(&plan_file, committed["plan"].to_string()).unwrap();
    let o = crate::support::windup(
        root,
        &[
            "replay",
            plan_file.to_str().unwrap(),
            "--save",
            "--base-url",
            &base,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", crate::support::stderr(&o));
    let entry: Value =
        serde_json::from_str(&std::fs::read_to_string(&entry_file).unwrap()).unwrap();
    // Sorted, whatever order the requests finished in.
    let requests = &entry["baseline"]["failed_requests"];
    assert!(
        requests[0]
            .as_str()
            .is_some_and(|r| r.starts_with("404 /audit/")),
        "{entry}"
    );
    assert_eq!(requests[1], "404 /learn.json", "{entry}");
    let text = std::fs::read_to_string(&entry_file).unwrap();
    assert!(
        !text.contains("correct") && !text.contains("horse"),
        "a credential in the cache: {text}"
    );
    assert!(
        entry["baseline"]["console_errors"][0]
            .as_str()
            .is_some_and(|e| e.contains("reading 'id'")),
        "{entry}"
    );

    // Now only what is new decides: the renamed button.
    edit(root, "projects.html", "'Archive'", "'Move to archive'");
    let (s, terminal) = run_failing(root, "archive-project", &base);
    assert_eq!(s["triage"]["verdict"], "app_changed", "{s}");
    assert!(s["triage"].get("unconfirmed").is_none(), "{s}");
    let discounted = s["triage"]["discounted"].as_array().unwrap();
    assert_eq!(discounted.len(), 3, "{s}");
    assert!(
        discounted.iter().all(|d| d
            .as_str()
            .unwrap()
            .starts_with("also seen when this plan was verified: ")),
        "{s}"
    );
    assert!(terminal.contains("triage: app_changed"), "{terminal}");
}
