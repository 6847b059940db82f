//! How people drive the binary beyond `run`: `--help` as the README quotes it, `init`,
//! `-v`/`-q`, and reports configured in windup.toml.

use std::process::Command;

use windup_testkit::repo_root;

use crate::support::*;

#[test]
fn readme_usage_matches_help() {
    // The README quotes `windup --help`; this fails when they drift apart.
    let out = Command::new(env!("CARGO_BIN_EXE_windup"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout).to_string();
    let readme = std::fs::read_to_string(repo_root().join("README.md")).unwrap();
    let start = readme
        .find("<!-- help-start -->")
        .expect("README has a help block");
    let end = readme
        .find("<!-- help-end -->")
        .expect("README has a help block");
    let quoted = readme[start..end]
        .lines()
        .skip_while(|l| !l.starts_with("```"))
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(
        quoted.trim(),
        help.trim(),
        "update the README's usage block"
    );
}

#[test]
fn init_scaffolds_a_valid_project_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join(".gitignore"), "target/\n.env.local\n").unwrap();
    let out = windup(dir.path(), &["init", "--base-url", "http://127.0.0.1:4000"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for f in [
        "windup.toml",
        "e2e/scenarios/home-page.yaml",
        "e2e/manifest.yaml",
    ] {
        assert!(dir.path().join(f).exists(), "{f}");
    }
    let config = std::fs::read_to_string(dir.path().join("windup.toml")).unwrap();
    assert!(config.contains("http://127.0.0.1:4000"));
    let ignore = std::fs::read_to_string(dir.path().join(".gitignore")).unwrap();
    assert_eq!(ignore.matches(".env.local").count(), 1, "{ignore}");
    assert!(
        ignore.contains("e2e/.windup/runs/") && ignore.starts_with("target/\n"),
        "{ignore}"
    );
    assert!(
        !ignore.lines().any(|l| l.starts_with("e2e/.windup/cache")),
        "the plan cache is meant to be committed: {ignore}"
    );
    let v = windup(dir.path(), &["validate"]);
    assert_eq!(v.status.code(), Some(0), "{}", stderr(&v));
    // A second init changes nothing.
    std::fs::write(
        dir.path().join("windup.toml"),
        "base_url = \"http://mine\"\n",
    )
    .unwrap();
    let before = tree(dir.path());
    let again = windup(dir.path(), &["init"]);
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(tree(dir.path()), before, "init never overwrites");
    let bad = windup(
        dir.path(),
        &["init", "--root", "elsewhere", "--base-url", "not a url"],
    );
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn verbose_prints_every_step_and_quiet_only_the_summary() {
    let dir = example();
    let (_server, base) = serve(dir.path());
    let v = windup(dir.path(), &["run", "sign-in", "-v", "--base-url", &base]);
    assert_eq!(v.status.code(), Some(0), "{}", stderr(&v));
    let err = stderr(&v);
    assert!(
        err.contains("sign-in a1 fill label=\"Email\" value_ref=ACME_ADMIN_EMAIL ok ("),
        "{err}"
    );
    // Results on stdout, progress on stderr.
    assert!(stdout(&v).contains("PASS  sign-in"), "{}", printed(&v));
    assert!(!err.contains("PASS  sign-in"), "{err}");
    // The run's HTML report, by default, in its run folder; its path is the last line.
    let html = stdout(&v)
        .lines()
        .last()
        .and_then(|l| l.strip_prefix("HTML report: "))
        .unwrap_or_else(|| panic!("no report path last in:\n{}", stdout(&v)))
        .to_string();
    assert!(
        html.starts_with("e2e/.windup/runs/") && html.ends_with("/report.html"),
        "{html}"
    );
    let page = std::fs::read_to_string(dir.path().join(&html)).unwrap();
    assert!(page.contains("sign-in"), "{page}");
    let q = windup(
        dir.path(),
        &[
            "run",
            "sign-in",
            "-q",
            "--no-html-report",
            "--base-url",
            &base,
        ],
    );
    assert_eq!(q.status.code(), Some(0), "{}", stderr(&q));
    let out = stdout(&q);
    assert!(!printed(&q).contains("PASS"), "{out}");
    assert!(out.contains("1 passed, 0 failed"), "{out}");
    assert!(!out.contains("HTML report"), "{out}");
    let reports = std::fs::read_dir(dir.path().join("e2e/.windup/runs"))
        .unwrap()
        .filter(|run| run.as_ref().unwrap().path().join("report.html").exists())
        .count();
    assert_eq!(reports, 1, "--no-html-report writes none");
}

#[test]
fn windup_toml_reports_are_written_every_run_and_checked() {
    let dir = example();
    let toml = dir.path().join("windup.toml");
    let base_config = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("reports = [\"pdf=x.pdf\"]\n{base_config}")).unwrap();
    let (_server, base) = serve(dir.path());
    let bad = windup(dir.path(), &["run", "sign-in", "--base-url", &base]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("windup.toml: reports[0]"),
        "{}",
        stderr(&bad)
    );
    std::fs::write(
        &toml,
        format!("reports = [\"junit=out/e2e.xml\"]\n{base_config}"),
    )
    .unwrap();
    let sub = dir.path().join("e2e");
    let ok = windup(
        &sub,
        &["run", "sign-in", "--root", "..", "--base-url", &base],
    );
    assert_eq!(ok.status.code(), Some(0), "{}", stderr(&ok));
    let xml = std::fs::read_to_string(dir.path().join("out/e2e.xml")).unwrap();
    assert!(xml.contains("name=\"sign-in\""), "{xml}");
}

#[test]
fn scan_writes_the_site_map_once_and_refuses_a_missing_source() {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &repo_root().join("runner/engine/tests/fixtures/scan/monorepo-turbo"),
        dir.path(),
    );
    std::fs::write(
        dir.path().join("windup.toml"),
        "base_url = \"http://127.0.0.1:4000\"\n[scan]\nroots = [\"apps/web\"]\n",
    )
    .unwrap();
    let out = windup(dir.path(), &["scan", "--list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(listed.contains("/settings/billing\t"), "{listed}");
    assert!(stderr(&out).contains("updated"), "{}", stderr(&out));
    let map = std::fs::read(dir.path().join("e2e/.windup/sitemap.json")).unwrap();
    let parsed: serde_json::Value = serde_json::from_slice(&map).unwrap();
    assert_eq!(parsed["map_version"], "0.1");
    assert_eq!(parsed["scan"]["routes"], 9);
    // Nothing changed in the source: the file is left as it was.
    let again = windup(dir.path(), &["scan"]);
    assert_eq!(again.status.code(), Some(0));
    assert!(stderr(&again).contains("unchanged"), "{}", stderr(&again));
    assert_eq!(
        std::fs::read(dir.path().join("e2e/.windup/sitemap.json")).unwrap(),
        map
    );
    let bad = windup(dir.path(), &["scan", "--source", "apps/missing"]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(stderr(&bad).contains("does not exist"), "{}", stderr(&bad));
    // `validate` reads the site map too, and names a broken one.
    let example = example();
    let map = example.path().join("e2e/.windup/sitemap.json");
    std::fs::write(&map, r#"{"map_version": "0.1", "pages": [{"route": 7}]}"#).unwrap();
    let v = windup(example.path(), &["validate"]);
    assert_eq!(v.status.code(), Some(2), "{}", stderr(&v));
    assert!(stderr(&v).contains("sitemap.json"), "{}", stderr(&v));
}
