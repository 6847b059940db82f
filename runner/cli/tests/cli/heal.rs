//! LLM-free healing on real changes to the bundled example's app, with no provider configured:
//! a renamed button (same role, same container, close name) and a target whose container is
//! gone (same label) heal, are cached and flagged in every report; a removed button, a second
//! similar button, a changed success message, a credential onto a field of another kind and
//! `heal = false` do not. The example's committed plans are written by a person, so they are
//! protected: healed, one is proposed (and `windup accept` adopts it); the cases that replace a
//! plan first mark it as made by a model.

use std::path::Path;

use serde_json::Value;

use crate::support::{example, printed, report, run_one, serve, stderr, windup};

/// Short step waits: every case here fails a step first.
fn quick(root: &Path, extra: &str) {
    let toml = root.join("windup.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str(&format!("{extra}\n[timeouts]\naction_ms = 1500\n"));
    std::fs::write(&toml, text).unwrap();
}

fn edit(root: &Path, file: &str, from: &str, to: &str) {
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file} holds {from}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

fn cached_selector(root: &Path, id: &str, step: usize) -> String {
    let entry = report(&root.join(format!("e2e/.windup/cache/{id}.json")));
    entry["plan"]["actions"][step]["target"]["selector"]
        .as_str()
        .unwrap()
        .to_string()
}

/// The stale entries of a scenario, as read.
fn stale(root: &Path, id: &str) -> Vec<Value> {
    let dir = root.join("e2e/.windup/cache/stale");
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten() {
        let p = e.unwrap().path();
        if p.file_name().unwrap().to_str().unwrap().starts_with(id) {
            out.push(report(&p));
        }
    }
    out
}

/// Marks a scenario's committed plan as made by a model, so a run may replace it.
fn machine_made(root: &Path, id: &str) {
    let path = root.join(format!("e2e/.windup/cache/{id}.json"));
    let mut entry = report(&path);
    entry["plan"]["generated_by"] = "openai/gpt-4.1-mini".into();
    std::fs::write(&path, serde_json::to_string_pretty(&entry).unwrap()).unwrap();
}

const ARCHIVE: &str = r#"role=list[name="Active"] >> role=listitem >> has-text="Apollo" >> role=button[name="Archive"]"#;

#[test]
fn a_renamed_button_heals_without_an_llm_is_cached_and_flagged_everywhere() {
    let project = example();
    let root = project.path();
    quick(root, "");
    machine_made(root, "archive-project");
    edit(root, "app/projects.html", "'Archive'", "'Move to archive'");
    let (_server, base) = serve(root);

    let (code, s, junit, terminal) = run_one(root, "archive-project", &base);
    assert_eq!(code, 0, "{terminal}");
    assert_eq!(s["status"], "passed", "{s}");
    assert_eq!(s["cache"], "healed", "{s}");
    assert_eq!(s["llm_calls"], 0);
    assert_eq!(s["heal"]["action_id"], "a4");
    assert_eq!(s["heal"]["rule"], "renamed");
    assert_eq!(s["heal"]["from"], ARCHIVE);
    let to = s["heal"]["to"].as_str().unwrap();
    assert!(to.contains("Move to archive"), "{to}");
    assert!(terminal.contains("HEAL  archive-project"), "{terminal}");
    // JUnit: a passed testcase flagged as flaky is, with the step diff.
    assert!(junit.contains("<flakyFailure"), "{junit}");
    assert!(junit.contains("healed without an LLM at a4"), "{junit}");
    let r = report(&root.join("r.json"));
    assert_eq!(r["totals"]["healed"], 1);

    // The healed plan is the cache entry; the old one is stale evidence with the diff.
    assert_eq!(cached_selector(root, "archive-project", 3), to);
    let old = stale(root, "archive-project");
    assert_eq!(old.len(), 1);
    assert_eq!(old[0]["invalidation"]["reason"], "healed");
    assert_eq!(old[0]["plan"]["actions"][3]["target"]["selector"], ARCHIVE);
    let why = old[0]["invalidation"]["message"].as_str().unwrap();
    assert!(
        why.contains("Move to archive") && why.contains("a4"),
        "{why}"
    );

    // The next run replays the healed plan: a plain hit.
    let (code, s, _, _) = run_one(root, "archive-project", &base);
    assert_eq!((code, s["cache"].as_str()), (0, Some("hit")), "{s}");
    assert!(s.get("heal").is_none());
}

#[test]
fn a_target_whose_container_is_gone_heals_onto_the_same_label_and_keeps_credentials_on_their_kind()
{
    let project = example();
    let root = project.path();
    quick(root, "");
    machine_made(root, "sign-in");
    let (_server, base) = serve(root);
    // The committed plan names a container the page no longer has around the email field.
    let email = r#"label="Email""#;
    edit(
        root,
        "e2e/.windup/cache/sign-in.json",
        &serde_json::to_string(email).unwrap(),
        &serde_json::to_string(&format!(r#"role=region[name="Sign in"] >> {email}"#)).unwrap(),
    );
    let (code, s, _, terminal) = run_one(root, "sign-in", &base);
    assert_eq!(code, 0, "{terminal}");
    assert_eq!(
        (s["cache"].as_str(), s["heal"]["rule"].as_str()),
        (Some("healed"), Some("moved")),
        "{s}"
    );
    // The selector planning would build for the field, which picks it out alone.
    let to = s["heal"]["to"].as_str().unwrap();
    assert!(to.contains("Email") && !to.contains("region"), "{to}");
    assert_eq!(cached_selector(root, "sign-in", 0), to);

    // The password is typed by the same step only onto a password field: the email field,
    // the one element under that label, is of another kind.
    let project = example();
    let root = project.path();
    quick(root, "");
    let (_server, base) = serve(root);
    edit(
        root,
        "e2e/.windup/cache/sign-in.json",
        r#""value_ref": "ACME_ADMIN_EMAIL""#,
        r#""value_ref": "ACME_ADMIN_PASSWORD""#,
    );
    edit(
        root,
        "e2e/.windup/cache/sign-in.json",
        &serde_json::to_string(email).unwrap(),
        &serde_json::to_string(&format!(r#"role=region[name="Sign in"] >> {email}"#)).unwrap(),
    );
    let (code, s, _, _) = run_one(root, "sign-in", &base);
    assert_eq!(code, 1, "{s}");
    assert_eq!(s["failure_class"], "selector_not_found", "{s}");
    let message = s["message"].as_str().unwrap();
    assert!(
        message.contains("not healed")
            && message.contains("goes only into a password field")
            && message.contains("an input of type email"),
        "{message}"
    );
    assert!(!message.contains("correct horse"), "{message}");
}

/// Each change must still fail, with the reason it was not healed.
fn not_healed(root: &Path, id: &str, why: &str) -> Value {
    let (_server, base) = serve(root);
    let (code, s, junit, _) = run_one(root, id, &base);
    assert_eq!(code, 1, "{s}");
    assert_eq!(s["status"], "failed", "{s}");
    assert!(s.get("heal").is_none(), "{s}");
    assert!(!junit.contains("<flakyFailure"), "{junit}");
    let message = s["message"].as_str().unwrap_or_default();
    assert!(message.contains(why), "{message}");
    s
}

#[test]
fn a_removed_button_and_a_second_similar_button_are_not_healed() {
    let project = example();
    let root = project.path();
    quick(root, "");
    machine_made(root, "archive-project");
    edit(
        root,
        "app/projects.html",
        "li.append(text, button);",
        "li.append(text);",
    );
    not_healed(
        root,
        "archive-project",
        "not healed: nothing on the page is close enough to be it",
    );

    let project = example();
    let root = project.path();
    quick(root, "");
    machine_made(root, "archive-project");
    edit(root, "app/projects.html", "'Archive'", "'Archive now'");
    edit(
        root,
        "app/projects.html",
        "li.append(text, button);",
        "const other = document.createElement('button'); other.type = 'button'; other.textContent = 'Archive later'; li.append(text, button, other);",
    );
    not_healed(root, "archive-project", "2 elements could be it");
    // Nothing replaced the committed plan: it stays cached, its failure kept as stale evidence.
    assert_eq!(
        cached_selector(root, "archive-project", 3),
        ARCHIVE,
        "the only plan that worked stays"
    );
    let old = stale(root, "archive-project");
    assert_eq!(old[0]["plan"]["actions"][3]["target"]["selector"], ARCHIVE);
    assert_eq!(old[0]["invalidation"]["reason"], "replay failed");
}

#[test]
fn a_changed_success_message_is_never_healed_over() {
    let project = example();
    let root = project.path();
    quick(root, "");
    machine_made(root, "archive-project");
    edit(root, "app/projects.html", "'Archive'", "'Move to archive'");
    edit(root, "app/projects.html", "'Archived '", "'Shelved '");
    let s = not_healed(root, "archive-project", "was tried for a4");
    assert_eq!(s["failure_class"], "selector_not_found");
    assert!(
        s["message"]
            .as_str()
            .unwrap()
            .contains("postcondition_failed"),
        "{s}"
    );
    assert_eq!(cached_selector(root, "archive-project", 3), ARCHIVE);
}

#[test]
fn heal_false_in_windup_toml_turns_healing_off() {
    let project = example();
    let root = project.path();
    quick(root, "heal = false");
    edit(root, "app/projects.html", "'Archive'", "'Move to archive'");
    let (_server, base) = serve(root);
    let (code, s, _, _) = run_one(root, "archive-project", &base);
    assert_eq!((code, s["cache"].as_str()), (1, Some("hit")), "{s}");
    assert!(s.get("heal").is_none());
}

/// A person's plan that heals stays where it is: the run fails with the replay's evidence, the
/// healed plan is proposed with its step diff in every report, and `windup accept` adopts it.
#[test]
fn a_persons_plan_that_heals_is_proposed_and_adopted_with_windup_accept() {
    let project = example();
    let root = project.path();
    quick(root, "");
    let active = root.join("e2e/.windup/cache/archive-project.json");
    let before = std::fs::read(&active).unwrap();
    edit(root, "app/projects.html", "'Archive'", "'Move to archive'");
    let (_server, base) = serve(root);

    let out = windup(
        root,
        &[
            "run",
            "archive-project",
            "--base-url",
            &base,
            "--report",
            "json=r.json",
            "--report",
            "junit=r.xml",
            "--report",
            "html=r.html",
        ],
    );
    let (code, terminal) = (out.status.code().unwrap_or(-1), printed(&out));
    let s = report(&root.join("r.json"))["scenarios"][0].clone();
    let junit = std::fs::read_to_string(root.join("r.xml")).unwrap();
    let html = std::fs::read_to_string(root.join("r.html")).unwrap();
    assert_eq!(code, 1, "{terminal}");
    assert_eq!(
        (s["status"].as_str(), s["failure_class"].as_str()),
        (Some("failed"), Some("selector_not_found")),
        "{s}"
    );
    assert_eq!(
        (s["failed_action_id"].as_str(), s["cache"].as_str()),
        (Some("a4"), Some("hit"))
    );
    assert_eq!(s["llm_calls"], 0);
    assert!(s.get("heal").is_none(), "{s}");
    assert!(s["evidence"]["screenshot"].is_string(), "{s}");
    const FILE: &str = "e2e/.windup/cache/proposals/archive-project.json";
    assert_eq!(s["proposal"]["file"], FILE);
    assert_eq!(s["proposal"]["source"], "healed");
    let changed = &s["proposal"]["diff"]["changed"][0];
    assert!(changed["from"].as_str().unwrap().contains(ARCHIVE), "{s}");
    assert!(
        changed["to"].as_str().unwrap().contains("Move to archive"),
        "{s}"
    );
    assert!(
        terminal.contains(&format!("proposal: {FILE}")),
        "{terminal}"
    );
    assert!(
        terminal.contains("`windup accept archive-project`"),
        "{terminal}"
    );
    assert!(junit.contains(&format!("proposal: {FILE}")), "{junit}");
    assert!(
        html.contains(&format!(
            "<dt>proposal</dt><dd><code>{FILE}</code> (healed)"
        )) && html.contains("<code>windup accept archive-project</code>")
            && html.contains("Move to archive"),
        "{html}"
    );
    assert!(!junit.contains("<flakyFailure"), "{junit}");
    // The person's plan is untouched; nothing went to stale.
    assert_eq!(std::fs::read(&active).unwrap(), before);
    assert!(stale(root, "archive-project").is_empty());
    let proposal = report(&root.join(FILE));
    assert_eq!(proposal["status"], "proposed");
    assert_eq!(proposal["proposal"]["why"]["failed_action_id"], "a4");
    assert_eq!(proposal["proposal"]["replaces"]["generated_by"], "human");

    let out = windup(root, &["accept", "--list"]);
    assert_eq!(out.status.code(), Some(0));
    let listed = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(listed.contains("archive-project: e2e/.windup/cache/proposals/archive-project.json (healed; replay failed, selector_not_found at a4"), "{listed}");
    assert!(listed.contains("Move to archive"), "{listed}");
    let out = windup(root, &["validate"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let out = windup(root, &["accept", "archive-project"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .contains("archive-project: adopted e2e/.windup/cache/proposals/archive-project.json"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(!root.join(FILE).exists());
    let entry = report(&active);
    assert_eq!(entry["cache_version"], "0.4");
    assert!(entry["reviewed"]["at"].is_string(), "{entry}");
    assert!(cached_selector(root, "archive-project", 3).contains("Move to archive"));
    let old = stale(root, "archive-project");
    assert_eq!(old.len(), 1);
    assert_eq!(old[0]["invalidation"]["reason"], "replaced");
    assert_eq!(old[0]["plan"]["actions"][3]["target"]["selector"], ARCHIVE);
    assert!(
        old[0]["invalidation"]["message"]
            .as_str()
            .unwrap()
            .contains(FILE)
    );

    // The adopted plan replays with no call.
    let (code, s, _, terminal) = run_one(root, "archive-project", &base);
    assert_eq!(
        (code, s["cache"].as_str(), s["llm_calls"].as_u64()),
        (0, Some("hit"), Some(0)),
        "{terminal}"
    );

    // Without a proposal, accept marks the plan reviewed; an unknown scenario or an empty cache
    // is bad input naming the file and the fix.
    let out = windup(root, &["accept", "sign-in"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(report(&root.join("e2e/.windup/cache/sign-in.json"))["reviewed"].is_object());
    let out = windup(root, &["accept", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no scenario `nope` in e2e/scenarios"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(root.join("e2e/.windup/cache/search-projects.json")).unwrap();
    let out = windup(root, &["accept", "search-projects"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("e2e/.windup/cache/search-projects.json")
            && err.contains("windup run search-projects"),
        "{err}"
    );
}

/// The example's Archive button renamed, its plan made by a model (so a heal replaces it), and
/// a step's wait (60 s) longer than the scenario's whole budget (20 s): only a heal that starts
/// before the step's wait ends can pass.
fn renamed_with_a_step_longer_than_the_scenario(root: &Path) {
    let toml = root.join("windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{text}\n[timeouts]\naction_ms = 60000\n")).unwrap();
    let scenario = root.join("e2e/scenarios/archive-project.yaml");
    let yaml = std::fs::read_to_string(&scenario).unwrap();
    std::fs::write(
        &scenario,
        yaml.replace("timeout_ms: 30000", "timeout_ms: 20000"),
    )
    .unwrap();
    machine_made(root, "archive-project");
    edit(root, "app/projects.html", "'Archive'", "'Move to archive'");
}

/// A step's wait longer than the scenario's whole budget: a replay that waited it out before
/// healing would run out of time, so the renamed button must be healed as soon as the page has
/// settled with one element in its place. A target the page has nothing in place of yet (it is
/// drawn 2 s late) is still waited for.
#[test]
fn a_renamed_target_heals_as_soon_as_the_page_settles_and_a_late_one_is_still_waited_for() {
    let project = example();
    let root = project.path();
    renamed_with_a_step_longer_than_the_scenario(root);
    let (_server, base) = serve(root);

    let (code, s, _, terminal) = run_one(root, "archive-project", &base);
    assert_eq!(code, 0, "{terminal}");
    assert_eq!(s["cache"], "healed", "{s}");
    assert_eq!(s["heal"]["rule"], "renamed", "{s}");

    // The healed plan replays; now the list is drawn 2 s after the page loads, with nothing
    // in the button's place until then: the step waits for it and passes.
    edit(
        root,
        "app/projects.html",
        "\n    render();\n  </script>",
        "\n    setTimeout(render, 2000);\n  </script>",
    );
    let (code, s, _, terminal) = run_one(root, "archive-project", &base);
    assert_eq!(code, 0, "{terminal}");
    assert_eq!(s["cache"], "hit", "{s}");
}

/// The same early heal on a page whose document never stops changing (a clock ticking every
/// 30 ms beside the list): the same single element in the button's place is enough once the
/// button has been missing a while, so the heal still starts long before the step's wait ends.
#[test]
fn a_renamed_target_heals_early_on_a_page_that_keeps_changing() {
    let project = example();
    let root = project.path();
    renamed_with_a_step_longer_than_the_scenario(root);
    edit(
        root,
        "app/projects.html",
        "\n    render();\n  </script>",
        "\n    render();\n    const clock = document.body.appendChild(document.createElement('p'));\n    \
         setInterval(() => { clock.textContent = String(Date.now()); }, 30);\n  </script>",
    );
    let (_server, base) = serve(root);

    let (code, s, _, terminal) = run_one(root, "archive-project", &base);
    assert_eq!(code, 0, "{terminal}");
    assert_eq!(s["cache"], "healed", "{s}");
    assert_eq!(s["heal"]["rule"], "renamed", "{s}");
}
