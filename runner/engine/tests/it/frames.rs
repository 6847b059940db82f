//! Frames of another origin: a page on 127.0.0.1 embedding forms served from `localhost` on
//! another port (another site), found, filled, submitted and verified inside the frame; a
//! credential typed there only when its account lists that origin; the planner's observation
//! lists the frame's controls with selectors that reach them.

use std::time::Duration;

use windup_engine::executor::Execution;
use windup_engine::locator::{Located, Locator};
use windup_engine::planner::Observation;
use windup_model::FailureClass;

use crate::support::*;

/// The shop on 127.0.0.1, the frames' server addressed as `localhost` (a different site).
struct Sites {
    shop: Server,
    frames: Server,
}

impl Sites {
    fn start() -> Sites {
        let dir = engine_dir().join("tests/fixtures/frames");
        Sites {
            shop: Server::start(&dir),
            frames: Server::start(&dir),
        }
    }

    /// The other site's origin: `http://localhost:PORT`.
    fn other_origin(&self) -> String {
        format!(
            "http://localhost:{}",
            self.frames.base.port().expect("a port")
        )
    }

    /// The shop's page with the named frames (`card`, `signon`) from the other site.
    fn start_url(&self, frames: &[&str]) -> String {
        let query: Vec<String> = frames
            .iter()
            .map(|f| format!("{f}={}/{f}.html", self.other_origin()))
            .collect();
        format!("/shop.html?{}", query.join("&"))
    }
}

fn plan(start: &str, actions: &str) -> windup_model::Plan {
    plan_from_str(&format!(
        r#"{{"plan_version":"0.1","scenario_id":"t","task":"t","start_url":"{start}","generated_by":"human","actions":{actions}}}"#
    ))
}

/// The shop (127.0.0.1) holding a wallet frame (localhost) that holds a card form back from
/// 127.0.0.1, each frame of another origin than its parent's: filled through both frames and
/// paid with a click that lands only if both frames' offsets were added.
fn nested_plan(sites: &Sites) -> windup_model::Plan {
    let inner = format!("{}card.html", sites.shop.base);
    plan(
        &format!(
            "/shop.html?nest={}/nest.html%3Finner%3D{}",
            sites.other_origin(),
            inner.replace(':', "%3A").replace('/', "%2F")
        ),
        r#"[
          {"id":"a1","type":"fill","target":{"selector":"frame=title=\"Wallet\" >> frame=title=\"Inner card\" >> label=\"Name on card\""},"value":"Grace"},
          {"id":"a2","type":"fill","target":{"selector":"frame=title=\"Inner card\" >> label=\"Card number\""},"value":"5555555555554444"},
          {"id":"a3","type":"click","target":{"selector":"role=button[name=\"Pay\"]"},
           "expect":{"visible":"frame=title=\"Inner card\" >> text=\"Paid by Grace, card ending 4444\""}}
        ]"#,
    )
}

/// Signing on in the sign-on frame with the password credential `SIGNON_PASSWORD`.
fn signon_plan(sites: &Sites) -> windup_model::Plan {
    plan(
        &sites.start_url(&["signon"]),
        r#"[{"id":"a1","type":"fill","target":{"selector":"frame=title=\"Sign-on\" >> label=\"Password\""},"value_ref":"SIGNON_PASSWORD"},
            {"id":"a2","type":"click","target":{"selector":"frame=title=\"Sign-on\" >> role=button[name=\"Sign in\"]"},"expect":{"visible":"text=\"Password accepted\""}}]"#,
    )
}

#[test]
fn a_form_in_a_cross_origin_frame_is_filled_submitted_and_verified_inside_it() {
    let sites = Sites::start();
    assert_ne!(
        sites.shop.base.origin().ascii_serialization(),
        sites.other_origin()
    );
    let p = plan(
        &sites.start_url(&["card"]),
        r#"[
          {"id":"a1","type":"fill","target":{"selector":"frame=title=\"Card\" >> label=\"Card number\""},"value":"4242424242424242",
           "expect":{"value":{"selector":"frame=title=\"Card\" >> label=\"Card number\"","equals":"4242424242424242"}}},
          {"id":"a2","type":"fill","target":{"selector":"label=\"Name on card\""},"value":"Ada"},
          {"id":"a3","type":"click","target":{"selector":"role=button[name=\"Pay\"]"},
           "expect":{"visible":"text=\"Paid by Ada, card ending 4242\"","count":{"selector":"role=button[name=\"Pay\"]","equals":1}}},
          {"id":"a4","type":"wait_for","target":{"selector":"frame=css=iframe[title=Card] >> text=\"Paid by Ada, card ending 4242\""},
           "expect":{"value":{"selector":"css=#top-card","equals":""}}}
        ]"#,
    );
    let x = block_on(Run::new(&sites.shop.base).exec(browser(), &p));
    // a1 typed into the frame, not into the shop's own field of the same label (a4 checks it
    // is still empty); a2 and a3 find the frame's controls with no frame step; a3's click
    // landed on the frame's button (its coordinates moved by the frame's offset).
    assert_passed(&x, "the card frame");
}

