//! `windup validate --prove`: committed plans held, with no LLM and without being changed, to
//! the rules every new plan is held to. The oracle is the page itself: a plan is proven only
//! when it fails without each of its steps.

use serde_json::{Value, json};

use crate::support::{example, serve, stderr, tree, windup};

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// The example project, its steps given 1.5 s each: a check that should fail is waited for
/// that long on every run that leaves a step out.
fn quick_example() -> tempfile::TempDir {
    let project = example();
    let toml = project.path().join("windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("{text}\n[timeouts]\naction_ms = 1500\n")).unwrap();
    project
}

#[test]
fn the_bundled_example_s_committed_plans_prove_their_tasks() {
    let project = quick_example();
    let root = project.path();
    let (_server, base) = serve(root);
    let before = tree(root);
    let out = windup(root, &["validate", "--prove", "--base-url", &base, "-v"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let text = stdout(&out);
    for id in [
        "archive-project",
        "create-project",
        "search-projects",
        "sign-in",
    ] {
        assert!(text.contains(&format!("proven   {id} ")), "{text}");
    }
    // Why each step is needed, as the page showed it.
    assert!(
        text.contains(
            "a1 (fill label=\"Email\" value_ref=ACME_ADMIN_EMAIL) is kept: leaving it out, a3 fails"
        ),
        "{text}"
    );
    // "Borealis is still shown" held before the search: kept as what stays true, no proof.
    assert!(
        text.contains("kept as a check of what stays true"),
        "{text}"
    );
    let after = tree(root);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after
            .keys()
            .filter(|p| !p.starts_with(root.join("e2e/.windup/runs")))
            .collect::<Vec<_>>(),
        "nothing is written but the runs' files"
    );
    for (path, bytes) in &before {
        assert_eq!(after.get(path), Some(bytes), "{} changed", path.display());
    }
}

#[test]
fn a_hollow_committed_plan_is_reported_naming_its_idle_step_and_the_unproven_words() {
    let project = quick_example();
    let root = project.path();
    let (_server, base) = serve(root);
    // "Create Delta", as a weak model planned it: signed in, then a click on the heading
    // "proven" by the heading.
    let file = root.join("e2e/.windup/cache/create-project.json");
    let mut entry: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let actions = entry["plan"]["actions"].as_array_mut().unwrap();
    actions.truncate(3);
    actions.push(json!({"id": "a4", "type": "click",
        "target": {"selector": "role=heading[name=\"Projects\"]"},
        "expect": {"visible": "role=heading[name=\"Projects\"]"}}));
    std::fs::write(&file, entry.to_string()).unwrap();
    let out = windup(
        root,
        &[
            "validate",
            "--prove",
            "create-project",
            "sign-in",
            "--base-url",
            &base,
        ],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    let text = stdout(&out);
    assert!(text.contains("UNPROVEN create-project"), "{text}");
    assert!(
        text.contains("a4 (click role=heading[name=\"Projects\"]) changes nothing a check sees"),
        "{text}"
    );
    assert!(text.contains("already held before it ran"), "{text}");
    assert!(
        text.contains(
            "the task quotes \"Delta\", but no step's target, check or typed value shows it"
        ),
        "{text}"
    );
    assert!(text.contains("proven   sign-in "), "{text}");
    assert!(
        stderr(&out).contains("1 of 2 plans prove their task"),
        "{}",
        stderr(&out)
    );
    // Reported, never changed.
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(kept, entry);
}
