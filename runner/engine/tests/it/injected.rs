//! The in-page engine as modules (`runner/browser/injected/`, assembled by the browser crate's
//! `injected.rs`): the assembled script installs whole, and the modules no other test holds to a
//! reference of their own are checked here, each against something other than itself: states
//! against Chromium's accessibility tree, `select` against the page's own DOM and listeners,
//! navigation tracking against navigations that leave the document and ones that stay in it.

use std::time::Duration;

use serde_json::{Value, json};
use windup_engine::browser::Session;
use windup_engine::locator::{Located, Locator};

use crate::locators::{locator_pages, open};
use crate::support::*;

/// What `epilogue.js` returns: every entry point `browser/injected.rs` and the tests call.
const ENTRY_POINTS: &[&str] = &[
    "accessibleName",
    "check",
    "configure",
    "diagnose",
    "documentId",
    "downloadStarted",
    "elements",
    "failures",
    "fileInput",
    "firstVisible",
    "focusOn",
    "frameOwner",
    "heal",
    "hitResult",
    "installed",
    "inventory",
    "isChecked",
    "isLeaving",
    "localStorage",
    "locate",
    "mask",
    "mute",
    "navigationStatus",
    "observe",
    "query",
    "restoreLocalStorage",
    "role",
    "select",
    "setValue",
    "settled",
    "signature",
    "snapshot",
    "textRuns",
    "unmask",
    "url",
    "version",
];

async fn entry_points(s: &Session) -> Vec<String> {
    s.eval("Object.isFrozen(window.__windup) && window.__windup.version === 1 ? Object.keys(window.__windup).sort() : []")
        .await
        .unwrap()
}

/// Both roads in: the script for new documents (before the page's own), and, on a document
/// that lacks it, the whole assembled script evaluated by the first call into it.
#[test]
fn the_assembled_engine_installs_every_entry_point() {
    let server = locator_pages();
    block_on(async {
        let s = open(&server, "forms.html").await;
        assert_eq!(
            entry_points(&s).await,
            ENTRY_POINTS,
            "installed before load"
        );

        s.goto("about:blank", Duration::from_secs(10))
            .await
            .unwrap();
        let _: bool = s.eval("delete window.__windup").await.unwrap();
        assert!(!s.eval::<bool>("!!window.__windup").await.unwrap());
        let body = Locator::parse("css=body").unwrap().count(&s).await.unwrap();
        assert_eq!(body.visible + body.hidden, 1, "{body:?}");
        assert_eq!(entry_points(&s).await, ENTRY_POINTS, "installed by a call");
        s.close().await;
    });
}

/// A property of a node of Chromium's accessibility tree, as JSON.
fn ax_property(node: &Value, name: &str) -> Option<Value> {
    node["properties"]
        .as_array()?
        .iter()
        .find(|p| p["name"] == name)
        .map(|p| p["value"]["value"].clone())
}

/// `states.js` against Chromium's accessibility tree, on every non-ignored node of the form,
/// role and disabled-ness fixtures: a checkable's state (`isChecked`, what `check` and the
/// verifier read), a heading's level (the `role=heading[level=N]` selector) and a control's
/// disabled-ness (a click's actionability). The selector reads levels as Playwright's getByRole
/// does (the conformance set's reference), which parts from Chromium on two shapes that are
/// left out here: an `h1`…`h6` with an `aria-level` (Playwright keeps the tag's level) and a
/// `role=heading` without one (Playwright gives it none, Chromium 2).
#[test]
fn checked_levels_and_disabled_agree_with_chromium() {
    let server = locator_pages();
    block_on(async {
        let (mut checked, mut levels, mut disabled) = (0, 0, 0);
        let mut mismatches = Vec::new();
        for page in ["forms.html", "roles.html", "disabled.html"] {
            let s = open(&server, page).await;
            let tree = s
                .send_raw("Accessibility.getFullAXTree", json!({}))
                .await
                .unwrap();
            for (i, node) in tree["nodes"].as_array().unwrap().iter().enumerate() {
                let role = node["role"]["value"].as_str().unwrap_or_default();
                let Some(backend) = node["backendDOMNodeId"].as_i64() else {
                    continue;
                };
                let ax_checked = ax_property(node, "checked");
                let ax_level = ax_property(node, "level").filter(|_| role == "heading");
                let control = matches!(
                    role,
                    "button" | "textbox" | "checkbox" | "combobox" | "listbox"
                );
                if node["ignored"].as_bool() == Some(true)
                    || (ax_checked.is_none() && ax_level.is_none() && !control)
                {
                    continue;
                }
                let resolved = s
                    .send_raw("DOM.resolveNode", json!({"backendNodeId": backend}))
                    .await
                    .unwrap();
                let Some(object) = resolved["object"]["objectId"].as_str() else {
                    continue;
                };
                // Marked, so that a selector picks this element alone; and its level as the
                // level selector sees it.
                let level_call = format!(
                    "function () {{ if (this.nodeType !== 1) return null; \
                     this.setAttribute('data-probe', 'p{i}'); \
                     if (/^H[1-6]$/.test(this.tagName) === this.hasAttribute('aria-level')) return -1; \
                     const level = (n) => window.__windup.elements([{{kind: 'role', role: 'heading', \
                     name: null, checked: null, level: n}}]).includes(this); \
                     return [1, 2, 3, 4, 5, 6, 7, 8, 9].find(level) ?? 0; }}"
                );
                let ours = s
                    .send_raw(
                        "Runtime.callFunctionOn",
                        json!({"objectId": object, "functionDeclaration": level_call, "returnByValue": true}),
                    )
                    .await
                    .unwrap();
                let our_level = &ours["result"]["value"];
                if our_level.is_null() {
                    continue;
                }
                let probe = Locator::parse(&format!("css=[data-probe=\"p{i}\"]")).unwrap();
                let what = format!("{page} {role} #{i}");
                if let Some(ax) = ax_checked {
                    checked += 1;
                    let ours = probe.is_checked(&s).await.unwrap();
                    let ours = match ours {
                        Value::Bool(b) => b.to_string(),
                        other => other.as_str().unwrap_or("none").to_string(),
                    };
                    if Some(ours.as_str()) != ax.as_str() {
                        mismatches.push(format!("{what}: checked: chromium {ax}, ours {ours}"));
                    }
                }
                if let Some(ax) = ax_level.filter(|_| our_level.as_i64() != Some(-1)) {
                    levels += 1;
                    if ax.as_i64() != our_level.as_i64() {
                        mismatches.push(format!("{what}: level: chromium {ax}, ours {our_level}"));
                    }
                }
                if control {
                    let ax = ax_property(node, "disabled") == Some(json!(true));
                    let ours = match probe.locate(&s, "click").await.unwrap() {
                        Located::NotFound { .. } => continue,
                        Located::NotActionable { reason } => reason.contains("disabled"),
                        _ => false,
                    };
                    disabled += 1;
                    if ax != ours {
                        mismatches.push(format!("{what}: disabled: chromium {ax}, ours {ours}"));
                    }
                }
            }
            s.close().await;
        }
        assert!(
            checked >= 10 && levels >= 4 && disabled >= 15,
            "compared only {checked} checked states, {levels} levels, {disabled} controls"
        );
        assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    });
}

