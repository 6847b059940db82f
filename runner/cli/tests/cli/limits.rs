//! Size limits (`windup_model::limits`) at every road an input comes in by: `validate` (the
//! project and named files), `run`, `replay FILE`. Over a limit exits 2 naming the file and the
//! field; exactly at it passes.

use std::path::Path;

use windup_model::limits::{
    PLAN_BYTES, PLAN_STEPS, SCENARIO_BYTES, SELECTOR_BYTES, SELECTOR_PARTS,
};

use crate::support::*;

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
            format!(r#"{{"id":"a{i}","type":"click","target":{{"selector":{selector}}}{expect}}}"#)
        })
        .collect();
    format!(
        r#"{{"plan_version":"0.1","scenario_id":"s","task":"t","start_url":"/","generated_by":"human","actions":[{}]}}"#,
        actions.join(",")
    )
}

/// `text` padded with trailing newlines to exactly `len` bytes.
fn padded(text: &str, len: usize) -> String {
    assert!(text.len() <= len);
    format!("{text}{}", "\n".repeat(len - text.len()))
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Runs windup and checks it exits 2 with `expected` (file: field: problem) on stderr.
fn refused(dir: &Path, args: &[&str], expected: &str) {
    let out = windup(dir, args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert!(
        err.contains(expected),
        "{args:?}: wanted {expected:?} in:\n{err}"
    );
    assert!(err.contains("fix: "), "{err}");
}

fn accepted(dir: &Path, args: &[&str]) {
    let out = windup(dir, args);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
}

const GO: &str = r#"role=button[name="Go"]"#;

#[test]
fn a_50_mb_scenario_is_refused_by_validate_and_run_without_being_read() {
    let dir = example();
    let path = dir.path().join("e2e/scenarios/huge.yaml");
    // Sparse: 50 MB long, nothing on disk; a reader that read it whole would still take 50 MB.
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(50_000_000).unwrap();
    let expected =
        "e2e/scenarios/huge.yaml: (file): the file is larger than 64 KiB, the limit for a scenario";
    refused(dir.path(), &["validate"], expected);
    refused(dir.path(), &["run"], expected);
    let named = path.display().to_string();
    refused(
        dir.path(),
        &["validate", &named],
        &format!("{named}: (file): the file is larger than 64 KiB"),
    );
}

#[test]
fn a_scenario_of_exactly_64_kib_passes_and_one_byte_more_does_not() {
    let dir = example();
    let path = dir.path().join("e2e/scenarios/sign-in.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    write(&path, &padded(&text, SCENARIO_BYTES));
    accepted(dir.path(), &["validate"]);
    write(&path, &padded(&text, SCENARIO_BYTES + 1));
    refused(
        dir.path(),
        &["validate"],
        "e2e/scenarios/sign-in.yaml: (file): the file is larger than 64 KiB",
    );
}

#[test]
fn a_plan_over_1_mib_is_refused_by_validate_and_replay() {
    let dir = example();
    let path = dir.path().join("plan.json");
    let name = path.display().to_string();
    write(&path, &padded(&plan(2, GO), PLAN_BYTES));
    accepted(dir.path(), &["validate", &name]);
    write(&path, &padded(&plan(2, GO), PLAN_BYTES + 1));
    let expected = format!("{name}: (file): the file is larger than 1 MiB, the limit for a plan");
    refused(dir.path(), &["validate", &name], &expected);
    refused(dir.path(), &["replay", &name], &expected);
}

#[test]
fn a_cache_entry_over_1_mib_is_refused_by_validate_and_run() {
    let dir = example();
    let path = dir.path().join("e2e/.windup/cache/sign-in.json");
    let text = std::fs::read_to_string(&path).unwrap();
    write(&path, &padded(&text, PLAN_BYTES + 1));
    let expected = "e2e/.windup/cache/sign-in.json: (file): the file is larger than 1 MiB, the limit for a cache entry";
    refused(dir.path(), &["validate"], expected);
    refused(
        dir.path(),
        &["run", "sign-in"],
        "sign-in.json: (file): the file is larger than 1 MiB",
    );
}

#[test]
fn at_most_500_steps_in_a_plan() {
    let dir = example();
    let path = dir.path().join("plan.json");
    let name = path.display().to_string();
    write(&path, &plan(PLAN_STEPS, GO));
    accepted(dir.path(), &["validate", &name]);
    write(&path, &plan(PLAN_STEPS + 1, GO));
    let expected = format!("{name}: actions: 501 steps, over the limit of 500");
    refused(dir.path(), &["validate", &name], &expected);
    refused(dir.path(), &["replay", &name], &expected);
}

#[test]
fn a_selector_over_2_kib_in_a_committed_plan_is_refused() {
    let dir = example();
    let path = dir.path().join("e2e/.windup/cache/sign-in.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let from = "role=button[name=\\\"Sign in\\\"]";
    assert!(text.contains(from));
    // `text="…"` of exactly the limit passes; one byte more is refused, not echoed.
    let selector = |len: usize| format!("text=\\\"{}\\\"", "x".repeat(len - 7));
    write(&path, &text.replacen(from, &selector(SELECTOR_BYTES), 1));
    accepted(dir.path(), &["validate"]);
    write(
        &path,
        &text.replacen(from, &selector(SELECTOR_BYTES + 1), 1),
    );
    let expected = "e2e/.windup/cache/sign-in.json: plan.actions[2].target.selector: the selector is 2049 bytes, over the limit of 2 KiB";
    refused(dir.path(), &["validate"], expected);
    refused(dir.path(), &["run", "sign-in"], expected);
    let out = windup(dir.path(), &["validate"]);
    assert!(
        !stderr(&out).contains("xxxxxxxxxxxxxxxx"),
        "the selector is not echoed"
    );
}

#[test]
fn a_selector_chains_at_most_16_parts_in_a_fragment() {
    let dir = example();
    let path = dir.path().join("e2e/fragments/deep.json");
    let fragment = |parts: usize| {
        let chain = vec!["css=div"; parts].join(" >> ");
        format!(
            r#"{{"fragment_version":"0.1","id":"deep","description":"d","actions":[{{"id":"f1","type":"click","target":{{"selector":"{chain}"}}}}]}}"#
        )
    };
    write(&path, &fragment(SELECTOR_PARTS));
    accepted(dir.path(), &["validate"]);
    write(&path, &fragment(SELECTOR_PARTS + 1));
    let expected = "e2e/fragments/deep.json: actions[0].target.selector: the selector chains 17 parts with `>>`, over the limit of 16";
    refused(dir.path(), &["validate"], expected);
    refused(dir.path(), &["run"], expected);
}

#[test]
fn the_guide_states_the_limits_in_force() {
    use windup_model::limits::bytes;
    // The user guide's "Limits" table, in docs/formats.md.
    let guide =
        std::fs::read_to_string(windup_testkit::repo_root().join("docs/formats.md")).unwrap();
    for row in [
        format!("| a scenario file | {} |", bytes(SCENARIO_BYTES)),
        format!(
            "| a plan file, fragment file or cache entry (committed, or restored from the dashboard) | {} |",
            bytes(PLAN_BYTES)
        ),
        format!("| steps in one plan or fragment | {PLAN_STEPS} |"),
        format!("| a selector | {} |", bytes(SELECTOR_BYTES)),
        format!("| parts a selector chains with `>>` | {SELECTOR_PARTS} |"),
    ] {
        assert!(
            guide.contains(&row),
            "docs/formats.md's \"Limits\" lacks {row:?}"
        );
    }
}
