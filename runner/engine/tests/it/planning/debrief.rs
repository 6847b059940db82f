//! The run debrief (`--debrief`): after a run with failures, ONE budgeted call over all of them,
//! their evidence only inside the untrusted block and every credential masked; the answer in
//! the report (JSON, HTML, Markdown) and the call in the ledger; no call without failures; a
//! clear note when the budget refuses it. An answer bounded for a small model; one cut off gets
//! one more call, both counted, and a plain note when that one is cut off too. It never changes
//! a verdict.

use std::time::Duration;

use serde_json::{Value, json};
use windup_engine::config::Overrides;
use windup_model::{FailureClass, Plan, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply, tokens};
use windup_testkit::{Canned, Server};

use super::support::*;
use crate::support::*;

const PASSWORD: &str = "debrief-canary-4411";

/// Commits a verified plan for scenario `id`, a click on `button` at `start_url` (no planning
/// call).
fn committed(p: &Project, id: &str, start_url: &str, button: &str) {
    p.scenario(id, SAVE_TASK, start_url);
    let text = std::fs::read_to_string(p.root().join(format!("e2e/scenarios/{id}.yaml"))).unwrap();
    let scenario = windup_model::validate::scenario_from_yaml("s.yaml", &text, Some(id)).unwrap();
    let plan: Plan = serde_json::from_value(json!({
        "plan_version": "0.1", "scenario_id": id, "task": SAVE_TASK, "start_url": start_url,
        "generated_by": "fake/gpt-4.1-mini",
        "actions": [{"id": "a1", "type": "click", "target": {"selector": format!("role=button[name={button:?}]")},
                     "expect": {"url": start_url.split('?').next().unwrap()}}]
    }))
    .unwrap();
    cache_as_verified(p.root(), &scenario, &plan);
}

fn down() -> Canned {
    Canned {
        status: 503,
        content_type: "text/html",
        body: b"maintenance".to_vec(),
        delay: Duration::ZERO,
    }
}

/// The text between the prompt's untrusted markers.
fn untrusted(body: &str) -> String {
    let prompt: serde_json::Value = serde_json::from_str(body).unwrap();
    let user = prompt["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    let open = user
        .find("<untrusted_page_content>")
        .expect("an untrusted block");
    let close = user.find("</untrusted_page_content>").expect("closed");
    user[open..close].to_string()
}

#[test]
fn one_debrief_call_reads_every_failure_and_lands_in_every_report() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.write(
            "e2e/manifest.yaml",
            "accounts:\n  admin:\n    password: ACME_ADMIN_PASSWORD\n",
        );
        p.write(".env.local", &format!("ACME_ADMIN_PASSWORD={PASSWORD}\n"));
        committed(
            &p,
            "alpha",
            &format!("/basic.html?session={PASSWORD}"),
            "Save",
        );
        committed(&p, "beta", "/second.html", "Save");
        committed(&p, "gamma", "/network.html", "Load");
        server.route("/basic.html", down());
        server.route("/second.html", down());
        let debrief = || Overrides {
            debrief: true,
            ..Overrides::default()
        };
        let alpha_and_beta = ["alpha".to_string(), "beta".to_string()];

        // Without --debrief: no call.
        let report = p
            .runner(Overrides::default())
            .run(&alpha_and_beta, &windup_engine::events::NoEvents)
            .await
            .unwrap();
        assert!(report.debrief.is_none());
        assert_eq!(fake.requests().len(), 0);

        // With it: one call for both failures; the verdicts are as without it.
        fake.push(Reply::Json(json!({
            "shared_cause": format!("Both pages answered 503; the session {PASSWORD} is in a URL."),
            "look_first": ["beta", "not-a-scenario", "beta"],
            "notes": "The app is down, not the tests."
        })));
        let report = p
            .runner(debrief())
            .run(&alpha_and_beta, &windup_engine::events::NoEvents)
            .await
            .unwrap();
        assert_eq!(fake.requests().len(), 1, "one call for the whole run");
        for s in &report.scenarios {
            assert_eq!(s.status, ScenarioStatus::Failed, "{}", s.scenario_id);
            assert_eq!(s.failure_class, Some(FailureClass::NavigationFailed));
        }
        let body = fake.requests()[0].body.clone();
        let block = untrusted(&body);
        assert!(
            block.contains("[alpha]") && block.contains("[beta]"),
            "{block}"
        );
        assert!(
            block.contains("503"),
            "the evidence is in the block: {block}"
        );
        assert!(
            block.contains("•••"),
            "the credential in alpha's URL, masked: {block}"
        );
        assert!(
            !body.contains(PASSWORD),
            "no credential value in the prompt"
        );
        let d = report.debrief.clone().expect("a debrief");
        assert_eq!(d.look_first, ["beta"], "only failed ids, once");
        assert_eq!(d.notes, "The app is down, not the tests.");
        assert!(!d.shared_cause.contains(PASSWORD), "{}", d.shared_cause);
        assert!(d.shared_cause.contains("•••"), "{}", d.shared_cause);
        assert_eq!(d.by.as_deref(), Some("fake/gpt-4.1-mini"));
        // The call is in the ledger, in the first failed scenario's record, and in the totals.
        let alpha = p
            .ledger()
            .into_iter()
            .rev()
            .find(|l| l["scenario_id"] == "alpha")
            .unwrap();
        assert_eq!(alpha["calls"]["debrief"], 1, "{alpha}");
        assert_eq!(report.totals.llm_calls, 1);

        // In the JSON, HTML and Markdown reports.
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["debrief"]["look_first"], json!(["beta"]));
        let html = windup_engine::reporters::html::render(&report, p.root()).unwrap();
        assert!(html.contains("The app is down, not the tests."), "{html}");
        assert!(html.contains("<code>beta</code>"), "{html}");
        let md = windup_model::markdown::run_summary(
            std::slice::from_ref(&report),
            &windup_model::markdown::SummaryOptions::default(),
        );
        assert!(md.contains("- Look first at: `beta`"), "{md}");
        assert!(
            md.contains("- Notes: The app is down, not the tests."),
            "{md}"
        );

        // A run without failures makes no call and has no debrief.
        let report = p
            .runner(debrief())
            .run(&["gamma".to_string()], &windup_engine::events::NoEvents)
            .await
            .unwrap();
        assert_eq!(report.totals.failed, 0, "{:?}", report.scenarios[0].message);
        assert!(report.debrief.is_none());
        assert_eq!(fake.requests().len(), 1);

        // The budget refuses the call: none is made, and the report says why.
        let report = p
            .runner(Overrides {
                budget_usd: Some(0.000_01),
                ..debrief()
            })
            .run(&alpha_and_beta, &windup_engine::events::NoEvents)
            .await
            .unwrap();
        assert_eq!(fake.requests().len(), 1, "no call was made");
        let why = report.debrief.and_then(|d| d.not_made).expect("a note");
        assert!(
            why.contains("budget_exceeded: no LLM call was made"),
            "{why}"
        );
        assert_eq!(report.totals.failed, 2);
    });
}

