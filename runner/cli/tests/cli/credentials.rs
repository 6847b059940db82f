//! Credential values (from `.env.local`) never leave the process: not in reports, stale
//! evidence, terminal output, debug logs, files under e2e/.windup or requests to the provider,
//! whether a cached plan fails or a run plans through the fake provider.

use std::process::Command;

use serde_json::Value;

use crate::support::*;

#[test]
fn credentials_from_env_local_never_reach_reports_evidence_or_the_terminal() {
    let dir = example();
    let password = "canary-7f3e correct horse";
    std::fs::write(
        dir.path().join(".env.local"),
        format!("ACME_ADMIN_EMAIL=admin@acme.test\nACME_ADMIN_PASSWORD=\"{password}\"\n"),
    )
    .unwrap();
    // The app accepts this password, and the plan checks the field against another value,
    // so the failure message would quote the password if nothing masked it.
    let login = dir.path().join("app/login.html");
    let html = std::fs::read_to_string(&login).unwrap();
    std::fs::write(
        &login,
        html.replace("correct horse battery staple", password),
    )
    .unwrap();
    let cache = dir.path().join("e2e/.windup/cache/sign-in.json");
    let mut entry: Value = serde_json::from_str(&std::fs::read_to_string(&cache).unwrap()).unwrap();
    entry["plan"]["actions"][1]["expect"] = serde_json::json!({"value": {"selector": "label=\"Password\"", "equals": "something else"}});
    // Made by a model, so the failed plan moves to stale, whose evidence is checked too (a
    // person's plan would stay where it is).
    entry["plan"]["generated_by"] = "openai/gpt-4.1-mini".into();
    std::fs::write(&cache, serde_json::to_string_pretty(&entry).unwrap()).unwrap();
    let (_server, base) = serve(dir.path());
    let out = Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(dir.path())
        .args([
            "run",
            "sign-in",
            "--base-url",
            &base,
            "--report",
            "json=r.json",
        ])
        .env_remove("ACME_ADMIN_EMAIL")
        .env_remove("ACME_ADMIN_PASSWORD")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = std::fs::read_to_string(dir.path().join("r.json")).unwrap();
    assert!(r.contains("postcondition_failed"), "{r}");
    assert!(r.contains("•••"), "the value is masked: {r}");
    let stale_dir = dir.path().join("e2e/.windup/cache/stale");
    let stale = std::fs::read_dir(&stale_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let everything = [
        r,
        stderr(&out),
        String::from_utf8_lossy(&out.stdout).to_string(),
        std::fs::read_to_string(stale).unwrap(),
    ]
    .join("\n");
    assert!(
        !everything.contains("canary-7f3e"),
        "a credential leaked:\n{everything}"
    );
}

/// `windup run` planning through a local fake provider: `--require-cached` makes no call, a
/// planned run passes, and the credential values reach no log line (at debug level), no
/// terminal output, no file under e2e/.windup and no request the provider received.
#[test]
fn planning_from_the_cli_leaks_no_credential_and_require_cached_makes_no_call() {
    use windup_testkit::fake_llm::FakeLlm;
    let dir = example();
    let password = "canary-91c2 correct horse";
    let email = "canary-91c2@acme.test";
    std::fs::write(
        dir.path().join(".env.local"),
        format!("ACME_ADMIN_EMAIL={email}\nACME_ADMIN_PASSWORD=\"{password}\"\n"),
    )
    .unwrap();
    let login = dir.path().join("app/login.html");
    let html = std::fs::read_to_string(&login).unwrap();
    std::fs::write(
        &login,
        html.replace("correct horse battery staple", password)
            .replace("admin@acme.test", email),
    )
    .unwrap();
    // Forget the committed plan: the next run must plan it.
    let cache = dir.path().join("e2e/.windup/cache/sign-in.json");
    std::fs::remove_file(&cache).unwrap();
    let fake = FakeLlm::start();
    for answer in sign_in_answers("Email") {
        fake.push(answer);
    }
    with_fake_provider(dir.path(), &fake);
    let (_server, base) = serve(dir.path());
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_windup"))
            .current_dir(dir.path())
            .args([
                "run",
                "sign-in",
                "--base-url",
                &base,
                "--report",
                "json=r.json",
            ])
            .args(extra)
            .env_remove("ACME_ADMIN_EMAIL")
            .env_remove("ACME_ADMIN_PASSWORD")
            .env_remove("WINDUP_PROVIDER")
            .env("WINDUP_LOG", "debug")
            .output()
            .unwrap()
    };
    let gated = run(&["--require-cached"]);
    assert_eq!(gated.status.code(), Some(1), "{}", stderr(&gated));
    assert!(stdout(&gated).contains("not_cached"), "{}", printed(&gated));
    assert!(fake.requests().is_empty(), "--require-cached made a call");

    let planned = run(&[]);
    assert_eq!(planned.status.code(), Some(0), "{}", stderr(&planned));
    let err = stderr(&planned);
    assert!(err.contains("sign-in: planning"), "{err}");
    assert!(stdout(&planned).contains("2 LLM calls"), "{err}");
    assert_eq!(fake.requests().len(), 2, "the plan and its closing proof");
    let r = report(&dir.path().join("r.json"));
    assert_eq!(r["scenarios"][0]["cache"], "miss");
    assert_eq!(r["scenarios"][0]["llm_calls"], 2);
    assert!(dir.path().join("e2e/.windup/cache/sign-in.json").exists());

    let mut everything = vec![
        err,
        String::from_utf8_lossy(&planned.stdout).to_string(),
        stderr(&gated),
        std::fs::read_to_string(dir.path().join("r.json")).unwrap(),
        fake.requests()[0].body.clone(),
        fake.requests()[1].body.clone(),
    ];
    for (path, bytes) in tree(&dir.path().join("e2e/.windup")) {
        everything.push(format!(
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&bytes)
        ));
    }
    let everything = everything.join("\n");
    assert!(
        everything.contains("ledger.jsonl"),
        "the ledger was checked too"
    );
    assert!(
        !everything.contains("canary-91c2"),
        "a credential leaked:\n{everything}"
    );
}
