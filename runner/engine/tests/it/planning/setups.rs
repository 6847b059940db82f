//! Setup scenarios: they sign in once, share their storage (owner-only, out of reports) with the
//! scenarios that need them, skip those when they fail, and submit a login form once per run.

use std::time::Duration;

use serde_json::json;
use windup_engine::config::Overrides;
use windup_model::{FailureClass, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

#[test]
fn setup_scenarios_sign_in_once_and_share_their_storage() {
    use windup_engine::runner::Selection;
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "fill", "target": {"ref": "@textbox \"User\""}, "value": "ada"},
            {"type": "click", "target": {"ref": "@button \"Sign in\""}}
        ], "complete": true})));
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "click", "target": {"ref": "@button \"Who am I\""}}
        ], "complete": true})));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.write(
            "e2e/scenarios/signin.yaml",
            "id: signin\ntask: 'Sign in as ada until the page says \"Account\"'\nstart_url: /signin.html\nsetup: true\n",
        );
        p.write(
            "e2e/scenarios/whoami.yaml",
            "id: whoami\ntask: 'Check that the page says \"Signed in with tok-ada\"'\nstart_url: /account.html\nneeds: [signin]\n",
        );
        let r = p.run(Overrides::default()).await;
        assert_eq!(ids(&r), vec!["signin", "whoami"]);
        assert!(
            r.scenarios
                .iter()
                .all(|s| s.status == ScenarioStatus::Passed),
            "{:#?}",
            r.scenarios
        );
        // The dependent was planned on the signed-in page, not redirected to sign in.
        assert!(
            fake.requests()[1].body.contains("Who am I"),
            "{}",
            fake.requests()[1].body
        );
        let saved = p.root().join("e2e/.windup/storage/signin.json");
        let text = std::fs::read_to_string(&saved).unwrap();
        assert!(
            text.contains("s3cr3t-session") && text.contains("tok-ada"),
            "{text}"
        );
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&saved).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert!(
            !serde_json::to_string(&r)
                .unwrap()
                .contains("s3cr3t-session"),
            "tokens stay out of reports"
        );

        // Running only the dependent brings its setup; both replay with no call.
        let runner = p.runner(Overrides::default());
        let sel = Selection {
            ids: vec!["whoami".into()],
            ..Selection::default()
        };
        let r = runner
            .run_selected(&sel, &windup_engine::events::NoEvents)
            .await
            .unwrap();
        assert_eq!(ids(&r), vec!["signin", "whoami"]);
        assert_eq!(
            (r.totals.passed, r.totals.llm_calls),
            (2, 0),
            "{:#?}",
            r.scenarios
        );

        // A setup that fails skips the scenarios that need it.
        server.route_once(
            "/signin.html",
            Canned {
                status: 500,
                content_type: "text/html",
                body: b"down".to_vec(),
                delay: Duration::ZERO,
            },
        );
        let r = runner
            .run_selected(&sel, &windup_engine::events::NoEvents)
            .await
            .unwrap();
        assert_eq!(
            r.scenarios[0].failure_class,
            Some(FailureClass::NavigationFailed)
        );
        assert_eq!(r.scenarios[1].status, ScenarioStatus::Skipped);
        assert!(
            r.scenarios[1]
                .message
                .as_deref()
                .unwrap()
                .contains("`signin`")
        );
    });
}

#[test]
fn a_setup_login_form_is_submitted_once_per_run_whatever_needs_it() {
    use windup_engine::runner::Selection;
    let server = pages();
    // The server side of the form: it signs in (the storage account.html checks) and lands
    // on the account page. Counted by the server, not by the page.
    server.route(
        "/session",
        Canned {
            status: 200,
            content_type: "text/html",
            body: b"<script>localStorage.setItem('token', 'tok-ada'); document.cookie = 'sid=s3cr3t-session; path=/'; location.replace('account.html');</script>".to_vec(),
            delay: Duration::ZERO,
        },
    );
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "fill", "target": {"ref": "@textbox \"User\""}, "value": "ada"},
            {"type": "click", "target": {"ref": "@button \"Log in\""}}
        ], "complete": true})));
        for _ in 0..3 {
            fake.push(Reply::Grounded(json!({"actions": [
                {"type": "click", "target": {"ref": "@button \"Who am I\""}}
            ], "complete": true})));
        }
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.write(
            "e2e/scenarios/login.yaml",
            "id: login\ntask: 'Log in as ada until the page says \"Account\"'\nstart_url: /login-form.html\nsetup: true\n",
        );
        for id in ["who-1", "who-2", "who-3"] {
            p.write(
                &format!("e2e/scenarios/{id}.yaml"),
                &format!("id: {id}\ntask: 'Check that the page says \"Signed in with tok-ada\"'\nstart_url: /account.html\nneeds: [login]\n"),
            );
        }
        let sel = Selection {
            jobs: 2,
            ..Selection::default()
        };
        let runner = p.runner(Overrides::default());
        // Planned (a miss): the setup's plan is proven from fresh contexts, each of which signs
        // in; the scenarios that need it never do.
        let r = runner
            .run_selected(&sel, &windup_engine::events::NoEvents)
            .await
            .unwrap();
        assert_eq!(r.totals.passed, 4, "{:#?}", r.scenarios);
        let planned = server.hits("/session");
        // Replayed from the cache: one login for the whole run.
        let r = runner
            .run_selected(&sel, &windup_engine::events::NoEvents)
            .await
            .unwrap();
        assert_eq!(r.totals.passed, 4, "{:#?}", r.scenarios);
        assert_eq!(
            server.hits("/session"),
            planned + 1,
            "the login form is submitted once per run"
        );
        assert_eq!(fake.requests().len(), 4, "the second run replays");
        note_pid(browser()).await;
    });
}
