//! The size of a planning prompt on real third-party pages (TodoMVC, MiniWoB), and how long the
//! planner's own work takes without the provider.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::*;

use super::support::*;

/// The prompt for a page: what a planning call sends, and how long the planner's own work
/// (reading the page, writing the prompt, checking an answer) takes without the provider.
async fn prompt_for(
    session: &windup_engine::browser::Session,
    task: &str,
    answer: &Value,
) -> (usize, Duration, Duration) {
    use windup_engine::planner::{Ask, PageView, Purpose, Settings, check, prompt};
    let settings = Settings::default();
    let scenario: windup_model::Scenario =
        serde_json::from_value(json!({"id": "s", "task": task, "start_url": "/"})).unwrap();
    let started = Instant::now();
    let page = PageView::capture(session, settings.page_chars, settings.max_elements)
        .await
        .unwrap();
    let observed = started.elapsed();
    let started = Instant::now();
    let ask = Ask {
        scenario: &scenario,
        page: &page,
        done: &[],
        purpose: Purpose::Plan,
        fragments: &[],
        site_map: None,
    };
    let user = prompt::user_message(&ask, &[], settings.page_chars);
    let base = url::Url::parse(&page.url).unwrap();
    let stub = windup_model::Plan {
        plan_version: "0.1".into(),
        scenario_id: "s".into(),
        task: task.into(),
        start_url: "/".into(),
        generated_by: "x/y".into(),
        actions: vec![],
    };
    let boundary = windup_engine::boundary::Boundary::base_only(&base);
    let rules = check::Rules {
        boundary: &boundary,
        fragments: &windup_engine::fragments::Fragments::default(),
        taken_ids: Default::default(),
    };
    check::accept(&answer.to_string(), &stub, &rules).unwrap_or_else(|p| panic!("{p:?}"));
    (
        prompt::SYSTEM.len() + user.len(),
        observed,
        started.elapsed(),
    )
}

#[test]
fn prompts_for_third_party_pages_stay_within_their_budget() {
    let todomvc = Server::start(&fixtures().todomvc);
    let miniwob = Server::start(&fixtures().miniwob_html);
    block_on(async {
        let session = browser().acquire_session().await.unwrap();
        note_pid(browser()).await;
        let url = todomvc.base.join("examples/vanillajs/index.html").unwrap();
        session
            .goto(url.as_str(), Duration::from_secs(10))
            .await
            .unwrap();
        let (todo_chars, todo_observe, todo_own) = prompt_for(
            &session,
            "Add two todos, complete the first, and show only the active ones",
            &todomvc_answer("What needs to be done?"),
        )
        .await;
        let url = miniwob.base.join("miniwob/login-user.html").unwrap();
        session
            .goto(url.as_str(), Duration::from_secs(10))
            .await
            .unwrap();
        for _ in 0..100 {
            if session
                .eval::<bool>("typeof core === 'object' && core.cover_div !== null")
                .await
                .unwrap_or(false)
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let _: Value = session
            .eval("core.EPISODE_MAX_TIME = 60000; Math.seedrandom(1); core.startEpisodeReal(); 0")
            .await
            .unwrap();
        let login = json!({"actions": [
            {"id": "a1", "type": "fill", "target": {"selector": "css=#username"}, "value": "vina"},
            {"id": "a2", "type": "click", "target": {"selector": "role=button[name=\"Login\"]"}, "expect": {"visible": "css=#sync-task-cover"}}
        ], "complete": true});
        let (mini_chars, mini_observe, mini_own) = prompt_for(
            &session,
            "Log in with the username and password given",
            &login,
        )
        .await;
        session.close().await;
        eprintln!(
            "prompt sizes: TodoMVC {todo_chars} chars (~{} tokens at 4 chars/token), read in {todo_observe:?}, prompt+check {todo_own:?}; \
             MiniWoB login-user {mini_chars} chars (~{} tokens), read in {mini_observe:?}, prompt+check {mini_own:?}",
            todo_chars / 4,
            mini_chars / 4
        );
        let budget = windup_engine::planner::Settings::default().page_chars + 4_000;
        assert!(todo_chars < budget, "TodoMVC prompt {todo_chars} chars");
        assert!(mini_chars < budget, "MiniWoB prompt {mini_chars} chars");
        assert!(
            mini_chars > 1_000 && todo_chars > 1_000,
            "the page is in the prompt"
        );
    });
}
