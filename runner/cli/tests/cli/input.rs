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
    // One misspelt field: its problems, once each, and no false "no scenario exists" for
    // the cached plans (one of them its own) when the scenarios cannot all be read.
    let yaml = dir.path().join("e2e/scenarios/sign-in.yaml");
    let text = std::fs::read_to_string(&yaml).unwrap();
    std::fs::write(&yaml, text.replacen("task:", "taks:", 1)).unwrap();
    let out = windup(dir.path(), &["validate"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    let errors: Vec<&str> = err.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(
        errors,
        [
            "error: e2e/scenarios/sign-in.yaml: task: required field `task` is missing",
            "error: e2e/scenarios/sign-in.yaml: taks: unknown field `taks`",
        ],
        "{err}"
    );
}

/// A committed plan is untrusted: one that goes to another origin, runs a `javascript:` or
/// `file:` URL, or names a secret the manifest does not declare fails `validate` (exit 2, the
/// field named), never runs (`plan_invalid`; written by a person, so it stays where it is), and
/// `replay` refuses it.
#[test]
fn a_plan_outside_the_trust_boundary_fails_validate_and_never_runs() {
    let foreign =
        windup_testkit::Server::start(&windup_testkit::repo_root().join("examples/acme/app"));
    let steal = foreign.base.join("steal").unwrap().to_string();
    let cases: &[(&str, &str, &str)] = &[
        (
            "\"value_ref\": \"ACME_ADMIN_PASSWORD\"",
            "\"value_ref\": \"CI_DEPLOY_KEY\"",
            "plan.actions[1].value_ref: `CI_DEPLOY_KEY` is not a credential of this project",
        ),
        (
            "\"start_url\": \"/login.html\",\n    \"generated_by\"",
            &format!("\"start_url\": \"{steal}\",\n    \"generated_by\""),
            "plan.start_url: ",
        ),
        (
            "\"id\": \"a1\",",
            "\"id\": \"a0\", \"type\": \"goto\", \"url\": \"javascript:alert(1)\"}, {\"id\": \"a1\",",
            "plan.actions[0].url: `javascript:alert(1)` is not an http(s) URL",
        ),
        (
            "\"id\": \"a1\",",
            "\"id\": \"a0\", \"type\": \"goto\", \"url\": \"file:///etc/hostname\"}, {\"id\": \"a1\",",
            "plan.actions[0].url: `file:///etc/hostname` is not an http(s) URL",
        ),
    ];
    for (from, to, expected) in cases {
        let dir = example();
        let (_app, base) = serve(dir.path());
        let path = dir.path().join("e2e/.windup/cache/sign-in.json");
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains(from), "no {from:?}");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
        let out = windup(dir.path(), &["validate"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(expected),
            "wanted {expected:?} in {}",
            stderr(&out)
        );
        assert!(stderr(&out).contains("fix: "), "{}", stderr(&out));

        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_windup"));
        let out = cmd
            .current_dir(dir.path())
            .args([
                "run",
                "sign-in",
                "--require-cached",
                "--base-url",
                &base,
                "--report",
                "json=r.json",
            ])
            .env("ACME_ADMIN_EMAIL", "admin@acme.test")
            .env("ACME_ADMIN_PASSWORD", "correct horse battery staple")
            .env("CI_DEPLOY_KEY", "deploy-key-canary")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        let r = report(&dir.path().join("r.json"));
        assert_eq!(r["scenarios"][0]["failure_class"], "plan_invalid", "{r}");
        assert!(
            r["scenarios"][0]["actions"].as_array().unwrap().is_empty(),
            "{r}"
        );
        assert!(
            path.exists(),
            "a person's refused plan stays, for them to fix"
        );
        assert!(!dir.path().join("e2e/.windup/cache/stale").exists());
        assert!(!printed(&out).contains("deploy-key-canary"));
    }
    assert_eq!(
        foreign.total_hits(),
        0,
        "the foreign origin received a request"
    );
}

#[test]
fn replay_refuses_a_plan_file_outside_the_trust_boundary() {
    let dir = example();
    let (_app, base) = serve(dir.path());
    let plan = dir.path().join("evil.plan.json");
    std::fs::write(
        &plan,
        r#"{"plan_version": "0.1", "scenario_id": "sign-in", "task": "t", "start_url": "/login.html",
            "generated_by": "x", "actions": [
              {"id": "a1", "type": "goto", "url": "http://127.0.0.1:9/x"},
              {"id": "a2", "type": "fill", "target": {"selector": "label=\"Email\""}, "value_ref": "HOME", "expect": {"visible": "css=body"}}]}"#,
    )
    .unwrap();
    for args in [
        &["replay", "evil.plan.json", "--base-url", &base][..],
        &["replay", "evil.plan.json", "--save", "--base-url", &base][..],
    ] {
        let out = windup(dir.path(), args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains("actions[0].url: `http://127.0.0.1:9/x` leaves the application's origin"),
            "{err}"
        );
        assert!(
            err.contains("actions[1].value_ref: `HOME` is not a credential"),
            "{err}"
        );
    }
}