/// A project whose `alpha` and `beta` fail (their pages answer 503), with a grammar-enforcing
/// provider (`strict = false`, as for llama.cpp) served by `fake`.
fn two_failures(server: &Server, fake: &FakeLlm, more_toml: &str) -> Project {
    let p = Project::new(
        &server.base,
        &format!(
            "{}{more_toml}",
            provider_toml(fake, Wire::OpenAi, "strict = false\n")
        ),
    );
    committed(&p, "alpha", "/basic.html", "Save");
    committed(&p, "beta", "/second.html", "Save");
    server.route("/basic.html", down());
    server.route("/second.html", down());
    p
}

async fn run_debriefed(p: &Project) -> windup_model::RunReport {
    p.runner(Overrides {
        debrief: true,
        ..Overrides::default()
    })
    .run(
        &["alpha".to_string(), "beta".to_string()],
        &windup_engine::events::NoEvents,
    )
    .await
    .unwrap()
}

/// The user message of a request.
fn user_message(body: &Value) -> &str {
    body["messages"][1]["content"].as_str().unwrap()
}

/// The calls, tokens and run totals of both calls are where a debrief's are counted.
fn assert_both_counted(p: &Project, fake: &FakeLlm, report: &windup_model::RunReport) {
    let requests = fake.requests();
    assert_eq!(requests.len(), 2, "one call, then one more");
    let alpha = p
        .ledger()
        .into_iter()
        .rev()
        .find(|l| l["scenario_id"] == "alpha")
        .unwrap();
    assert_eq!(alpha["calls"]["debrief"], 2, "{alpha}");
    let input: u64 = requests.iter().map(|r| tokens(&r.body)).sum();
    assert_eq!(alpha["tokens"]["input"], input, "{alpha}");
    assert_eq!(report.totals.llm_calls, 2);
    for s in &report.scenarios {
        assert_eq!(s.status, ScenarioStatus::Failed, "{}", s.scenario_id);
        assert_eq!(s.failure_class, Some(FailureClass::NavigationFailed));
    }
}

