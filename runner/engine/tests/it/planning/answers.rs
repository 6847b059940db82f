//! What the provider answers and what it ends in: a miss is planned, verified, cached and then
//! replayed with no call on both wire formats; every kind of answer (bad JSON, schema-breaking,
//! unsafe, rate-limited, failing, hanging, truncated) ends in the right outcome and ledger line.

use std::time::{Duration, Instant};

use serde_json::{Value, json};
use windup_engine::config::Overrides;
use windup_model::{CacheOutcome, FailureClass, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

#[test]
fn a_miss_is_planned_verified_cached_then_replayed_with_zero_calls_on_both_wire_formats() {
    let server = pages();
    block_on(async {
        for wire in [Wire::OpenAi, Wire::Gemini] {
            let fake = FakeLlm::start();
            fake.push(Reply::Grounded(save_plan()));
            let p = Project::new(&server.base, &provider_toml(&fake, wire, ""));
            p.scenario("save", SAVE_TASK, "/basic.html");
            let first = p.run(Overrides::default()).await;
            let r = single(&first);
            assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
            assert_eq!(r.cache, CacheOutcome::Miss);
            assert_eq!(r.llm_calls, 1);
            assert!(r.cost_micro_usd > 0, "a priced model costs something");
            let entry = p.cached("save").expect("the verified plan is cached");
            assert_eq!(
                entry["plan"]["generated_by"],
                json!(format!(
                    "fake/{}",
                    match wire {
                        Wire::OpenAi => "gpt-4.1-mini",
                        Wire::Gemini => "gemini-2.5-flash",
                    }
                ))
            );
            let second = p.run(Overrides::default()).await;
            let r = single(&second);
            assert_eq!(
                (r.status, r.cache, r.llm_calls, r.cost_micro_usd),
                (ScenarioStatus::Passed, CacheOutcome::Hit, 0, 0)
            );
            assert_eq!(fake.requests().len(), 1, "the replay made no call");
            let ledger = p.ledger();
            assert_eq!(ledger.len(), 2);
            assert_eq!(ledger[0]["calls"]["planning"], 1);
            assert!(ledger[0]["tokens"]["input"].as_u64().unwrap() > 0);
            assert!(ledger[0]["tokens"]["output"].as_u64().unwrap() > 0);
            assert_eq!(ledger[0]["provider"], "fake");
            assert!(ledger[0]["price_table_date"].is_string());
            assert_eq!(ledger[1]["calls"]["planning"], 0);
            assert_eq!(ledger[1]["cost_micro_usd"], 0);
            assert_eq!(ledger[1]["cache"], "hit");
            // The prompt carries the page, delimited and marked as untrusted.
            let body = fake.requests()[0].body.clone();
            assert!(body.contains("untrusted_page_content"), "{body}");
            assert!(
                body.contains("e2 button \\\"Save\\\""),
                "the real elements are listed: {body}"
            );
        }
    });
}

/// One scripted answer sequence and what it must end in.
struct Case {
    name: &'static str,
    replies: Vec<Reply>,
    status: ScenarioStatus,
    class: Option<FailureClass>,
    calls: u32,
    tokens: bool,
}

fn bad(plan: Value) -> Vec<Reply> {
    vec![Reply::Grounded(plan.clone()), Reply::Grounded(plan)]
}

#[test]
fn every_kind_of_provider_answer_ends_in_the_right_outcome_and_is_in_the_ledger() {
    let server = pages();
    let step = |extra: Value| {
        let mut a = json!({"type": "click", "target": {"ref": "@button \"Save\""}});
        for (k, v) in extra.as_object().unwrap() {
            a[k] = v.clone();
        }
        json!({"actions": [a], "complete": true})
    };
    let cases = vec![
        Case {
            name: "non-JSON, then valid",
            replies: vec![
                Reply::Text("Sure! Here is your plan.".into()),
                Reply::Grounded(save_plan()),
            ],
            status: ScenarioStatus::Passed,
            class: None,
            calls: 2,
            tokens: true,
        },
        Case {
            name: "non-JSON twice",
            replies: vec![Reply::Text("no".into()), Reply::Text("still no".into())],
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::PlanRejected),
            calls: 2,
            tokens: true,
        },
        Case {
            name: "schema-breaking",
            replies: bad(step(json!({"type": "teleport"}))),
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::PlanRejected),
            calls: 2,
            tokens: true,
        },
        Case {
            name: "invented value_ref",
            replies: bad(
                json!({"actions": [{"type": "fill", "target": {"ref": "@textbox \"Note\""}, "value_ref": "ROOT_PASSWORD"}], "complete": true}),
            ),
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::PlanRejected),
            calls: 2,
            tokens: true,
        },
        Case {
            name: "foreign goto",
            replies: bad(
                json!({"actions": [{"type": "goto", "url": "http://evil.example/"}], "complete": true}),
            ),
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::PlanRejected),
            calls: 2,
            tokens: true,
        },
        Case {
            name: "a selector instead of a ref",
            replies: bad(step(json!({"target": {"selector": "css=#save"}}))),
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::PlanRejected),
            calls: 2,
            tokens: true,
        },
        Case {
            name: "429 with Retry-After, then valid",
            replies: vec![
                Reply::Status {
                    status: 429,
                    headers: vec![("Retry-After".into(), "1".into())],
                    body: "{\"error\":{\"message\":\"slow down\"}}".into(),
                },
                Reply::Grounded(save_plan()),
            ],
            status: ScenarioStatus::Passed,
            class: None,
            calls: 1,
            tokens: true,
        },
        Case {
            name: "500 until retries run out",
            replies: vec![
                Reply::Status {
                    status: 500,
                    headers: vec![],
                    body: "oops".into(),
                },
                Reply::Status {
                    status: 500,
                    headers: vec![],
                    body: "oops".into(),
                },
            ],
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::LlmError),
            calls: 1,
            tokens: false,
        },
        Case {
            name: "hang past the timeout",
            replies: vec![Reply::Hang, Reply::Hang],
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::LlmError),
            calls: 1,
            tokens: false,
        },
        Case {
            name: "truncated body, then valid",
            replies: vec![Reply::Truncated, Reply::Grounded(save_plan())],
            status: ScenarioStatus::Passed,
            class: None,
            calls: 1,
            tokens: true,
        },
    ];
    block_on(async {
        for case in cases {
            let fake = FakeLlm::start();
            let n = case.replies.len();
            for r in case.replies {
                fake.push(r);
            }
            let p = Project::new(
                &server.base,
                &provider_toml(&fake, Wire::OpenAi, "timeout_ms = 800"),
            );
            p.scenario("save", SAVE_TASK, "/basic.html");
            let started = Instant::now();
            let report = p.run(Overrides::default()).await;
            let r = single(&report);
            let name = case.name;
            assert_eq!(r.status, case.status, "{name}: {:?}", r.message);
            assert_eq!(r.failure_class, case.class, "{name}: {:?}", r.message);
            assert_eq!(r.llm_calls, case.calls, "{name}");
            assert_eq!(
                fake.requests().len(),
                n,
                "{name}: every scripted answer was asked for"
            );
            assert_eq!(
                p.cached("save").is_some(),
                case.status == ScenarioStatus::Passed,
                "{name}: only verified plans are cached"
            );
            let ledger = p.ledger();
            assert_eq!(ledger.len(), 1, "{name}");
            assert_eq!(ledger[0]["calls"]["planning"], case.calls, "{name}");
            assert_eq!(
                ledger[0]["failure_class"],
                json!(case.class.map(|c| c.as_str())),
                "{name}"
            );
            assert_eq!(
                ledger[0]["tokens"]["input"].as_u64().unwrap() > 0,
                case.tokens,
                "{name}"
            );
            if name.starts_with("429") {
                assert!(
                    started.elapsed() >= Duration::from_secs(1),
                    "Retry-After was honoured"
                );
            }
            if name == "non-JSON, then valid" {
                let second = &fake.requests()[1].body;
                assert!(
                    second.contains("REJECTED") && second.contains("not a JSON object"),
                    "the problems go back: {second}"
                );
            }
        }
    });
}
