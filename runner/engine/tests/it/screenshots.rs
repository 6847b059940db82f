//! Screenshots fail closed: before the shot every credential the page shows is covered (the
//! field typed from it, and text or values that echo it, in a modal dialog too), and no shot is
//! taken when one cannot be covered. The PNG's own pixels are read.

use windup_engine::browser::Session;
use windup_engine::executor::Execution;
use windup_model::FailureClass;

use crate::support::*;

const KEY: &str = "s3cret-value-42";

fn pages() -> Server {
    Server::start(&engine_dir().join("tests/fixtures/pages"))
}

fn plan(start: &str, actions: &str) -> windup_model::Plan {
    plan_from_str(&format!(
        r#"{{"plan_version":"0.1","scenario_id":"t","task":"t","start_url":"{start}","generated_by":"human","actions":{actions}}}"#
    ))
}

/// The step that fails: its button does not exist.
const MISSING: &str = r#"{"id": "miss", "type": "click", "target": {"selector": "role=button[name=\"Missing\"]"}, "expect": {"visible": "text=\"x\""}}"#;

/// Runs `plan` with the secret `name` = `value` and returns the execution with where
/// `elements` are drawn (see [`spans`]), read from the page as the screenshot saw it.
async fn run_and_measure(
    server: &Server,
    plan: &windup_model::Plan,
    secret: (&str, &str),
    elements: &[&str],
) -> (Execution, Vec<[f64; 3]>, u32) {
    let mut run = Run::new(&server.base).action_timeout(600);
    run.secrets.insert(secret.0.into(), secret.1.into());
    let mut session = browser().acquire_session().await.unwrap();
    note_pid(browser()).await;
    let x = run.exec_in(&mut session, plan, true).await;
    let spans = spans(&session, elements).await;
    let masks_left: u32 = session
        .eval("document.querySelectorAll('[data-windup-mask]').length")
        .await
        .unwrap();
    session.close().await;
    (x, spans, masks_left)
}

/// For each element id: the left and right of its content and its vertical middle, in the
/// viewport's CSS pixels (the text's own extent for text, the box for a field).
async fn spans(session: &Session, ids: &[&str]) -> Vec<[f64; 3]> {
    let ids = serde_json::to_string(ids).unwrap();
    session
        .eval(&format!(
            "{ids}.map((id) => {{
                const el = document.getElementById(id);
                let r = el.getBoundingClientRect();
                if (el.localName !== 'input') {{
                    const range = document.createRange();
                    range.selectNodeContents(el);
                    r = range.getBoundingClientRect();
                }}
                return [r.left, r.right, r.top + r.height / 2];
            }})"
        ))
        .await
        .unwrap()
}

/// The pixels across a span's middle, left to right (its ends excluded).
fn across(png: &[u8], [left, right, y]: [f64; 3]) -> Vec<[u8; 3]> {
    (1..12)
        .map(|i| {
            let x = left + (right - left) * f64::from(i) / 12.0;
            pixel(png, x as u32, y as u32)
        })
        .collect()
}

fn dark([r, g, b]: [u8; 3]) -> bool {
    r < 0x30 && g < 0x30 && b < 0x30
}

#[test]
fn a_credential_the_page_echoes_is_covered_in_the_failure_screenshot() {
    let server = pages();
    let p = plan(
        "/credential-echo.html",
        &format!(
            r#"[{{"id": "a1", "type": "fill", "target": {{"selector": "label=\"API key\""}}, "value_ref": "ECHO_KEY"}}, {MISSING}]"#
        ),
    );
    block_on(async {
        let (x, spans, masks_left) = run_and_measure(
            &server,
            &p,
            ("ECHO_KEY", KEY),
            &["key", "echo", "copy", "modal-echo", "plain"],
        )
        .await;
        assert_eq!(x.failure.unwrap().class, FailureClass::SelectorNotFound);
        assert_eq!(masks_left, 0, "the covers are removed after the screenshot");
        let png = x.evidence.unwrap().screenshot.expect("a screenshot");
        let [field, echo, copy, modal, plain] = spans[..] else {
            panic!("{spans:?}")
        };
        for (what, span) in [
            ("the field typed into", field),
            ("the key echoed as text (split across elements)", echo),
            ("a field the page filled with the key", copy),
            ("the key in a modal dialog", modal),
        ] {
            let pixels = across(&png, span);
            assert!(
                pixels.iter().all(|&p| dark(p)),
                "{what} is covered across {span:?}: {pixels:?}"
            );
        }
        // Text that shows no credential is left as it is.
        let pixels = across(&png, plain);
        assert!(
            pixels
                .iter()
                .any(|&[r, g, b]| r > 0xc0 && g > 0xc0 && b > 0xc0),
            "the page's other text is not covered: {pixels:?}"
        );
    });
}

#[test]
fn no_screenshot_when_a_credential_field_cannot_be_found_to_be_covered() {
    let server = pages();
    let typed = |value: &str| {
        plan(
            "/credential-vanish.html",
            &format!(
                r#"[{{"id": "a1", "type": "fill", "target": {{"selector": "label=\"Password\""}}, {value}}}, {MISSING}]"#
            ),
        )
    };
    block_on(async {
        // The field typed from a credential leaves the page (as a re-rendered form would):
        // it cannot be found to be covered, so no screenshot is taken; the rest of the
        // evidence is kept.
        let (x, _, masks_left) = run_and_measure(
            &server,
            &typed(r#""value_ref": "VANISH_KEY""#),
            ("VANISH_KEY", KEY),
            &[],
        )
        .await;
        assert_eq!(x.failure.unwrap().class, FailureClass::SelectorNotFound);
        assert_eq!(masks_left, 0);
        let c = x.evidence.expect("evidence");
        assert!(c.screenshot.is_none(), "no screenshot");
        assert!(c.evidence.snapshot.is_some(), "{:?}", c.evidence);
        // The same page typed with a literal value: the screenshot is taken.
        let (x, _, _) = run_and_measure(
            &server,
            &typed(r#""value": "not a secret""#),
            ("VANISH_KEY", KEY),
            &[],
        )
        .await;
        assert!(x.evidence.unwrap().screenshot.is_some());
    });
}

#[test]
fn a_field_typed_on_an_earlier_page_leaves_with_it_and_its_echo_on_the_next_is_covered() {
    let server = pages();
    let email = "ada@example.test";
    let p = plan(
        "/credential-form.html",
        &format!(
            r#"[{{"id": "a1", "type": "fill", "target": {{"selector": "label=\"Email\""}}, "value_ref": "FORM_EMAIL"}},
                {{"id": "a2", "type": "click", "target": {{"selector": "role=button[name=\"Next\"]"}},
                  "expect": {{"visible": "role=heading[name=\"Welcome\"]"}}}},
                {MISSING}]"#
        ),
    );
    block_on(async {
        let (x, spans, _) = run_and_measure(&server, &p, ("FORM_EMAIL", email), &["who"]).await;
        let f = x.failure.unwrap();
        assert_eq!(f.action_id.as_deref(), Some("miss"), "{f:?}");
        // The Email field went with the first document: this page's screenshot is taken…
        let png = x.evidence.unwrap().screenshot.expect("a screenshot");
        // …with the value it held, shown again by the next page, covered.
        let pixels = across(&png, spans[0]);
        assert!(pixels.iter().all(|&p| dark(p)), "{pixels:?}");
    });
}
