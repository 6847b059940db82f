//! Grounded planning on real pages: the fake provider answers with the refs it reads from the
//! prompt it was sent (never canned ones), and the engine turns them into selectors, runs the
//! steps, observes again and offers what changed as the only postconditions.

use serde_json::{Value, json};
use windup_engine::config::Overrides;
use windup_model::{FailureClass, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

/// Each planning prompt sent, as text, and the part inside the untrusted block.
fn prompts(fake: &FakeLlm) -> Vec<(String, String)> {
    fake.requests()
        .iter()
        .map(|r| {
            let body = r.json();
            let user = body["messages"][1]["content"].as_str().unwrap().to_string();
            let system = body["messages"][0]["content"].as_str().unwrap();
            let page = user
                .split("<untrusted_page_content>")
                .nth(1)
                .unwrap_or("")
                .to_string();
            (format!("{system}\n{user}"), page)
        })
        .collect()
}

fn selectors(plan: &Value) -> Vec<String> {
    plan["plan"]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["target"]["selector"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn a_todomvc_flow_is_planned_on_refs_step_by_step_and_proven_by_observed_facts() {
    let server = Server::start(&fixtures().todomvc);
    block_on(async {
        let fake = FakeLlm::start();
        let field = "@textbox \"What needs to be done?\"";
        // The first call cannot see the new todos' checkboxes: it stops where the page changes.
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "fill", "target": {"ref": field}, "value": "Buy milk"},
            {"type": "press", "key": "Enter", "target": {"ref": field}},
            {"type": "fill", "target": {"ref": field}, "value": "Walk dog"},
            {"type": "press", "key": "Enter", "target": {"ref": field}}
        ], "complete": false})));
        fake.push(Reply::Grounded(
            json!({"proofs": ["#text=\"Walk dog\""], "actions": [
            {"type": "check", "target": {"ref": "@listitem \"Buy milk\" > checkbox"}},
            {"type": "click", "target": {"ref": "@link \"Active\""}}
        ], "complete": true}),
        ));
        fake.push(Reply::Grounded(
            json!({"proofs": ["#url: ", "#hidden: text=\"Buy milk\""]}),
        ));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario(
            "active",
            "Add the todos \"Buy milk\" and \"Walk dog\", complete \"Buy milk\", and show only the active todos",
            "/examples/vanillajs/index.html",
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        assert_eq!(r.llm_calls, 3, "two planning calls and the closing one");
        let plan = p.cached("active").expect("verified and cached");
        let input = "role=textbox[name=\"What needs to be done?\"]";
        assert_eq!(
            selectors(&plan),
            [
                input,
                input,
                input,
                input,
                "role=listitem >> has-text=\"Buy milk\" >> role=checkbox",
                "role=link[name=\"Active\"]"
            ]
        );
        let actions = plan["plan"]["actions"].as_array().unwrap();
        // Every step that changed the page has a postcondition the page showed.
        for a in actions {
            assert!(a.get("expect").is_some(), "{a}");
        }
        assert_eq!(actions[3]["expect"]["visible"], "text=\"Walk dog\"");
        assert_eq!(
            actions[5]["expect"]["url"],
            "/examples/vanillajs/index.html#/active"
        );
        assert_eq!(actions[5]["expect"]["hidden"], "text=\"Buy milk\"");
        // The observation is compact and the prompt small: on this page, well under the
        // 600 and 1,000 tokens a small local model can afford (4 characters a token).
        for (prompt, page) in &prompts(&fake)[..2] {
            assert!(page.contains("ELEMENTS:"), "{page}");
            // Links off the app (the author's Twitter, GitHub) and texts holding them cannot be
            // followed, so they are not offered.
            assert!(
                !page.contains("Oscar Godson") && !page.contains("link \"Source\""),
                "{page}"
            );
            assert!(
                page.len() / 4 <= 600,
                "observation {} chars:\n{page}",
                page.len()
            );
            assert!(
                prompt.len() / 4 <= 1_000,
                "prompt {} chars:\n{prompt}",
                prompt.len()
            );
        }
        // The replay needs no call.
        let again = p.run(Overrides::default()).await;
        assert_eq!(single(&again).llm_calls, 0);
        assert_eq!(single(&again).status, ScenarioStatus::Passed);
    });
}

