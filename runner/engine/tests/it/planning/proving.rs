//! A green plan must mean the task was done: every check proves its step (false before it, true
//! after), every step is needed (the plan run without it fails a check), and the task's own words
//! show in the plan. The fake provider answers with what a weak model does (clicks on headings,
//! checks of what already held, a task half done); what gets cached is checked against the page
//! itself: the plan run without its work must fail.

use serde_json::{Value, json};
use windup_engine::config::Overrides;
use windup_model::{FailureClass, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

fn actions(entry: &Value) -> Vec<Value> {
    entry["plan"]["actions"].as_array().unwrap().clone()
}

fn summary(a: &Value) -> String {
    format!(
        "{} {}",
        a["type"].as_str().unwrap(),
        a["target"]["selector"].as_str().unwrap_or("")
    )
}

#[test]
fn idle_clicks_are_dropped_and_checks_that_held_before_prove_nothing() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        // A weak model's plan: the heading, a button that does nothing, the static text, then
        // the one step that does the work.
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "click", "target": {"ref": "@heading \"Newsletter\""}},
            {"type": "click", "target": {"ref": "@button \"Nothing\""}},
            {"type": "click", "target": {"ref": "@paragraph \"Welcome to the newsletter page.\""}},
            {"type": "click", "target": {"ref": "@button \"Save\""}}
        ], "complete": true})));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario(
            "save",
            "Save the page until it says \"Saved\"",
            "/proofs.html",
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        let entry = p.cached("save").expect("cached");
        let kept = actions(&entry);
        assert_eq!(
            kept.iter().map(summary).collect::<Vec<_>>(),
            ["click role=button[name=\"Save\"]"],
            "the idle clicks are dropped: {kept:?}"
        );
        assert_eq!(kept[0]["expect"]["visible"], "text=\"Saved\"");
        assert!(fails_on_the_mutant(&p, &entry).await);
    });
}

/// The oracle: the cached plan run on a copy of the page whose events never reach it
/// (`?mute`) must fail.
async fn fails_on_the_mutant(p: &Project, entry: &Value) -> bool {
    let mut plan: windup_model::Plan = serde_json::from_value(entry["plan"].clone()).unwrap();
    plan.start_url = format!("{}?mute", plan.start_url);
    let report = p
        .runner(Overrides::default())
        .replay(&plan, false, &windup_engine::events::NoEvents)
        .await
        .unwrap();
    report.scenarios[0].status == ScenarioStatus::Failed
}

#[test]
fn a_tick_is_proven_by_what_the_app_shows_not_by_the_box_it_ticked() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "check", "target": {"ref": "@checkbox \"Remember me\""}},
            {"type": "check", "target": {"ref": "@checkbox \"Subscribe\""}}
        ], "complete": true})));
        // The closing call picks what a weak model picks: the box's own ticked state.
        fake.push(Reply::Grounded(
            json!({"proofs": ["#Subscribe\"][checked=true]"]}),
        ));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("subscribe", "Subscribe to the newsletter", "/proofs.html");
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        let kept = actions(&p.cached("subscribe").expect("cached"));
        // "Remember me" ticks a box the app ignores: only its own state changed, so no check
        // proves it (it is kept: the server may read it). "Subscribe" is proven by the text the
        // app shows, not by its own box.
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert!(summary(&kept[1]).contains("Subscribe"), "{kept:?}");
        let expect = kept[1]["expect"].to_string();
        assert!(expect.contains("text=\\\"Subscribed\\\""), "{expect}");
        assert!(fails_on_the_mutant(&p, &p.cached("subscribe").unwrap()).await);
    });
}

#[test]
fn a_quoted_string_left_unproven_continues_planning_then_fails_as_plan_incomplete() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "click", "target": {"ref": "@button \"Save\""}}
        ], "complete": true})));
        // Told what is unproven, it adds nothing and calls the task done, twice.
        fake.push(Reply::Grounded(json!({"actions": [], "complete": true})));
        fake.push(Reply::Grounded(json!({"actions": [], "complete": true})));
        let p = Project::new(
            &server.base,
            &provider_toml(&fake, Wire::OpenAi, "[planner]\nmax_continuations = 2\n"),
        );
        p.scenario(
            "publish",
            "Save the page until it says \"Published\"",
            "/proofs.html",
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Failed);
        assert_eq!(r.failure_class, Some(FailureClass::PlanIncomplete));
        let m = r.message.clone().unwrap();
        assert!(m.contains("\"Published\""), "{m}");
        assert!(
            p.cached("publish").is_none(),
            "an incomplete plan is never cached"
        );
        let requests = fake.requests();
        assert_eq!(requests.len(), 3, "the first call and two continuations");
        let second = requests[1].body.clone();
        assert!(
            second.contains("the task quotes \\\"Published\\\", but no step"),
            "the continuation says what is unproven: {second}"
        );
    });
}

