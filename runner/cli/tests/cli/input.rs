//! Bad input: a broken scenario, plan, windup.toml or command line exits 2 naming the file,
//! the field and the fix, and changes no file; `windup validate` checks the same things.

use crate::support::*;

#[test]
fn bad_input_exits_2_naming_file_field_and_fix_and_changes_nothing() {
    let cases: &[(&str, &str, &str, &str)] = &[
        // (file to break, replace this, with this, expected in stderr)
        (
            "e2e/scenarios/sign-in.yaml",
            "id: sign-in",
            "id: sign-in\ntask: [unclosed",
            "e2e/scenarios/sign-in.yaml: (file): not valid YAML",
        ),
        (
            "e2e/scenarios/sign-in.yaml",
            "id: sign-in",
            "id: sign-in\nowner: qa",
            "e2e/scenarios/sign-in.yaml: owner: unknown field `owner`",
        ),
        (
            "e2e/.windup/cache/sign-in.json",
            "\"plan_version\"",
            ",,\"plan_version\"",
            "e2e/.windup/cache/sign-in.json: (file): not valid JSON",
        ),
        (
            "e2e/.windup/cache/sign-in.json",
            "\"type\": \"click\"",
            "\"type\": \"tap\"",
            "e2e/.windup/cache/sign-in.json: plan.actions[2].type: \"tap\" is not an accepted value",
        ),
        (
            "e2e/.windup/cache/sign-in.json",
            "\"value_ref\": \"ACME_ADMIN_EMAIL\"",
            "\"value_ref\": \"ACME_ADMIN_EMAIL\", \"value\": \"x\"",
            "plan.actions[0].value: `fill` has both `value` and `value_ref`",
        ),
        (
            "e2e/.windup/cache/sign-in.json",
            "role=button[name=\\\"Sign in\\\"]",
            "role=button[name=\\\"Sign in",
            "plan.actions[2].target.selector: bad selector",
        ),
        (
            "windup.toml",
            "base_url = \"http://127.0.0.1:8080\"",
            "# no base URL",
            "windup.toml: base_url: no base URL is set",
        ),
    ];
    for (file, from, to, expected) in cases {
        let dir = example();
        let path = dir.path().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "{file} has no {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
        let before = tree(dir.path());
        for args in [&["run"][..], &["run", "sign-in"][..]] {
            let out = windup(dir.path(), args);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{file} {args:?}: {err}");
            assert!(
                err.contains(expected),
                "{file}: wanted {expected:?} in:\n{err}"
            );
            assert!(err.contains("fix: "), "{err}");
        }
        if *file != "windup.toml" {
            let out = windup(dir.path(), &["validate"]);
            assert_eq!(out.status.code(), Some(2), "validate: {}", stderr(&out));
            assert!(stderr(&out).contains(expected), "{}", stderr(&out));
        }
        assert!(
            before == tree(dir.path()),
            "{file}: a bad-input run changed files"
        );
    }
}

#[test]
fn bad_command_lines_exit_2() {
    let dir = example();
    let out = windup(
        dir.path(),
        &[
            "run",
            "no-such-scenario",
            "--base-url",
            "http://127.0.0.1:9",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no scenario `no-such-scenario`"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("sign-in"), "lists the known ones");
    let out = windup(dir.path(), &["run", "--report", "xml=r.xml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("unknown report format `xml`"));
    let out = windup(dir.path(), &["run", "--base-url", "not a url"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("base_url"), "{}", stderr(&out));
    let out = windup(
        dir.path(),
        &["replay", "missing.json", "--base-url", "http://127.0.0.1:9"],
    );
    assert_eq!(out.status.code(), Some(2));
    let out = windup(dir.path(), &["frobnicate"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "clap's usage errors are 2 as well"
    );
}

#[test]
fn validate_accepts_the_example_and_checks_named_files() {
    let dir = example();
    let out = windup(dir.path(), &["validate"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let plan = dir.path().join("plan.json");
    std::fs::write(&plan, r#"{"plan_version":"0.1"}"#).unwrap();
    let out = windup(dir.path(), &["validate", "plan.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("plan.json: actions: required field `actions` is missing"),
        "{}",
        stderr(&out)
    );
}
