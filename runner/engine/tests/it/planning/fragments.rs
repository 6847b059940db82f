//! Fragments in planning: the catalogue lists a fragment, with its start page and what it
//! proves, only on a page its start matches, and an answer that `use`s one elsewhere is sent
//! back. The fake model answers from the prompt it is sent, as a real one would.

use std::sync::Arc;

use serde_json::json;
use windup_engine::config::Overrides;
use windup_model::ScenarioStatus;
use windup_testkit::fake_llm::{FakeLlm, Reply, Responder};
use windup_testkit::grounded::{prompt_text, resolve};

use crate::support::*;

use super::support::*;

/// The catalogue line of the sign-in fragment, as the prompt shows it.
const LINE: &str = "- sign-in (starts on /signin.html; proves visible: role=heading[name=\"Account\"]; url: /account.html): Sign in as ada";

/// Signs in as ada from the sign-in page; proves the account page is shown.
fn sign_in_fragment(p: &Project) {
    p.write(
        "e2e/fragments/sign-in.json",
        &json!({
            "fragment_version": "0.1", "id": "sign-in", "description": "Sign in as ada",
            "start": "/signin.html",
            "actions": [
                {"id": "a1", "type": "fill", "target": {"selector": "label=\"User\""}, "value": "ada"},
                {"id": "a2", "type": "click", "target": {"selector": "role=button[name=\"Sign in\"]"}}
            ],
            "expect": {"visible": "role=heading[name=\"Account\"]", "url": "/account.html"}
        })
        .to_string(),
    );
}

/// A model that uses the sign-in fragment whenever the prompt offers it, and also (wrongly)
/// on a page without it, until it is told why that was rejected.
fn model() -> Reply {
    Reply::Respond(Responder(Arc::new(|body: &str| {
        let prompt = prompt_text(body);
        let answer = if prompt.contains("REJECTED") {
            json!({"actions": [{"type": "click", "target": {"ref": "@button \"Save\""}}], "complete": true})
        } else if prompt.contains("Who am I") {
            json!({"actions": [{"type": "click", "target": {"ref": "@button \"Who am I\""}}], "complete": true})
        } else {
            json!({"actions": [{"type": "use", "use": "sign-in"}], "complete": false})
        };
        resolve(&answer, &prompt)
    })))
}

#[test]
fn a_fragment_is_offered_and_used_only_on_the_page_it_starts_on() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        for _ in 0..4 {
            fake.push(model());
        }
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        sign_in_fragment(&p);
        p.scenario(
            "who",
            "Sign in as ada and ask who I am, until the page says \"Signed in with tok-ada\"",
            "/signin.html",
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        let prompts: Vec<String> = fake
            .requests()
            .iter()
            .map(|q| prompt_text(&q.body))
            .collect();
        assert_eq!(prompts.len(), 2, "{prompts:#?}");
        // On the sign-in page the catalogue offers it, and the answer's schema lets it be named.
        assert!(prompts[0].contains(LINE), "{}", prompts[0]);
        assert!(fake.requests()[0].body.contains("\"sign-in\""));
        // On the account page it is not offered: it does not start there.
        assert!(!prompts[1].contains("sign-in ("), "{}", prompts[1]);
        let plan = &p.cached("who").unwrap()["plan"];
        assert_eq!(plan["actions"][0]["type"], "use", "{plan}");
        assert_eq!(plan["actions"][0]["use"], "sign-in");
        // And it replays from the cache with no call.
        let again = p.run(Overrides::default()).await;
        assert_eq!(
            (single(&again).status, again.totals.llm_calls),
            (ScenarioStatus::Passed, 0)
        );
    });
}

#[test]
fn a_use_on_a_page_the_fragment_does_not_start_on_is_sent_back() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        for _ in 0..3 {
            fake.push(model());
        }
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        sign_in_fragment(&p);
        p.scenario("save", SAVE_TASK, "/basic.html");
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        let requests = fake.requests();
        assert_eq!(requests.len(), 2);
        let first = prompt_text(&requests[0].body);
        // Not offered here, nor nameable in the answer's schema.
        assert!(!first.contains("FRAGMENTS:\n"), "{first}");
        assert!(
            !requests[0].body.contains("\"sign-in\""),
            "{}",
            requests[0].body
        );
        // The model named it anyway: the check sent it back with what to do instead.
        let second = prompt_text(&requests[1].body);
        assert!(
            second.contains(
                "actions[0].use: fragment `sign-in` starts on /signin.html, but this step would run on /basic.html"
            ),
            "{second}"
        );
        let plan = &p.cached("save").unwrap()["plan"];
        assert_eq!(plan["actions"][0]["type"], "click", "{plan}");
    });
}
