//! Plans that stop fitting the page: TodoMVC is planned, replayed, healed by one re-plan after
//! a markup change and re-planned when its task is edited; a fresh plan that misses its own
//! page gets exactly one correction.

use std::time::Duration;

use serde_json::{Value, json};
use windup_engine::config::Overrides;
use windup_model::{CacheOutcome, FailureClass, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

/// TodoMVC's vanillajs app with its new-todo placeholder reworded: a markup change that breaks
/// the plan's first selector.
pub(super) fn reworded_todomvc(server: &Server) {
    let path = fixtures().todomvc.join("examples/vanillajs/index.html");
    let html = std::fs::read_to_string(path).unwrap();
    assert!(html.contains("What needs to be done?"));
    let changed = html.replace("What needs to be done?", "Add a task");
    server.route(
        "/examples/vanillajs/index.html",
        Canned {
            status: 200,
            content_type: "text/html",
            body: changed.into_bytes(),
            delay: Duration::ZERO,
        },
    );
}

/// A project with one TodoMVC scenario, `todos`, planned through `fake`; returns its task.
fn todos_project(server: &Server, fake: &FakeLlm) -> (Project, &'static str) {
    let p = Project::new(&server.base, &provider_toml(fake, Wire::OpenAi, ""));
    let task = "Add \"Buy milk\" to the list";
    p.scenario("todos", task, "/examples/vanillajs/index.html");
    (p, task)
}

#[test]
fn todomvc_plans_replays_heals_after_a_markup_change_and_replans_an_edited_task() {
    let server = Server::start(&fixtures().todomvc);
    block_on(async {
        let fake = FakeLlm::start();
        let (p, task) = todos_project(&server, &fake);

        fake.push(Reply::Grounded(todomvc_answer("What needs to be done?")));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Miss, 1),
            "{:?}",
            r.message
        );
        let prompt = fake.requests()[0].body.clone();
        assert!(
            prompt.contains("What needs to be done?"),
            "the page's real elements are in the prompt"
        );

        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Hit, 0)
        );

        // The app's markup changes: the replay fails, the plan goes stale, one re-plan heals it.
        reworded_todomvc(&server);
        fake.push(Reply::Grounded(todomvc_answer("Add a task")));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::StaleReplanned, 1),
            "{:?}",
            r.message
        );
        assert!(
            r.message.as_deref().unwrap().contains("selector_not_found"),
            "{:?}",
            r.message
        );
        let repair = fake.requests()[1].body.clone();
        assert!(repair.contains("The cached plan broke"), "{repair}");
        assert!(
            repair.contains("Add a task"),
            "the prompt shows the page as it is now"
        );
        let stale = p.stale();
        assert_eq!(stale.len(), 1, "the broken plan is kept as evidence");
        let evidence: Value =
            serde_json::from_str(&std::fs::read_to_string(&stale[0]).unwrap()).unwrap();
        assert_eq!(
            evidence["invalidation"]["failure_class"],
            "selector_not_found"
        );
        assert_eq!(p.ledger().last().unwrap()["calls"]["replan"], 1);
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Hit, 0)
        );

        // Editing the task is a miss: planned again, the old plan kept as stale.
        p.scenario(
            "todos",
            &format!("{task}, then check the counter"),
            "/examples/vanillajs/index.html",
        );
        fake.push(Reply::Grounded(todomvc_answer("Add a task")));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Miss, 1),
            "{:?}",
            r.message
        );
        assert_eq!(p.stale().len(), 2);
        assert_eq!(fake.requests().len(), 3);
    });
}

/// A re-plan that verifies nothing leaves the plan that worked where it was: the app was only
/// briefly broken, and the next run against it fixed replays that plan with no call.
#[test]
fn a_re_plan_that_fails_leaves_the_plan_that_worked_in_the_cache() {
    let server = Server::start(&fixtures().todomvc);
    let original = std::fs::read(fixtures().todomvc.join("examples/vanillajs/index.html")).unwrap();
    block_on(async {
        let fake = FakeLlm::start();
        let (p, _) = todos_project(&server, &fake);
        fake.push(Reply::Grounded(todomvc_answer("What needs to be done?")));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        let verified = p.cached("todos").expect("cached");

        // Broken: the replay fails, and the model refuses every re-plan.
        reworded_todomvc(&server);
        for _ in 0..4 {
            fake.push(Reply::Refusal("I cannot help with that.".into()));
        }
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(r.status, ScenarioStatus::Failed, "{:?}", r.message);
        let message = r.message.clone().unwrap_or_default();
        assert!(
            message.contains("the old plan stays cached and the next run replays it"),
            "{message}"
        );
        assert_eq!(
            p.cached("todos"),
            Some(verified.clone()),
            "the plan that worked"
        );
        assert_eq!(p.stale().len(), 1, "the failure is kept as evidence");

        // Fixed: the same plan replays, with no call.
        server.route(
            "/examples/vanillajs/index.html",
            Canned {
                status: 200,
                content_type: "text/html",
                body: original,
                delay: Duration::ZERO,
            },
        );
        let calls = fake.requests().len();
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_replayed(&r);
        assert_eq!(fake.requests().len(), calls);
        assert_eq!(p.cached("todos"), Some(verified));
    });
}

/// A fresh plan whose step does not fit the page it was planned on gets exactly one correction
/// call, shown the failure and the page as it is now; a second misfit fails uncached.
#[test]
fn a_fresh_plan_that_misses_its_own_page_gets_one_correction() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        let task = "Keep the draft until the page says \"Draft saved\"";
        p.scenario("draft", task, "/drafts.html");
        let click = |name: &str| {
            Reply::Grounded(json!({"actions": [
                {"type": "click", "target": {"ref": format!("@button {name:?}")}}
            ], "complete": true}))
        };
        // Publish is on the page, but disabled: the step fails where it was planned.
        fake.push(click("Publish"));
        fake.push(click("Save draft"));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Miss, 2),
            "{:?}",
            r.message
        );
        let correction = fake.requests()[1].body.clone();
        assert!(
            correction.contains("Its next step failed here")
                && correction.contains("not_actionable"),
            "{correction}"
        );
        assert!(
            correction.contains("role=button[name=\\\"Publish\\\"]"),
            "the failed step is named: {correction}"
        );
        assert_eq!(p.ledger().last().unwrap()["calls"]["continuation"], 1);
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Hit, 0),
            "the corrected plan was cached as one plan"
        );
        let plan = p.cached("draft").unwrap();
        assert_eq!(plan["plan"]["actions"].as_array().unwrap().len(), 1);

        p.scenario("draft", &format!("{task} again"), "/drafts.html");
        fake.push(click("Publish"));
        fake.push(click("Publish"));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.failure_class, r.llm_calls),
            (ScenarioStatus::Failed, Some(FailureClass::NotActionable), 2),
            "one correction only: {:?}",
            r.message
        );
        assert!(
            r.message.as_deref().unwrap().contains("not cached"),
            "{:?}",
            r.message
        );
        assert!(r.evidence.is_some(), "the failure keeps its evidence");
        assert_eq!(fake.requests().len(), 4);
    });
}
