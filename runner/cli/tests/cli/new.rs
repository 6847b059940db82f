//! `windup new`: a scenario written from a rough instruction by one ledgered call to a fake
//! provider whose answer depends on the prompt it was sent; literal credentials registered
//! before anything leaves the process. The fake refuses an empty `enum` in the schema as
//! llama.cpp's server does (HTTP 400), and the example project has no setup scenario.

use std::sync::Arc;

use serde_json::{Value, json};
use windup_testkit::fake_llm::{FakeLlm, Reply, Responder};
use windup_testkit::grounded::prompt_text;

use crate::support::{example, serve, stderr, tree, windup, with_fake_provider};

/// The fake model: it writes the scenario only when the prompt lists the login page as a start
/// page and names the new account's password by its ENV name.
fn author() -> Reply {
    Reply::Respond(Responder(Arc::new(|body: &str| {
        let prompt = prompt_text(body);
        let start = if prompt.contains("- /login.html:") {
            "/login.html"
        } else {
            "/"
        };
        let who = if prompt.contains("USER_PASSWORD") {
            "the user account"
        } else {
            "someone"
        };
        json!({
            "id": "archive-apollo",
            "task": format!("Sign in as {who}, archive Apollo, and check that \"Archived Apollo\" appears."),
            "start_url": start,
            "hints": ["Each project has its own Archive button."],
            "needs": []
        })
    })))
}

#[test]
fn new_writes_a_valid_scenario_registers_a_literal_credential_and_never_overwrites() {
    let project = example();
    let root = project.path();
    let (_server, base) = serve(root);
    let llm = FakeLlm::start();
    with_fake_provider(root, &llm);
    llm.push(author());
    let secret = "tulip-42-secret";
    let instruction =
        format!("sign in as carol@acme.test with password {secret} and archive Apollo");
    let out = windup(root, &["new", &instruction, "--base-url", &base]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // No setups: `needs` is not offered (an empty enum is what llama.cpp refuses).
    let schema = &llm.requests()[0].json()["response_format"]["json_schema"]["schema"];
    assert!(schema["properties"].get("needs").is_none(), "{schema:#}");

    let file = root.join("e2e/scenarios/archive-apollo.yaml");
    let yaml = std::fs::read_to_string(&file).unwrap();
    assert!(yaml.contains("start_url: /login.html"), "{yaml}");
    assert!(yaml.contains("the user account"), "{yaml}");
    let valid = windup(root, &["validate"]);
    assert_eq!(valid.status.code(), Some(0), "{}", stderr(&valid));

    // The literal went to the manifest by name and to .env.local by value, nowhere else.
    let manifest = std::fs::read_to_string(root.join("e2e/manifest.yaml")).unwrap();
    assert!(manifest.contains("password: USER_PASSWORD"), "{manifest}");
    assert!(manifest.contains("email: USER_EMAIL"), "{manifest}");
    let env_local = root.join(".env.local");
    let env_text = std::fs::read_to_string(&env_local).unwrap();
    assert!(env_text.contains(secret) && env_text.contains("carol@acme.test"));
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&env_local).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, ".env.local is owner-only: {mode:o}");
    }
    let sent: String = llm.requests().iter().map(|r| r.body.clone()).collect();
    assert!(sent.contains("USER_PASSWORD"), "the prompt names it");
    assert!(
        !sent.contains(secret) && !sent.contains("carol@acme.test"),
        "no value reaches the provider"
    );
    for (path, bytes) in tree(root) {
        if path == env_local {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            !text.contains(secret),
            "{} holds the secret",
            path.display()
        );
    }
    // One ledgered call, counted as authoring.
    let ledger = std::fs::read_to_string(root.join("e2e/.windup/ledger.jsonl")).unwrap();
    let record: Value = serde_json::from_str(ledger.lines().last().unwrap()).unwrap();
    assert_eq!(record["calls"]["author"], 1, "{record}");
    assert_eq!(record["scenario_id"], "archive-apollo", "{record}");

    // The same id again: refused, the file unchanged, no call made.
    let before = std::fs::read(&file).unwrap();
    let again = windup(
        root,
        &[
            "new",
            "archive it again",
            "--id",
            "archive-apollo",
            "--base-url",
            &base,
        ],
    );
    assert_eq!(again.status.code(), Some(2), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("already exists"),
        "{}",
        stderr(&again)
    );
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(llm.requests().len(), 1);
}

