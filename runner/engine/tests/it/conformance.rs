//! The locator conformance set: Windup's selectors against Playwright itself. Each case of
//! `tests/conformance/cases.json` is a small page and a Windup selector; `windup export`'s
//! mapping turns the selector into a Playwright locator, `reference.mjs` resolves it with
//! playwright-core in the same Chromium, and the in-page engine resolves the selector on the same
//! page. Both match lists (every match, visible or hidden, in order, as element paths) must be
//! equal, and so must the element a step acts on (Windup's first visible match, the exported
//! spec's `.filter({ visible: true }).first()`), unless the case is in [`DIFFERENCES`], the
//! deliberate differences that docs/selectors.md lists too.

use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use windup_engine::browser::BrowserOptions;
use windup_model::Selector;
use windup_testkit::{Canned, fixtures};

use crate::support::*;

/// Cases where the element a step acts on deliberately differs from the exported spec's, with
/// the reason (their match lists must still agree); the table "Where Windup differs from
/// Playwright" in docs/selectors.md says the same.
const DIFFERENCES: &[(&str, &str)] = &[
    ("text-inputs/option", OPTION_VISIBLE),
    ("text-inputs/options-sub", OPTION_VISIBLE),
    ("role-implicit/option", OPTION_VISIBLE),
    ("role-states/selected-option", OPTION_VISIBLE),
    ("role-states/option-disabled", OPTION_VISIBLE),
];

const OPTION_VISIBLE: &str = "an <option> of a visible drop-down <select> is visible to Windup (as \
     the select shows it); Playwright sees no box, so it is hidden";

#[derive(Deserialize)]
struct Cases {
    pages: Vec<Page>,
}

#[derive(Deserialize)]
struct Page {
    page: String,
    html: String,
    /// The attribute `testid=` reads on this page (`[browser] testid_attribute`, Playwright's
    /// `testIdAttribute`); `data-testid` when absent.
    #[serde(default, rename = "testIdAttribute")]
    testid_attribute: Option<String>,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    id: String,
    selector: String,
    note: String,
    /// For a selector Windup's parser refuses (so the exporter has nothing to map): the
    /// Playwright locator it stands for, which Playwright must refuse too.
    #[serde(default)]
    playwright: Option<String>,
}

impl Case {
    /// The Playwright locators for the case, every match and the one a step acts on: the
    /// exporter's, else the case's own.
    fn locators(&self) -> (String, String) {
        match Selector::parse(&self.selector) {
            Ok(selector) => (
                windup_engine::export::every_match("page", &selector),
                windup_engine::export::acted_on("page", &selector),
            ),
            Err(e) => {
                let own = self.playwright.clone().unwrap_or_else(|| {
                    panic!("{}: {e} (a refused selector needs `playwright`)", self.id)
                });
                (own.clone(), own)
            }
        }
    }
}

/// What one side found for a case: element paths (every match, and the one a step acts on:
/// none or one), or why the selector could not run.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
enum Found {
    Paths {
        paths: Vec<String>,
        acted_on: Vec<String>,
    },
    Error {
        error: String,
    },
}

fn conformance_dir() -> std::path::PathBuf {
    engine_dir().join("tests/conformance")
}