#[test]
fn a_task_naming_a_control_no_page_shows_fails_honestly() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "click", "target": {"ref": "@button \"Save\""}}
        ], "complete": true})));
        fake.push(Reply::Grounded(json!({"actions": [], "complete": true})));
        let p = Project::new(
            &server.base,
            &provider_toml(&fake, Wire::OpenAi, "[planner]\nmax_continuations = 1\n"),
        );
        p.scenario("export", "Click the Export button", "/proofs.html");
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(
            r.failure_class,
            Some(FailureClass::PlanIncomplete),
            "{:?}",
            r.message
        );
        let m = r.message.clone().unwrap();
        assert!(
            m.contains("the task names Export, but no page showed a control by that name"),
            "{m}"
        );
        assert!(p.cached("export").is_none());
    });
}

#[test]
fn a_typed_value_is_kept_only_when_a_later_check_needs_it() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "fill", "target": {"ref": "@textbox \"Name\""}, "value": "Ada"},
            {"type": "click", "target": {"ref": "@button \"Greet\""}}
        ], "complete": true})));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario(
            "greet",
            "Greet \"Ada\" and check that the page says \"Hello, Ada\"",
            "/proofs.html",
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        let kept = actions(&p.cached("greet").expect("cached"));
        assert_eq!(kept.len(), 2, "{kept:?}");
        assert_eq!(kept[1]["expect"]["visible"], "text=\"Hello, Ada\"");
        assert!(fails_on_the_mutant(&p, &p.cached("greet").unwrap()).await);
        // A replay makes no call.
        let again = p.run(Overrides::default()).await;
        assert_eq!(single(&again).llm_calls, 0);
    });
}

#[test]
fn a_text_clicked_to_no_effect_is_named_and_not_offered_again() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "click", "target": {"ref": "@heading \"Newsletter\""}}
        ], "complete": true})));
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "click", "target": {"ref": "@button \"Save\""}}
        ], "complete": true})));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario(
            "save",
            "Save the page until it says \"Saved\"",
            "/proofs.html",
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        let second = fake.requests()[1].json();
        let user = second["messages"][1]["content"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            user.contains(
                "click role=heading[name=\"Newsletter\"][level=1] (changed nothing on the page)"
            ) || user
                .contains("click role=heading[name=\"Newsletter\"] (changed nothing on the page)"),
            "{user}"
        );
        let heading = windup_testkit::grounded::ref_of("heading \"Newsletter\"", &user).unwrap();
        let refs = second["response_format"]["json_schema"]["schema"]["properties"]["actions"]
            ["items"]["properties"]["target"]["properties"]["ref"]["enum"]
            .clone();
        assert!(
            !refs.as_array().unwrap().contains(&json!(heading)),
            "{refs}"
        );
        let kept = actions(&p.cached("save").expect("cached"));
        assert_eq!(kept.len(), 1, "the heading's click is dropped: {kept:?}");
    });
}

/// A plan that ends on a tick the app ignores (a small model ticking the box again, or another
/// one): leaving it out every check holds and nothing after it can need it, so it is dropped and
/// the plan ends on the step its check proves. Kept, the plan had no final postcondition and was
/// refused. The mutant of the page fails the plan.
#[test]
fn a_last_step_that_sets_only_its_own_target_is_dropped() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "check", "target": {"ref": "@checkbox \"Subscribe\""}},
            {"type": "check", "target": {"ref": "@checkbox \"Remember me\""}}
        ], "complete": true})));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario(
            "subscribe",
            "Subscribe, then make sure the page says \"Subscribed\"",
            "/proofs.html",
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        let entry = p.cached("subscribe").expect("cached");
        let kept = actions(&entry);
        assert_eq!(kept.len(), 1, "{kept:?}");
        assert!(summary(&kept[0]).contains("Subscribe"), "{kept:?}");
        assert!(
            kept[0]["expect"].to_string().contains("Subscribed"),
            "{kept:?}"
        );
        assert!(fails_on_the_mutant(&p, &entry).await);
    });
}