/// `select` (act.js) against the page: the `<select>`'s own value and the events its
/// listeners heard.
#[test]
fn select_chooses_an_option_by_value_or_label_and_fires_input_and_change() {
    let server = locator_pages();
    block_on(async {
        let s = open(&server, "forms.html").await;
        let country = Locator::parse(r#"label="Country""#).unwrap();
        let value = || s.eval::<String>("document.getElementById('country').value");
        let refused = |located: Located| match located {
            Located::NotActionable { reason } => reason,
            other => panic!("{other:?}"),
        };

        let by_value = country.select(&s, "fr").await.unwrap();
        assert!(matches!(by_value, Located::Ok { .. }), "{by_value:?}");
        assert_eq!(value().await.unwrap(), "fr");
        let by_label = country.select(&s, "Germany").await.unwrap();
        assert!(matches!(by_label, Located::Ok { .. }), "{by_label:?}");
        assert_eq!(value().await.unwrap(), "de");

        let closed = refused(country.select(&s, "Closed").await.unwrap());
        assert!(closed.contains("disabled"), "{closed}");
        let missing = refused(country.select(&s, "Mars").await.unwrap());
        assert!(
            missing.contains("Mars") && missing.contains("Germany, France"),
            "{missing}"
        );
        assert_eq!(
            value().await.unwrap(),
            "de",
            "a refused choice changes nothing"
        );
        let email = Locator::parse(r#"label="Email""#).unwrap();
        let not_select = refused(email.select(&s, "x").await.unwrap());
        assert!(not_select.contains("not a <select>"), "{not_select}");

        let events: Vec<String> = s.eval("window.events").await.unwrap();
        assert_eq!(events, ["input:fr", "change:fr", "input:de", "change:de"]);
        s.close().await;
    });
}

/// `navigation.js` against the browser's own navigation events: a document is being left only
/// by a navigation that replaces it; an anchor, `pushState`, a navigation the page cancels, a
/// download and a route a single-page router intercepts all leave it current. Each is asked
/// in the page right after the click, before the browser gets on with it.
#[test]
fn leaving_is_told_from_navigations_that_stay() {
    let server = locator_pages();
    block_on(async {
        let s = open(&server, "navigation.html").await;
        let click = |id: &str| {
            format!("document.getElementById('{id}').click(), window.__windup.isLeaving()")
        };
        assert!(!s.eval::<bool>("window.__windup.isLeaving()").await.unwrap());
        for (id, what) in [
            ("hash", "a link to an anchor"),
            ("push", "pushState"),
            ("blocked", "a navigation the page cancels"),
            ("download", "a download"),
            // Last: the links' relative addresses resolve against the routed URL after it.
            ("spa", "a route the page's router intercepts"),
        ] {
            assert!(
                !s.eval::<bool>(&click(id)).await.unwrap(),
                "{what} does not leave"
            );
        }
        let routed: String = s
            .eval("document.getElementById('section').textContent")
            .await
            .unwrap();
        assert_eq!(routed, "Routed /spa/inbox", "the router took the route");

        let again = server.base.join("navigation.html").unwrap();
        s.goto(again.as_str(), Duration::from_secs(10))
            .await
            .unwrap();
        assert!(
            s.eval::<bool>(&click("away")).await.unwrap(),
            "a link to another document leaves"
        );
        s.close().await;
    });
}
