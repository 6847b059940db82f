//! Django's own admin, a real app nobody here wrote: the flows Django's Selenium tests cover,
//! translated locator for locator into hand-written plans
//! (`runner/engine/tests/fixtures/django/project`, mapped in docs/real-apps.md), replayed by
//! `windup run` against `manage.py runserver` with a `before_each` hook that reseeds the data.
//! The same plans are then exported and run under `@playwright/test` (`windup export --check`)
//! against the same server. The oracle is Django's database read by Django (`manage.py
//! dumpdata`), not Windup's verdict; a mutant of the admin that drops inline rows must fail its
//! scenario.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use windup_testkit::django::{DjangoAdmin, site};
use windup_testkit::repo_root;

use crate::support::*;

/// The superuser's password: a secret, given to Windup by name (`DJANGO_ADMIN_PASSWORD`).
const PASSWORD: &str = "a real secret 4 the admin";

/// The project, its committed plans cached as a person's, keyed to the scenarios' text.
pub(crate) fn django_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    copy_dir(
        &repo_root().join("runner/engine/tests/fixtures/django/project"),
        root,
    );
    for entry in std::fs::read_dir(root.join("plans")).unwrap() {
        let path = entry.unwrap().path();
        let plan: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        cache_plan(root, plan);
    }
    dir
}

/// `windup ARGS` in `root` with what the hooks and the plans need from the environment.
pub(crate) fn windup_django(root: &Path, app: &DjangoAdmin, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_windup"))
        .current_dir(root)
        .args(args)
        .env_remove("WINDUP_BASE_URL")
        .envs(app.env())
        .env("CATALOG_SITE", site())
        .env("DJANGO_ADMIN_PASSWORD", PASSWORD)
        .output()
        .expect("run windup")
}

/// The catalogue as Django's `dumpdata` wrote it after a scenario: `name|country|active` per
/// author, sorted, and each author's book titles, sorted.
fn catalogue(dump: &str) -> Vec<String> {
    let rows: Vec<Value> = serde_json::from_str(dump).unwrap();
    let mut authors: Vec<(i64, String)> = rows
        .iter()
        .filter(|r| r["model"] == "catalog.author")
        .map(|r| {
            let f = &r["fields"];
            let line = format!(
                "{}|{}|{}",
                f["name"].as_str().unwrap(),
                f["country"].as_str().unwrap(),
                f["active"]
            );
            (r["pk"].as_i64().unwrap(), line)
        })
        .collect();
    authors.sort_by(|a, b| a.1.cmp(&b.1));
    authors
        .into_iter()
        .map(|(pk, line)| {
            let mut books: Vec<&str> = rows
                .iter()
                .filter(|r| r["model"] == "catalog.book" && r["fields"]["author"] == pk)
                .map(|r| r["fields"]["title"].as_str().unwrap())
                .collect();
            books.sort();
            format!("{line}|{}", books.join("|"))
        })
        .collect()
}

/// Adds an `after_each` hook that saves Django's own dump of the catalogue per scenario.
fn dump_after_each(root: &Path) {
    let toml = root.join("windup.toml");
    let text = std::fs::read_to_string(&toml).unwrap().replace(
        "timeout_ms = 30000",
        "after_each = 'python3 \"$CATALOG_SITE/manage.py\" dumpdata catalog > \"dump-$WINDUP_SCENARIO_ID.json\"'\ntimeout_ms = 30000",
    );
    std::fs::write(toml, text).unwrap();
}

