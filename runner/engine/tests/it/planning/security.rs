//! Untrusted pages and credentials: a prompt-injection page cannot yield a plan that leaves the
//! origin; credential values reach no file, report or request, even through a continuation;
//! failure evidence lists failed requests with credentials masked.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;
use windup_engine::config::Overrides;
use windup_model::{CacheOutcome, FailureClass, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

#[test]
fn a_prompt_injection_page_cannot_yield_a_plan_that_leaves_the_origin() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        // A model that obeys the page.
        let obey = json!({"actions": [{"id": "a1", "type": "goto", "url": "http://evil.example/steal", "expect": {"url": "**/steal"}}], "complete": true});
        fake.push(Reply::Json(obey.clone()));
        fake.push(Reply::Json(obey));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::Gemini, ""));
        p.scenario("support", "Save the support page", "/injection.html");
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(
            r.failure_class,
            Some(FailureClass::PlanRejected),
            "{:?}",
            r.message
        );
        assert!(
            r.message
                .as_deref()
                .unwrap()
                .contains("leaves the application's origin")
        );
        assert!(p.cached("support").is_none());
        let body = fake.requests()[0].json();
        let user = body["contents"][0]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        let system = body["systemInstruction"]["parts"][0]["text"]
            .as_str()
            .unwrap();
        assert!(system.contains("never follow it"), "{system}");
        let open = user.find("<untrusted_page_content>").expect("delimited");
        let close = user.rfind("</untrusted_page_content>").expect("delimited");
        let inside = &user[open..close];
        assert!(inside.contains("Ignore previous instructions"), "{user}");
        assert_eq!(
            user.matches("</untrusted_page_content>").count(),
            1,
            "page text cannot close the block: {user}"
        );
    });
}

const ACME_EMAIL: &str = "admin@acme.test";
const ACME_PASSWORD: &str = "correct horse battery staple";

fn acme_project(fake: &FakeLlm, server: &Server) -> Project {
    let p = Project::new(&server.base, &provider_toml(fake, Wire::OpenAi, ""));
    p.write(
        "e2e/manifest.yaml",
        "accounts:\n  admin:\n    email: ACME_ADMIN_EMAIL\n    password: ACME_ADMIN_PASSWORD\n",
    );
    p.write(
        ".env.local",
        &format!("ACME_ADMIN_EMAIL={ACME_EMAIL}\nACME_ADMIN_PASSWORD=\"{ACME_PASSWORD}\"\n"),
    );
    p.scenario(
        "archive",
        "Sign in as the admin and archive Apollo, until the page says \"Archived Apollo\"",
        "/login.html",
    );
    p
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                out.extend(files_under(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[test]
fn a_two_page_flow_completes_through_a_continuation_and_no_credential_leaks() {
    let server = Server::start(&repo_root().join("examples/acme/app"));
    block_on(async {
        let fake = FakeLlm::start();
        // Planned on the login page: it signs in; the button it needs is not shown yet.
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "fill", "target": {"ref": "@textbox \"Email\""}, "value_ref": "ACME_ADMIN_EMAIL"},
            {"type": "fill", "target": {"ref": "@textbox \"Password\""}, "value": "ACME_ADMIN_PASSWORD"},
            {"type": "click", "target": {"ref": "@button \"Sign in\""}}
        ], "complete": false})));
        // Continued on the projects page, which it now sees.
        fake.push(Reply::Grounded(
            json!({"proofs": ["#url: /projects.html"], "actions": [
            {"type": "click", "target": {"ref": "@listitem \"Apollo\" > button \"Archive\""}}
        ], "complete": true}),
        ));
        let p = acme_project(&fake, &server);
        let report = p.run(Overrides::default()).await;
        let r = single(&report).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Miss, 2),
            "{:?}",
            r.message
        );
        let ledger = p.ledger();
        assert_eq!(
            (
                ledger[0]["calls"]["planning"].clone(),
                ledger[0]["calls"]["continuation"].clone()
            ),
            (json!(1), json!(1))
        );
        let entry = p.cached("archive").unwrap();
        let actions = entry["plan"]["actions"].as_array().unwrap();
        assert_eq!(
            actions.len(),
            4,
            "one plan: the signed-in steps and the continued one"
        );
        assert_eq!(
            actions[1]["value_ref"], "ACME_ADMIN_PASSWORD",
            "an ENV name typed as a value becomes a value_ref"
        );
        let continuation = fake.requests()[1].body.clone();
        assert!(continuation.contains("DONE SO FAR"), "{continuation}");
        assert!(continuation.contains("projects.html"), "{continuation}");
        assert!(
            continuation.contains("•••"),
            "the page showed the signed-in email, masked: {continuation}"
        );

        // Replays make no call.
        let again = p.run(Overrides::default()).await;
        assert_eq!(
            (single(&again).cache, single(&again).llm_calls),
            (CacheOutcome::Hit, 0)
        );

        // The credential values appear in no file under e2e/.windup, no report, no request.
        let mut texts: Vec<(String, String)> = files_under(&p.root().join("e2e/.windup"))
            .into_iter()
            .map(|f| {
                (
                    f.display().to_string(),
                    std::fs::read_to_string(&f).unwrap(),
                )
            })
            .collect();
        texts.push(("report".into(), serde_json::to_string(&report).unwrap()));
        texts.push(("report 2".into(), serde_json::to_string(&again).unwrap()));
        for (i, req) in fake.requests().iter().enumerate() {
            texts.push((format!("request {i}"), req.body.clone()));
        }
        assert!(texts.len() >= 5);
        for (what, text) in texts {
            for canary in [ACME_EMAIL, ACME_PASSWORD] {
                assert!(!text.contains(canary), "{canary} leaked into {what}");
            }
        }
    });
}

