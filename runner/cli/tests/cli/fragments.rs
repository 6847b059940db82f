//! `windup fragment extract` on the bundled example: the sign-in steps become a fragment that
//! passes alone before it is written; `--rewrite` leaves a cached plan that uses it and still
//! replays with no LLM call; steps that cannot pass alone write nothing; bad input is refused
//! with exit 2 and nothing written.

use serde_json::Value;

use crate::support::*;

fn extract(dir: &std::path::Path, base: &str, args: &[&str]) -> std::process::Output {
    let mut all = vec!["fragment", "extract"];
    all.extend(args);
    all.extend(["--base-url", base]);
    windup(dir, &all)
}

#[test]
fn extracted_sign_in_passes_alone_and_the_rewritten_plan_replays_with_no_call() {
    let dir = example();
    let (_server, base) = serve(dir.path());
    let out = extract(
        dir.path(),
        &base,
        &[
            "sign-in",
            "--steps",
            "a1-a3",
            "--id",
            "sign-in",
            "--rewrite",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("wrote e2e/fragments/sign-in.json (starts on /login.html"),
        "{said}"
    );
    let text = std::fs::read_to_string(dir.path().join("e2e/fragments/sign-in.json")).unwrap();
    let f: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(f["start"], "/login.html");
    assert_eq!(f["actions"].as_array().unwrap().len(), 3);
    // The last step's postcondition is what the fragment proves.
    assert_eq!(f["expect"]["url"], "/projects.html");
    assert!(f["actions"][2].get("expect").is_none(), "{f}");
    // Credentials stay names.
    assert_eq!(f["actions"][0]["value_ref"], "ACME_ADMIN_EMAIL");
    assert!(!text.contains("correct horse battery staple"));

    let plan = &committed(dir.path(), "sign-in")["plan"];
    let steps: Vec<(&str, &str)> = plan["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["id"].as_str().unwrap(), a["type"].as_str().unwrap()))
        .collect();
    assert_eq!(steps, [("a1", "use"), ("a4", "wait_for")], "{plan}");
    assert_eq!(plan["actions"][0]["use"], "sign-in");

    let v = windup(dir.path(), &["validate"]);
    assert_eq!(v.status.code(), Some(0), "{}", stderr(&v));
    let r = run_reported(dir.path(), &["run", "sign-in"], &base, "r.json", 0);
    assert_eq!(r["totals"]["llm_calls"], 0);
    assert_eq!(r["scenarios"][0]["cache"], "hit");
    assert_eq!(r["scenarios"][0]["status"], "passed");
}

#[test]
fn steps_that_cannot_pass_alone_write_nothing() {
    let dir = example();
    let (_server, base) = serve(dir.path());
    let before = tree(&dir.path().join("e2e"));
    // a4 starts on the projects page, which sends a fresh context to sign in first.
    let out = extract(
        dir.path(),
        &base,
        &[
            "sign-in",
            "--steps",
            "a4",
            "--id",
            "projects-listed",
            "--rewrite",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(
            "nothing was written: fragment `projects-listed` did not pass alone from /projects.html"
        ),
        "{err}"
    );
    assert!(err.contains("a1:projects-listed"), "{err}");
    assert_eq!(tree(&dir.path().join("e2e")), before);
}

#[test]
fn a_rewritten_plan_that_fails_leaves_the_cache_and_the_fragments_as_they_were() {
    let dir = example();
    // The app changed since the plan was verified: step a4 waits for a project now renamed.
    let page = dir.path().join("app/projects.html");
    let html = std::fs::read_to_string(&page).unwrap();
    std::fs::write(&page, html.replace("name: 'Apollo'", "name: 'Apogee'")).unwrap();
    let (_server, base) = serve(dir.path());
    let before = tree(&dir.path().join("e2e"));
    let out = extract(
        dir.path(),
        &base,
        &[
            "sign-in",
            "--steps",
            "a1-a3",
            "--id",
            "sign-in",
            "--rewrite",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("nothing was written: the rewritten plan did not pass: a4 failed"),
        "{err}"
    );
    // The fragment passed alone, but is not written without the plan that uses it.
    assert_eq!(tree(&dir.path().join("e2e")), before);
}

#[test]
fn bad_input_is_refused_with_exit_2_and_nothing_written() {
    let dir = example();
    std::fs::create_dir_all(dir.path().join("e2e/fragments")).unwrap();
    std::fs::write(dir.path().join("e2e/fragments/taken.json"), "{}").unwrap();
    std::fs::remove_file(dir.path().join("e2e/.windup/cache/search-projects.json")).unwrap();
    let before = tree(dir.path());
    let base = "http://127.0.0.1:9/";
    for (args, says) in [
        (
            vec!["sign-in", "--steps", "a3-a1", "--id", "x"],
            "e2e/.windup/cache/sign-in.json: --steps: `a3` comes after `a1` in the plan\n  fix: write the first step first: a1-a3",
        ),
        (
            vec!["sign-in", "--steps", "a1-a9", "--id", "x"],
            "--steps: no step `a9` in the cached plan\n  fix: name steps of the plan: a1, a2, a3, a4",
        ),
        (
            vec!["sign-in", "--steps", "a1", "--id", "taken"],
            "e2e/fragments/taken.json: --id: fragment `taken` already exists",
        ),
        (
            vec!["sign-in", "--steps", "a1", "--id", "Sign In"],
            "--id: `Sign In` is not a fragment id",
        ),
        (
            vec!["nope", "--steps", "a1", "--id", "x"],
            "no scenario `nope` in e2e/scenarios\n  fix: name one of: archive-project",
        ),
        (
            vec!["search-projects", "--steps", "a1", "--id", "x"],
            "e2e/.windup/cache/search-projects.json: (file): no verified plan is cached for `search-projects`\n  fix: run `windup run search-projects` first",
        ),
    ] {
        let out = extract(dir.path(), base, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    assert_eq!(tree(dir.path()), before);
}
