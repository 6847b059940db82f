//! One selection language for `windup run` and the Action's `scenarios` input: ids, globs over
//! ids and `@tags`, each picking what it matches in the order given; a word that picks nothing
//! exits 2 naming it. The example's scenarios are the suite: `sign-in` (tags smoke, auth) and
//! three tagged `projects`.

use serde_json::Value;

use crate::support::*;

fn ran(report: &Value) -> Vec<String> {
    report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["scenario_id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn run_takes_ids_globs_and_tags_and_names_a_word_that_picks_nothing() {
    let dir = example();
    let (_server, base) = serve(dir.path());
    let r = run_reported(dir.path(), &["run", "*-project"], &base, "glob.json", 0);
    assert_eq!(ran(&r), ["archive-project", "create-project"]);
    let r = run_reported(dir.path(), &["run", "@smoke"], &base, "tag.json", 0);
    assert_eq!(ran(&r), ["sign-in"]);
    let r = run_reported(
        dir.path(),
        &["run", "search-*", "@smoke", "sign-in"],
        &base,
        "mixed.json",
        0,
    );
    assert_eq!(ran(&r), ["search-projects", "sign-in"], "each once");
    // A tag on no scenario is an empty run, not an error.
    let r = run_reported(dir.path(), &["run", "@nightly"], &base, "none.json", 0);
    assert_eq!(ran(&r), Vec::<String>::new());

    let out = windup(
        dir.path(),
        &["run", "archive-*", "signin", "--base-url", &base],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("e2e/scenarios") && err.contains("no scenario `signin`"),
        "{err}"
    );
    assert!(err.contains("use ids (archive-project, "), "{err}");
}
