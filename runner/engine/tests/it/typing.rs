//! Typing bound to its target (issue 33): a sign-in page on 127.0.0.1 holding a third party's
//! frame from `localhost` (another site) that takes the focus every millisecond. A credential
//! is set on its own field and the frame receives nothing; plain keystrokes are not sent while
//! the frame has the focus; a credential goes only into a field its kind fits. What the frame
//! received is read from the frame itself.

use windup_engine::executor::Execution;
use windup_model::FailureClass;

use crate::support::*;

const PASSWORD: &str = "s3cret-pass";
const EMAIL: &str = "ada@example.com";

/// The sign-in page, and the third party's server addressed as `localhost` (another site).
struct Sites {
    app: Server,
    ads: Server,
}

impl Sites {
    fn start() -> Sites {
        let dir = engine_dir().join("tests/fixtures/frames");
        Sites {
            app: Server::start(&dir),
            ads: Server::start(&dir),
        }
    }

    /// The sign-in page, with the focus-taking frame when `ads`.
    fn login(&self, ads: bool) -> String {
        if ads {
            let port = self.ads.base.port().expect("a port");
            format!("/login.html?ads=http://localhost:{port}/ads.html")
        } else {
            "/login.html".into()
        }
    }
}

fn plan(start: &str, actions: &str) -> windup_model::Plan {
    plan_from_str(&format!(
        r#"{{"plan_version":"0.1","scenario_id":"t","task":"t","start_url":"{start}","generated_by":"human","actions":{actions}}}"#
    ))
}

/// Runs `actions` on the sign-in page with the account's email and password as credentials,
/// then reads in the same page what the frame's field and the search box hold.
fn run(sites: &Sites, ads: bool, actions: &str) -> (Execution, Execution) {
    let p = plan(&sites.login(ads), actions);
    let frame_check = if ads {
        r#",{"id":"b2","type":"wait_for","target":{"selector":"frame=title=\"Ads\" >> label=\"Ad notes\""},
             "expect":{"value":{"selector":"frame=title=\"Ads\" >> label=\"Ad notes\"","equals":""}}}"#
    } else {
        ""
    };
    let after = plan(
        "/",
        &format!(
            r#"[{{"id":"b1","type":"wait_for","target":{{"selector":"label=\"Search\""}},
                 "expect":{{"value":{{"selector":"label=\"Search\"","equals":""}}}}}}{frame_check}]"#
        ),
    );
    let mut run = Run::new(&sites.app.base);
    run.secrets.insert("ADMIN_PASSWORD".into(), PASSWORD.into());
    run.secrets.insert("ADMIN_EMAIL".into(), EMAIL.into());
    block_on(async {
        let mut session = browser().acquire_session().await.unwrap();
        note_pid(browser()).await;
        let x = run.exec_in(&mut session, &p, true).await;
        let after = run.exec_in(&mut session, &after, false).await;
        session.close().await;
        (x, after)
    })
}

#[test]
fn a_credential_reaches_its_field_and_not_a_frame_that_takes_the_focus_every_millisecond() {
    let sites = Sites::start();
    let (x, after) = run(
        &sites,
        true,
        r#"[{"id":"a1","type":"fill","target":{"selector":"label=\"Email\""},"value_ref":"ADMIN_EMAIL"},
            {"id":"a2","type":"fill","target":{"selector":"label=\"Password\""},"value_ref":"ADMIN_PASSWORD"},
            {"id":"a3","type":"click","target":{"selector":"role=button[name=\"Sign in\"]"},
             "expect":{"visible":"text=\"Password accepted\""}}]"#,
    );
    assert_passed(&x, "signing in beside the frame");
    assert_passed(&after, "the frame's field is empty");
}

#[test]
fn plain_keystrokes_are_not_sent_while_a_frame_has_the_focus() {
    let sites = Sites::start();
    // Typing starts once the frame has taken the focus: before it loads, nothing holds it.
    let (x, after) = run(
        &sites,
        true,
        r#"[{"id":"a0","type":"wait_for","target":{"selector":"frame=title=\"Ads\" >> text=\"Watching\""}},
            {"id":"a1","type":"fill","target":{"selector":"label=\"Search\""},"value":"shoes",
             "expect":{"value":{"selector":"label=\"Search\"","equals":"shoes"}}}]"#,
    );
    let f = x.failure.expect("the focus is the frame's");
    assert_eq!(f.class, FailureClass::NotActionable, "{}", f.message);
    assert!(
        f.message.contains("a frame \"Ads\" of http://localhost:")
            && f.message.contains("nothing was typed"),
        "names the frame that has the focus: {}",
        f.message
    );
    assert_passed(&after, "neither the search box nor the frame got the text");
}

#[test]
fn plain_keystrokes_reach_their_field_when_no_one_takes_the_focus() {
    let sites = Sites::start();
    let (x, after) = run(
        &sites,
        false,
        r#"[{"id":"a1","type":"fill","target":{"selector":"label=\"Search\""},"value":"shoes",
             "expect":{"value":{"selector":"label=\"Search\"","equals":"shoes"}}}]"#,
    );
    assert_passed(&x, "typing into the search box");
    assert!(!after.passed(), "the search box holds the text now");
}

#[test]
fn a_credential_goes_only_into_a_field_its_kind_fits() {
    let sites = Sites::start();
    for (target, name, why) in [
        ("Search", "ADMIN_EMAIL", "this field is a search box"),
        ("Comment", "ADMIN_EMAIL", "this field is a text area"),
        ("Comment", "ADMIN_PASSWORD", "this field is a text area"),
        ("Email", "ADMIN_PASSWORD", "goes only into a password field"),
        (
            "Password",
            "ADMIN_EMAIL",
            "goes only into a text, email or telephone input",
        ),
    ] {
        let (x, after) = run(
            &sites,
            false,
            &format!(
                r#"[{{"id":"a1","type":"fill","target":{{"selector":"label=\"{target}\""}},"value_ref":"{name}",
                     "expect":{{"visible":"role=heading[name=\"Sign in\"]"}}}}]"#
            ),
        );
        let f = x.failure.expect("refused");
        assert_eq!(
            f.class,
            FailureClass::PlanInvalid,
            "{target}: {}",
            f.message
        );
        assert!(f.message.contains(why), "{target} {name}: {}", f.message);
        assert!(!f.message.contains(PASSWORD) && !f.message.contains(EMAIL));
        if target == "Search" {
            assert_passed(&after, "nothing went into the search box");
        }
    }
}
