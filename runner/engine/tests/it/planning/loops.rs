//! A small model's loops and lost values, as the 1.5B model of `bench/real-model.sh` answers
//! on TodoMVC: the same click a dozen times, two links in turn, and two quoted todos typed into
//! the new-todo field one after the other with no Enter between them, so the first is lost.
//! The app itself is the reference: the cached plan adds both todos in the real TodoMVC app,
//! and each Enter the engine pressed is proven by the todo the app shows after it.

use serde_json::{Value, json};
use windup_engine::config::Overrides;
use windup_model::{CacheOutcome, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

const FIELD: &str = "@textbox \"What needs to be done?\"";
const INPUT: &str = "role=textbox[name=\"What needs to be done?\"]";

fn steps(plan: &Value) -> Vec<String> {
    plan["plan"]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            format!(
                "{} {} {}",
                a["type"].as_str().unwrap(),
                a["target"]["selector"].as_str().unwrap_or(""),
                a["value"].as_str().or(a["key"].as_str()).unwrap_or("")
            )
            .trim_end()
            .to_string()
        })
        .collect()
}

/// The bench's *active* task on vanillajs, planned through `fake`'s answers; it must pass.
async fn planned_active(server: &Server, fake: &FakeLlm) -> Project {
    let p = Project::new(&server.base, &provider_toml(fake, Wire::OpenAi, ""));
    p.scenario(
        "active",
        "Add two todos, \"Buy milk\" and \"Walk dog\", complete \"Buy milk\", and show only the active todos.",
        "/examples/vanillajs/index.html",
    );
    let r = single(&p.run(Overrides::default()).await).clone();
    assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
    p
}

#[test]
fn two_quoted_values_typed_into_one_field_are_both_submitted_and_loops_are_left_out() {
    let server = Server::start(&fixtures().todomvc);
    block_on(async {
        let fake = FakeLlm::start();
        let click_field = json!({"type": "click", "target": {"ref": FIELD}});
        // "Walk dog" typed over "Buy milk", then the field clicked over and over, and no Enter
        // at all.
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "fill", "target": {"ref": FIELD}, "value": "Buy milk"},
            {"type": "fill", "target": {"ref": FIELD}, "value": "Walk dog"},
            click_field, click_field, click_field, click_field
        ], "complete": false})));
        let active = json!({"type": "click", "target": {"ref": "@link \"Active\""}});
        let all = json!({"type": "click", "target": {"ref": "@link \"All\""}});
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "check", "target": {"ref": "@listitem \"Buy milk\" > checkbox"}},
            all, active, all, active, all, active
        ], "complete": true})));
        fake.push(Reply::Grounded(json!({"proofs": []})));
        let p = planned_active(&server, &fake).await;
        let plan = p.cached("active").expect("verified and cached");
        let check = "check role=listitem >> has-text=\"Buy milk\" >> role=checkbox";
        assert_eq!(
            steps(&plan),
            [
                format!("fill {INPUT} Buy milk"),
                format!("press {INPUT} Enter"),
                format!("fill {INPUT} Walk dog"),
                format!("press {INPUT} Enter"),
                check.to_string(),
                "click role=link[name=\"Active\"]".to_string(),
            ],
            "the Enters the answer left out are pressed, before \"Walk dog\" replaces \"Buy milk\" and at its end; the clicks on the field and the links' loop are gone"
        );
        let actions = plan["plan"]["actions"].as_array().unwrap();
        for (i, todo) in [(1, "Buy milk"), (3, "Walk dog")] {
            assert!(
                actions[i]["expect"].to_string().contains(todo),
                "the inserted Enter is proven by the todo the app shows: {}",
                actions[i]
            );
        }
        // The looped steps never ran, so the next call was not shown them as done.
        let second = fake.requests()[1].json()["messages"][1]["content"]
            .as_str()
            .unwrap()
            .to_string();
        let done = second.split("<untrusted_page_content>").next().unwrap();
        assert_eq!(
            done.matches(&format!("click {INPUT}")).count(),
            1,
            "one click on the field ran, its repeats did not: {done}"
        );
        // The app is the reference: the cached plan replays with no call and adds both.
        let again = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (again.status, again.cache, again.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Hit, 0),
            "{:?}",
            again.message
        );
    });
}

/// The 1.5B model answers the tick hint ("to tick "Buy milk": {"type": "check", …}") with the
/// filters it was not asked about; the engine ticks the item the hint named first, once, and
/// the step is proven like any other by what the app changed.
#[test]
fn a_tick_the_hint_named_that_the_answer_ignored_is_done_first() {
    let server = Server::start(&fixtures().todomvc);
    block_on(async {
        let fake = FakeLlm::start();
        let enter = json!({"type": "press", "target": {"ref": FIELD}, "key": "Enter"});
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "fill", "target": {"ref": FIELD}, "value": "Buy milk"}, enter,
            {"type": "fill", "target": {"ref": FIELD}, "value": "Walk dog"}, enter
        ], "complete": true})));
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "click", "target": {"ref": "@link \"Active\""}}
        ], "complete": true})));
        fake.push(Reply::Grounded(json!({"proofs": []})));
        let p = planned_active(&server, &fake).await;
        let second = fake.requests()[1].json()["messages"][1]["content"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            second.contains(r#"to tick "Buy milk": {"type": "check", "target": {"ref": "#),
            "{second}"
        );
        let plan = p.cached("active").expect("verified and cached");
        assert_eq!(
            steps(&plan)[4..],
            [
                "check role=listitem >> has-text=\"Buy milk\" >> role=checkbox".to_string(),
                "click role=link[name=\"Active\"]".to_string(),
            ]
        );
        let tick = &plan["plan"]["actions"][4];
        assert!(tick["id"].as_str().unwrap().ends_with("-tick"), "{tick}");
        assert!(
            tick["expect"].is_object(),
            "proven by what it changed: {tick}"
        );
        assert_replayed(&single(&p.run(Overrides::default()).await).clone());
    });
}
