//! Playwright's actionability table, per action type: `fill` waits for visible, enabled and
//! editable but not for stability; a click waits until its target stands still.

use windup_model::FailureClass;

use crate::support::*;

fn pages() -> Server {
    Server::start(&engine_dir().join("tests/fixtures/pages"))
}

fn plan(actions: &str) -> windup_model::Plan {
    plan_from_str(&format!(
        r#"{{"plan_version":"0.1","scenario_id":"t","task":"t","start_url":"/moving.html","generated_by":"human","actions":{actions}}}"#
    ))
}

fn run(actions: &str, action_ms: u64) -> windup_engine::executor::Execution {
    let server = pages();
    let p = plan(actions);
    block_on(async {
        Run::new(&server.base)
            .action_timeout(action_ms)
            .exec(browser(), &p)
            .await
    })
}

#[test]
fn fill_into_an_animating_input_does_not_wait_for_stability() {
    // The field never stops moving: a stability check would time out.
    let x = run(
        r#"[{"id":"a1","type":"fill","target":{"selector":"label=\"Moving field\""},"value":"hello","expect":{"value":{"selector":"label=\"Moving field\"","equals":"hello"}}}]"#,
        3_000,
    );
    assert_passed(&x, "fill into a moving field");
}

#[test]
fn click_on_a_moving_button_waits_until_it_is_stable() {
    let x = run(
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Arrived\"]"},"expect":{"visible":"text=\"Landed\""}}]"#,
        5_000,
    );
    // The page writes `Missed` for a click while the button moved or outside its box.
    assert_passed(&x, "click on a button that slides in");
}

#[test]
fn fill_into_a_disabled_or_readonly_input_fails_as_not_actionable() {
    for (label, reason) in [
        ("Disabled field", "element is disabled"),
        ("Readonly field", "element is not editable (readonly)"),
    ] {
        let x = run(
            &format!(
                r#"[{{"id":"a1","type":"fill","target":{{"selector":"label=\"{label}\""}},"value":"x","expect":{{"visible":"text=\"never\""}}}}]"#
            ),
            600,
        );
        let f = x.failure.expect("must fail");
        assert_eq!(
            f.class,
            FailureClass::NotActionable,
            "{label}: {}",
            f.message
        );
        assert!(f.message.contains(reason), "{label}: {}", f.message);
        assert!(
            f.message.contains("never became actionable"),
            "{}",
            f.message
        );
    }
}

/// Runs `actions` on shifting.html and returns the run with what the page saw: its counts of
/// the clicks and changes each element received (`window.record`, the page's own).
fn run_shifting(
    actions: &str,
    action_ms: u64,
) -> (windup_engine::executor::Execution, serde_json::Value) {
    let server = pages();
    let p = plan_from_str(&format!(
        r#"{{"plan_version":"0.1","scenario_id":"t","task":"t","start_url":"/shifting.html","generated_by":"human","actions":{actions}}}"#
    ));
    block_on(async {
        let mut session = browser().acquire_session().await.expect("session");
        let x = Run::new(&server.base)
            .action_timeout(action_ms)
            .exec_in(&mut session, &p, true)
            .await;
        let record = session
            .eval("window.record")
            .await
            .expect("the page's record");
        session.close().await;
        (x, record)
    })
}

#[test]
fn a_click_the_page_moves_away_from_lands_on_its_target_and_never_on_what_took_its_place() {
    // The pointer reaching "Pay" puts an ad where it was: the click's events land on the ad.
    // Playwright stops such a click before the page sees it and clicks again; so must we.
    let (x, record) = run_shifting(
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Pay\"]"},"expect":{"visible":"text=\"Paid\""}},
            {"id":"a2","type":"check","target":{"selector":"label=\"Remember me\""},"expect":{"visible":"text=\"Paid\""}}]"#,
        5_000,
    );
    assert_passed(
        &x,
        "clicks on targets that move when the pointer reaches them",
    );
    assert_eq!(record["pay"], 1, "Pay got one click: {record}");
    assert_eq!(record["remember"], 1, "the checkbox changed once: {record}");
    assert_eq!(
        record["ads"], 0,
        "no click reached what took their place: {record}"
    );
}

#[test]
fn a_target_that_moves_at_every_click_fails_as_not_actionable_and_no_click_reaches_the_page() {
    let (x, record) = run_shifting(
        r#"[{"id":"a1","type":"click","target":{"selector":"role=button[name=\"Restless\"]"},"expect":{"visible":"text=\"Restless\""}}]"#,
        1_500,
    );
    let f = x.failure.expect("must fail");
    assert_eq!(f.class, FailureClass::NotActionable, "{}", f.message);
    assert!(
        f.message
            .contains(r#"the click landed on <div id="swap" class="ad"> each time"#),
        "{}",
        f.message
    );
    assert_eq!(record["restless"], 0, "{record}");
    assert_eq!(record["ads"], 0, "every stray click was stopped: {record}");
}
