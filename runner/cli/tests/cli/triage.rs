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
    assert!(terminal.contains("triage: app_changed"), "{terminal}");
}

#[test]
fn a_changed_success_message_is_test_outdated() {
    let project = example();
    let root = project.path();
    edit(root, "projects.html", "'Archived '", "'Shelved '");
    let (_server, base) = serve(root);
    let (s, _) = run_failing(root, "archive-project", &base);
    assert_eq!(s["failure_class"], "postcondition_failed", "{s}");
    assert_eq!(s["triage"]["verdict"], "test_outdated", "{s}");
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
