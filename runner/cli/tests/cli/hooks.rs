//! windup.toml's `[hooks]` with real commands: the order they run in, seen by the commands
//! themselves; their time in the report; a failing hook fails its scenarios as `environment`
//! naming the hook, its status and its stderr; the clear environment they run in; bad config.

use std::path::Path;

use crate::support::*;

fn with_hooks(root: &Path, hooks: &str) {
    let toml = root.join("windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(toml, format!("{text}\n[hooks]\n{hooks}\n")).unwrap();
}

#[test]
fn hooks_run_in_order_around_each_scenario_and_their_time_is_reported() {
    let project = example();
    let root = project.path();
    let (_server, base) = serve(root);
    with_hooks(
        root,
        r#"before_all = 'echo "before_all $WINDUP_BASE_URL" >> hooks.log'
before_each = 'echo "before_each $WINDUP_SCENARIO_ID" >> hooks.log; sleep 0.2'
after_each = 'echo "after_each $WINDUP_SCENARIO_ID" >> hooks.log'"#,
    );
    let r = run_reported(
        root,
        &["run", "search-projects", "create-project", "--jobs", "4"],
        &base,
        "r.json",
        0,
    );
    let log = std::fs::read_to_string(root.join("hooks.log")).unwrap();
    // One scenario after the other, in the order given, even with --jobs: the hooks reset
    // data every scenario shares.
    assert_eq!(
        log.lines().collect::<Vec<_>>(),
        [
            format!("before_all {base}").as_str(),
            "before_each search-projects",
            "after_each search-projects",
            "before_each create-project",
            "after_each create-project",
        ],
        "{log}"
    );
    assert_eq!(r["report_version"], "0.3");
    assert_eq!(r["hooks"][0]["hook"], "before_all");
    assert_eq!(r["hooks"][0]["passed"], true);
    for s in r["scenarios"].as_array().unwrap() {
        assert_eq!(s["hooks"][0]["hook"], "before_each", "{s}");
        assert_eq!(s["hooks"][1]["hook"], "after_each", "{s}");
        // `sleep 0.2` cannot take less: the time is the hook's, measured.
        assert!(s["hooks"][0]["duration_ms"].as_u64().unwrap() >= 200, "{s}");
        assert!(s["duration_ms"].as_u64() >= s["hooks"][0]["duration_ms"].as_u64());
    }
}

#[test]
fn a_failing_hook_fails_its_scenario_as_environment_naming_it() {
    let project = example();
    let root = project.path();
    let (_server, base) = serve(root);
    // The hook sees only the variables it is given: no credential of Windup's.
    with_hooks(
        root,
        r#"before_each = 'env > env.txt; echo "seed: no database at $DATABASE_URL" >&2; exit 3'
env = ["DATABASE_URL"]"#,
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(root)
        .args(["run", "search-projects", "--base-url", &base])
        .args(["--report", "json=r.json"])
        .env("ACME_ADMIN_EMAIL", "admin@acme.test")
        .env("ACME_ADMIN_PASSWORD", "correct horse battery staple")
        .env("DATABASE_URL", "postgres://127.0.0.1/nowhere")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = report(&root.join("r.json"));
    let s = &r["scenarios"][0];
    assert_eq!(s["failure_class"], "environment", "{s}");
    let message = s["message"].as_str().unwrap();
    assert!(
        message.contains("the before_each hook exited with status 3")
            && message.contains("seed: no database at postgres://127.0.0.1/nowhere")
            && message.contains("the scenario did not run"),
        "{message}"
    );
    assert_eq!(s["triage"]["verdict"], "environment", "{s}");
    assert_eq!(s["hooks"][0]["passed"], false);
    assert!(
        s["actions"].as_array().unwrap().is_empty(),
        "it did not run"
    );
    let env = std::fs::read_to_string(root.join("env.txt")).unwrap();
    assert!(env.contains("DATABASE_URL=postgres://"), "{env}");
    assert!(env.contains("WINDUP_SCENARIO_ID=search-projects"), "{env}");
    assert!(
        !env.contains("correct horse") && !env.contains("ACME_ADMIN"),
        "{env}"
    );

    // A before_all that fails: no scenario runs, each says why.
    let toml = root.join("windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let text = text.replace("before_each = ", "before_all = 'exit 9'\nafter_each = ");
    std::fs::write(&toml, text).unwrap();
    let r = run_reported(root, &["run"], &base, "r2.json", 1);
    assert_eq!(r["hooks"][0]["hook"], "before_all");
    for s in r["scenarios"].as_array().unwrap() {
        assert_eq!(s["failure_class"], "environment", "{s}");
        let m = s["message"].as_str().unwrap();
        assert!(
            m.contains("the before_all hook exited with status 9; no scenario ran"),
            "{m}"
        );
    }
}

#[test]
fn bad_hook_config_exits_2_naming_the_file_and_field() {
    let project = example();
    let root = project.path();
    for (hooks, field) in [
        ("before_each = ''", "hooks.before_each"),
        ("timeout_ms = 0", "hooks.timeout_ms"),
        ("env = ['A B']", "hooks.env[0]"),
        ("before_every = 'x'", "unknown field `before_every`"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(root, dir.path());
        with_hooks(dir.path(), hooks);
        let o = windup(dir.path(), &["run", "--base-url", "http://127.0.0.1:9"]);
        assert_eq!(o.status.code(), Some(2), "{hooks}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(
            err.contains("windup.toml") && err.contains(field),
            "{hooks}: {err}"
        );
    }
}