#[test]
fn a_debrief_cut_off_is_asked_once_more_with_its_answer_bounded() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        // A scenario's call cap is not the debrief's: both calls are made under a cap of one.
        let p = two_failures(&server, &fake, "[budget]\ncalls_per_scenario = 1\n");
        let cut = r#"{"shared_cause": "Both pages answered 503 because the backend"#;
        let good = json!({
            "shared_cause": "Both pages answered 503.",
            "look_first": ["beta"],
            "notes": "The app is down, not the tests."
        });
        fake.push(Reply::Length(cut.into()));
        fake.push(Reply::Json(good.clone()));
        let report = run_debriefed(&p).await;

        let d = report.debrief.clone().expect("a debrief");
        assert_eq!(d.not_made, None);
        assert_eq!(d.shared_cause, "Both pages answered 503.");
        assert_eq!(d.look_first, ["beta"]);
        assert_both_counted(&p, &fake, &report);
        let alpha = p
            .ledger()
            .into_iter()
            .rev()
            .find(|l| l["scenario_id"] == "alpha")
            .unwrap();
        assert_eq!(
            alpha["tokens"]["output"],
            tokens(cut) + tokens(&good.to_string()),
            "{alpha}"
        );

        // The schema a grammar enforces bounds the answer, and the call may write all of it.
        let first = fake.requests()[0].json();
        let schema = &first["response_format"]["json_schema"]["schema"];
        let text_max = schema["properties"]["shared_cause"]["maxLength"]
            .as_u64()
            .expect("a bounded text");
        assert_eq!(schema["properties"]["notes"]["maxLength"], text_max);
        assert_eq!(schema["properties"]["look_first"]["maxItems"], 5);
        assert_eq!(
            schema["properties"]["look_first"]["items"]["enum"],
            json!(["alpha", "beta"])
        );
        let max_tokens = first["max_tokens"].as_u64().unwrap();
        // At 1.5 characters a token, both texts and five long ids fit.
        assert!(
            max_tokens * 3 / 2 >= 2 * text_max + 5 * 100,
            "{max_tokens} tokens for two texts of {text_max}"
        );
        let system = first["messages"][0]["content"].as_str().unwrap();
        assert!(
            system.contains(&format!("at most {text_max} characters")),
            "{system}"
        );
        // The second call is told why.
        let second = fake.requests()[1].json();
        assert!(
            user_message(&second).contains(&format!("CUT OFF at {max_tokens} output tokens")),
            "{}",
            user_message(&second)
        );
        assert!(!user_message(&first).contains("CUT OFF"));
    });
}

#[test]
fn a_debrief_cut_off_twice_is_not_made_and_says_so() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        let p = two_failures(&server, &fake, "");
        fake.push(Reply::Length(r#"{"shared_cause": "Both pages"#.into()));
        fake.push(Reply::Length(r#"{"shared_cause": "Both"#.into()));
        fake.push(Reply::Json(
            json!({"shared_cause": "", "look_first": [], "notes": ""}),
        ));
        let report = run_debriefed(&p).await;

        let max_tokens = fake.requests()[0].json()["max_tokens"].as_u64().unwrap();
        let d = report.debrief.clone().expect("a debrief note");
        assert_eq!(
            d.not_made.as_deref(),
            Some(
                format!(
                    "llm_error: the model's answer was cut off at {max_tokens} output tokens twice"
                )
                .as_str()
            )
        );
        assert!(d.shared_cause.is_empty() && d.look_first.is_empty());
        assert_both_counted(&p, &fake, &report);
        assert_eq!(fake.pending(), 1, "no third call");
    });
}

#[test]
fn a_second_debrief_call_the_budget_refuses_is_not_made_and_the_first_is_counted() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        let p = two_failures(&server, &fake, "[budget]\ncalls_per_run = 1\n");
        fake.push(Reply::Length(r#"{"shared_cause": "Both pages"#.into()));
        fake.push(Reply::Json(
            json!({"shared_cause": "", "look_first": [], "notes": ""}),
        ));
        let report = run_debriefed(&p).await;

        assert_eq!(fake.requests().len(), 1, "the run's cap held");
        let why = report.debrief.and_then(|d| d.not_made).expect("a note");
        assert!(
            why.starts_with("budget_exceeded: the model's answer was cut off at ")
                && why.contains("output tokens, and a second call failed: no LLM call was made: the run already made 1 LLM calls"),
            "{why}"
        );
        let alpha = p
            .ledger()
            .into_iter()
            .rev()
            .find(|l| l["scenario_id"] == "alpha")
            .unwrap();
        assert_eq!(alpha["calls"]["debrief"], 1, "{alpha}");
        assert_eq!(alpha["tokens"]["input"], tokens(&fake.requests()[0].body));
        assert_eq!(report.totals.llm_calls, 1);
    });
}
