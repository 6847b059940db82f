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

/// `windup list` takes the same words, and says for each scenario what the cache holds (a
/// person's plan, an edited scenario's plan for its old text, none) and how it ended last, read
/// from the run ledger.
#[test]
fn list_shows_what_the_words_pick_with_the_cache_and_the_last_result() {
    let dir = example();
    let (_server, base) = serve(dir.path());
    // sign-in passes; archive-project fails at a4 (its button renamed, healing off).
    run_reported(dir.path(), &["run", "sign-in"], &base, "a.json", 0);
    let page = dir.path().join("app/projects.html");
    let html = std::fs::read_to_string(&page).unwrap();
    std::fs::write(&page, html.replacen("'Archive'", "'Gone'", 1)).unwrap();
    run_reported(
        dir.path(),
        &["run", "archive-project", "--no-heal"],
        &base,
        "b.json",
        1,
    );
    // create-project's text edited; search-projects' plan removed.
    let yaml = dir.path().join("e2e/scenarios/create-project.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, text.replacen("task: ", "task: Then ", 1)).unwrap();
    std::fs::remove_file(dir.path().join("e2e/.windup/cache/search-projects.json")).unwrap();

    let out = windup(dir.path(), &["list", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let by_id = |id: &str| {
        list.as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{id} in {list}"))
            .clone()
    };
    assert_eq!(by_id("sign-in")["plan"], "cached, a person's");
    assert_eq!(by_id("sign-in")["last"]["status"], "passed");
    assert_eq!(
        by_id("sign-in")["tags"],
        serde_json::json!(["smoke", "auth"])
    );
    assert_eq!(by_id("archive-project")["last"]["status"], "failed");
    assert_eq!(
        by_id("archive-project")["last"]["failure_class"],
        "selector_not_found"
    );
    assert!(
        by_id("create-project")["plan"]
            .as_str()
            .unwrap()
            .contains("earlier text"),
        "{list}"
    );
    assert_eq!(by_id("create-project")["last"], Value::Null);
    assert_eq!(
        by_id("search-projects")["plan"],
        "none: planned on the next run"
    );

    // The same words as `run`; the table on stdout.
    let out = windup(dir.path(), &["list", "@smoke", "archive-*"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout).to_string();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 3, "{table}");
    assert!(lines[1].starts_with("sign-in ") && lines[1].contains("passed"));
    assert!(lines[2].starts_with("archive-project ") && lines[2].contains("failed"));
    let out = windup(dir.path(), &["list", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no scenario `nope`"));
}
