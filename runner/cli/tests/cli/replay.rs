//! Replaying plans: the example's committed plans pass from the cache; a failed replay moves
//! its plan to stale, an edited scenario is a miss; `windup replay` runs plan files and
//! fragments; a browser that will not start exits 3.

use serde_json::Value;

use crate::support::*;

#[test]
fn example_replays_from_its_committed_plans() {
    let dir = example();
    let (_server, base) = serve(dir.path());
    let out = windup(
        dir.path(),
        &[
            "run",
            "--base-url",
            &base,
            "--report",
            "json=out/report.json",
            "--report",
            "junit=out/junit.xml",
            "--report",
            "html=out/report.html",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = report(&dir.path().join("out/report.json"));
    assert_eq!(r["report_version"], windup_model::report::REPORT_VERSION);
    let junit = std::fs::read_to_string(dir.path().join("out/junit.xml")).unwrap();
    assert!(
        junit.contains(r#"<testsuite name="windup" tests="4" skipped="0" errors="0" failures="0""#),
        "{junit}"
    );
    // Each testcase names its scenario file, as GitHub's and GitLab's reporters read it
    // (relative to the working directory), read back by xmllint.
    for id in [
        "sign-in",
        "archive-project",
        "create-project",
        "search-projects",
    ] {
        let file = std::process::Command::new("xmllint")
            .arg("--xpath")
            .arg(format!("string(//testcase[@name='{id}']/@file)"))
            .arg(dir.path().join("out/junit.xml"))
            .output()
            .expect("xmllint: run scripts/install-deps.sh (apt package libxml2-utils)");
        let file = String::from_utf8_lossy(&file.stdout).trim().to_string();
        assert_eq!(file, format!("e2e/scenarios/{id}.yaml"), "{junit}");
        assert!(dir.path().join(&file).is_file());
    }
    let html = std::fs::read_to_string(dir.path().join("out/report.html")).unwrap();
    assert_eq!(html.matches(r#"<details class="sc passed">"#).count(), 4);
    for text in [&junit, &html] {
        assert!(!text.contains("correct horse battery staple"));
    }
    assert_eq!(r["totals"]["passed"], 4);
    assert_eq!(r["totals"]["cache_hits"], 4);
    assert_eq!(r["totals"]["llm_calls"], 0);
    assert_eq!(r["totals"]["cost_micro_usd"], 0);
    let run_id = r["run_id"].as_str().unwrap();
    assert_eq!(uuid::Uuid::parse_str(run_id).unwrap().get_version_num(), 7);
    for s in r["scenarios"].as_array().unwrap() {
        assert_eq!(s["cache"], "hit");
        assert!(
            s["actions"]
                .as_array()
                .unwrap()
                .iter()
                .all(|a| a["status"] == "passed")
        );
    }
    // Credentials typed through value_ref are in no report.
    let text = std::fs::read_to_string(dir.path().join("out/report.json")).unwrap();
    assert!(!text.contains("correct horse battery staple"));
    assert!(!stderr(&out).contains("correct horse battery staple"));
}

/// Marks a scenario's committed plan as made by a model: a run may move it to stale (the
/// example's plans are written by a person, so they are protected).
fn machine_made(dir: &std::path::Path, id: &str) {
    let path = dir.join(format!("e2e/.windup/cache/{id}.json"));
    let mut entry: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    entry["plan"]["generated_by"] = "openai/gpt-4.1-mini".into();
    std::fs::write(&path, serde_json::to_string_pretty(&entry).unwrap()).unwrap();
}

#[test]
fn a_failed_replay_keeps_its_evidence_in_stale_and_its_plan_until_something_replaces_it() {
    let dir = example();
    machine_made(dir.path(), "archive-project");
    let cache = dir.path().join("e2e/.windup/cache");
    let committed = std::fs::read(cache.join("archive-project.json")).unwrap();
    // The app changed: the Archive buttons are now called "Shelve".
    let page = dir.path().join("app/projects.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("Archive"));
    let shelve = html
        .replace("'Archive'", "'Shelve'")
        .replace(">Archive<", ">Shelve<");
    std::fs::write(&page, &shelve).unwrap();
    let (_server, base) = serve(dir.path());
    let r = run_reported(
        dir.path(),
        &["run", "archive-project", "sign-in"],
        &base,
        "r.json",
        1,
    );
    let archive = &r["scenarios"][0];
    assert_eq!(archive["scenario_id"], "archive-project");
    assert_eq!(archive["status"], "failed");
    assert_eq!(archive["failure_class"], "selector_not_found");
    assert!(archive["failed_action_id"].is_string());
    assert!(
        archive["message"]
            .as_str()
            .unwrap()
            .contains("the plan stays cached and the next run replays it"),
        "{archive}"
    );
    assert_eq!(
        r["scenarios"][1]["status"], "passed",
        "other plans are unaffected"
    );
    // With no provider nothing replaced it: the only plan that worked is still the cache's,
    // byte for byte, and its failure is kept in stale/ as evidence.
    assert_eq!(
        std::fs::read(cache.join("archive-project.json")).unwrap(),
        committed
    );
    let stale: Vec<_> = std::fs::read_dir(cache.join("stale"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(stale.len(), 1);
    let entry: Value = serde_json::from_str(&std::fs::read_to_string(&stale[0]).unwrap()).unwrap();
    assert_eq!(entry["status"], "stale");
    assert_eq!(entry["invalidation"]["reason"], "replay failed");
    assert_eq!(entry["invalidation"]["failure_class"], "selector_not_found");
    assert_eq!(entry["invalidation"]["run_id"], r["run_id"]);
    assert!(
        entry["invalidation"]["message"]
            .as_str()
            .unwrap()
            .contains("0 visible matches")
    );
    // The app is fixed: the next run replays the same plan, and it passes with no LLM call.
    std::fs::write(&page, &html).unwrap();
    let r2 = run_reported(dir.path(), &["run", "archive-project"], &base, "r2.json", 0);
    assert_eq!(r2["scenarios"][0]["status"], "passed", "{r2}");
    assert_eq!(r2["scenarios"][0]["cache"], "hit", "{r2}");
    assert_eq!(r2["totals"]["llm_calls"], 0, "{r2}");
    // Asked to (--invalidate), a failed replay moves the plan out; the next run has none.
    std::fs::write(&page, &shelve).unwrap();
    run_reported(
        dir.path(),
        &["run", "archive-project", "--invalidate"],
        &base,
        "r3.json",
        1,
    );
    assert!(!cache.join("archive-project.json").exists(), "moved out");
    assert_eq!(std::fs::read_dir(cache.join("stale")).unwrap().count(), 2);
    let r4 = run_reported(dir.path(), &["run", "archive-project"], &base, "r4.json", 1);
    assert_eq!(r4["scenarios"][0]["failure_class"], "no_plan");
}

#[test]
fn editing_a_scenario_is_a_miss_never_a_silent_replay() {
    let dir = example();
    let path = dir.path().join("e2e/scenarios/search-projects.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replacen("task:", "task: Then sign out.", 1)).unwrap();
    let (_server, base) = serve(dir.path());
    // The committed plan is a person's: not replayed, not moved, and the scenario fails.
    let cached = dir.path().join("e2e/.windup/cache/search-projects.json");
    let before = std::fs::read(&cached).unwrap();
    let r = run_reported(dir.path(), &["run", "search-projects"], &base, "r.json", 1);
    let s = &r["scenarios"][0];
    assert_eq!(
        (s["cache"].as_str(), s["failure_class"].as_str()),
        (Some("miss"), Some("plan_invalid")),
        "{s}"
    );
    assert!(
        s["actions"].as_array().unwrap().is_empty(),
        "nothing ran: {s}"
    );
    assert!(
        s["message"]
            .as_str()
            .unwrap()
            .contains("not replaced automatically"),
        "{s}"
    );
    assert_eq!(std::fs::read(&cached).unwrap(), before);
    assert!(!dir.path().join("e2e/.windup/cache/stale").exists());
    // A plan made by a model moves to stale, and with no provider nothing replaces it.
    machine_made(dir.path(), "search-projects");
    let r = run_reported(dir.path(), &["run", "search-projects"], &base, "r.json", 1);
    assert_eq!(r["scenarios"][0]["cache"], "miss");
    assert_eq!(r["scenarios"][0]["failure_class"], "no_plan");
    let stale = dir.path().join("e2e/.windup/cache/stale");
    let entry = std::fs::read_dir(&stale)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let entry: Value = serde_json::from_str(&std::fs::read_to_string(entry).unwrap()).unwrap();
    assert_eq!(entry["invalidation"]["reason"], "scenario changed");
}

#[test]
fn replay_runs_a_plan_file_and_save_makes_it_the_cached_plan() {
    let dir = example();
    let cache = dir.path().join("e2e/.windup/cache/sign-in.json");
    let entry: Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    let plan = dir.path().join("sign-in.plan.json");
    std::fs::write(&plan, serde_json::to_string_pretty(&entry["plan"]).unwrap()).unwrap();
    std::fs::remove_file(&cache).unwrap();
    let (_server, base) = serve(dir.path());
    // Outside a project no credential is declared: a plan that types one is refused there.
    let empty = tempfile::tempdir().unwrap();
    let out = windup(
        empty.path(),
        &["replay", plan.to_str().unwrap(), "--base-url", &base],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("actions[0].value_ref: `ACME_ADMIN_EMAIL` is not a credential"),
        "{}",
        stderr(&out)
    );
    let r = run_reported(
        dir.path(),
        &["replay", plan.to_str().unwrap()],
        &base,
        "r.json",
        0,
    );
    assert_eq!(r["scenarios"][0]["cache"], "none");
    assert!(!cache.exists(), "a plain replay caches nothing");
    let out = windup(
        dir.path(),
        &["replay", "sign-in.plan.json", "--save", "--base-url", &base],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    assert_eq!(saved["cache_version"], "0.4");
    assert_eq!(saved["status"], "active");
    // A person chose it: it is reviewed, so protected.
    assert!(saved["reviewed"]["at"].is_string(), "{saved}");
    assert!(
        saved["key"]["start_sig"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    let out = windup(dir.path(), &["run", "sign-in", "--base-url", &base]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_browser_that_will_not_start_exits_3() {
    let dir = example();
    let toml = dir.path().join("windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(
        &toml,
        format!("{text}\n[browser]\nexecutable = \"/nonexistent/chromium\"\n"),
    )
    .unwrap();
    let out = windup(dir.path(), &["run"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("/nonexistent/chromium"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_plan_runs_a_fragment_in_place() {
    let dir = example();
    let entry: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("e2e/.windup/cache/search-projects.json"))
            .unwrap(),
    )
    .unwrap();
    let mut plan = entry["plan"].clone();
    let actions = plan["actions"].as_array().unwrap().clone();
    // The sign-in steps become a fragment with its own postcondition.
    let fragment = serde_json::json!({
        "fragment_version": "0.1",
        "id": "sign-in-admin",
        "description": "Sign in as the admin",
        "actions": actions[..3],
        "expect": {"url": "/projects.html"}
    });
    std::fs::create_dir_all(dir.path().join("e2e/fragments")).unwrap();
    std::fs::write(
        dir.path().join("e2e/fragments/sign-in-admin.json"),
        serde_json::to_string_pretty(&fragment).unwrap(),
    )
    .unwrap();
    let mut steps = vec![serde_json::json!({"id": "a1", "type": "use", "use": "sign-in-admin"})];
    steps.push(actions[3].clone());
    plan["actions"] = Value::Array(steps);
    let path = dir.path().join("with-fragment.json");
    std::fs::write(&path, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let (_server, base) = serve(dir.path());
    let r = run_reported(
        dir.path(),
        &["replay", "with-fragment.json"],
        &base,
        "r.json",
        0,
    );
    let ran: Vec<(String, String)> = r["scenarios"][0]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["id"].as_str().unwrap().to_string(),
                a["fragment"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert_eq!(
        ran,
        [
            ("a1", "a1:sign-in-admin"),
            ("a2", "a1:sign-in-admin"),
            ("a3", "a1:sign-in-admin"),
            ("a1", ""),
            ("a4", ""),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    // A plan naming a fragment that does not exist is bad input, found before anything runs.
    plan["actions"][0]["use"] = Value::from("sign-in-nobody");
    std::fs::write(&path, serde_json::to_string_pretty(&plan).unwrap()).unwrap();
    let out = windup(
        dir.path(),
        &["replay", "with-fragment.json", "--base-url", &base],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no fragment `sign-in-nobody`"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("use one of: sign-in-admin"),
        "{}",
        stderr(&out)
    );
}
