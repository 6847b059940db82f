//! `windup export --format playwright`: the exported specs of the bundled example and of
//! TodoMVC plans that Windup itself verified, run with `--check` under real `@playwright/test`
//! (npm, driving Debian's Chromium: nothing downloads a browser). Each spec holds every step and
//! postcondition of its plan; a plan Windup fails on, the spec fails on too.

use std::path::Path;
use std::process::{Command, Output};

use windup_testkit::{Server, fixtures, repo_root};

use crate::support::*;

/// TodoMVC apps in different frameworks; backbone keeps filtered-out items in the DOM, hidden.
const APPS: &[&str] = &["vanillajs", "backbone", "react", "angularjs", "emberjs"];

/// `windup ARGS` in `dir` with the environment the exported specs read.
fn windup_env(dir: &Path, args: &[&str], base: &str) -> Output {
    let chromium = windup_engine::browser::find_chromium(None, false).expect("Debian's chromium");
    Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(dir)
        .args(args)
        .env_remove("WINDUP_BASE_URL")
        .env("BASE_URL", base)
        .env("CHROMIUM_PATH", chromium)
        .env("ACME_ADMIN_EMAIL", "admin@acme.test")
        .env("ACME_ADMIN_PASSWORD", "correct horse battery staple")
        .env("EXPORT_MEMBER_NAME", "Ada")
        .output()
        .expect("run windup")
}

/// The exported specs find `@playwright/test` as a project would: in a `node_modules` above
/// them (the registry fixture's, linked).
fn link_node_modules(out: &Path) {
    let node_modules = fixtures()
        .playwright_test
        .parent()
        .unwrap()
        .parent()
        .unwrap();
    std::fs::create_dir_all(out).unwrap();
    std::os::unix::fs::symlink(node_modules, out.join("node_modules")).unwrap();
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// `npx playwright test` in `out` on the specs as `--check` left them: the files a user keeps
/// are the ones that pass, not only the probing form `--check` ran first.
fn playwright_test(out: &Path, base: &str) -> Output {
    let chromium = windup_engine::browser::find_chromium(None, false).expect("Debian's chromium");
    Command::new("node")
        .arg(fixtures().playwright_test.join("cli.js"))
        .args(["test", "--reporter=line"])
        .current_dir(out)
        .env("BASE_URL", base)
        .env("CHROMIUM_PATH", chromium)
        .env("EXPORT_MEMBER_NAME", "Ada")
        .output()
        .expect("run node")
}

/// The helper calls and locator forms a spec uses.
fn calls(spec: &str, needle: &str) -> usize {
    spec.matches(needle).count()
}

/// Every plan step's postconditions became assertions: one `await expect…` line each.
fn assertion_lines(spec: &str) -> usize {
    spec.lines()
        .filter(|l| {
            let l = l.trim_start();
            l.starts_with("await expect(") || l.starts_with("await expectValue(")
        })
        .count()
}

fn postconditions(plan: &windup_model::Plan) -> usize {
    plan.actions
        .iter()
        .filter_map(|a| a.expect.as_ref())
        .map(|e| {
            [
                e.url.is_some(),
                e.visible.is_some(),
                e.hidden.is_some(),
                e.value.is_some(),
                e.count.is_some(),
            ]
            .iter()
            .filter(|b| **b)
            .count()
        })
        .sum()
}

fn cached_plan(project: &Path, id: &str) -> windup_model::Plan {
    let text =
        std::fs::read_to_string(project.join(format!("e2e/.windup/cache/{id}.json"))).unwrap();
    serde_json::from_str::<windup_model::CacheEntry>(&text)
        .unwrap()
        .plan
}

#[test]
fn the_bundled_examples_specs_pass_under_playwright() {
    let project = example();
    let (_server, base) = serve(project.path());
    // Windup replays the committed plans first: the specs are of plans that pass.
    let run = windup_env(
        project.path(),
        &["run", "--require-cached", "--base-url", &base],
        &base,
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));

    let out = project.path().join("playwright");
    link_node_modules(&out);
    let o = windup_env(
        project.path(),
        &[
            "export",
            "--format",
            "playwright",
            "--out",
            "playwright",
            "--check",
        ],
        &base,
    );
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}\n{}", stderr(&o));
    for id in [
        "archive-project",
        "create-project",
        "search-projects",
        "sign-in",
    ] {
        assert!(
            text.contains(&format!("passed playwright/{id}.spec.ts")),
            "{id}: {text}"
        );
        let spec = std::fs::read_to_string(out.join(format!("{id}.spec.ts"))).unwrap();
        assert_eq!(
            assertion_lines(&spec),
            postconditions(&cached_plan(project.path(), id)),
            "{id}:\n{spec}"
        );
        // Credentials are read from the environment when the spec runs, never written in it.
        assert!(spec.contains("process.env.ACME_ADMIN_PASSWORD"), "{id}");
        assert!(!spec.contains("correct horse"), "{id}");
    }
    let config = std::fs::read_to_string(out.join("playwright.config.ts")).unwrap();
    assert!(
        config.contains("http://127.0.0.1:8080"),
        "windup.toml's base URL: {config}"
    );
}

