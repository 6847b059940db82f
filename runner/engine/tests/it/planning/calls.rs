//! What gates and counts LLM calls: the budget and `--require-cached` stop calls before they
//! are made, `--suggest` is opt-in, budgeted and recorded, and `bench` runs its validation
//! protocol with replays that make none.

use std::time::Duration;

use serde_json::json;
use windup_engine::config::Overrides;
use windup_model::{FailureClass, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

#[test]
fn budget_and_require_cached_gate_calls_before_they_are_made() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(save_plan()));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("cached", SAVE_TASK, "/basic.html");
        assert_eq!(
            single(&p.run(Overrides::default()).await).status,
            ScenarioStatus::Passed
        );
        assert_eq!(fake.requests().len(), 1);
        p.scenario("uncached", &format!("{SAVE_TASK}, again"), "/basic.html");

        // A budget smaller than any call's worst case: no call, budget_exceeded; cached plans still run.
        let report = p
            .run(Overrides {
                budget_usd: Some(0.000_01),
                ..Overrides::default()
            })
            .await;
        let by_id = |id: &str| {
            report
                .scenarios
                .iter()
                .find(|s| s.scenario_id == id)
                .unwrap()
                .clone()
        };
        assert_eq!(by_id("cached").status, ScenarioStatus::Passed);
        assert_eq!(
            by_id("uncached").failure_class,
            Some(FailureClass::BudgetExceeded),
            "{:?}",
            by_id("uncached").message
        );
        assert!(
            by_id("uncached")
                .message
                .unwrap()
                .contains("no LLM call was made")
        );
        assert_eq!(fake.requests().len(), 1, "no call was made");

        // --require-cached: exactly the uncached scenario fails, with not_cached.
        let report = p
            .run(Overrides {
                require_cached: true,
                ..Overrides::default()
            })
            .await;
        let by_id = |id: &str| {
            report
                .scenarios
                .iter()
                .find(|s| s.scenario_id == id)
                .unwrap()
                .clone()
        };
        assert_eq!(by_id("cached").status, ScenarioStatus::Passed);
        let u = by_id("uncached");
        assert_eq!(u.failure_class, Some(FailureClass::NotCached));
        assert!(u.message.unwrap().contains("`uncached`"));
        assert_eq!(fake.requests().len(), 1, "no call was made");
    });
}

#[test]
fn bench_runs_the_validation_protocol_against_the_fake_provider() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        for _ in 0..6 {
            fake.push(Reply::Grounded(save_plan()));
        }
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("save", SAVE_TASK, "/basic.html");
        let runner = p.runner(Overrides::default());
        let b = runner
            .bench("save", &windup_engine::events::NoEvents)
            .await
            .unwrap();
        assert_eq!(b.generations.len(), 5);
        assert!(
            b.generations
                .iter()
                .all(|g| g.valid && g.verified && g.calls == 1),
            "{:#?}",
            b.generations
        );
        assert!(b.checks.generations);
        assert_eq!(b.replays.len(), 10);
        assert!(
            b.checks.replays && b.checks.free_replays,
            "{:#?}",
            b.replays
        );
        let rec = b.recovery.as_ref().unwrap();
        assert!(
            rec.replay_failed && rec.replanned_and_passed && rec.stale_kept,
            "{rec:#?}"
        );
        assert!(b.checks.recovery);
        // Break the app: the Save button deaf to the page; the plan must fail, and does.
        assert_eq!(b.mutants.len(), 1, "{:#?}", b.mutants);
        assert!(b.mutants[0].caught, "{:#?}", b.mutants);
        assert!(b.checks.mutants && b.passed);
        assert_eq!(
            fake.requests().len(),
            6,
            "5 generations and 1 re-plan; replays make none"
        );
        assert!(
            p.cached("save").is_none(),
            "bench never touches the project's cache"
        );
        assert_eq!(
            p.ledger().len(),
            5 + 10 + 1,
            "every bench run is in the ledger"
        );
    });
}

#[test]
fn suggest_is_opt_in_budgeted_and_recorded() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(save_plan()));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("save", SAVE_TASK, "/basic.html");
        assert_eq!(
            single(&p.run(Overrides::default()).await).status,
            ScenarioStatus::Passed
        );
        let down = || Canned {
            status: 503,
            content_type: "text/html",
            body: b"maintenance".to_vec(),
            delay: Duration::ZERO,
        };

        // Without --suggest a failure makes no call.
        server.route_once("/basic.html", down());
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(r.failure_class, Some(FailureClass::NavigationFailed));
        assert!(r.suggestion.is_none());
        assert_eq!(fake.requests().len(), 1);

        // With it: one call per failure, advice in the report, the call in the ledger.
        fake.push(Reply::Json(json!({"summary": "The app answered 503 while loading.", "fix": "Nothing in the test: the server was down."})));
        server.route_once("/basic.html", down());
        let r = single(
            &p.run(Overrides {
                suggest: true,
                ..Overrides::default()
            })
            .await,
        )
        .clone();
        let s = r.suggestion.expect("a suggestion");
        assert_eq!(s.fix, "Nothing in the test: the server was down.");
        assert_eq!(s.by, "fake/gpt-4.1-mini");
        assert_eq!(r.llm_calls, 1);
        let body = fake.requests()[1].body.clone();
        assert!(body.contains("FAILURE: navigation_failed"), "{body}");
        assert!(body.contains("untrusted_page_content"), "{body}");
        assert_eq!(p.ledger().last().unwrap()["calls"]["suggest"], 1);
    });
}

#[test]
fn bench_breaks_the_app_step_by_step_and_names_a_step_no_check_sees() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        // A name typed that nothing reads, then the Save the task is about.
        let answer = json!({"actions": [
            {"type": "fill", "target": {"ref": "@textbox \"Name\""}, "value": "Ada"},
            {"type": "click", "target": {"ref": "@button \"Save\""}}
        ], "complete": true});
        for _ in 0..6 {
            fake.push(Reply::Grounded(answer.clone()));
        }
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("save", SAVE_TASK, "/proofs.html");
        let b = p
            .runner(Overrides::default())
            .bench("save", &windup_engine::events::NoEvents)
            .await
            .unwrap();
        assert!(b.checks.generations, "{:#?}", b.generations);
        let caught: Vec<(&str, bool)> = b
            .mutants
            .iter()
            .map(|m| (m.step.as_str(), m.caught))
            .collect();
        assert_eq!(
            caught,
            [
                ("fill role=textbox[name=\"Name\"] value=\"Ada\"", false),
                ("click role=button[name=\"Save\"]", true)
            ],
            "{:#?}",
            b.mutants
        );
        assert!(
            b.mutants[0]
                .detail
                .as_deref()
                .is_some_and(|d| d.contains("still passed")),
            "{:#?}",
            b.mutants
        );
        assert!(!b.checks.mutants && !b.passed);
    });
}