#[test]
fn a_frame_inside_a_frame_of_another_origin_is_reached_and_clicked_at_the_right_point() {
    let sites = Sites::start();
    let p = nested_plan(&sites);
    let x = block_on(Run::new(&sites.shop.base).exec(browser(), &p));
    // `frame=title="Inner card"` (a2) is found in the wallet frame's realm.
    assert_passed(&x, "the nested card frame");
}

#[test]
fn a_click_in_a_frame_under_a_layer_of_the_page_is_not_actionable() {
    let sites = Sites::start();
    let p = plan(
        &format!("{}&cover=1", sites.start_url(&["card"])),
        r#"[{"id":"a1","type":"fill","target":{"selector":"label=\"Name on card\""},"value":"Ada"},
            {"id":"a2","type":"click","target":{"selector":"role=button[name=\"Pay\"]"},"expect":{"visible":"text=\"never\""}}]"#,
    );
    let x = block_on(
        Run::new(&sites.shop.base)
            .action_timeout(800)
            .exec(browser(), &p),
    );
    // Filling needs no hit test (Playwright's table); the click does, and the frame's own
    // engine cannot see the shop's layer over it.
    let f = x.failure.expect("must fail");
    assert_eq!(f.action_id.as_deref(), Some("a2"), "{}", f.message);
    assert_eq!(f.class, FailureClass::NotActionable, "{}", f.message);
    assert!(
        f.message.contains("covered by something over its frame"),
        "{}",
        f.message
    );
}

#[test]
fn a_frame_step_that_finds_no_frame_finds_nothing() {
    let sites = Sites::start();
    let p = plan(
        &sites.start_url(&["card"]),
        r#"[{"id":"a1","type":"fill","target":{"selector":"frame=title=\"Wallet\" >> label=\"Card number\""},"value":"1","expect":{"visible":"text=\"never\""}}]"#,
    );
    let x = block_on(
        Run::new(&sites.shop.base)
            .action_timeout(600)
            .exec(browser(), &p),
    );
    let f = x.failure.expect("must fail");
    assert_eq!(f.class, FailureClass::SelectorNotFound, "{}", f.message);
}

/// Runs the sign-on plan with the password as a credential of an account that lists the
/// frame's origin or not; then, in the same page, checks what the frame's password field holds.
fn sign_on(list_the_frames_origin: bool) -> (Execution, Execution) {
    let sites = Sites::start();
    let p = signon_plan(&sites);
    let empty = plan(
        "/",
        r#"[{"id":"b1","type":"wait_for","target":{"selector":"frame=title=\"Sign-on\" >> label=\"Password\""},
             "expect":{"value":{"selector":"frame=title=\"Sign-on\" >> label=\"Password\"","equals":""}}}]"#,
    );
    let mut run = Run::new(&sites.shop.base);
    run.secrets
        .insert("SIGNON_PASSWORD".into(), "s3cret-pass".into());
    if list_the_frames_origin {
        run.account_origins = vec![sites.other_origin()];
    }
    block_on(async {
        let mut session = browser().acquire_session().await.unwrap();
        note_pid(browser()).await;
        let x = run.exec_in(&mut session, &p, true).await;
        let after = run.exec_in(&mut session, &empty, false).await;
        session.close().await;
        (x, after)
    })
}

#[test]
fn a_credential_is_never_typed_into_a_frame_whose_origin_its_account_does_not_list() {
    let (x, after) = sign_on(false);
    let f = x.failure.expect("must be refused");
    assert_eq!(f.class, FailureClass::PlanInvalid, "{}", f.message);
    assert!(
        f.message.contains("is not typed on http://localhost:"),
        "names the frame's origin, not the shop's: {}",
        f.message
    );
    assert!(!f.message.contains("s3cret-pass"), "{}", f.message);
    // Nothing reached the frame's field.
    assert_passed(&after, "the password field is still empty");
}