/// A project of TodoMVC scenarios whose plans Windup verified and cached (`replay --save`).
fn todomvc_project(server: &Server) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("e2e/scenarios")).unwrap();
    std::fs::write(
        root.join("windup.toml"),
        format!("base_url = \"{}\"\n", server.base),
    )
    .unwrap();
    let template: windup_model::Plan = serde_json::from_str(
        &std::fs::read_to_string(repo_root().join("runner/engine/tests/plans/todomvc.json"))
            .unwrap(),
    )
    .unwrap();
    for app in APPS {
        let id = format!("todomvc-{app}");
        let start = format!("/examples/{app}/index.html");
        std::fs::write(
            root.join(format!("e2e/scenarios/{id}.yaml")),
            format!("id: {id}\ntask: {}\nstart_url: {start}\n", template.task),
        )
        .unwrap();
        let mut plan = template.clone();
        plan.scenario_id = id.clone();
        plan.start_url = start;
        let file = root.join(format!("{id}.plan.json"));
        std::fs::write(&file, serde_json::to_string(&plan).unwrap()).unwrap();
        let o = windup(root, &["replay", file.to_str().unwrap(), "--save"]);
        assert_eq!(o.status.code(), Some(0), "{app}: {}", stderr(&o));
        assert!(
            root.join(format!("e2e/.windup/cache/{id}.json")).exists(),
            "{app}"
        );
    }
    dir
}

#[test]
fn todomvc_specs_pass_under_playwright_and_fail_where_windup_fails() {
    let server = Server::start(&fixtures().todomvc);
    let base = server.base.to_string();
    let project = todomvc_project(&server);
    let root = project.path();
    let out = root.join("pw");
    link_node_modules(&out);
    let export = ["export", "--format", "playwright", "--out", "pw", "--check"];
    let o = windup_env(root, &export, &base);
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}\n{}", stderr(&o));
    for app in APPS {
        let id = format!("todomvc-{app}");
        assert!(
            text.contains(&format!("passed pw/{id}.spec.ts")),
            "{app}: {text}"
        );
        let spec = std::fs::read_to_string(out.join(format!("{id}.spec.ts"))).unwrap();
        assert_eq!(
            assertion_lines(&spec),
            postconditions(&cached_plan(root, &id)),
            "{spec}"
        );
        // Written from what Playwright found: no tab follower (no tab opened), no probe.
        assert_eq!(calls(&spec, "followNewTab"), 0, "{spec}");
        assert_eq!(calls(&spec, "probe"), 0, "{spec}");
        // Backbone keeps the completed todo in the DOM, hidden: that count alone stays on the
        // visible matches; the other apps' lists have none hidden.
        let filtered = calls(&spec, ".filter({ visible: true })");
        if *app == "backbone" {
            assert!(filtered > 0, "{spec}");
        } else {
            assert_eq!(filtered, 0, "{spec}");
        }
    }
    // The files as written pass under Playwright too.
    let o = playwright_test(&out, &base);
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    keep_exports(root, "todomvc");

    // On backbone the completed todo stays in the DOM, hidden: Windup counts one visible item
    // under "Active". Claiming two must fail in Windup and in the spec alike.
    let id = "todomvc-backbone";
    let path = root.join(format!("e2e/.windup/cache/{id}.json"));
    let mut entry: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let last = entry["plan"]["actions"]
        .as_array_mut()
        .unwrap()
        .last_mut()
        .unwrap();
    last["expect"]["count"]["equals"] = 2.into();
    last["timeout_ms"] = 1500.into();
    std::fs::write(&path, entry.to_string()).unwrap();
    let o = windup_env(
        root,
        &[
            "export",
            id,
            "--format",
            "playwright",
            "--out",
            "pw",
            "--check",
        ],
        &base,
    );
    let text = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(1),
        "the spec must fail: {text}\n{}",
        stderr(&o)
    );
    assert!(text.contains(&format!("failed pw/{id}.spec.ts")), "{text}");
    assert!(text.contains("toHaveCount"), "{text}");
    // (After the export: a failed replay keeps its evidence in stale/.)
    let run = windup(root, &["run", id, "--require-cached", "--base-url", &base]);
    assert_eq!(
        run.status.code(),
        Some(1),
        "Windup must fail: {}",
        stderr(&run)
    );
}