#[test]
fn djangos_admin_flows_pass_and_djangos_data_shows_their_effects() {
    let app = DjangoAdmin::start(PASSWORD, None);
    let project = django_project();
    let root = project.path();
    dump_after_each(root);
    let o = windup_django(
        root,
        &app,
        &[
            "run",
            "--require-cached",
            "--base-url",
            &app.base,
            "--report",
            "json=r.json",
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report = report(&root.join("r.json"));
    let scenarios = report["scenarios"].as_array().unwrap();
    assert_eq!(scenarios.len(), 6, "{report}");
    for s in scenarios {
        assert_eq!(s["status"], "passed", "{s}");
        // Each scenario started from the seeded catalogue: its before_each hook ran first.
        let hooks: Vec<&str> = s["hooks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["hook"].as_str().unwrap())
            .collect();
        assert_eq!(hooks, ["before_each", "after_each"], "{s}");
    }
    let seed = [
        "Italo Calvino|IT|true|Invisible Cities|The Baron in the Trees",
        "Octavia E. Butler|US|true|Kindred",
        "Stanisław Lem|PL|true|Solaris|The Cyberiad",
        "Ursula K. Le Guin|US|true|The Dispossessed",
    ];
    let dump = |id: &str| {
        catalogue(&std::fs::read_to_string(root.join(format!("dump-{id}.json"))).unwrap())
    };
    // What each flow did, as Django stored it.
    let mut added = seed.to_vec();
    added.insert(
        1,
        "N. K. Jemisin|US|true|The Fifth Season|The Obelisk Gate|The Stone Sky",
    );
    assert_eq!(dump("add-author-with-books"), added);
    assert_eq!(dump("delete-selected-authors"), seed[1..].to_vec());
    let mut inactive = seed.to_vec();
    inactive[1] = "Octavia E. Butler|US|false|Kindred";
    inactive[3] = "Ursula K. Le Guin|US|false|The Dispossessed";
    assert_eq!(dump("mark-authors-inactive"), inactive);
    for id in ["search-authors", "filter-by-country", "sign-in"] {
        assert_eq!(dump(id), seed.to_vec(), "{id} changes nothing");
    }
    // The secret never reached the report.
    let text = std::fs::read_to_string(root.join("r.json")).unwrap();
    assert!(!text.contains(PASSWORD));

    // The same plans exported and run under Playwright against the same server, each group
    // from the seeded catalogue (a spec runs no hook): Django's own dump shows each flow's
    // effect. Marking inactive, searching and filtering by country do not disturb each other.
    let node_modules = windup_testkit::fixtures()
        .playwright_test
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let chromium = windup_engine::browser::find_chromium(None, false).expect("Debian's chromium");
    let groups: [(&[&str], Vec<&str>); 3] = [
        (&["add-author-with-books"], added.clone()),
        (&["delete-selected-authors"], seed[1..].to_vec()),
        (
            &[
                "mark-authors-inactive",
                "search-authors",
                "filter-by-country",
            ],
            inactive.to_vec(),
        ),
    ];
    for (group, (ids, effect)) in groups.into_iter().enumerate() {
        assert!(app.manage(&["seed"]).status.success());
        // A folder per group: Playwright runs every spec in it.
        let pw = format!("pw{group}");
        std::fs::create_dir_all(root.join(&pw)).unwrap();
        std::os::unix::fs::symlink(&node_modules, root.join(&pw).join("node_modules")).unwrap();
        let mut args = vec!["export"];
        args.extend_from_slice(ids);
        args.extend(["--format", "playwright", "--out", &pw, "--check"]);
        let o = Command::new(env!("CARGO_BIN_EXE_windup"))
            .current_dir(root)
            .args(&args)
            .env_remove("WINDUP_BASE_URL")
            .env("BASE_URL", &app.base)
            .env("CHROMIUM_PATH", &chromium)
            .env("DJANGO_ADMIN_PASSWORD", PASSWORD)
            .output()
            .expect("run windup");
        let out = stdout(&o);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{ids:?}: {}\n{out}\n{}",
            playwright_failures(&root.join(&pw)),
            stderr(&o)
        );
        assert!(
            out.contains(&format!("passed {pw}/sign-in.setup.ts")),
            "{out}"
        );
        for id in ids {
            assert!(out.contains(&format!("passed {pw}/{id}.spec.ts")), "{out}");
            let spec = std::fs::read_to_string(root.join(format!("{pw}/{id}.spec.ts"))).unwrap();
            // Plain Playwright: no tab follower where no tab opened.
            assert!(!spec.contains("followNewTab"), "{spec}");
        }
        let dump = app.manage(&["dumpdata", "catalog"]);
        assert!(
            dump.status.success(),
            "{}",
            String::from_utf8_lossy(&dump.stderr)
        );
        assert_eq!(
            catalogue(&String::from_utf8_lossy(&dump.stdout)),
            effect,
            "{ids:?} under Playwright"
        );
    }
    keep_exports(root, "django");
    let setup = std::fs::read_to_string(root.join("pw0/sign-in.setup.ts")).unwrap();
    assert!(
        setup.contains("process.env.DJANGO_ADMIN_PASSWORD"),
        "{setup}"
    );
    assert!(!setup.contains(PASSWORD), "{setup}");
}

#[test]
fn a_mutant_admin_that_drops_inline_rows_fails_the_add_scenario() {
    let app = DjangoAdmin::start(PASSWORD, Some("no-inlines"));
    let project = django_project();
    let root = project.path();
    let o = windup_django(
        root,
        &app,
        &[
            "run",
            "add-author-with-books",
            "--require-cached",
            "--base-url",
            &app.base,
            "--report",
            "json=r.json",
        ],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let report = report(&root.join("r.json"));
    let by_id = |id: &str| {
        report["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["scenario_id"] == id)
            .unwrap()
            .clone()
    };
    let add = by_id("add-author-with-books");
    assert_eq!(add["status"], "failed", "{add}");
    assert_eq!(add["failure_class"], "postcondition_failed", "{add}");
    assert_eq!(add["failed_action_id"], "a9", "{add}");
    // Django agrees: the author was saved without a book.
    let names = app.catalogue();
    assert!(
        names.iter().any(|l| l == "N. K. Jemisin|US|True"),
        "{names:?}"
    );
}
