//! The published schemas stay in step with the types, and bad input is named precisely.

use std::path::PathBuf;

use windup_model::schema::{Format, schema_text};
use windup_model::validate::{
    cache_entry_from_json, fragment_from_json, plan_from_json, scenario_from_yaml,
};

fn schemas_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../schemas")
}

#[test]
fn published_schemas_match_the_types() {
    // UPDATE_SCHEMAS=1 cargo test -p windup-model rewrites them after a format change.
    let update = std::env::var_os("UPDATE_SCHEMAS").is_some();
    let mut stale = Vec::new();
    for format in Format::ALL {
        let path = schemas_dir().join(format.file_name());
        let want = schema_text(format);
        if update {
            std::fs::write(&path, &want).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "schemas out of date: {stale:?}; run UPDATE_SCHEMAS=1 cargo test -p windup-model"
    );
}

const GOOD_PLAN: &str = r#"{
  "plan_version": "0.1", "scenario_id": "s", "task": "t", "start_url": "/", "generated_by": "human",
  "actions": [
    {"id": "a1", "type": "fill", "target": {"selector": "label=\"Email\""}, "value_ref": "ADMIN_EMAIL"},
    {"id": "a2", "type": "press", "key": "Enter", "expect": {"url": "/home"}}
  ]
}"#;

fn plan_errors(text: &str) -> Vec<(String, String, String)> {
    plan_from_json("p.json", text)
        .unwrap_err()
        .0
        .into_iter()
        .map(|e| (e.field, e.problem, e.fix))
        .collect()
}

#[test]
fn a_good_plan_parses() {
    let plan = plan_from_json("p.json", GOOD_PLAN).unwrap();
    assert_eq!(plan.actions.len(), 2);
}

#[test]
fn unknown_action_type_names_the_field_and_the_choices() {
    let errors = plan_errors(&GOOD_PLAN.replace("\"press\"", "\"tap\""));
    let (field, problem, fix) = &errors[0];
    assert_eq!(field, "actions[1].type");
    assert!(problem.contains("\"tap\""), "{problem}");
    assert!(fix.contains("goto") && fix.contains("wait_for"), "{fix}");
}

#[test]
fn fill_with_both_value_and_value_ref_is_rejected() {
    let errors = plan_errors(&GOOD_PLAN.replace(
        "\"value_ref\": \"ADMIN_EMAIL\"",
        "\"value_ref\": \"ADMIN_EMAIL\", \"value\": \"x\"",
    ));
    assert!(
        errors
            .iter()
            .any(|(f, p, _)| f == "actions[0].value" && p.contains("both")),
        "{errors:?}"
    );
}

#[test]
fn broken_selector_is_rejected() {
    let errors =
        plan_errors(&GOOD_PLAN.replace(r#"label=\"Email\""#, r#"role=button[name=\"Save"#));
    assert!(
        errors
            .iter()
            .any(|(f, p, _)| f == "actions[0].target.selector" && p.contains("not closed")),
        "{errors:?}"
    );
}

#[test]
fn final_action_needs_a_postcondition() {
    let errors = plan_errors(&GOOD_PLAN.replace(", \"expect\": {\"url\": \"/home\"}", ""));
    assert!(
        errors
            .iter()
            .any(|(f, _, fix)| f == "actions[1].expect" && fix.contains("expect")),
        "{errors:?}"
    );
}

#[test]
fn misspelt_action_field_is_named_with_the_allowed_ones() {
    let errors = plan_errors(&GOOD_PLAN.replace("\"expect\"", "\"expct\""));
    let (field, problem, fix) = errors
        .iter()
        .find(|(f, ..)| f == "actions[1].expct")
        .unwrap_or_else(|| panic!("{errors:?}"));
    assert!(problem.contains("expct"), "{field} {problem}");
    assert!(fix.contains("expect") && fix.contains("target"), "{fix}");
}

#[test]
fn malformed_json_gives_line_and_column() {
    let err = plan_from_json("p.json", "{\"plan_version\": \"0.1\",,}").unwrap_err();
    assert!(err.0[0].problem.contains("line 1"), "{}", err);
    assert_eq!(err.0[0].file, "p.json");
}

#[test]
fn scenario_rejects_unknown_fields_and_bad_yaml() {
    let err = scenario_from_yaml(
        "s.yaml",
        "id: s\ntask: do it\nstart_url: /\nstart: /x\n",
        Some("s"),
    )
    .unwrap_err();
    assert_eq!(err.0[0].field, "start");
    assert!(err.0[0].fix.contains("start_url"), "{}", err);
    let err = scenario_from_yaml("s.yaml", "id: s\ntask: [unclosed\n", Some("s")).unwrap_err();
    assert!(err.0[0].problem.contains("not valid YAML"), "{}", err);
    let err =
        scenario_from_yaml("s.yaml", "id: s\ntask: t\nstart_url: login\n", Some("s")).unwrap_err();
    assert_eq!(err.0[0].field, "start_url");
    assert!(err.0[0].fix.contains("starts with `/`"), "{}", err);
    let err =
        scenario_from_yaml("s.yaml", "id: other\ntask: t\nstart_url: /\n", Some("s")).unwrap_err();
    assert_eq!(err.0[0].field, "id");
    let ok = scenario_from_yaml(
        "s.yaml",
        "id: s\ntask: t\nstart_url: /\nhints: [use the sidebar]\ntags: [smoke]\ntimeout_ms: 5000\n",
        Some("s"),
    )
    .unwrap();
    assert_eq!(ok.tags, vec!["smoke"]);
}

#[test]
fn fragments_and_cache_entries_are_checked_too() {
    let frag = r#"{"fragment_version":"0.1","id":"login","description":"d",
        "actions":[{"id":"f1","type":"click","target":{"selector":"role=button[name=\"Go\"]"}}],
        "expect":{"url":"/home"}}"#;
    assert!(fragment_from_json("login.json", frag, Some("login")).is_ok());
    let err =
        fragment_from_json("login.json", &frag.replace("0.1", "9.0"), Some("login")).unwrap_err();
    assert_eq!(err.0[0].field, "fragment_version");
    let entry = format!(
        r#"{{"cache_version":"0.2","key":{{"scenario_id":"s","start_url":"/","scenario_sha":"x"}},
        "plan":{GOOD_PLAN},"status":"active",
        "stats":{{"created_at":"2026-01-01T00:00:00Z","last_verified_at":"2026-01-01T00:00:00Z","verified_runs":1,"last_duration_ms":5}},
        "newer_field_from_a_future_windup": true}}"#
    );
    assert!(
        cache_entry_from_json("s.json", &entry).is_ok(),
        "tolerates a newer field"
    );
    let err = cache_entry_from_json(
        "s.json",
        &entry.replace("\"s\",\"start_url\"", "\"z\",\"start_url\""),
    )
    .unwrap_err();
    assert_eq!(err.0[0].field, "plan.scenario_id");
}

