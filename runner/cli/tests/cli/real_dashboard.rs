//! The runner against the real dashboard (its library on SQLite, on loopback), then Windup
//! driving that dashboard's own committed scenarios in Chromium.

use std::process::Command;

use serde_json::Value;
use windup_testkit::repo_root;

use crate::support::*;

/// A real dashboard on SQLite in `db`, served on 127.0.0.1 by `rt`: project `acme` (default
/// branch `main`) with an ingest and cache token, and [`DASHBOARD_EMAIL`] its owner.
fn start_dashboard(
    rt: &tokio::runtime::Runtime,
    db: &std::path::Path,
) -> (
    String,
    String,
    std::sync::Arc<dyn windup_dashboard::store::Store>,
    windup_dashboard::store::Project,
) {
    use windup_dashboard::{AppState, Config, admin, store};
    rt.block_on(async {
        let st = store::open(db.join("dashboard.db").to_str().unwrap())
            .await
            .unwrap();
        let project = admin::create_project(&*st, "acme", Some("main"))
            .await
            .unwrap();
        let scopes = ["ingest", "cache:read", "cache:write"].map(String::from);
        let token = admin::create_token(&*st, &project, &scopes, None)
            .await
            .unwrap()
            .token;
        admin::create_user(&*st, DASHBOARD_EMAIL, DASHBOARD_PASSWORD)
            .await
            .unwrap();
        // Since roles, a person sees only the projects they hold a role in.
        admin::add_person(
            &*st,
            &project,
            DASHBOARD_EMAIL,
            windup_dashboard::access::Role::Owner,
        )
        .await
        .unwrap();
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let config = Config {
            public_url: url.clone(),
            secure_cookies: false,
            github: None,
        };
        tokio::spawn(windup_dashboard::launch(
            listener,
            AppState::new(st.clone(), config),
        ));
        (url, token, st, project)
    })
}

/// A real dashboard (`windup-dashboard`'s library on real SQLite, served on 127.0.0.1) that the
/// real runner filled: project `acme` with three runs on `feature/login` (planned, re-planned
/// after a broken replay, replayed) and the stale plan the broken replay left.
struct SeededDashboard {
    url: String,
    store: std::sync::Arc<dyn windup_dashboard::store::Store>,
    rt: tokio::runtime::Runtime,
    _db: tempfile::TempDir,
}

/// The runner against the real dashboard, not a fake: runs arrive, a plan planned on a branch is
/// saved there, a failed replay's reason reaches the stale entry, and another checkout restores
/// the plan and replays it with no LLM call. Asserts each of those on the way.
fn seed_dashboard_through_the_runner() -> SeededDashboard {
    use windup_testkit::fake_llm::FakeLlm;
    let dir = example();
    let db = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (url, token, st, project) = start_dashboard(&rt, db.path());
    let entry = committed(dir.path(), "sign-in");
    let llm = FakeLlm::start();
    with_fake_provider(dir.path(), &llm);
    with_dashboard(dir.path(), &url);
    let (_server, base) = serve(dir.path());
    let branch = [
        ("GITHUB_REF_NAME", "feature/login"),
        ("GITHUB_SHA", "4f2c1d0e9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e"),
    ];
    let run = |args: &[&str]| {
        let mut all = args.to_vec();
        all.extend(["--base-url", &base]);
        let out = windup_dash_token(dir.path(), &all, &branch, &token);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        out
    };

    // Planned on the branch: saved there.
    let cache_file = dir.path().join("e2e/.windup/cache/sign-in.json");
    std::fs::remove_file(&cache_file).unwrap();
    for answer in sign_in_answers("Email") {
        llm.push(answer);
    }
    run(&["run", "sign-in"]);
    let sha = entry["key"]["scenario_sha"].as_str().unwrap().to_string();
    let start = entry["key"]["start_url"].as_str().unwrap().to_string();
    let on_dashboard = |branch: &'static str| {
        let got = rt
            .block_on(st.cache_get(project.id, "sign-in", &start, &sha, branch))
            .unwrap();
        got.map(|row| serde_json::from_str::<Value>(&row.entry_json).unwrap())
    };
    assert_eq!(
        on_dashboard("feature/login"),
        Some(committed(dir.path(), "sign-in"))
    );
    assert_eq!(on_dashboard("main"), None, "never written to main");

    // The app changes ("Email" becomes "Work email"): the replay fails (healing, which would
    // mend this rename, is off for this run), the re-planned plan replaces it on the dashboard,
    // with the reason.
    let login = dir.path().join("app/login.html");
    let page = std::fs::read_to_string(&login).unwrap();
    let relabelled = page.replace(">Email</label>", ">Work email</label>");
    assert_ne!(page, relabelled);
    std::fs::write(&login, relabelled).unwrap();
    for answer in sign_in_answers("Work email") {
        llm.push(answer);
    }
    run(&["run", "sign-in", "--no-heal"]);
    assert_eq!(llm.requests().len(), 4);
    let stale = rt.block_on(st.stale_entries(project.id, 10)).unwrap();
    assert_eq!(stale.len(), 1);
    assert!(
        stale[0]
            .stale_reason
            .starts_with("the cached plan failed at a1 (selector_not_found"),
        "{}",
        stale[0].stale_reason
    );
    // The run sent its invalidation too: the stale plan with the run's re-planned replacement.
    let from_run = rt.block_on(st.run_stale_entries(project.id, 10)).unwrap();
    assert_eq!(from_run.len(), 1);
    assert_eq!(from_run[0].scenario_id, "sign-in");
    assert_eq!(from_run[0].branch, "feature/login");
    assert_eq!(
        from_run[0].failure_class.as_deref(),
        Some("selector_not_found")
    );
    assert_eq!(
        from_run[0].replaced_json, stale[0].replaced_json,
        "the same replacement the shared cache holds, so the page shows the event once"
    );

    // A fresh checkout of the branch without the plan restores it and replays it: 0 calls.
    std::fs::remove_file(&cache_file).unwrap();
    let out = run(&["run", "sign-in", "--require-cached"]);
    assert_eq!(llm.requests().len(), 4, "no LLM call: {}", stderr(&out));
    assert_eq!(
        Some(committed(dir.path(), "sign-in")),
        on_dashboard("feature/login")
    );
    let runs = rt
        .block_on(st.runs(
            project.id,
            &windup_dashboard::store::RunFilter {
                limit: 50,
                ..Default::default()
            },
        ))
        .unwrap();
    assert_eq!(runs.len(), 3, "every run arrived once");
    SeededDashboard {
        url,
        store: st,
        rt,
        _db: db,
    }
}

