//! Locators against small pages: shadow DOM, iframes, hidden duplicates, the innermost text,
//! chains and filters, quote escaping, and roles and names checked against Chromium's own
//! accessibility tree. Identity is checked at the click point the engine computes, so a wrong
//! coordinate fails as surely as a wrong element.

use std::time::Duration;

use serde_json::{Value, json};
use windup_engine::browser::Session;
use windup_engine::locator::{Counts, Located, Locator};

use crate::support::*;

pub(crate) fn locator_pages() -> Server {
    Server::start(&engine_dir().join("tests/fixtures/locators"))
}

pub(crate) async fn open(server: &Server, page: &str) -> Session {
    let session = browser().acquire_session().await.expect("session");
    note_pid(browser()).await;
    let url = server.base.join(page).unwrap();
    session
        .goto(url.as_str(), Duration::from_secs(10))
        .await
        .expect("page loads");
    session
}

/// What is at the engine's click point for `selector`: the element's id, else its
/// data-testid, else its text; descending through open shadow roots and iframes.
async fn hit(session: &Session, selector: &str) -> String {
    let locator = Locator::parse(selector).unwrap();
    let located = locator.locate(session, "hover").await.unwrap();
    let Located::Ok { x, y, .. } = located else {
        panic!("{selector}: {located:?}");
    };
    let js = format!(
        r#"(function (x, y) {{
            let doc = document, el = doc.elementFromPoint(x, y);
            for (let i = 0; el && i < 20; i++) {{
                if (el.shadowRoot) {{
                    const inner = el.shadowRoot.elementFromPoint(x, y);
                    if (inner && inner !== el) {{ el = inner; continue; }}
                }}
                if (el.localName === 'iframe') {{
                    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
                    x -= r.left + el.clientLeft + parseFloat(cs.paddingLeft);
                    y -= r.top + el.clientTop + parseFloat(cs.paddingTop);
                    doc = el.contentDocument; el = doc.elementFromPoint(x, y); continue;
                }}
                break;
            }}
            for (let e = el; e; e = e.parentElement) {{
                if (e.id) return e.id;
                if (e.dataset && e.dataset.testid) return e.dataset.testid;
            }}
            return el ? el.textContent.trim() : null;
        }})({x}, {y})"#
    );
    session
        .eval::<Option<String>>(&js)
        .await
        .unwrap()
        .unwrap_or_default()
}

async fn counts(session: &Session, selector: &str) -> Counts {
    Locator::parse(selector)
        .unwrap()
        .count(session)
        .await
        .unwrap()
}