#[test]
fn bad_exports_exit_2_naming_the_fix_and_write_nothing() {
    let project = example();
    let root = project.path();
    let o = windup(
        root,
        &["export", "nope", "--format", "playwright", "--out", "pw"],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("there is no scenario `nope`") && err.contains("use one of:"),
        "{err}"
    );
    assert!(!root.join("pw").exists());

    // A scenario whose text changed since its plan was verified has nothing to export.
    let file = root.join("e2e/scenarios/sign-in.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replace("lists the projects", "lists every project"),
    )
    .unwrap();
    let o = windup(
        root,
        &["export", "sign-in", "--format", "playwright", "--out", "pw"],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("e2e/.windup/cache/sign-in.json"), "{err}");
    assert!(err.contains("run `windup run sign-in`"), "{err}");
    assert!(!root.join("pw").exists());

    // Without --check nothing runs; the other scenarios export and sign-in is reported skipped.
    let o = windup(root, &["export", "--format", "playwright", "--out", "pw"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("skipped sign-in"), "{}", stdout(&o));
    assert!(root.join("pw/create-project.spec.ts").exists());
    assert!(!root.join("pw/sign-in.spec.ts").exists());

    // A setup that an exported scenario needs must have a verified plan too.
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    copy_dir(&repo_root().join("runner/cli/tests/export-project"), root);
    cache_committed_plans(root);
    std::fs::remove_file(root.join("e2e/.windup/cache/sign-in.json")).unwrap();
    let o = windup(root, &["export", "--format", "playwright", "--out", "pw"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("`sign-in` cannot be exported (a scenario exported needs it)"),
        "{err}"
    );
    assert!(!root.join("pw").exists());
}

/// The committed plans of `runner/cli/tests/export-project` as cache entries keyed to their
/// scenarios' current text, for Windup to verify in a run before they are exported.
fn cache_committed_plans(root: &Path) {
    for id in ["sign-in", "home"] {
        let plan: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.join(format!("plans/{id}.json"))).unwrap(),
        )
        .unwrap();
        cache_plan(root, plan);
    }
}

#[test]
fn setups_fragments_dialogs_and_new_tabs_behave_as_in_windup() {
    let project = tempfile::tempdir().unwrap();
    let root = project.path();
    copy_dir(&repo_root().join("runner/cli/tests/export-project"), root);
    let server = Server::start(&root.join("app"));
    let base = server.base.to_string();
    cache_committed_plans(root);
    // Windup runs the setup, then the scenario that needs it with its storage: both verified.
    let run = windup_env(
        root,
        &["run", "--require-cached", "--base-url", &base],
        &base,
    );
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));

    let out = root.join("pw");
    link_node_modules(&out);
    let o = windup_env(
        root,
        &[
            "export",
            "home",
            "--format",
            "playwright",
            "--out",
            "pw",
            "--check",
        ],
        &base,
    );
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}\n{}", stderr(&o));
    // The setup came along with the scenario that needs it, and ran first.
    assert!(text.contains("passed pw/sign-in.setup.ts"), "{text}");
    assert!(text.contains("passed pw/home.spec.ts"), "{text}");
    assert!(out.join(".auth/sign-in.json").exists());
    let setup = std::fs::read_to_string(out.join("sign-in.setup.ts")).unwrap();
    assert!(setup.contains("// a1: fragment `sign-in-form`"), "{setup}");
    assert!(setup.contains("process.env.EXPORT_MEMBER_NAME"), "{setup}");
    assert!(
        !setup.contains("Ada"),
        "the member's name is a credential: {setup}"
    );
    // Only the steps Playwright found ambiguous keep the first visible match, only the step
    // that opened a tab waits for it, and dialogs are accepted because the pages showed some.
    let home = std::fs::read_to_string(out.join("home.spec.ts")).unwrap();
    assert_eq!(calls(&home, "followNewTab"), 0, "{home}");
    assert_eq!(calls(&home, "waitForEvent('popup')"), 1, "{home}");
    assert!(
        home.contains("// a4: click role=link[name=\"Open help\"]\n  const popup1 = page.waitForEvent('popup');\n  await page.getByRole(\"link\", { name: \"Open help\", exact: true }).click();"),
        "{home}"
    );
    assert!(
        home.contains("page.on('dialog', (dialog) => dialog.accept(dialog.defaultValue()));"),
        "{home}"
    );
    // `nth=` over hidden items picks its own visible match.
    assert!(
        home.contains(".locator(\"li\").filter({ visible: true }).nth(1)"),
        "{home}"
    );
    let o = playwright_test(&out, &base);
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    keep_exports(root, "export-project");
    for id in ["sign-in", "home"] {
        let name = if id == "sign-in" {
            "sign-in.setup.ts"
        } else {
            "home.spec.ts"
        };
        let spec = std::fs::read_to_string(out.join(name)).unwrap();
        let fragment = if id == "sign-in" { 1 } else { 0 };
        assert_eq!(
            assertion_lines(&spec),
            postconditions(&cached_plan(root, id)) + fragment,
            "{spec}"
        );
    }
}

