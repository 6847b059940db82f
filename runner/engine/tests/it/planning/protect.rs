//! Protected plans: a plan written by a person (`generated_by: "human"`) or accepted by one
//! (`reviewed`) is never replaced automatically. TodoMVC's placeholder is reworded under a
//! person's plan: the plan stays byte for byte, the run fails with the replay's evidence, and the
//! verified re-plan waits as a proposal with its step diff until `accept` adopts it. A committed
//! 0.2 entry is still read and replayed. (A machine-made plan is still replaced: see
//! `repair::todomvc_plans_replays_heals_after_a_markup_change_and_replans_an_edited_task`.)

use serde_json::Value;
use windup_engine::cache::{Accepted, accept};
use windup_engine::config::Overrides;
use windup_model::markdown::{SummaryOptions, run_summary};
use windup_model::{CacheOutcome, FailureClass, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use super::repair::reworded_todomvc;
use super::support::*;
use crate::support::*;

const START: &str = "/examples/vanillajs/index.html";
const TASK: &str = "Add \"Buy milk\" to the list";

/// The scenario's entry as a committed 0.2 file, written literally: a two-step plan by `by`.
fn entry_0_2(p: &Project, by: &str) -> String {
    let scenario = windup_model::validate::scenario_from_yaml(
        "todos.yaml",
        &std::fs::read_to_string(p.root().join("e2e/scenarios/todos.yaml")).unwrap(),
        Some("todos"),
    )
    .unwrap();
    let sha = scenario.sha();
    format!(
        r#"{{
  "cache_version": "0.2",
  "key": {{"scenario_id": "todos", "start_url": "{START}", "scenario_sha": "{sha}"}},
  "plan": {{
    "plan_version": "0.1", "scenario_id": "todos", "task": "t", "start_url": "{START}",
    "generated_by": "{by}",
    "actions": [
      {{"id": "s1", "type": "fill", "target": {{"selector": "role=textbox[name=\"What needs to be done?\"]"}}, "value": "Buy milk"}},
      {{"id": "s2", "type": "press", "key": "Enter", "target": {{"selector": "role=textbox[name=\"What needs to be done?\"]"}},
        "expect": {{"visible": "text=\"Buy milk\""}}}}
    ]
  }},
  "status": "active",
  "stats": {{"created_at": "2026-11-01T10:00:00Z", "last_verified_at": "2026-11-01T10:00:00Z", "verified_runs": 1, "last_duration_ms": 400}}
}}
"#
    )
}

fn read(p: &Project, rel: &str) -> Option<String> {
    std::fs::read_to_string(p.root().join(rel)).ok()
}

const ACTIVE: &str = "e2e/.windup/cache/todos.json";
const PROPOSAL: &str = "e2e/.windup/cache/proposals/todos.json";

/// Breaks the page under the protected plan and checks what a run with a re-plan leaves: the
/// plan untouched, a failed result with the replay's evidence, and the proposal with its diff.
async fn fails_with_a_proposal(p: &Project, fake: &FakeLlm, before: &str) {
    fake.push(Reply::Grounded(todomvc_answer("Add a task")));
    let report = p.run(Overrides::default()).await;
    let r = single(&report).clone();
    assert_eq!(
        (r.status, r.failure_class, r.failed_action_id.as_deref()),
        (
            ScenarioStatus::Failed,
            Some(FailureClass::SelectorNotFound),
            Some("s1")
        ),
        "{:?}",
        r.message
    );
    assert_eq!(r.llm_calls, 1, "the repair ran");
    assert_eq!(r.cache, CacheOutcome::Hit);
    assert!(r.evidence.is_some(), "the replay's evidence is kept");
    let message = r.message.clone().unwrap();
    assert!(
        message.contains("windup accept todos") && message.contains(PROPOSAL),
        "{message}"
    );
    assert_eq!(
        read(p, ACTIVE).as_deref(),
        Some(before),
        "the plan is untouched"
    );
    assert!(p.stale().is_empty(), "nothing went to stale/");
    let proposed = r.proposal.clone().expect("a proposal");
    assert_eq!(proposed.file, PROPOSAL);
    assert_eq!(proposed.source.as_str(), "planned");
    assert_eq!((proposed.diff.old_steps, proposed.diff.new_steps), (2, 2));
    assert_eq!(proposed.diff.changed.len(), 2, "{:?}", proposed.diff);
    assert!(
        proposed.diff.changed[0]
            .from
            .contains("What needs to be done?")
            && proposed.diff.changed[0].to.contains("Add a task"),
        "{:?}",
        proposed.diff
    );
    let file: Value = serde_json::from_str(&read(p, PROPOSAL).unwrap()).unwrap();
    assert_eq!(file["status"], "proposed");
    assert_eq!(file["cache_version"], "0.4");
    assert_eq!(file["proposal"]["source"], "planned");
    assert_eq!(file["proposal"]["why"]["reason"], "replay failed");
    assert_eq!(
        file["proposal"]["why"]["failure_class"],
        "selector_not_found"
    );
    assert_eq!(file["proposal"]["why"]["failed_action_id"], "s1");
    assert_eq!(file["proposal"]["why"]["run_id"], report.run_id.as_str());
    let kept: Value = serde_json::from_str(before).unwrap();
    assert_eq!(file["proposal"]["replaces"], kept["plan"]);
    // The job summary and PR comment show it with its diff.
    let md = run_summary(&[report], &SummaryOptions::default());
    assert!(md.contains("**Proposals**"), "{md}");
    assert!(md.contains("adopt it with `windup accept todos`"), "{md}");
    assert!(md.contains("Add a task"), "{md}");
}