#[test]
fn new_without_a_provider_says_what_to_configure_and_exits_2() {
    let project = example();
    let root = project.path();
    let before = tree(root);
    let out = windup(root, &["new", "archive a project"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("[providers.NAME]"),
        "{}",
        stderr(&out)
    );
    assert_eq!(tree(root), before, "nothing written");
}

/// Answers with `needs`, whatever the schema offers (a provider that does not enforce it).
fn needing(needs: Value) -> Reply {
    Reply::Json(json!({
        "id": "archive-apollo",
        "task": "Archive Apollo and check that \"Archived Apollo\" appears.",
        "start_url": "/",
        "hints": [],
        "needs": needs
    }))
}

#[test]
fn new_offers_the_setup_scenarios_as_needs_and_takes_no_other() {
    let project = example();
    let root = project.path();
    let (_server, base) = serve(root);
    let llm = FakeLlm::start();
    with_fake_provider(root, &llm);
    std::fs::write(
        root.join("e2e/scenarios/signed-in.yaml"),
        "id: signed-in\ntask: Sign in as the admin.\nstart_url: /login.html\nsetup: true\n",
    )
    .unwrap();

    llm.push(needing(json!(["signed-in", "signed-in"])));
    let out = windup(root, &["new", "archive Apollo", "--base-url", &base]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let schema = &llm.requests()[0].json()["response_format"]["json_schema"]["schema"];
    assert_eq!(
        schema["properties"]["needs"]["items"]["enum"],
        json!(["signed-in"]),
        "{schema:#}"
    );
    let yaml = std::fs::read_to_string(root.join("e2e/scenarios/archive-apollo.yaml")).unwrap();
    assert!(yaml.contains("needs:\n- signed-in\n"), "once: {yaml}");
    let valid = windup(root, &["validate"]);
    assert_eq!(valid.status.code(), Some(0), "{}", stderr(&valid));

    // A setup that is not one: nothing written, and the call is still in the ledger.
    llm.push(needing(json!(["not-a-setup"])));
    let out = windup(
        root,
        &[
            "new",
            "archive Apollo",
            "--id",
            "other",
            "--base-url",
            &base,
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("needs `not-a-setup`, which is not a setup scenario"),
        "{}",
        stderr(&out)
    );
    assert!(!root.join("e2e/scenarios/other.yaml").exists());
    let ledger = std::fs::read_to_string(root.join("e2e/.windup/ledger.jsonl")).unwrap();
    let record: Value = serde_json::from_str(ledger.lines().last().unwrap()).unwrap();
    assert_eq!(record["calls"]["author"], 1, "{record}");
    assert_eq!(record["failure_class"], "plan_rejected", "{record}");
}

#[test]
fn new_holds_the_written_task_to_an_outcome_a_test_can_check() {
    let project = example();
    let root = project.path();
    let (_server, base) = serve(root);
    let llm = FakeLlm::start();
    with_fake_provider(root, &llm);
    let vague = |task: &str| {
        Reply::Json(json!({
            "id": "archive-apollo", "task": task, "start_url": "/", "hints": []
        }))
    };
    // A task with nothing to check, then one that quotes what the page shows: the second is
    // written, and the retry said what was missing.
    llm.push(vague("Archive the first project."));
    llm.push(vague(
        "Archive the first project and check that \"Archived Apollo\" appears.",
    ));
    let out = windup(root, &["new", "archive Apollo", "--base-url", &base]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let retry = llm.requests()[1].body.clone();
    assert!(
        retry.contains("states no outcome a test can check"),
        "{retry}"
    );
    let yaml = std::fs::read_to_string(root.join("e2e/scenarios/archive-apollo.yaml")).unwrap();
    assert!(yaml.contains("Archived Apollo"), "{yaml}");
    // Twice nothing to check: nothing written, exit 2, both calls in the ledger.
    llm.push(vague("Archive the first project."));
    llm.push(vague("Archive it."));
    let out = windup(
        root,
        &[
            "new",
            "archive Apollo",
            "--id",
            "vague",
            "--base-url",
            &base,
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("states no outcome a test can check"),
        "{}",
        stderr(&out)
    );
    assert!(!root.join("e2e/scenarios/vague.yaml").exists());
    let ledger = std::fs::read_to_string(root.join("e2e/.windup/ledger.jsonl")).unwrap();
    let record: Value = serde_json::from_str(ledger.lines().last().unwrap()).unwrap();
    assert_eq!(record["calls"]["author"], 2, "{record}");
}