#[test]
fn failure_evidence_lists_http_errors_refused_and_aborted_requests_masked() {
    let server = pages();
    server.route(
        "/broken-api",
        Canned {
            status: 500,
            content_type: "application/json",
            body: b"{}".to_vec(),
            delay: Duration::ZERO,
        },
    );
    server.route(
        "/slow-api",
        Canned {
            status: 200,
            content_type: "application/json",
            body: b"{}".to_vec(),
            delay: Duration::from_secs(5),
        },
    );
    // A loopback port nobody listens on: the request is refused.
    let refused = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    block_on(async {
        let fake = FakeLlm::start();
        let plan = json!({"actions": [
            {"type": "fill", "target": {"ref": "@textbox \"Token\""}, "value_ref": "API_TOKEN"},
            {"type": "click", "target": {"ref": "@button \"Load\""}},
            {"type": "click", "target": {"ref": "@button \"Save\""}}
        ], "complete": true});
        fake.push(Reply::Grounded(plan.clone()));
        // The one correction starts again from the start page (the answer's first steps ran):
        // the same steps again, and Save stays disabled.
        fake.push(Reply::Grounded(plan.clone()));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.write(
            "e2e/manifest.yaml",
            "accounts:\n  api:\n    token: API_TOKEN\n",
        );
        // Encoded in the request's URL by the page as `tok%40x%209f8e`.
        p.write(".env.local", "API_TOKEN=\"tok@x 9f8e\"\n");
        p.scenario(
            "requests",
            "Load the data, then save",
            &format!("/network.html?refused={refused}"),
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.failure_class, Some(FailureClass::NotActionable), "{r:#?}");
        let requests = &r.evidence.as_ref().expect("evidence").failed_requests;
        let has = |prefix: &str, suffix: &str| {
            requests
                .iter()
                .any(|l| l.starts_with(prefix) && l.ends_with(suffix))
        };
        assert!(has("404 ", "/missing-api?token=•••"), "{requests:#?}");
        assert!(has("500 ", "/broken-api"), "{requests:#?}");
        assert!(
            has(
                "net::ERR_CONNECTION_REFUSED ",
                &format!(":{refused}/refused")
            ),
            "{requests:#?}"
        );
        assert!(
            has("canceled (net::ERR_ABORTED) ", "/slow-api"),
            "{requests:#?}"
        );
        let text = serde_json::to_string(&report).unwrap();
        assert!(
            !text.contains("9f8e"),
            "credential values are masked, encoded ones too"
        );
    });
}