#[test]
fn a_persons_plan_that_breaks_is_kept_and_its_replan_proposed_until_accepted() {
    let server = Server::start(&fixtures().todomvc);
    block_on(async {
        let fake = FakeLlm::start();
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("todos", TASK, START);
        let before = entry_0_2(&p, "human");
        p.write(ACTIVE, &before);

        // A committed 0.2 entry is read and replayed as it is.
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_replayed(&r);
        assert_eq!(read(&p, ACTIVE).as_deref(), Some(before.as_str()));

        // The placeholder is reworded: the person's plan stays, the re-plan is proposed.
        reworded_todomvc(&server);
        fails_with_a_proposal(&p, &fake, &before).await;

        // Where no call may be made, the run fails with the evidence and nothing moves.
        let r = single(
            &p.run(Overrides {
                require_cached: true,
                ..Overrides::default()
            })
            .await,
        )
        .clone();
        assert_eq!(
            (r.status, r.failure_class, r.llm_calls),
            (
                ScenarioStatus::Failed,
                Some(FailureClass::SelectorNotFound),
                0
            )
        );
        assert!(r.proposal.is_none());
        assert!(
            r.message
                .as_deref()
                .unwrap()
                .contains("not replaced automatically"),
            "{:?}",
            r.message
        );
        assert_eq!(read(&p, ACTIVE).as_deref(), Some(before.as_str()));
        assert!(read(&p, PROPOSAL).is_some(), "the proposal still waits");

        // Accepting adopts it: the proposal is active and reviewed, the person's plan stale.
        match accept(p.root(), "todos").unwrap() {
            Accepted::Adopted {
                proposal, stale, ..
            } => {
                assert_eq!(proposal, PROPOSAL);
                assert!(stale.is_some());
            }
            other => panic!("{other:?}"),
        }
        assert!(read(&p, PROPOSAL).is_none());
        let active = p.cached("todos").unwrap();
        assert_eq!(active["status"], "active");
        assert!(active["reviewed"]["at"].is_string(), "{active}");
        assert!(active.get("proposal").is_none());
        let stale = p.stale();
        assert_eq!(stale.len(), 1);
        let old: Value =
            serde_json::from_str(&std::fs::read_to_string(&stale[0]).unwrap()).unwrap();
        assert_eq!(old["plan"]["generated_by"], "human");
        assert_eq!(old["invalidation"]["reason"], "replaced");
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_replayed(&r);
        assert_eq!(fake.requests().len(), 1);
    });
}

#[test]
fn a_reviewed_machine_plan_is_protected_like_a_persons() {
    let server = Server::start(&fixtures().todomvc);
    block_on(async {
        let fake = FakeLlm::start();
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("todos", TASK, START);
        p.write(ACTIVE, &entry_0_2(&p, "openai/gpt-4.1-mini"));
        // Nothing to adopt: the plan is marked reviewed, and its file rewritten as 0.3.
        match accept(p.root(), "todos").unwrap() {
            Accepted::Marked { outdated, .. } => assert!(!outdated),
            other => panic!("{other:?}"),
        }
        let before = read(&p, ACTIVE).unwrap();
        let entry: Value = serde_json::from_str(&before).unwrap();
        assert_eq!(entry["cache_version"], "0.4");
        assert!(entry["reviewed"]["at"].is_string(), "{entry}");

        reworded_todomvc(&server);
        fails_with_a_proposal(&p, &fake, &before).await;

        // The scenario's text changes: the reviewed plan is not replayed and not retired; the
        // plan made for the new text is proposed in its place.
        p.scenario("todos", &format!("{TASK}, once"), START);
        fake.push(Reply::Grounded(todomvc_answer("Add a task")));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.failure_class, r.cache),
            (
                ScenarioStatus::Failed,
                Some(FailureClass::PlanInvalid),
                CacheOutcome::Miss
            ),
            "{:?}",
            r.message
        );
        assert!(r.proposal.is_some(), "{:?}", r.message);
        assert_eq!(read(&p, ACTIVE).as_deref(), Some(before.as_str()));
        assert!(p.stale().is_empty());
        let file: Value = serde_json::from_str(&read(&p, PROPOSAL).unwrap()).unwrap();
        assert_eq!(file["proposal"]["why"]["reason"], "scenario changed");
    });
}
