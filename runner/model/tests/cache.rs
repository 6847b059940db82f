//! Cache entries across versions: a committed 0.2 entry (before `reviewed` and proposals) is
//! still read, as not reviewed, and a 0.3 one (before `baseline`) with none; 0.4 is written; which entries are protected; and the shape of a
//! proposal.

use windup_model::validate::cache_entry_from_json;

const GOOD_PLAN: &str = r#"{
  "plan_version": "0.1", "scenario_id": "s", "task": "t", "start_url": "/", "generated_by": "human",
  "actions": [
    {"id": "a1", "type": "fill", "target": {"selector": "label=\"Email\""}, "value_ref": "ADMIN_EMAIL"},
    {"id": "a2", "type": "press", "key": "Enter", "expect": {"url": "/home"}}
  ]
}"#;

/// A version this windup does not know is named with those it reads.
#[test]
fn cache_entries_of_0_2_are_still_read_and_proposals_are_checked() {
    use windup_model::CacheStatus;
    use windup_model::cache::{CACHE_VERSION, CACHE_VERSIONS_READ};
    use windup_model::validate::proposal_from_json;
    assert_eq!(CACHE_VERSION, "0.4");
    assert_eq!(CACHE_VERSIONS_READ, ["0.2", "0.3", "0.4"]);
    let machine = GOOD_PLAN.replace("\"human\"", "\"openai/gpt-4.1-mini\"");
    let entry = |version: &str, plan: &str, extra: &str| {
        format!(
            r#"{{"cache_version":"{version}","key":{{"scenario_id":"s","start_url":"/","scenario_sha":"x"}},
            "plan":{plan},"status":"active",
            "stats":{{"created_at":"2026-01-01T00:00:00Z","last_verified_at":"2026-01-01T00:00:00Z","verified_runs":1,"last_duration_ms":5}}{extra}}}"#
        )
    };
    let old = cache_entry_from_json("s.json", &entry("0.2", &machine, "")).unwrap();
    assert!(old.reviewed.is_none() && !old.protected());
    let before_baselines = cache_entry_from_json("s.json", &entry("0.3", &machine, "")).unwrap();
    assert!(before_baselines.baseline.is_none());
    let with_baseline = cache_entry_from_json(
        "s.json",
        &entry(
            "0.4",
            &machine,
            r#","baseline":{"failed_requests":["404 /learn.json"]}"#,
        ),
    )
    .unwrap();
    assert!(
        with_baseline
            .baseline
            .unwrap()
            .has_request("404 http://h/learn.json")
    );
    let human = cache_entry_from_json("s.json", &entry("0.2", GOOD_PLAN, "")).unwrap();
    assert!(human.protected(), "a plan written by a person is protected");
    let reviewed = cache_entry_from_json(
        "s.json",
        &entry(
            "0.3",
            &machine,
            r#","reviewed":{"at":"2026-02-01T00:00:00Z","by":"Ada <ada@example.com>"}"#,
        ),
    )
    .unwrap();
    assert!(reviewed.protected());
    assert_eq!(
        reviewed.reviewed.unwrap().by.as_deref(),
        Some("Ada <ada@example.com>")
    );
    let err = cache_entry_from_json("s.json", &entry("9.9", &machine, "")).unwrap_err();
    assert_eq!(err.0[0].field, "cache_version");
    assert!(
        err.0[0].problem.contains("`0.2`, `0.3`, `0.4`"),
        "{}",
        err.0[0]
    );

    // A proposal: `status: proposed` with its `proposal`, and only then.
    let proposal = entry("0.3", &machine, &format!(
        r#","proposal":{{"source":"planned","why":{{"at":"2026-02-01T00:00:00Z","reason":"replay failed","failure_class":"selector_not_found","failed_action_id":"a1","run_id":"r"}},"replaces":{GOOD_PLAN}}}"#
    ))
    .replace("\"active\"", "\"proposed\"");
    let p = proposal_from_json("p.json", &proposal).unwrap();
    assert_eq!(p.status, CacheStatus::Proposed);
    assert_eq!(p.proposal.unwrap().replaces.generated_by, "human");
    let err = cache_entry_from_json("s.json", &proposal.replace("\"proposed\"", "\"active\""))
        .unwrap_err();
    assert_eq!(err.0[0].field, "proposal");
    let err = proposal_from_json("p.json", &entry("0.3", &machine, "")).unwrap_err();
    assert_eq!(err.0[0].field, "status");
}
