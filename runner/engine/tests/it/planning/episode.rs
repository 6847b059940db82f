//! Answers that break their own page: `episode.html` scores what was set when Submit is
//! clicked and covers itself, as a MiniWoB episode does, so an answer that submits first spoils
//! the page for its own later steps. The page's own reward ("Reward: 1.00") is the oracle.

use serde_json::{Value, json};
use windup_engine::config::Overrides;
use windup_model::{ScenarioResult, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

const NAMED: &str = "Tick Agree and click Submit until the page says \"Reward: 1.00\"";

fn submit() -> Value {
    json!({"type": "click", "target": {"ref": "@button \"Submit\""}})
}

fn tick() -> Value {
    json!({"type": "check", "target": {"ref": "@checkbox \"Agree\""}})
}

/// Plans `task` on the episode page with the model's `answers`; the scenario must pass with one
/// call per answer, its cached plan ticking, then submitting, proven by the page's reward.
/// Returns the project, the fake and the result.
async fn planned(
    server: &Server,
    task: &str,
    answers: &[Value],
) -> (Project, FakeLlm, ScenarioResult) {
    let fake = FakeLlm::start();
    let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
    p.scenario("episode", task, "/episode.html");
    for a in answers {
        fake.push(Reply::Grounded(a.clone()));
    }
    let r = single(&p.run(Overrides::default()).await).clone();
    assert_eq!(
        (r.status, r.llm_calls),
        (ScenarioStatus::Passed, answers.len() as u32),
        "{:?}",
        r.message
    );
    let plan = p.cached("episode").expect("cached");
    let kept = plan["plan"]["actions"].as_array().unwrap();
    assert_eq!(kept.len(), 2, "{kept:?}");
    assert_eq!(kept[0]["type"], "check", "{kept:?}");
    assert!(
        kept[1]["expect"].to_string().contains("Reward: 1.00"),
        "{kept:?}"
    );
    (p, fake, r)
}

/// An answer that submits before it ticks ends the episode, so its next step is covered. The
/// task names Agree before Submit: the same answer in the task's order runs from the start page
/// again, with no call, and replays with none.
#[test]
fn an_answer_that_broke_itself_runs_again_in_the_order_the_task_names_its_targets() {
    let server = pages();
    block_on(async {
        let answer = json!({"actions": [submit(), tick()], "complete": true});
        let (p, _fake, _) = planned(&server, NAMED, &[answer]).await;
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_replayed(&r);
    });
}

/// When the task names none of the targets, nothing orders the answer but the model: the
/// correction starts again from the start page, with the steps that ran shown as undone.
#[test]
fn a_correction_after_an_answer_that_spoiled_its_page_starts_again() {
    let server = pages();
    block_on(async {
        let task = "Finish the episode until the page says \"Reward: 1.00\"";
        let answers = [
            json!({"actions": [submit(), tick()], "complete": true}),
            json!({"actions": [tick(), submit()], "complete": true}),
        ];
        let (_p, fake, _) = planned(&server, task, &answers).await;
        let correction = fake.requests()[1].body.clone();
        assert!(
            correction.contains("Your last answer was tried")
                && correction.contains("role=button[name=\\\"Submit\\\"]"),
            "the undone steps are named: {correction}"
        );
        assert!(
            !correction.contains("Reward: -1.00"),
            "the correction is shown the start page, not the spoiled one: {correction}"
        );
    });
}

/// An answer that only submits ends the episode: the controls the task names are now covered
/// and the task's words unproven, so planning starts again from the start page (once) rather
/// than asking for the rest on a page nothing can be done on.
#[test]
fn an_answer_that_covers_what_the_task_still_needs_starts_again() {
    let server = pages();
    block_on(async {
        let answers = [
            json!({"actions": [submit()], "complete": true}),
            json!({"actions": [tick(), submit()], "complete": true}),
        ];
        let (p, fake, _) = planned(&server, NAMED, &answers).await;
        let again = fake.requests()[1].body.clone();
        assert!(
            again.contains("covered controls the task still needs: \\\"Agree\\\"")
                && again.contains("role=button[name=\\\"Submit\\\"]"),
            "{again}"
        );
        assert!(!again.contains("Reward: -1.00"), "{again}");
        assert_eq!(p.ledger().last().unwrap()["calls"]["continuation"], 1);
    });
}

/// The same when the task names the box only by a phrase of its words, in lower case
/// ("tick agree"), as MiniWoB's "press login" names its button.
#[test]
fn a_control_the_task_names_by_a_phrase_counts_as_needed_when_covered() {
    let server = pages();
    block_on(async {
        let answers = [
            json!({"actions": [submit()], "complete": true}),
            json!({"actions": [tick(), submit()], "complete": true}),
        ];
        let task = "Tick agree and then submit until the page says \"Reward: 1.00\"";
        let (_p, fake, _) = planned(&server, task, &answers).await;
        let again = fake.requests()[1].body.clone();
        assert!(
            again.contains("covered controls the task still needs: \\\"agree\\\""),
            "{again}"
        );
    });
}

/// A control the answer itself acted on is done when the page covers it, not still needed:
/// no start again (which would undo the click that ended the episode).
#[test]
fn a_control_the_answer_clicked_is_not_needed_again_when_covered() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario(
            "episode",
            "Click Submit until the page says \"Reward: 1.00\"",
            "/episode.html",
        );
        fake.push(Reply::Grounded(
            json!({"actions": [submit()], "complete": true}),
        ));
        fake.push(Reply::Grounded(json!({"actions": [], "complete": true})));
        let _ = p.run(Overrides::default()).await;
        let again = fake.requests()[1].body.clone();
        assert!(
            !again.contains("covered controls the task still needs"),
            "{again}"
        );
    });
}

/// A click on a text the answer was planned on that is gone when its turn comes (a small
/// model "checking" a status by clicking it) is left out, not the end of the plan: such a
/// step would be dropped before caching anyway.
#[test]
fn a_click_on_a_text_that_is_gone_is_left_out() {
    let server = pages();
    block_on(async {
        let status =
            json!({"type": "click", "target": {"ref": "@paragraph \"Not submitted yet\""}});
        let answer = json!({"actions": [tick(), submit(), status], "complete": true});
        planned(&server, NAMED, &[answer]).await;
    });
}