/// Uploads, downloads and a one-time code, verified by Windup (`replay --save`), then exported
/// and run under Playwright: `setInputFiles` from `e2e/files/`, `waitForEvent('download')` with
/// the name and size checked, and the `totp()` helper computing the code from the secret the
/// environment holds (which the spec never contains).
#[test]
fn exported_uploads_downloads_and_one_time_codes_pass_under_playwright() {
    use crate::transfers::{TOTP_SECRET, files_app, files_plan, otp_plan, project};
    let dir = project("accounts:\n  admin:\n    otp: {totp_secret: ACME_TOTP}\n");
    let root = dir.path();
    let app = files_app();
    let base = app.base.to_string();
    std::fs::create_dir_all(root.join("e2e/scenarios")).unwrap();
    for plan in [files_plan(8), otp_plan()] {
        let id = plan["scenario_id"].as_str().unwrap();
        std::fs::write(
            root.join(format!("e2e/scenarios/{id}.yaml")),
            format!(
                "id: {id}\ntask: {}\nstart_url: {}\n",
                plan["task"], plan["start_url"]
            ),
        )
        .unwrap();
        let file = root.join(format!("{id}.plan.json"));
        std::fs::write(&file, plan.to_string()).unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_windup"))
            .current_dir(root)
            .args([
                "replay",
                file.to_str().unwrap(),
                "--save",
                "--base-url",
                &base,
            ])
            .env_remove("WINDUP_BASE_URL")
            .env("ACME_TOTP", TOTP_SECRET)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{id}: {}", stderr(&o));
    }
    let out = root.join("pw");
    link_node_modules(&out);
    // No CHROMIUM_PATH: the config names the Chromium Windup ran, so --check passes here.
    let chromium = windup_engine::browser::find_chromium(None, false).expect("Debian's chromium");
    let o = Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(root)
        .args(["export", "--format", "playwright", "--out", "pw", "--check"])
        .env_remove("WINDUP_BASE_URL")
        .env_remove("CHROMIUM_PATH")
        .env("BASE_URL", &base)
        .env("ACME_TOTP", TOTP_SECRET)
        .output()
        .unwrap();
    let text = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{text}\n{}", stderr(&o));
    let config = std::fs::read_to_string(out.join("playwright.config.ts")).unwrap();
    assert!(
        config.contains(&format!(
            "process.env.CHROMIUM_PATH || \"{}\"",
            chromium.display()
        )),
        "{config}"
    );
    for id in ["files", "otp"] {
        assert!(
            text.contains(&format!("passed pw/{id}.spec.ts")),
            "{id}: {text}"
        );
        let spec = std::fs::read_to_string(out.join(format!("{id}.spec.ts"))).unwrap();
        assert!(!spec.contains(TOTP_SECRET), "{spec}");
    }
    let files = std::fs::read_to_string(out.join("files.spec.ts")).unwrap();
    assert!(files.contains("setInputFiles"), "{files}");
    assert!(files.contains("waitForEvent('download')"), "{files}");
}