fn load_cases() -> Cases {
    let path = conformance_dir().join("cases.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Serves every page at `/<page>.html`, the same bytes for both browsers.
fn serve(cases: &Cases) -> Server {
    let server = Server::start(&conformance_dir());
    for p in &cases.pages {
        let html = if p.html.trim_start().to_lowercase().starts_with("<!doctype") {
            p.html.clone()
        } else {
            format!("<!doctype html>\n{}", p.html)
        };
        server.route(
            &format!("/{}.html", p.page),
            Canned {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: html.into_bytes(),
                delay: Duration::ZERO,
            },
        );
    }
    server
}

/// Playwright's answers: runs reference.mjs once over every case.
fn reference(cases: &Cases, server: &Server) -> HashMap<String, Found> {
    let chromium = windup_engine::browser::find_chromium(None, false).expect("chromium");
    let node_modules = fixtures()
        .playwright_test
        .parent()
        .and_then(|p| p.parent())
        .expect("node_modules above @playwright/test")
        .to_path_buf();
    let pages: Vec<Value> = cases
        .pages
        .iter()
        .map(|p| {
            let cases: Vec<Value> = p
                .cases
                .iter()
                .map(|c| {
                    let (every, acted_on) = c.locators();
                    json!({"id": c.id, "locator": every, "actedOn": acted_on})
                })
                .collect();
            json!({
                "url": server.base.join(&format!("{}.html", p.page)).unwrap().as_str(),
                "testIdAttribute": p.testid_attribute.as_deref().unwrap_or("data-testid"),
                "cases": cases,
            })
        })
        .collect();
    let job = json!({"executablePath": chromium, "pages": pages});
    let mut child = Command::new("node")
        .arg(conformance_dir().join("reference.mjs"))
        .env("WINDUP_NODE_MODULES", &node_modules)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node on PATH (Node >= 20)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(job.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "reference.mjs failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("reference.mjs prints JSON")
}

/// Windup's answers: the in-page engine's match list for each case, the pages with a test-id
/// attribute of their own in a browser configured with it.
async fn windup(cases: &Cases, server: &Server) -> HashMap<String, Found> {
    let mut out = HashMap::new();
    let (own, shared): (Vec<&Page>, Vec<&Page>) = cases
        .pages
        .iter()
        .partition(|p| p.testid_attribute.is_some());
    windup_pages(browser(), &shared, server, &mut out).await;
    let mut by_attribute: HashMap<&str, Vec<&Page>> = HashMap::new();
    for p in own {
        by_attribute
            .entry(p.testid_attribute.as_deref().unwrap())
            .or_default()
            .push(p);
    }
    for (attribute, pages) in by_attribute {
        let configured = windup_engine::browser::Browser::new(BrowserOptions {
            testid_attribute: attribute.to_string(),
            ..browser_options()
        });
        windup_pages(&configured, &pages, server, &mut out).await;
        configured.close().await;
    }
    out
}

async fn windup_pages(
    browser: &windup_engine::browser::Browser,
    pages: &[&Page],
    server: &Server,
    out: &mut HashMap<String, Found>,
) {
    let path_of = std::fs::read_to_string(conformance_dir().join("path.js")).unwrap();
    let session = browser.acquire_session().await.expect("session");
    note_pid(browser).await;
    for p in pages {
        let url = server.base.join(&format!("{}.html", p.page)).unwrap();
        session
            .goto(url.as_str(), Duration::from_secs(10))
            .await
            .expect("page loads");
        for c in &p.cases {
            let parts = match Selector::parse(&c.selector) {
                Ok(selector) => selector.parts,
                Err(e) => {
                    out.insert(c.id.clone(), Found::Error { error: e.0 });
                    continue;
                }
            };
            let js = format!(
                "(function () {{ const pathOf = (\n{path_of}\n); try {{ const parts = {}; const first = window.__windup.firstVisible(parts); return {{ paths: window.__windup.elements(parts).map(pathOf), acted_on: first ? [pathOf(first)] : [] }}; }} catch (e) {{ return {{ error: String(e && e.message || e) }}; }} }})()",
                serde_json::to_string(&parts).unwrap()
            );
            let found: Found = session.eval(&js).await.expect("evaluates");
            out.insert(c.id.clone(), found);
        }
    }
    session.close().await;
}

#[test]
fn windup_resolves_every_case_as_playwright_does() {
    let cases = load_cases();
    let server = serve(&cases);
    let theirs = reference(&cases, &server);
    let ours = block_on(windup(&cases, &server));
    let allowed: HashMap<&str, &str> = DIFFERENCES.iter().copied().collect();
    let (mut total, mut agree, mut lists_agree) = (0, 0, 0);
    let mut failures = Vec::new();
    let mut stale = Vec::new();
    for p in &cases.pages {
        for c in &p.cases {
            total += 1;
            let t = theirs
                .get(&c.id)
                .unwrap_or_else(|| panic!("{}: no reference", c.id));
            let o = &ours[&c.id];
            let (lists, acted) = match (t, o) {
                (
                    Found::Paths { paths, acted_on },
                    Found::Paths {
                        paths: our_paths,
                        acted_on: our_acted_on,
                    },
                ) => (paths == our_paths, acted_on == our_acted_on),
                // Both refusing the selector agree, whatever each one's words.
                (Found::Error { .. }, Found::Error { .. }) => (true, true),
                _ => (false, false),
            };
            lists_agree += usize::from(lists);
            agree += usize::from(lists && acted);
            let allowed = allowed.contains_key(c.id.as_str());
            if lists && acted && allowed {
                stale.push(c.id.clone());
            }
            if !lists || (!acted && !allowed) {
                failures.push(format!(
                    "{} `{}` ({}):\n  playwright {t:?}\n  windup     {o:?}",
                    c.id, c.selector, c.note
                ));
            }
        }
    }
    println!(
        "locator conformance: {agree} of {total} cases agree with Playwright \
         ({lists_agree} of {total} match lists; {} acted-on differences documented)",
        DIFFERENCES.len()
    );
    assert!(total >= 150, "only {total} cases");
    assert!(
        stale.is_empty(),
        "listed as differences but agree now (remove them from DIFFERENCES and the docs): {stale:?}"
    );
    assert!(
        failures.is_empty(),
        "{agree} of {total} cases agree; {} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