#[test]
fn a_dialogs_button_is_grounded_on_the_observation_where_it_exists() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "click", "target": {"ref": "@button \"Delete project\""}}
        ], "complete": false})));
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "click", "target": {"ref": "@dialog \"Delete Apollo?\" > button \"Yes, delete\""}}
        ], "complete": true})));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario(
            "delete",
            "Delete the project and confirm, until the page says \"Project deleted\"",
            "/dialog.html",
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        // The quoted words appeared: the engine chose the proof itself, no closing call.
        assert_eq!(r.llm_calls, 2);
        let (first, _) = &prompts(&fake)[0];
        assert!(
            !first.contains("Yes, delete"),
            "the dialog was not open yet"
        );
        let plan = p.cached("delete").unwrap();
        let sel = selectors(&plan);
        assert_eq!(sel[0], "role=button[name=\"Delete project\"]");
        assert_eq!(sel[1], "role=button[name=\"Yes, delete\"]");
        let last = &plan["plan"]["actions"][1]["expect"];
        assert_eq!(last["visible"], "text=\"Project deleted\"", "{last}");
    });
}

#[test]
fn a_miniwob_form_behind_its_start_cover_is_planned_on_refs() {
    let server = Server::start(&fixtures().miniwob_html);
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "click", "target": {"ref": "@div \"START\""}}
        ], "complete": false})));
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "fill", "target": {"ref": "@textbox near \"Username\""}, "value": "vina"},
            {"type": "fill", "target": {"ref": "@textbox near \"Password\" type=password"}, "value": "x1y2"},
            {"type": "click", "target": {"ref": "@button \"Login\""}}
        ], "complete": true})));
        fake.push(Reply::Grounded(
            json!({"proofs": ["#visible: text=\"START\""]}),
        ));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::Gemini, ""));
        p.scenario(
            "login",
            "Enter a username and a password into the text fields and press Login",
            "/miniwob/login-user.html",
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        assert_eq!(r.llm_calls, 3);
        let plan = p.cached("login").unwrap();
        assert_eq!(
            selectors(&plan),
            [
                "text=\"START\"",
                "role=paragraph >> has-text=\"Username\" >> role=textbox",
                "role=paragraph >> has-text=\"Password\" >> role=textbox",
                "role=button[name=\"Login\"]"
            ]
        );
        assert_eq!(
            plan["plan"]["actions"][3]["expect"]["visible"],
            "text=\"START\""
        );
    });
}

#[test]
fn an_unobserved_ref_or_an_unshown_fact_is_rejected_before_anything_runs() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        // TodoMVC's habit: an "Add" button that this page does not have.
        let invented = json!({"actions": [
            {"type": "click", "target": {"ref": "@button \"Add\""}}
        ], "complete": true});
        fake.push(Reply::Grounded(invented.clone()));
        fake.push(Reply::Grounded(invented));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("save", "Save the page", "/basic.html");
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.failure_class, Some(FailureClass::PlanRejected));
        assert!(r.actions.is_empty(), "nothing ran: {:?}", r.actions);
        let m = r.message.clone().unwrap();
        assert!(m.contains("is not one of the refs on this page"), "{m}");
        // A success message the page never showed cannot be a proof.
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "click", "target": {"ref": "@button \"Save\""}}
        ], "complete": true})));
        let unshown = json!({"proofs": ["#text=\"Saved successfully\""]});
        fake.push(Reply::Grounded(unshown.clone()));
        fake.push(Reply::Grounded(unshown));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("save", "Save the page", "/basic.html");
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(
            r.failure_class,
            Some(FailureClass::PlanRejected),
            "{:?}",
            r.message
        );
        assert!(p.cached("save").is_none());
        let m = r.message.clone().unwrap();
        assert!(m.contains("is not the number of a listed fact"), "{m}");
    });
}

#[test]
fn an_element_styled_clickable_with_a_script_listener_is_listed_and_clicked() {
    let server = pages();
    // A "link" made of a span: no href, no role, no onclick attribute; only its cursor says it
    // can be clicked (MiniWoB's click-link, and many real apps).
    server.page(
        "/span-link.html",
        r#"<title>Spans</title><p>Read <span id="more" style="cursor: pointer; color: blue">more</span> or <span>less</span></p><p id="out"></p>
<script>document.getElementById('more').addEventListener('click', () => { document.getElementById('out').textContent = 'Opened'; });</script>"#,
    );
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "click", "target": {"ref": "@span \"more\""}}
        ], "complete": true})));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario(
            "more",
            "Click \"more\" until it says \"Opened\"",
            "/span-link.html",
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        let (_, page) = &prompts(&fake)[0];
        assert!(page.contains("span \"more\""), "{page}");
        assert!(!page.contains("span \"less\""), "{page}");
        let plan = p.cached("more").unwrap();
        assert_eq!(
            plan["plan"]["actions"][0]["expect"]["visible"],
            "text=\"Opened\""
        );
    });
}
