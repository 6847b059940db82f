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
                author: 0,
                debrief: 0,
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

/// Each size limit: the value at the limit passes, one over is refused with the field named,
/// by every reader that takes the input.
mod limits {
    use windup_model::limits::{
        PLAN_BYTES, PLAN_STEPS, SCENARIO_BYTES, SELECTOR_BYTES, SELECTOR_PARTS,
    };
    use windup_model::validate::{
        cache_entry_from_json, fragment_from_json, plan_from_json, plan_problems,
        scenario_from_yaml,
    };

    /// A plan of `steps` clicks on `selector`, the last with a postcondition.
    fn plan(steps: usize, selector: &str) -> String {
        let selector = serde_json::to_string(selector).unwrap();
        let actions: Vec<String> = (0..steps)
            .map(|i| {
                let expect = if i + 1 == steps {
                    r#","expect":{"url":"/done"}"#
                } else {
                    ""
                };
                format!(
                    r#"{{"id":"a{i}","type":"click","target":{{"selector":{selector}}}{expect}}}"#
                )
            })
            .collect();
        format!(
            r#"{{"plan_version":"0.1","scenario_id":"s","task":"t","start_url":"/","generated_by":"human","actions":[{}]}}"#,
            actions.join(",")
        )
    }

    /// `text` padded with trailing whitespace (JSON and YAML ignore it) to exactly `len` bytes.
    fn padded(text: &str, len: usize) -> String {
        assert!(text.len() <= len);
        format!("{text}{}", "\n".repeat(len - text.len()))
    }

    fn only_problem(err: windup_model::Problems) -> windup_model::InputError {
        assert_eq!(err.0.len(), 1, "{err}");
        err.0.into_iter().next().unwrap()
    }

    const GO: &str = r#"role=button[name="Go"]"#;

    #[test]
    fn a_scenario_over_64_kib_is_refused_before_it_is_parsed() {
        let good = "id: s\ntask: t\nstart_url: /\n";
        assert!(scenario_from_yaml("s.yaml", &padded(good, SCENARIO_BYTES), Some("s")).is_ok());
        // Over the limit, even a file that is not YAML at all is refused for its size.
        let over = "\u{0}".repeat(SCENARIO_BYTES + 1);
        let e = only_problem(scenario_from_yaml("s.yaml", &over, Some("s")).unwrap_err());
        assert_eq!((e.file.as_str(), e.field.as_str()), ("s.yaml", "(file)"));
        assert!(e.problem.contains("larger than 64 KiB"), "{e}");
        assert!(e.problem.contains("a scenario"), "{e}");
    }