const DASHBOARD_EMAIL: &str = "owner@windup.test";
const DASHBOARD_PASSWORD: &str = "a long dashboard passphrase 7";

#[test]
fn the_runner_and_the_real_dashboard_share_runs_plans_and_stale_reasons() {
    let seeded = seed_dashboard_through_the_runner();
    let stale = seeded.rt.block_on(async {
        let project = seeded.store.project("acme").await.unwrap().unwrap();
        seeded.store.stale_entries(project.id, 10).await.unwrap()
    });
    assert_eq!(stale.len(), 1, "exactly the one broken plan is stale");
}

/// Windup tests its own dashboard: the committed scenarios and plans of `dashboard/` replay in
/// headless Chromium against the dashboard the runner filled, through sign-in, the overview, a
/// run and a stale plan's diff, each step checked on the rendered page. Every scenario's last
/// page is kept as a PNG under `target/dashboard-e2e/` for people to look at.
#[test]
fn windup_drives_the_dashboard_through_sign_in_overview_run_and_stale_diff() {
    let seeded = seed_dashboard_through_the_runner();
    let dir = tempfile::tempdir().unwrap();
    let project = repo_root().join("dashboard");
    std::fs::copy(project.join("windup.toml"), dir.path().join("windup.toml")).unwrap();
    copy_dir(&project.join("e2e"), &dir.path().join("e2e"));
    let _ = std::fs::remove_dir_all(dir.path().join("e2e/.windup/runs"));
    let out = Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(dir.path())
        .args(["run", "--require-cached", "--report", "json=report.json"])
        .args(["--base-url", &seeded.url])
        .env_remove("WINDUP_DASHBOARD_URL")
        .env("WINDUP_DASHBOARD_EMAIL", DASHBOARD_EMAIL)
        .env("WINDUP_DASHBOARD_PASSWORD", DASHBOARD_PASSWORD)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{text}");
    let run = report(&dir.path().join("report.json"));
    let scenarios = run["scenarios"].as_array().unwrap();
    let ids: Vec<&str> = scenarios
        .iter()
        .map(|s| s["scenario_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["overview", "run-detail", "sign-in", "stale-diff"]);
    let shots = repo_root().join("target/dashboard-e2e");
    std::fs::create_dir_all(&shots).unwrap();
    for s in scenarios {
        let id = s["scenario_id"].as_str().unwrap();
        assert_eq!(s["status"], "passed", "{id}: {s}");
        assert_eq!(s["cache"], "hit", "{id} replays its committed plan");
        assert_eq!(s["llm_calls"], 0, "{id}");
        let rel = s["screenshot"]
            .as_str()
            .expect("screenshots = \"on\" keeps the last page");
        let png = std::fs::read(dir.path().join(rel)).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{id}: a PNG");
        std::fs::write(shots.join(format!("{id}.png")), &png).unwrap();
    }
    // The password went through value_ref; it is in no file the run wrote, nor its output.
    for (path, content) in tree(dir.path()) {
        let content = String::from_utf8_lossy(&content);
        assert!(
            !content.contains(DASHBOARD_PASSWORD),
            "in {}",
            path.display()
        );
    }
    assert!(!text.contains(DASHBOARD_PASSWORD));
}

/// `GET path` on the dashboard at `base` (http://127.0.0.1:port) with a session of
/// [`DASHBOARD_EMAIL`] made in its store: the status line and the body.
fn page(
    rt: &tokio::runtime::Runtime,
    st: &dyn windup_dashboard::store::Store,
    base: &str,
    path: &str,
) -> String {
    use std::io::{Read, Write};
    let id = "a-session-id-for-the-stale-page-test";
    rt.block_on(async {
        let user = st.user(DASHBOARD_EMAIL).await.unwrap().unwrap();
        let hash = windup_dashboard::secret::sha256_hex(id);
        if st.session(&hash).await.unwrap().is_none() {
            let far = i64::MAX / 2;
            st.create_session(&hash, user.id, "csrf", far)
                .await
                .unwrap();
        }
    });
    let host = base.strip_prefix("http://").unwrap();
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nCookie: windup_session={id}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 200"), "{path}: {text}");
    text
}

/// Issue 22's acceptance: a pushed run whose committed plan went stale (the app renamed a
/// label; no provider, so no re-plan) is on the real dashboard's Stale plans page with its
/// evidence and triage verdict; once a later run saves a replacement, the page shows the diff.
#[test]
fn a_pushed_run_whose_committed_plan_went_stale_is_on_the_stale_plans_page() {
    use windup_testkit::fake_llm::FakeLlm;
    let dir = example();
    let db = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (url, token, st, project) = start_dashboard(&rt, db.path());
    with_dashboard(dir.path(), &url);
    let (_server, base) = serve(dir.path());
    // Made by a model, so a failed replay moves it to stale (a person's plan would stay).
    let cached = dir.path().join("e2e/.windup/cache/sign-in.json");
    let mut entry: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&cached).unwrap()).unwrap();
    entry["plan"]["generated_by"] = "openai/gpt-4.1-mini".into();
    std::fs::write(&cached, serde_json::to_string_pretty(&entry).unwrap()).unwrap();
    let login = dir.path().join("app/login.html");
    let html = std::fs::read_to_string(&login).unwrap();
    std::fs::write(
        &login,
        html.replace(">Email</label>", ">Work email</label>"),
    )
    .unwrap();
    let env = [
        ("GITHUB_REF_NAME", "main"),
        ("GITHUB_SHA", "4f2c1d0e9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e"),
    ];
    let out = windup_dash_token(
        dir.path(),
        &["run", "sign-in", "--base-url", &base],
        &env,
        &token,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));

    let rows = rt.block_on(st.run_stale_entries(project.id, 10)).unwrap();
    assert_eq!(rows.len(), 1, "the committed plan the run invalidated");
    assert_eq!(rows[0].scenario_id, "sign-in");
    assert_eq!(rows[0].replaced_json, None, "nothing re-planned it");
    let verdict = rows[0].verdict.clone().expect("the failed result's triage");
    let list = page(&rt, &*st, &url, "/p/acme/stale");
    assert!(!list.contains("None yet"), "{list}");
    assert!(list.contains("<td>sign-in</td>"), "{list}");
    assert!(list.contains("<td>selector_not_found</td>"), "{list}");
    assert!(
        list.contains(&format!("<td class=\"verdict\">{verdict}</td>")),
        "{list}"
    );
    let at = list
        .find("/p/acme/stale/run-")
        .expect("a link to the evidence");
    let link = list[at..at + list[at..].find('"').unwrap()].to_string();
    let detail = page(&rt, &*st, &url, &link);
    assert!(detail.contains("Stale plan: sign-in"), "{detail}");
    assert!(
        detail.contains("<dd class=\"bad\">selector_not_found</dd>"),
        "{detail}"
    );
    assert!(
        detail.contains(&format!("<dd class=\"verdict\">{verdict}")),
        "{detail}"
    );
    assert!(
        detail.contains("<dd class=\"failing-step\"><code>a1: fill"),
        "the failing step of the old plan: {detail}"
    );
    assert!(
        detail.contains("class=\"shot\""),
        "the uploaded screenshot: {detail}"
    );
    assert!(
        detail.contains("Steps (nothing replaced it yet)"),
        "{detail}"
    );

    // A later run plans it again (a fake provider now) and saves the plan to the shared cache:
    // the stale plan's page diffs against it.
    let llm = FakeLlm::start();
    with_fake_provider(dir.path(), &llm);
    for answer in sign_in_answers("Work email") {
        llm.push(answer);
    }
    let out = windup_dash_token(
        dir.path(),
        &["run", "sign-in", "--base-url", &base],
        &env,
        &token,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let detail = page(&rt, &*st, &url, &link);
    assert!(detail.contains("Step-by-step diff"), "{detail}");
    assert!(detail.contains("<tr class=\"removed\">"), "{detail}");
    assert!(detail.contains("<tr class=\"added\">"), "{detail}");
    assert!(detail.contains("Work email"), "{detail}");
}
