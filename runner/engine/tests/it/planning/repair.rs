//! Plans that stop fitting the page: TodoMVC is planned, replayed, healed by one re-plan after
//! a markup change and re-planned when its task is edited; a fresh plan that misses its own
//! page gets exactly one correction.

use std::time::Duration;

use serde_json::Value;
use windup_engine::config::Overrides;
use windup_model::{CacheOutcome, FailureClass, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

/// TodoMVC's vanillajs app with its new-todo placeholder reworded: a markup change that breaks
/// the plan's first selector.
fn reworded_todomvc(server: &Server) {
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
    let task = "Add two todos, complete the first, and show only the active ones";
    p.scenario("todos", task, "/examples/vanillajs/index.html");
    (p, task)
}

#[test]
fn todomvc_plans_replays_heals_after_a_markup_change_and_replans_an_edited_task() {
    let server = Server::start(&fixtures().todomvc);
    block_on(async {
        let fake = FakeLlm::start();
        let (p, task) = todos_project(&server, &fake);

        fake.push(Reply::Json(todomvc_answer("What needs to be done?")));
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
        fake.push(Reply::Json(todomvc_answer("Add a task")));
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
        fake.push(Reply::Json(todomvc_answer("Add a task")));
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

/// A fresh plan whose step does not fit the page it was planned on gets exactly one correction
/// call, shown the failure and the page as it is now; a second misfit fails uncached.
#[test]
fn a_fresh_plan_that_misses_its_own_page_gets_one_correction() {
    let server = Server::start(&fixtures().todomvc);
    block_on(async {
        let fake = FakeLlm::start();
        let (p, task) = todos_project(&server, &fake);

        fake.push(Reply::Json(todomvc_answer("Add a task")));
        fake.push(Reply::Json(todomvc_answer("What needs to be done?")));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Miss, 2),
            "{:?}",
            r.message
        );
        let correction = fake.requests()[1].body.clone();
        assert!(
            correction.contains("Its target is not on this page"),
            "{correction}"
        );
        assert!(
            correction.contains("Add a task"),
            "the failed step is named"
        );
        assert_eq!(p.ledger().last().unwrap()["calls"]["continuation"], 1);
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Hit, 0),
            "the corrected plan was cached as one plan"
        );

        p.scenario(
            "todos",
            &format!("{task} again"),
            "/examples/vanillajs/index.html",
        );
        fake.push(Reply::Json(todomvc_answer("Add a task")));
        fake.push(Reply::Json(todomvc_answer("Add a task")));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.failure_class, r.llm_calls),
            (
                ScenarioStatus::Failed,
                Some(FailureClass::SelectorNotFound),
                2
            ),
            "one correction only: {:?}",
            r.message
        );
        assert!(
            r.message.as_deref().unwrap().contains("not cached"),
            "{:?}",
            r.message
        );
        assert_eq!(fake.requests().len(), 4);
    });
}