    #[test]
    fn a_plan_fragment_or_cache_entry_over_1_mib_is_refused() {
        let good = plan(2, GO);
        assert!(plan_from_json("p.json", &padded(&good, PLAN_BYTES)).is_ok());
        let e = only_problem(plan_from_json("p.json", &padded(&good, PLAN_BYTES + 1)).unwrap_err());
        assert_eq!(e.field, "(file)");
        assert!(e.problem.contains("larger than 1 MiB"), "{e}");

        let frag = r#"{"fragment_version":"0.1","id":"f","description":"d","actions":[{"id":"f1","type":"click","target":{"selector":"role=button[name=\"Go\"]"}}]}"#;
        assert!(fragment_from_json("f.json", &padded(frag, PLAN_BYTES), Some("f")).is_ok());
        let e = only_problem(
            fragment_from_json("f.json", &padded(frag, PLAN_BYTES + 1), Some("f")).unwrap_err(),
        );
        assert_eq!((e.file.as_str(), e.field.as_str()), ("f.json", "(file)"));
        assert!(e.problem.contains("a fragment"), "{e}");

        let entry = format!(
            r#"{{"cache_version":"0.2","key":{{"scenario_id":"s","start_url":"/","scenario_sha":"x"}},"plan":{good},"status":"active",
            "stats":{{"created_at":"2026-01-01T00:00:00Z","last_verified_at":"2026-01-01T00:00:00Z","verified_runs":1,"last_duration_ms":5}}}}"#
        );
        assert!(cache_entry_from_json("s.json", &padded(&entry, PLAN_BYTES)).is_ok());
        let e = only_problem(
            cache_entry_from_json("s.json", &padded(&entry, PLAN_BYTES + 1)).unwrap_err(),
        );
        assert_eq!(e.field, "(file)");
        assert!(e.problem.contains("a cache entry"), "{e}");
    }

    #[test]
    fn at_most_500_steps() {
        assert!(plan_from_json("p.json", &plan(PLAN_STEPS, GO)).is_ok());
        let e = only_problem(plan_from_json("p.json", &plan(PLAN_STEPS + 1, GO)).unwrap_err());
        assert_eq!(e.field, "actions");
        assert!(e.problem.contains("501 steps"), "{e}");
        assert!(e.problem.contains("limit of 500"), "{e}");
    }

    #[test]
    fn a_selector_is_at_most_2_kib_and_never_echoed_when_longer() {
        let at = format!("text=\"{}\"", "x".repeat(SELECTOR_BYTES - 7));
        assert_eq!(at.len(), SELECTOR_BYTES);
        assert!(plan_from_json("p.json", &plan(1, &at)).is_ok());
        let over = format!("text=\"{}\"", "x".repeat(SELECTOR_BYTES - 6));
        let e = only_problem(plan_from_json("p.json", &plan(1, &over)).unwrap_err());
        assert_eq!(e.field, "actions[0].target.selector");
        assert!(
            e.problem.contains("2049 bytes, over the limit of 2 KiB"),
            "{e}"
        );
        assert!(
            !e.to_string().contains("xxxxxxxx"),
            "the selector is not echoed: {e}"
        );
        // In a postcondition too.
        let text = plan(1, GO).replace(
            r#""expect":{"url":"/done"}"#,
            &format!(
                r#""expect":{{"visible":{}}}"#,
                serde_json::to_string(&over).unwrap()
            ),
        );
        let e = only_problem(plan_from_json("p.json", &text).unwrap_err());
        assert_eq!(e.field, "actions[0].expect.visible");
    }

    #[test]
    fn a_selector_chains_at_most_16_parts() {
        let chain = |n: usize| vec!["css=div"; n].join(" >> ");
        assert!(plan_from_json("p.json", &plan(1, &chain(SELECTOR_PARTS))).is_ok());
        let e = only_problem(
            plan_from_json("p.json", &plan(1, &chain(SELECTOR_PARTS + 1))).unwrap_err(),
        );
        assert_eq!(e.field, "actions[0].target.selector");
        assert!(e.problem.contains("17 parts"), "{e}");
        // `>>` inside a quoted value is text, not a part.
        let quoted = format!("{} >> text=\">> >> >>\"", chain(SELECTOR_PARTS - 1));
        assert!(plan_from_json("p.json", &plan(1, &quoted)).is_ok());
    }

    #[test]
    fn the_planners_check_shares_the_limits() {
        let over: windup_model::Plan =
            serde_json::from_str(&plan(1, &vec!["css=div"; SELECTOR_PARTS + 1].join(" >> ")))
                .unwrap();
        let problems = plan_problems("plan", &over, true);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].field, "actions[0].target.selector");
        let long: windup_model::Plan = serde_json::from_str(&plan(PLAN_STEPS + 1, GO)).unwrap();
        let problems = plan_problems("plan", &long, false);
        assert_eq!(problems[0].field, "actions", "{problems:?}");
    }
}

/// `plan_version` 0.2's steps: `upload` takes plain file names, `download` checks its file,
/// and a 0.1 plan still reads but cannot hold them.
mod transfers {
    use super::*;

