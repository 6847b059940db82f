//! The run debrief (`--debrief`): after a run with failures, ONE budgeted call over all of them,
//! their evidence only inside the untrusted block and every credential masked; the answer in
//! the report (JSON, HTML, Markdown) and the call in the ledger; no call without failures; a
//! clear note when the budget refuses it. It never changes a verdict.

use std::time::Duration;

use serde_json::json;
use windup_engine::cache::PlanCache;
use windup_engine::config::Overrides;
use windup_model::{FailureClass, Plan, ScenarioStatus};
use windup_testkit::Canned;
use windup_testkit::fake_llm::{FakeLlm, Reply};

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
    PlanCache::new(p.root())
        .save_verified(&scenario, &plan, None, 10, "run-0")
        .unwrap();
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