#[test]
fn shadow_dom_is_pierced() {
    let server = locator_pages();
    block_on(async {
        let s = open(&server, "shadow.html").await;
        assert_eq!(hit(&s, r#"role=button[name="Deep button"]"#).await, "deep");
        assert_eq!(hit(&s, "testid=card-action").await, "card-action");
        assert_eq!(counts(&s, "testid=card-action").await.visible, 2);
        assert_eq!(hit(&s, "text=\"Deep text\"").await, "Deep text");
        assert_eq!(
            counts(&s, r#"role=button[name="Closed button"]"#)
                .await
                .visible,
            0,
            "closed roots stay closed"
        );
        // Playwright's order: a tree's own matches first, then each shadow tree's, so the later
        // light button comes before the cards' buttons.
        assert_eq!(hit(&s, "role=button >> nth=0").await, "light-save");
        assert_eq!(hit(&s, "role=button >> nth=1").await, "after");
        assert_eq!(hit(&s, "role=button >> nth=2").await, "card-action");
        assert_eq!(
            hit(&s, r#"css=#card2 >> role=button[name="Open card"]"#).await,
            "card-action"
        );
        s.close().await;
    });
}

#[test]
fn same_origin_iframes_are_searched_after_the_main_document() {
    let server = locator_pages();
    block_on(async {
        let s = open(&server, "iframe.html").await;
        // Both documents have "Shared": the main one wins.
        assert_eq!(hit(&s, r#"role=button[name="Shared"]"#).await, "main-btn");
        assert_eq!(counts(&s, r#"role=button[name="Shared"]"#).await.visible, 2);
        // Inside the frame, and the click point is right (offset by the frame's border and padding).
        assert_eq!(
            hit(&s, r#"role=button[name="Frame only"]"#).await,
            "frame-only"
        );
        assert_eq!(hit(&s, r#"label="Frame field""#).await, "frame-input");
        // The hidden frame's copy is not visible: role= leaves it out (hidden for ARIA, as
        // getByRole does), text= counts it as a hidden match.
        let c = counts(&s, r#"role=button[name="Frame only"]"#).await;
        assert_eq!((c.visible, c.hidden), (1, 0));
        let c = counts(&s, r#"text="Frame only""#).await;
        assert_eq!((c.visible, c.hidden), (1, 1));
        s.close().await;
    });
}

#[test]
fn the_visible_duplicate_wins() {
    let server = locator_pages();
    block_on(async {
        let s = open(&server, "hidden.html").await;
        assert_eq!(hit(&s, r#"role=button[name="Save"]"#).await, "save-visible");
        assert_eq!(
            hit(&s, r#"role=button[name="Save"] >> nth=1"#).await,
            "save-second"
        );
        let c = counts(&s, "css=button").await;
        assert!(c.hidden >= 4, "{c:?}");
        assert_eq!(counts(&s, r#"text="Only hidden text""#).await.visible, 0);
        assert_eq!(
            hit(&s, r#"role=button[name="Inside contents"]"#).await,
            "in-contents"
        );
        // Hidden matches are reported, so a failure can say "1 hidden match".
        let d = Locator::parse("text=\"Only hidden text\"")
            .unwrap()
            .diagnose(&s)
            .await
            .unwrap();
        assert_eq!((d.visible, d.hidden), (0, 1));
        s.close().await;
    });
}

#[test]
fn text_matches_the_innermost_element() {
    let server = locator_pages();
    block_on(async {
        let s = open(&server, "text.html").await;
        assert_eq!(hit(&s, r#"text="world""#).await, "world");
        assert_eq!(hit(&s, "text=hello").await, "outer");
        assert_eq!(
            hit(&s, r#"text="Welcome back""#).await,
            "card-title",
            "whitespace-normalised"
        );
        assert_eq!(hit(&s, r#"text="Submit order""#).await, "nested-span");
        assert_eq!(hit(&s, r#"text="Send now""#).await, "submit-input");
        assert_eq!(
            hit(&s, "text=mixed case").await,
            "case",
            "bare text is case-insensitive"
        );
        assert_eq!(
            counts(&s, r#"text="mixed case""#).await.visible,
            0,
            "quoted text is exact"
        );
        assert_eq!(
            counts(&s, "text=from script").await.visible,
            0,
            "scripts are not text"
        );
        assert_eq!(
            counts(&s, r#"text="Sign in to continue""#).await.visible,
            1,
            "not noscript or CSS"
        );
        assert_eq!(hit(&s, r#"text="non breaking space""#).await, "nbsp");
        s.close().await;
    });
}

#[test]
fn chains_has_text_and_nth() {
    let server = locator_pages();
    block_on(async {
        let s = open(&server, "chains.html").await;
        let checked = |sel: &'static str| {
            let s = &s;
            async move { Locator::parse(sel).unwrap().is_checked(s).await.unwrap() }
        };
        assert_eq!(
            checked(r#"role=listitem >> has-text="Walk dog" >> role=checkbox"#).await,
            json!(true)
        );
        assert_eq!(
            checked(r#"role=listitem >> has-text="buy MILK" >> role=checkbox"#).await,
            json!(false)
        );
        // nth counts visible matches only: the hidden chore is skipped.
        assert_eq!(
            hit(&s, r#"testid=todo >> nth=2 >> role=button[name="Delete"]"#).await,
            "todo"
        );
        let third = Locator::parse("testid=todo >> nth=2").unwrap();
        let Located::Ok { describe, .. } = third.locate(&s, "hover").await.unwrap() else {
            panic!("third visible todo")
        };
        assert!(describe.contains("Buy bread"), "{describe}");
        // Each match of the previous part is searched; results are deduplicated.
        assert_eq!(
            counts(&s, r#"css=.panel >> role=button[name="Edit"]"#)
                .await
                .visible,
            3
        );
        assert_eq!(
            counts(&s, r#"css=#s2 >> role=button[name="Edit"] >> nth=1"#)
                .await
                .visible,
            1
        );
        assert_eq!(counts(&s, "role=listitem >> nth=9").await.visible, 0);
        s.close().await;
    });
}

#[test]
fn quotes_and_backslashes_are_escaped_json_style() {
    let server = locator_pages();
    block_on(async {
        let s = open(&server, "quotes.html").await;
        assert_eq!(hit(&s, r#"role=button[name="Say \"hello\""]"#).await, "dq");
        assert_eq!(hit(&s, r#"role=button[name="C:\\temp\\new"]"#).await, "bs");
        assert_eq!(
            hit(&s, r#"role=button[name="\"quoted\" \\ back"]"#).await,
            "both"
        );
        assert_eq!(hit(&s, r#"role=link[name="It's a link"]"#).await, "sq");
        assert_eq!(hit(&s, r#"label="Name \"nick\"""#).await, "q-in");
        assert_eq!(hit(&s, r#"placeholder="e.g. \"Bob\"""#).await, "q-in");
        assert_eq!(hit(&s, r#"text="a >> b""#).await, "gt");
        assert_eq!(
            counts(&s, r#"testid="id \"with\" quotes""#).await.visible,
            1
        );
        s.close().await;
    });
}

/// Roles and accessible names from our engine against Chromium's accessibility tree, for every
/// non-ignored node of roles.html that maps to an element.
#[test]
fn roles_and_names_agree_with_chromium() {
    let server = locator_pages();
    block_on(async {
        let s = open(&server, "roles.html").await;
        let tree = s
            .send_raw("Accessibility.getFullAXTree", json!({}))
            .await
            .unwrap();
        let mut compared = 0;
        let mut mismatches = Vec::new();
        for node in tree["nodes"].as_array().unwrap() {
            let role = node["role"]["value"].as_str().unwrap_or_default();
            let Some(backend) = node["backendDOMNodeId"].as_i64() else {
                continue;
            };
            if node["ignored"].as_bool() == Some(true)
                || role.is_empty()
                || role.chars().next().is_some_and(|c| c.is_uppercase()) // internal: StaticText, RootWebArea…
                || matches!(role, "generic" | "none" | "presentation" | "paragraph" | "Section")
            {
                continue;
            }
            let name = node["name"]["value"].as_str().unwrap_or_default();
            let resolved = s
                .send_raw("DOM.resolveNode", json!({"backendNodeId": backend}))
                .await
                .unwrap();
            let Some(object) = resolved["object"]["objectId"].as_str() else {
                continue;
            };
            let ours = s
                .send_raw(
                    "Runtime.callFunctionOn",
                    json!({
                        "objectId": object,
                        "functionDeclaration": "function () { const r = this.getRootNode(); return [window.__windup.role(this), window.__windup.accessibleName(this), this.outerHTML.slice(0, 90), r !== document && r.host && r.host.shadowRoot !== r]; }",
                        "returnByValue": true
                    }),
                )
                .await
                .unwrap();
            let ours: Value = ours["result"]["value"].clone();
            // Inside a built-in control's user-agent shadow tree (date pickers…): no locator
            // reaches those, and Chromium repeats their names there.
            if ours[3] == json!(true) {
                continue;
            }
            let our_role = chromium_role(ours[0].as_str().unwrap_or_default());
            let our_name = ours[1].as_str().unwrap_or_default();
            compared += 1;
            if our_role != role || normalize(our_name) != normalize(name) {
                mismatches.push(format!(
                    "{}: chromium {role:?} {name:?}, ours {our_role:?} {our_name:?}",
                    ours[2]
                ));
            }
        }
        assert!(compared >= 60, "compared only {compared} nodes");
        assert!(
            mismatches.is_empty(),
            "{} of {compared} differ:\n{}",
            mismatches.len(),
            mismatches.join("\n")
        );
        s.close().await;
    });
}

/// Chromium names a few ARIA roles its own way in the accessibility tree.
fn chromium_role(aria: &str) -> &str {
    match aria {
        "img" => "image",
        other => other,
    }
}

fn normalize(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