    const PLAN: &str = r#"{
      "plan_version": "0.2", "scenario_id": "s", "task": "t", "start_url": "/", "generated_by": "human",
      "actions": [
        {"id": "a1", "type": "upload", "target": {"selector": "label=\"Invoice\""}, "files": ["invoice.pdf"]},
        {"id": "a2", "type": "download", "target": {"selector": "role=link[name=\"Report\"]"},
         "expect": {"download": {"name": "report-*.csv", "min_size": 1, "max_size": 9}}}
      ]
    }"#;

    #[test]
    fn uploads_and_downloads_parse_and_an_old_plan_still_reads() {
        let plan = plan_from_json("p.json", PLAN).unwrap();
        assert_eq!(
            plan.actions[0].files.as_deref(),
            Some(&["invoice.pdf".to_string()][..])
        );
        assert!(!plan.actions[1].expect.as_ref().unwrap().has_page_checks());
        assert!(
            plan_from_json("p.json", GOOD_PLAN).is_ok(),
            "0.1 is still read"
        );
        let errors = plan_errors(&PLAN.replace("\"0.2\"", "\"0.1\""));
        assert_eq!(errors[0].0, "actions[0].type", "{errors:?}");
        assert!(errors[0].1.contains("came with version 0.2"), "{errors:?}");
        let errors = plan_errors(&PLAN.replace("\"0.2\"", "\"0.3\""));
        assert!(errors[0].1.contains("`0.1`, `0.2`"), "{errors:?}");
    }

    #[test]
    fn upload_names_must_be_plain_file_names() {
        for bad in [
            "../secret.txt",
            "/etc/passwd",
            "sub/a.pdf",
            "..",
            "C:\\\\a.pdf",
        ] {
            let errors = plan_errors(&PLAN.replace("invoice.pdf", bad));
            let (field, problem, fix) = &errors[0];
            assert_eq!(field, "actions[0].files[0]", "{bad}: {errors:?}");
            assert!(!problem.is_empty());
            assert!(fix.contains("e2e/files/"), "{fix}");
        }
        let errors = plan_errors(&PLAN.replace(", \"files\": [\"invoice.pdf\"]", ""));
        assert_eq!(errors[0].0, "actions[0].files", "{errors:?}");
    }

    #[test]
    fn download_checks_are_consistent_and_only_on_downloads() {
        let errors = plan_errors(&PLAN.replace("\"min_size\": 1", "\"min_size\": 10"));
        assert!(
            errors
                .iter()
                .any(|(f, ..)| f == "actions[1].expect.download.min_size"),
            "{errors:?}"
        );
        let errors = plan_errors(&PLAN.replace("\"min_size\": 1, ", "\"size\": 3, "));
        assert!(
            errors
                .iter()
                .any(|(f, ..)| f == "actions[1].expect.download.size"),
            "{errors:?}"
        );
        let errors = plan_errors(&PLAN.replace("\"type\": \"download\"", "\"type\": \"click\""));
        assert!(
            errors
                .iter()
                .any(|(f, ..)| f == "actions[1].expect.download"),
            "{errors:?}"
        );
        let errors = plan_errors(&PLAN.replace("\"type\": \"upload\"", "\"type\": \"click\""));
        assert!(
            errors.iter().any(|(f, ..)| f == "actions[0].files"),
            "{errors:?}"
        );
    }

    #[test]
    fn fragments_move_with_plans() {
        let fragment = |version: &str| {
            format!(
                r#"{{"fragment_version": "{version}", "id": "f", "description": "d",
                "actions": [{{"id": "a1", "type": "upload", "target": {{"selector": "label=\"F\""}}, "files": ["a.txt"]}}]}}"#
            )
        };
        assert!(fragment_from_json("f.json", &fragment("0.2"), Some("f")).is_ok());
        let err = fragment_from_json("f.json", &fragment("0.1"), Some("f")).unwrap_err();
        assert_eq!(err.0[0].field, "actions[0].type");
    }
}

#[test]
fn a_scenario_id_is_checked_by_the_schemas_own_rule() {
    for good in ["sign-in", "a", "0.checkout_v2"] {
        assert_eq!(
            windup_model::validate::scenario_id_problem("--id", "id", good),
            None,
            "{good}"
        );
    }
    for bad in ["Sign In", "-lead", "", &"x".repeat(101)] {
        let p = windup_model::validate::scenario_id_problem("--id", "id", bad)
            .unwrap_or_else(|| panic!("`{bad}` must be refused"));
        assert_eq!((p.file.as_str(), p.field.as_str()), ("--id", "id"));
        assert!(!p.fix.is_empty(), "{p:?}");
    }
}
