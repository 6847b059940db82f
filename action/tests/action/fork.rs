//! Under `pull_request_target` the run has the base repository's secrets but tests a fork's
//! branch, whose name the fork chose (often `main`). Its plans go to `fork/OWNER/REPO/BRANCH`
//! on the dashboard, never to the base's branch of that name, and a token's branch scope
//! decides as for any branch: `feature/*` does not cover a fork's `feature/x`, `fork/**` does.
//! GitHub's event payloads (`tests/events/`), the real dashboard, a fake LLM that plans.

use serde_json::{Value, json};
use windup_testkit::Server;
use windup_testkit::fake_llm::{FakeLlm, Reply};

use super::{RealDashboard, Workflow, stdout};

/// The Action planning `sign-in` again (its cached plan removed) on the pull request of
/// `event` (a file of `tests/events/`), saving to the dashboard with `token`.
fn plan_on_pull_request(w: &mut Workflow, llm: &FakeLlm, event: &str, token: &str) -> String {
    std::fs::remove_file(w.path("acme/e2e/.windup/cache/sign-in.json")).unwrap();
    // The sign-in by the refs the prompt lists, then the closing pick of its proof.
    llm.push(Reply::Grounded(json!({"actions": [
        {"type": "fill", "target": {"ref": "@textbox \"Email\""}, "value_ref": "ACME_ADMIN_EMAIL"},
        {"type": "fill", "target": {"ref": "@textbox \"Password\""}, "value_ref": "ACME_ADMIN_PASSWORD"},
        {"type": "click", "target": {"ref": "@button \"Sign in\""}}
    ], "complete": true})));
    llm.push(Reply::Grounded(json!({"proofs": ["#url: /projects.html"]})));
    let payload = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/events")
            .join(event),
    )
    .unwrap();
    std::fs::write(w.path("event.json"), &payload).unwrap();
    let parsed: Value = serde_json::from_str(&payload).unwrap();
    let name = if event.starts_with("pull_request_target") {
        "pull_request_target"
    } else {
        "pull_request"
    };
    for (k, v) in [
        ("GITHUB_EVENT_NAME", name.to_string()),
        // What the runner sets: the base's default branch for pull_request_target, the
        // fork's own branch name in GITHUB_HEAD_REF.
        ("GITHUB_REF", "refs/heads/main".to_string()),
        (
            "GITHUB_HEAD_REF",
            parsed["pull_request"]["head"]["ref"]
                .as_str()
                .unwrap()
                .to_string(),
        ),
    ] {
        w.env.insert(k.to_string(), v);
    }
    w.input("dashboard-token", token);
    let out = w.run();
    let log = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{log}");
    assert_eq!(w.outputs()["llm-calls"], "2", "planned: {log}");
    log
}

/// The example's committed plan for `sign-in`, whose cache key the dashboard files plans under.
fn committed() -> Value {
    let path = windup_testkit::repo_root().join("examples/acme/e2e/.windup/cache/sign-in.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn a_forks_plans_are_saved_under_its_qualified_branch_never_the_bases() {
    let dashboard = RealDashboard::start(None);
    let llm = FakeLlm::start();
    let mut w = Workflow::new();
    let toml = w.path("acme/windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    // A local provider (no key), so the fork's run may plan; its steps given 1.5 s each, as the
    // CLI's proving tests do: a check that should fail is waited for that long (5 s by default)
    // on every run that leaves a step out, three plans here.
    std::fs::write(
        &toml,
        format!(
            "{text}\n[timeouts]\naction_ms = 1500\n[providers.fake]\nkind = \"openai\"\nmodel = \"gpt-4.1-mini\"\nbase_url = \"{}\"\n",
            llm.openai_base_url()
        ),
    )
    .unwrap();
    let app = Server::start(&w.path("acme/app"));
    w.input("base-url", app.base.as_str())
        .input("scenarios", "sign-in")
        .input("dashboard-url", &dashboard.url)
        // The workflow's choice: a fork's windup.toml may name no other.
        .input("provider-base-urls", &llm.openai_base_url());
    let entry = committed();

    // A fork's `main`, with a token that may write anywhere: the plan lands on the fork's
    // qualified branch; the base's `main` gets nothing.
    let log = plan_on_pull_request(
        &mut w,
        &llm,
        "pull_request_target-fork-main.json",
        &dashboard.token,
    );
    assert!(!log.contains("::warning"), "{log}");
    assert!(dashboard.plan_on(&entry, "fork/evil/app/main").is_some());
    assert_eq!(
        dashboard.plan_on(&entry, "main"),
        None,
        "never the base's main"
    );
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(w.path("acme/windup-report/report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(report["git"]["branch"], "fork/evil/app/main");

    // A token for feature branches does not cover a fork's `feature/x`.
    let features = dashboard.scoped_token("feature/*");
    let log = plan_on_pull_request(
        &mut w,
        &llm,
        "pull_request_target-fork-feature.json",
        &features,
    );
    assert!(
        log.lines().any(|l| l.starts_with("::warning")
            && l.contains("not saved to the dashboard")
            && l.contains("fork/evil/app/feature/x")),
        "{log}"
    );
    assert_eq!(dashboard.plan_on(&entry, "fork/evil/app/feature/x"), None);
    assert_eq!(dashboard.plan_on(&entry, "feature/x"), None);

    // A token written for forks does.
    let forks = dashboard.scoped_token("fork/**");
    let log = plan_on_pull_request(
        &mut w,
        &llm,
        "pull_request_target-fork-feature.json",
        &forks,
    );
    assert!(!log.contains("::warning"), "{log}");
    assert!(
        dashboard
            .plan_on(&entry, "fork/evil/app/feature/x")
            .is_some()
    );
    assert_eq!(dashboard.plan_on(&entry, "feature/x"), None);

    // The repository's own pull request keeps its branch name, as before.
    let log = plan_on_pull_request(&mut w, &llm, "pull_request-same-repo.json", &features);
    assert!(!log.contains("::warning"), "{log}");
    assert!(dashboard.plan_on(&entry, "feature/x").is_some());
    assert_eq!(dashboard.plan_on(&entry, "main"), None);
    assert_eq!(llm.pending(), 0);
}