#[test]
fn a_credential_is_typed_into_a_frame_on_an_origin_its_account_lists() {
    let (x, after) = sign_on(true);
    // The frame's page says whether the right password arrived (never what it was).
    assert_passed(&x, "signing on in the frame");
    assert!(!after.passed(), "the field holds the password now");
}

#[test]
fn the_observation_lists_a_cross_origin_frames_controls_with_selectors_that_reach_them() {
    let sites = Sites::start();
    let url = sites.shop.base.join(&sites.start_url(&["card"])).unwrap();
    block_on(async {
        let session = browser().acquire_session().await.unwrap();
        note_pid(browser()).await;
        session
            .goto(url.as_str(), Duration::from_secs(10))
            .await
            .unwrap();
        // The frame loads after the shop's page: wait until its field is there.
        let field = Locator::parse(r#"frame=title="Card" >> label="Name on card""#).unwrap();
        for _ in 0..200 {
            if field.count(&session).await.unwrap().visible == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        let seen = Observation::capture(&session, "pay by card", &[], 100, 20_000)
            .await
            .unwrap();
        let in_frame: Vec<_> = seen
            .items
            .iter()
            .filter(|i| i.selector.starts_with(r#"frame=title="Card" >> "#))
            .collect();
        let names: Vec<&str> = in_frame.iter().map(|i| i.name.as_str()).collect();
        for want in ["Card number", "Name on card", "Pay"] {
            assert!(names.contains(&want), "{want} in {names:?}");
        }
        // The shop's own field of the same label is listed without a frame step.
        assert!(
            seen.items
                .iter()
                .any(|i| i.name == "Card number" && !i.selector.starts_with("frame=")),
            "{:?}",
            seen.items
        );
        // Each frame item's selector reaches exactly one visible element.
        for item in in_frame {
            let c = Locator::parse(&item.selector)
                .unwrap()
                .count(&session)
                .await
                .unwrap();
            assert!(c.visible >= 1, "{} finds nothing", item.selector);
        }
        session.close().await;
    });
}

/// A browser attached with `--cdp-url` keeps site isolation on: each frame of another site is
/// a target of its own, in another process. The same flows reach them.
#[test]
fn frames_out_of_process_in_an_attached_browser_are_reached_the_same_way() {
    let sites = Sites::start();
    let chromium = windup_testkit::chromium::UserChromium::start(sites.shop.base.as_str());
    let browser = windup_engine::browser::Browser::new(windup_engine::browser::BrowserOptions {
        cdp_url: Some(url::Url::parse(&chromium.cdp_url()).unwrap()),
        ..browser_options()
    });
    // The card form, through a frame step and without one, submitted and verified inside it.
    let card = plan(
        &sites.start_url(&["card"]),
        r#"[
          {"id":"a1","type":"fill","target":{"selector":"frame=title=\"Card\" >> label=\"Card number\""},"value":"4242424242424242"},
          {"id":"a2","type":"fill","target":{"selector":"label=\"Name on card\""},"value":"Ada"},
          {"id":"a3","type":"click","target":{"selector":"role=button[name=\"Pay\"]"},
           "expect":{"visible":"text=\"Paid by Ada, card ending 4242\""}}
        ]"#,
    );
    // A frame of the shop's own site inside one of another: back in the page's process or in
    // a third, clicked at the right point through both offsets.
    let nested = nested_plan(&sites);
    let covered = plan(
        &format!("{}&cover=1", sites.start_url(&["card"])),
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Pay\"]"},"expect":{"visible":"text=\"never\""}}]"#,
    );
    block_on(async {
        let mut session = browser.acquire_session().await.expect("attached");
        let run = Run::new(&sites.shop.base);
        let x = run.exec_in(&mut session, &card, true).await;
        // The card frame really is out of process: a target of its own.
        let targets = chromium.cdp("Target.getTargets", serde_json::json!({}));
        let frames = targets["targetInfos"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["type"] == "iframe")
            .count();
        assert!(frames >= 1, "no frame out of process: {targets}");
        assert_passed(&x, "the card frame out of process");
        // The planner's observation lists the frame's controls behind a frame step.
        let seen = Observation::capture(&session, "pay by card", &[], 100, 20_000)
            .await
            .unwrap();
        assert!(
            seen.items
                .iter()
                .any(|i| i.selector == r#"frame=title="Card" >> role=textbox[name="Card number"]"#),
            "{:?}",
            seen.items
        );
        let x = run.exec_in(&mut session, &nested, true).await;
        assert_passed(&x, "the nested frames out of process");
        let x = Run::new(&sites.shop.base)
            .action_timeout(800)
            .exec_in(&mut session, &covered, true)
            .await;
        let f = x.failure.expect("a covered frame must not be clicked");
        assert_eq!(f.class, FailureClass::NotActionable, "{}", f.message);
        // A credential goes into the frame only when its account lists the frame's origin.
        let signon = signon_plan(&sites);
        let mut run = Run::new(&sites.shop.base);
        run.secrets
            .insert("SIGNON_PASSWORD".into(), "s3cret-pass".into());
        let x = run.exec_in(&mut session, &signon, true).await;
        let f = x.failure.expect("an unlisted origin is refused");
        assert_eq!(f.class, FailureClass::PlanInvalid, "{}", f.message);
        assert!(
            f.message.contains("is not typed on http://localhost:"),
            "{}",
            f.message
        );
        run.account_origins = vec![sites.other_origin()];
        let x = run.exec_in(&mut session, &signon, true).await;
        assert_passed(&x, "signing on in the frame out of process");
        session.close().await;
        browser.close().await;
    });
}

/// Pixels across the middle of the left `tenths` of a box of the top viewport.
fn across_box(png: &[u8], b: windup_model::Rect, tenths: i32) -> Vec<[u8; 3]> {
    let y = (b.y + b.height as i32 / 2) as u32;
    (1..tenths)
        .map(|i| pixel(png, (b.x + b.width as i32 * i / 10) as u32, y))
        .collect()
}

#[test]
fn a_credential_in_a_frame_of_another_origin_is_covered_in_the_failure_screenshot() {
    let sites = Sites::start();
    let p = plan(
        &sites.start_url(&["card"]),
        r#"[
          {"id":"a1","type":"fill","target":{"selector":"frame=title=\"Card\" >> label=\"Name on card\""},"value_ref":"CARD_HOLDER"},
          {"id":"a2","type":"fill","target":{"selector":"frame=title=\"Card\" >> label=\"Card number\""},"value":"4242424242424242"},
          {"id":"a3","type":"click","target":{"selector":"frame=title=\"Card\" >> role=button[name=\"Pay\"]"},
           "expect":{"visible":"frame=title=\"Card\" >> text=card ending 4242"}},
          {"id":"a4","type":"click","target":{"selector":"role=button[name=\"Missing\"]"},"expect":{"visible":"text=\"x\""}}
        ]"#,
    );
    let mut run = Run::new(&sites.shop.base).action_timeout(600);
    run.secrets
        .insert("CARD_HOLDER".into(), "Ada Lovelace".into());
    run.account_origins = vec![sites.other_origin()];
    block_on(async {
        let mut session = browser().acquire_session().await.unwrap();
        note_pid(browser()).await;
        let x = run.exec_in(&mut session, &p, true).await;
        // Where the field and the frame's echo of it are, in the top viewport.
        let mut boxes = Vec::new();
        for selector in [
            r#"frame=title="Card" >> label="Name on card""#,
            r#"frame=title="Card" >> text="Paid by Ada Lovelace, card ending 4242""#,
            r#"frame=title="Card" >> label="Card number""#,
        ] {
            match Locator::parse(selector)
                .unwrap()
                .locate(&session, "wait_for")
                .await
                .unwrap()
            {
                Located::Ok {
                    target_box: Some(b),
                    ..
                } => boxes.push(b),
                other => panic!("{selector}: {other:?}"),
            }
        }
        session.close().await;
        let f = x.failure.expect("a4 fails");
        assert_eq!(f.action_id.as_deref(), Some("a4"), "{}", f.message);
        let png = x
            .evidence
            .expect("evidence")
            .screenshot
            .expect("a screenshot, with the frame's credential covered");
        // The echo's paragraph is wider than its text: its first 40 % is text.
        for (what, b, tenths) in [
            ("the field", boxes[0], 10),
            ("the frame's echo", boxes[1], 4),
        ] {
            let pixels = across_box(&png, b, tenths);
            assert!(
                pixels
                    .iter()
                    .all(|&[r, g, bl]| r < 0x30 && g < 0x30 && bl < 0x30),
                "{what} is covered across {b:?}: {pixels:?}"
            );
        }
        // A field typed with a plain value is left as it is.
        let pixels = across_box(&png, boxes[2], 10);
        assert!(
            pixels
                .iter()
                .any(|&[r, g, b]| r > 0xc0 && g > 0xc0 && b > 0xc0),
            "the card number field is not covered: {pixels:?}"
        );
    });
}