mod ledger {
    use time::macros::{date, datetime};
    use windup_model::schema::Format;
    use windup_model::validate::schema_problems;
    use windup_model::{
        CacheOutcome, FailureClass, LEDGER_VERSION, LedgerRecord, LlmCalls, PhaseTimings,
        ScenarioStatus, TokenUsage,
    };

    fn record() -> LedgerRecord {
        LedgerRecord {
            ledger_version: LEDGER_VERSION.into(),
            run_id: "0192f0c1-0000-7000-8000-000000000001".into(),
            scenario_id: "sign-in".into(),
            started_at: datetime!(2025-07-01 23:30:00 -02:00),
            finished_at: datetime!(2025-07-01 23:30:04.5 -02:00),
            status: ScenarioStatus::Failed,
            failure_class: Some(FailureClass::PlanRejected),
            cache: CacheOutcome::Miss,
            provider: Some("gemini".into()),
            model: Some("gemini-2.5-flash".into()),
            calls: LlmCalls {
                planning: 1,
                continuation: 2,
                repair: 0,
                suggest: 0,
            },
            tokens: TokenUsage {
                input: 12_000,
                output: 800,
                cached: 4_000,
            },
            cost_micro_usd: 5_480,
            price_table_date: Some(date!(2025 - 06 - 17)),
            timings: PhaseTimings {
                plan_ms: 3_100,
                execute_ms: 1_200,
                verify_ms: 200,
            },
            git_commit: None,
            git_branch: Some("main".into()),
        }
    }

    #[test]
    fn a_record_round_trips_on_one_line_with_plain_dates() {
        let r = record();
        let line = serde_json::to_string(&r).unwrap();
        assert!(!line.contains('\n'));
        assert!(
            line.contains(r#""price_table_date":"2025-06-17""#),
            "{line}"
        );
        assert!(
            line.contains(r#""started_at":"2025-07-01T23:30:00-02:00""#),
            "{line}"
        );
        assert!(!line.contains("git_commit"), "None is left out: {line}");
        assert_eq!(serde_json::from_str::<LedgerRecord>(&line).unwrap(), r);
        assert_eq!(r.calls.total(), 3);
        // The day is the UTC day: 23:30 at -02:00 is the next morning in UTC.
        assert_eq!(r.day(), date!(2025 - 07 - 02));
    }

    #[test]
    fn a_record_without_a_call_leaves_the_llm_fields_out() {
        let mut r = record();
        (r.provider, r.model, r.price_table_date, r.failure_class) = (None, None, None, None);
        let value = serde_json::to_value(&r).unwrap();
        for absent in ["provider", "model", "price_table_date", "failure_class"] {
            assert!(value.get(absent).is_none(), "{absent}: {value}");
        }
        assert_eq!(serde_json::from_value::<LedgerRecord>(value).unwrap(), r);
    }

    #[test]
    fn readers_tolerate_newer_fields_and_reject_a_bad_date() {
        let mut value = serde_json::to_value(record()).unwrap();
        value["tokens"]["reasoning"] = 9.into();
        value["carbon_grams"] = 1.into();
        assert_eq!(
            serde_json::from_value::<LedgerRecord>(value.clone()).unwrap(),
            record()
        );
        value["price_table_date"] = "17/06/2025".into();
        assert!(serde_json::from_value::<LedgerRecord>(value).is_err());
    }

    #[test]
    fn a_record_satisfies_its_published_schema() {
        let value = serde_json::to_value(record()).unwrap();
        assert_eq!(
            schema_problems("ledger.jsonl", Format::LedgerRecord, &value),
            vec![]
        );
        let mut bad = value;
        bad["cost_micro_usd"] = (-1).into();
        assert!(!schema_problems("ledger.jsonl", Format::LedgerRecord, &bad).is_empty());
    }

    #[test]
    fn token_usage_adds_up() {
        let a = TokenUsage {
            input: 1,
            output: 2,
            cached: 3,
        };
        let mut b = a + a;
        b += a;
        assert_eq!(
            b,
            TokenUsage {
                input: 3,
                output: 6,
                cached: 9
            }
        );
    }
}
