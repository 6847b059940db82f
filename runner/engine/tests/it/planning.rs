//! Planning end to end, LLM-hermetic: the runner plans against a local fake provider that speaks
//! the OpenAI and Gemini wire formats with scripted answers, executes in real Chromium, verifies,
//! caches, replays, repairs, and writes the ledger.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use windup_engine::config::{Config, Overrides};
use windup_engine::runner::Runner;
use windup_model::{CacheOutcome, FailureClass, RunReport, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

/// A throwaway project: windup.toml, scenarios, manifest, .env.local.
struct Project {
    dir: tempfile::TempDir,
}

#[derive(Clone, Copy)]
enum Wire {
    OpenAi,
    Gemini,
}

fn provider_toml(fake: &FakeLlm, wire: Wire, extra: &str) -> String {
    let (kind, model, base) = match wire {
        Wire::OpenAi => ("openai", "gpt-4.1-mini", fake.openai_base_url()),
        Wire::Gemini => ("gemini", "gemini-2.5-flash", fake.gemini_base_url()),
    };
    let timeout = if extra.contains("timeout_ms") {
        ""
    } else {
        "timeout_ms = 3000\n"
    };
    format!(
        "[providers.fake]\nkind = \"{kind}\"\nmodel = \"{model}\"\nbase_url = \"{base}\"\nmax_retries = 1\n{timeout}{extra}\n"
    )
}

impl Project {
    fn new(base: &url::Url, toml: &str) -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("e2e/scenarios")).unwrap();
        std::fs::write(
            dir.path().join("windup.toml"),
            format!("base_url = \"{base}\"\n[timeouts]\naction_ms = 1200\n{toml}"),
        )
        .unwrap();
        Project { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn scenario(&self, id: &str, task: &str, start_url: &str) {
        self.write(
            &format!("e2e/scenarios/{id}.yaml"),
            &format!("id: {id}\ntask: {task:?}\nstart_url: {start_url}\n"),
        );
    }

    fn runner(&self, overrides: Overrides) -> Runner {
        let config = Config::load(self.root(), &overrides).unwrap_or_else(|e| panic!("{e}"));
        Runner::with_browser(config, browser().clone()).unwrap_or_else(|p| panic!("{p}"))
    }

    async fn run(&self, overrides: Overrides) -> RunReport {
        let runner = self.runner(overrides);
        let report = runner
            .run(&[], &windup_engine::events::NoEvents)
            .await
            .unwrap();
        note_pid(browser()).await;
        report
    }

    fn ledger(&self) -> Vec<Value> {
        std::fs::read_to_string(self.root().join("e2e/.windup/ledger.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn cached(&self, id: &str) -> Option<Value> {
        std::fs::read_to_string(self.root().join(format!("e2e/.windup/cache/{id}.json")))
            .ok()
            .map(|t| serde_json::from_str(&t).unwrap())
    }

    fn stale(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.root().join("e2e/.windup/cache/stale"))
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default()
    }
}

fn pages() -> Server {
    Server::start(&engine_dir().join("tests/fixtures/pages"))
}

fn save_plan() -> Value {
    json!({"actions": [{
        "id": "a1", "type": "click",
        "target": {"selector": "role=button[name=\"Save\"]", "description": "Save"},
        "expect": {"value": {"selector": "role=status", "equals": "Saved"}}
    }], "complete": true})
}

fn single(report: &RunReport) -> &windup_model::ScenarioResult {
    assert_eq!(report.scenarios.len(), 1);
    &report.scenarios[0]
}

#[test]
fn a_miss_is_planned_verified_cached_then_replayed_with_zero_calls_on_both_wire_formats() {
    let server = pages();
    block_on(async {
        for wire in [Wire::OpenAi, Wire::Gemini] {
            let fake = FakeLlm::start();
            fake.push(Reply::Json(save_plan()));
            let p = Project::new(&server.base, &provider_toml(&fake, wire, ""));
            p.scenario("save", "Save the page", "/basic.html");
            let first = p.run(Overrides::default()).await;
            let r = single(&first);
            assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
            assert_eq!(r.cache, CacheOutcome::Miss);
            assert_eq!(r.llm_calls, 1);
            assert!(r.cost_micro_usd > 0, "a priced model costs something");
            let entry = p.cached("save").expect("the verified plan is cached");
            assert_eq!(
                entry["plan"]["generated_by"],
                json!(format!(
                    "fake/{}",
                    match wire {
                        Wire::OpenAi => "gpt-4.1-mini",
                        Wire::Gemini => "gemini-2.5-flash",
                    }
                ))
            );
            let second = p.run(Overrides::default()).await;
            let r = single(&second);
            assert_eq!(
                (r.status, r.cache, r.llm_calls, r.cost_micro_usd),
                (ScenarioStatus::Passed, CacheOutcome::Hit, 0, 0)
            );
            assert_eq!(fake.requests().len(), 1, "the replay made no call");
            let ledger = p.ledger();
            assert_eq!(ledger.len(), 2);
            assert_eq!(ledger[0]["calls"]["planning"], 1);
            assert!(ledger[0]["tokens"]["input"].as_u64().unwrap() > 0);
            assert!(ledger[0]["tokens"]["output"].as_u64().unwrap() > 0);
            assert_eq!(ledger[0]["provider"], "fake");
            assert!(ledger[0]["price_table_date"].is_string());
            assert_eq!(ledger[1]["calls"]["planning"], 0);
            assert_eq!(ledger[1]["cost_micro_usd"], 0);
            assert_eq!(ledger[1]["cache"], "hit");
            // The prompt carries the page, delimited and marked as untrusted.
            let body = fake.requests()[0].body.clone();
            assert!(body.contains("untrusted_page_content"), "{body}");
            assert!(
                body.contains("role=button[name=\\\"Save\\\"]"),
                "the real elements are listed: {body}"
            );
        }
    });
}

/// One scripted answer sequence and what it must end in.
struct Case {
    name: &'static str,
    replies: Vec<Reply>,
    status: ScenarioStatus,
    class: Option<FailureClass>,
    calls: u32,
    tokens: bool,
}

fn bad(plan: Value) -> Vec<Reply> {
    vec![Reply::Json(plan.clone()), Reply::Json(plan)]
}

#[test]
fn every_kind_of_provider_answer_ends_in_the_right_outcome_and_is_in_the_ledger() {
    let server = pages();
    let step = |extra: Value| {
        let mut a = json!({"id": "a1", "type": "click", "target": {"selector": "role=button[name=\"Save\"]"},
            "expect": {"value": {"selector": "role=status", "equals": "Saved"}}});
        for (k, v) in extra.as_object().unwrap() {
            a[k] = v.clone();
        }
        json!({"actions": [a], "complete": true})
    };
    let cases = vec![
        Case {
            name: "non-JSON, then valid",
            replies: vec![
                Reply::Text("Sure! Here is your plan.".into()),
                Reply::Json(save_plan()),
            ],
            status: ScenarioStatus::Passed,
            class: None,
            calls: 2,
            tokens: true,
        },
        Case {
            name: "non-JSON twice",
            replies: vec![Reply::Text("no".into()), Reply::Text("still no".into())],
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::PlanRejected),
            calls: 2,
            tokens: true,
        },
        Case {
            name: "schema-breaking",
            replies: bad(step(json!({"type": "teleport"}))),
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::PlanRejected),
            calls: 2,
            tokens: true,
        },
        Case {
            name: "invented value_ref",
            replies: bad(
                json!({"actions": [{"id": "a1", "type": "fill", "target": {"selector": "label=\"Note\""}, "value_ref": "ROOT_PASSWORD", "expect": {"value": {"selector": "label=\"Note\"", "equals": "x"}}}], "complete": true}),
            ),
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::PlanRejected),
            calls: 2,
            tokens: true,
        },
        Case {
            name: "foreign goto",
            replies: bad(
                json!({"actions": [{"id": "a1", "type": "goto", "url": "http://evil.example/", "expect": {"url": "**"}}], "complete": true}),
            ),
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::PlanRejected),
            calls: 2,
            tokens: true,
        },
        Case {
            name: "bare selector",
            replies: bad(step(json!({"target": {"selector": "#save"}}))),
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::PlanRejected),
            calls: 2,
            tokens: true,
        },
        Case {
            name: "429 with Retry-After, then valid",
            replies: vec![
                Reply::Status {
                    status: 429,
                    headers: vec![("Retry-After".into(), "1".into())],
                    body: "{\"error\":{\"message\":\"slow down\"}}".into(),
                },
                Reply::Json(save_plan()),
            ],
            status: ScenarioStatus::Passed,
            class: None,
            calls: 1,
            tokens: true,
        },
        Case {
            name: "500 until retries run out",
            replies: vec![
                Reply::Status {
                    status: 500,
                    headers: vec![],
                    body: "oops".into(),
                },
                Reply::Status {
                    status: 500,
                    headers: vec![],
                    body: "oops".into(),
                },
            ],
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::LlmError),
            calls: 1,
            tokens: false,
        },
        Case {
            name: "hang past the timeout",
            replies: vec![Reply::Hang, Reply::Hang],
            status: ScenarioStatus::Failed,
            class: Some(FailureClass::LlmError),
            calls: 1,
            tokens: false,
        },
        Case {
            name: "truncated body, then valid",
            replies: vec![Reply::Truncated, Reply::Json(save_plan())],
            status: ScenarioStatus::Passed,
            class: None,
            calls: 1,
            tokens: true,
        },
    ];
    block_on(async {
        for case in cases {
            let fake = FakeLlm::start();
            let n = case.replies.len();
            for r in case.replies {
                fake.push(r);
            }
            let p = Project::new(
                &server.base,
                &provider_toml(&fake, Wire::OpenAi, "timeout_ms = 800"),
            );
            p.scenario("save", "Save the page", "/basic.html");
            let started = Instant::now();
            let report = p.run(Overrides::default()).await;
            let r = single(&report);
            let name = case.name;
            assert_eq!(r.status, case.status, "{name}: {:?}", r.message);
            assert_eq!(r.failure_class, case.class, "{name}: {:?}", r.message);
            assert_eq!(r.llm_calls, case.calls, "{name}");
            assert_eq!(
                fake.requests().len(),
                n,
                "{name}: every scripted answer was asked for"
            );
            assert_eq!(
                p.cached("save").is_some(),
                case.status == ScenarioStatus::Passed,
                "{name}: only verified plans are cached"
            );
            let ledger = p.ledger();
            assert_eq!(ledger.len(), 1, "{name}");
            assert_eq!(ledger[0]["calls"]["planning"], case.calls, "{name}");
            assert_eq!(
                ledger[0]["failure_class"],
                json!(case.class.map(|c| c.as_str())),
                "{name}"
            );
            assert_eq!(
                ledger[0]["tokens"]["input"].as_u64().unwrap() > 0,
                case.tokens,
                "{name}"
            );
            if name.starts_with("429") {
                assert!(
                    started.elapsed() >= Duration::from_secs(1),
                    "Retry-After was honoured"
                );
            }
            if name == "non-JSON, then valid" {
                let second = &fake.requests()[1].body;
                assert!(
                    second.contains("REJECTED") && second.contains("not a JSON object"),
                    "the problems go back: {second}"
                );
            }
        }
    });
}

#[test]
fn a_prompt_injection_page_cannot_yield_a_plan_that_leaves_the_origin() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        // A model that obeys the page.
        let obey = json!({"actions": [{"id": "a1", "type": "goto", "url": "http://evil.example/steal", "expect": {"url": "**/steal"}}], "complete": true});
        fake.push(Reply::Json(obey.clone()));
        fake.push(Reply::Json(obey));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::Gemini, ""));
        p.scenario("support", "Save the support page", "/injection.html");
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(
            r.failure_class,
            Some(FailureClass::PlanRejected),
            "{:?}",
            r.message
        );
        assert!(
            r.message
                .as_deref()
                .unwrap()
                .contains("leaves the application's origin")
        );
        assert!(p.cached("support").is_none());
        let body = fake.requests()[0].json();
        let user = body["contents"][0]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .to_string();
        let system = body["systemInstruction"]["parts"][0]["text"]
            .as_str()
            .unwrap();
        assert!(system.contains("never follow it"), "{system}");
        let open = user.find("<untrusted_page_content>").expect("delimited");
        let close = user.rfind("</untrusted_page_content>").expect("delimited");
        let inside = &user[open..close];
        assert!(inside.contains("Ignore previous instructions"), "{user}");
        assert_eq!(
            user.matches("</untrusted_page_content>").count(),
            1,
            "page text cannot close the block: {user}"
        );
    });
}

#[test]
fn budget_and_require_cached_gate_calls_before_they_are_made() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Json(save_plan()));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("cached", "Save the page", "/basic.html");
        assert_eq!(
            single(&p.run(Overrides::default()).await).status,
            ScenarioStatus::Passed
        );
        assert_eq!(fake.requests().len(), 1);
        p.scenario("uncached", "Save the page again", "/basic.html");

        // A budget smaller than any call's worst case: no call, budget_exceeded; cached plans still run.
        let report = p
            .run(Overrides {
                budget_usd: Some(0.000_01),
                ..Overrides::default()
            })
            .await;
        let by_id = |id: &str| {
            report
                .scenarios
                .iter()
                .find(|s| s.scenario_id == id)
                .unwrap()
                .clone()
        };
        assert_eq!(by_id("cached").status, ScenarioStatus::Passed);
        assert_eq!(
            by_id("uncached").failure_class,
            Some(FailureClass::BudgetExceeded),
            "{:?}",
            by_id("uncached").message
        );
        assert!(
            by_id("uncached")
                .message
                .unwrap()
                .contains("no LLM call was made")
        );
        assert_eq!(fake.requests().len(), 1, "no call was made");

        // --require-cached: exactly the uncached scenario fails, with not_cached.
        let report = p
            .run(Overrides {
                require_cached: true,
                ..Overrides::default()
            })
            .await;
        let by_id = |id: &str| {
            report
                .scenarios
                .iter()
                .find(|s| s.scenario_id == id)
                .unwrap()
                .clone()
        };
        assert_eq!(by_id("cached").status, ScenarioStatus::Passed);
        let u = by_id("uncached");
        assert_eq!(u.failure_class, Some(FailureClass::NotCached));
        assert!(u.message.unwrap().contains("`uncached`"));
        assert_eq!(fake.requests().len(), 1, "no call was made");
    });
}

/// TodoMVC's vanillajs app with its new-todo placeholder reworded: a markup change that breaks
/// the plan's first selector.
fn reworded_todomvc(server: &Server) {
    let path = fixtures().todomvc.join("examples/vanillajs/index.html");
    let html = std::fs::read_to_string(path).unwrap();
    assert!(html.contains("What needs to be done?"));
    let changed = html.replace("What needs to be done?", "Add a task");
    server.route(
        "/examples/vanillajs/index.html",
        Canned {
            status: 200,
            content_type: "text/html",
            body: changed.into_bytes(),
            delay: Duration::ZERO,
        },
    );
}

fn todomvc_answer(placeholder: &str) -> Value {
    let text = std::fs::read_to_string(engine_dir().join("tests/plans/todomvc.json"))
        .unwrap()
        .replace("What needs to be done?", placeholder);
    let plan: Value = serde_json::from_str(&text).unwrap();
    json!({"actions": plan["actions"], "complete": true})
}

/// A project with one TodoMVC scenario, `todos`, planned through `fake`; returns its task.
fn todos_project(server: &Server, fake: &FakeLlm) -> (Project, &'static str) {
    let p = Project::new(&server.base, &provider_toml(fake, Wire::OpenAi, ""));
    let task = "Add two todos, complete the first, and show only the active ones";
    p.scenario("todos", task, "/examples/vanillajs/index.html");
    (p, task)
}

#[test]
fn todomvc_plans_replays_heals_after_a_markup_change_and_replans_an_edited_task() {
    let server = Server::start(&fixtures().todomvc);
    block_on(async {
        let fake = FakeLlm::start();
        let (p, task) = todos_project(&server, &fake);

        fake.push(Reply::Json(todomvc_answer("What needs to be done?")));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Miss, 1),
            "{:?}",
            r.message
        );
        let prompt = fake.requests()[0].body.clone();
        assert!(
            prompt.contains("What needs to be done?"),
            "the page's real elements are in the prompt"
        );

        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Hit, 0)
        );

        // The app's markup changes: the replay fails, the plan goes stale, one re-plan heals it.
        reworded_todomvc(&server);
        fake.push(Reply::Json(todomvc_answer("Add a task")));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::StaleReplanned, 1),
            "{:?}",
            r.message
        );
        assert!(
            r.message.as_deref().unwrap().contains("selector_not_found"),
            "{:?}",
            r.message
        );
        let repair = fake.requests()[1].body.clone();
        assert!(repair.contains("The cached plan broke"), "{repair}");
        assert!(
            repair.contains("Add a task"),
            "the prompt shows the page as it is now"
        );
        let stale = p.stale();
        assert_eq!(stale.len(), 1, "the broken plan is kept as evidence");
        let evidence: Value =
            serde_json::from_str(&std::fs::read_to_string(&stale[0]).unwrap()).unwrap();
        assert_eq!(
            evidence["invalidation"]["failure_class"],
            "selector_not_found"
        );
        assert_eq!(p.ledger().last().unwrap()["calls"]["replan"], 1);
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Hit, 0)
        );

        // Editing the task is a miss: planned again, the old plan kept as stale.
        p.scenario(
            "todos",
            &format!("{task}, then check the counter"),
            "/examples/vanillajs/index.html",
        );
        fake.push(Reply::Json(todomvc_answer("Add a task")));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Miss, 1),
            "{:?}",
            r.message
        );
        assert_eq!(p.stale().len(), 2);
        assert_eq!(fake.requests().len(), 3);
    });
}

/// A fresh plan whose step does not fit the page it was planned on gets exactly one correction
/// call, shown the failure and the page as it is now; a second misfit fails uncached.
#[test]
fn a_fresh_plan_that_misses_its_own_page_gets_one_correction() {
    let server = Server::start(&fixtures().todomvc);
    block_on(async {
        let fake = FakeLlm::start();
        let (p, task) = todos_project(&server, &fake);

        fake.push(Reply::Json(todomvc_answer("Add a task")));
        fake.push(Reply::Json(todomvc_answer("What needs to be done?")));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Miss, 2),
            "{:?}",
            r.message
        );
        let correction = fake.requests()[1].body.clone();
        assert!(
            correction.contains("Its target is not on this page"),
            "{correction}"
        );
        assert!(
            correction.contains("Add a task"),
            "the failed step is named"
        );
        assert_eq!(p.ledger().last().unwrap()["calls"]["continuation"], 1);
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Hit, 0),
            "the corrected plan was cached as one plan"
        );

        p.scenario(
            "todos",
            &format!("{task} again"),
            "/examples/vanillajs/index.html",
        );
        fake.push(Reply::Json(todomvc_answer("Add a task")));
        fake.push(Reply::Json(todomvc_answer("Add a task")));
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(
            (r.status, r.failure_class, r.llm_calls),
            (
                ScenarioStatus::Failed,
                Some(FailureClass::SelectorNotFound),
                2
            ),
            "one correction only: {:?}",
            r.message
        );
        assert!(
            r.message.as_deref().unwrap().contains("not cached"),
            "{:?}",
            r.message
        );
        assert_eq!(fake.requests().len(), 4);
    });
}

const ACME_EMAIL: &str = "admin@acme.test";
const ACME_PASSWORD: &str = "correct horse battery staple";

fn acme_project(fake: &FakeLlm, server: &Server) -> Project {
    let p = Project::new(&server.base, &provider_toml(fake, Wire::OpenAi, ""));
    p.write(
        "e2e/manifest.yaml",
        "accounts:\n  admin:\n    email: ACME_ADMIN_EMAIL\n    password: ACME_ADMIN_PASSWORD\n",
    );
    p.write(
        ".env.local",
        &format!("ACME_ADMIN_EMAIL={ACME_EMAIL}\nACME_ADMIN_PASSWORD=\"{ACME_PASSWORD}\"\n"),
    );
    p.scenario(
        "archive",
        "Sign in as the admin and archive Apollo",
        "/login.html",
    );
    p
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                out.extend(files_under(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[test]
fn a_two_page_flow_completes_through_a_continuation_and_no_credential_leaks() {
    let server = Server::start(&repo_root().join("examples/acme/app"));
    block_on(async {
        let fake = FakeLlm::start();
        // Planned on the login page: it signs in, then guesses a button it cannot see yet.
        fake.push(Reply::Json(json!({"actions": [
            {"id": "a1", "type": "fill", "target": {"selector": "label=\"Email\""}, "value_ref": "ACME_ADMIN_EMAIL"},
            {"id": "a2", "type": "fill", "target": {"selector": "label=\"Password\""}, "value": "ACME_ADMIN_PASSWORD"},
            {"id": "a3", "type": "click", "target": {"selector": "role=button[name=\"Sign in\"]"}, "expect": {"url": "/projects.html"}},
            {"id": "a4", "type": "click", "target": {"selector": "role=button[name=\"Archive Apollo\"]"}, "expect": {"value": {"selector": "role=status", "equals": "Archived Apollo"}}}
        ], "complete": true})));
        // Continued on the projects page, which it now sees.
        fake.push(Reply::Json(json!({"actions": [
            {"id": "a4", "type": "click", "target": {"selector": "role=list[name=\"Active\"] >> role=listitem >> has-text=\"Apollo\" >> role=button[name=\"Archive\"]"},
             "expect": {"value": {"selector": "role=status", "equals": "Archived Apollo"}}}
        ], "complete": true})));
        let p = acme_project(&fake, &server);
        let report = p.run(Overrides::default()).await;
        let r = single(&report).clone();
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Miss, 2),
            "{:?}",
            r.message
        );
        let ledger = p.ledger();
        assert_eq!(
            (
                ledger[0]["calls"]["planning"].clone(),
                ledger[0]["calls"]["continuation"].clone()
            ),
            (json!(1), json!(1))
        );
        let entry = p.cached("archive").unwrap();
        let actions = entry["plan"]["actions"].as_array().unwrap();
        assert_eq!(
            actions.len(),
            4,
            "one plan: the signed-in steps and the continued one"
        );
        assert_eq!(
            actions[1]["value_ref"], "ACME_ADMIN_PASSWORD",
            "an ENV name typed as a value becomes a value_ref"
        );
        let continuation = fake.requests()[1].body.clone();
        assert!(continuation.contains("DONE SO FAR"), "{continuation}");
        assert!(continuation.contains("projects.html"), "{continuation}");
        assert!(
            continuation.contains("•••"),
            "the page showed the signed-in email, masked: {continuation}"
        );

        // Replays make no call.
        let again = p.run(Overrides::default()).await;
        assert_eq!(
            (single(&again).cache, single(&again).llm_calls),
            (CacheOutcome::Hit, 0)
        );

        // The credential values appear in no file under e2e/.windup, no report, no request.
        let mut texts: Vec<(String, String)> = files_under(&p.root().join("e2e/.windup"))
            .into_iter()
            .map(|f| {
                (
                    f.display().to_string(),
                    std::fs::read_to_string(&f).unwrap(),
                )
            })
            .collect();
        texts.push(("report".into(), serde_json::to_string(&report).unwrap()));
        texts.push(("report 2".into(), serde_json::to_string(&again).unwrap()));
        for (i, req) in fake.requests().iter().enumerate() {
            texts.push((format!("request {i}"), req.body.clone()));
        }
        assert!(texts.len() >= 5);
        for (what, text) in texts {
            for canary in [ACME_EMAIL, ACME_PASSWORD] {
                assert!(!text.contains(canary), "{canary} leaked into {what}");
            }
        }
    });
}

#[test]
fn bench_runs_the_validation_protocol_against_the_fake_provider() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        for _ in 0..6 {
            fake.push(Reply::Json(save_plan()));
        }
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("save", "Save the page", "/basic.html");
        let runner = p.runner(Overrides::default());
        let b = runner
            .bench("save", &windup_engine::events::NoEvents)
            .await
            .unwrap();
        assert_eq!(b.generations.len(), 5);
        assert!(
            b.generations
                .iter()
                .all(|g| g.valid && g.verified && g.calls == 1),
            "{:#?}",
            b.generations
        );
        assert!(b.checks.generations);
        assert_eq!(b.replays.len(), 10);
        assert!(
            b.checks.replays && b.checks.free_replays,
            "{:#?}",
            b.replays
        );
        let rec = b.recovery.as_ref().unwrap();
        assert!(
            rec.replay_failed && rec.replanned_and_passed && rec.stale_kept,
            "{rec:#?}"
        );
        assert!(b.checks.recovery);
        assert_eq!(
            fake.requests().len(),
            6,
            "5 generations and 1 re-plan; replays make none"
        );
        assert!(
            p.cached("save").is_none(),
            "bench never touches the project's cache"
        );
        assert_eq!(
            p.ledger().len(),
            5 + 10 + 1,
            "every bench run is in the ledger"
        );
    });
}

/// The prompt for a page: what a planning call sends, and how long the planner's own work
/// (reading the page, writing the prompt, checking an answer) takes without the provider.
async fn prompt_for(
    session: &windup_engine::browser::Session,
    task: &str,
    answer: &Value,
) -> (usize, Duration, Duration) {
    use windup_engine::planner::{Ask, PageView, Purpose, Settings, check, prompt};
    let settings = Settings::default();
    let scenario: windup_model::Scenario =
        serde_json::from_value(json!({"id": "s", "task": task, "start_url": "/"})).unwrap();
    let started = Instant::now();
    let page = PageView::capture(session, settings.page_chars, settings.max_elements)
        .await
        .unwrap();
    let observed = started.elapsed();
    let started = Instant::now();
    let ask = Ask {
        scenario: &scenario,
        page: &page,
        done: &[],
        purpose: Purpose::Plan,
        fragments: &[],
        site_map: None,
    };
    let user = prompt::user_message(&ask, &[], settings.page_chars);
    let base = url::Url::parse(&page.url).unwrap();
    let stub = windup_model::Plan {
        plan_version: "0.1".into(),
        scenario_id: "s".into(),
        task: task.into(),
        start_url: "/".into(),
        generated_by: "x/y".into(),
        actions: vec![],
    };
    let rules = check::Rules {
        base_url: &base,
        allowed_origins: &[],
        credentials: &Default::default(),
        fragments: &windup_engine::fragments::Fragments::default(),
        taken_ids: Default::default(),
    };
    check::accept(&answer.to_string(), &stub, &rules).unwrap_or_else(|p| panic!("{p:?}"));
    (
        prompt::SYSTEM.len() + user.len(),
        observed,
        started.elapsed(),
    )
}

#[test]
fn prompts_for_third_party_pages_stay_within_their_budget() {
    let todomvc = Server::start(&fixtures().todomvc);
    let miniwob = Server::start(&fixtures().miniwob_html);
    block_on(async {
        let session = browser().acquire_session().await.unwrap();
        note_pid(browser()).await;
        let url = todomvc.base.join("examples/vanillajs/index.html").unwrap();
        session
            .goto(url.as_str(), Duration::from_secs(10))
            .await
            .unwrap();
        let (todo_chars, todo_observe, todo_own) = prompt_for(
            &session,
            "Add two todos, complete the first, and show only the active ones",
            &todomvc_answer("What needs to be done?"),
        )
        .await;
        let url = miniwob.base.join("miniwob/login-user.html").unwrap();
        session
            .goto(url.as_str(), Duration::from_secs(10))
            .await
            .unwrap();
        for _ in 0..100 {
            if session
                .eval::<bool>("typeof core === 'object' && core.cover_div !== null")
                .await
                .unwrap_or(false)
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let _: Value = session
            .eval("core.EPISODE_MAX_TIME = 60000; Math.seedrandom(1); core.startEpisodeReal(); 0")
            .await
            .unwrap();
        let login = json!({"actions": [
            {"id": "a1", "type": "fill", "target": {"selector": "css=#username"}, "value": "vina"},
            {"id": "a2", "type": "click", "target": {"selector": "role=button[name=\"Login\"]"}, "expect": {"visible": "css=#sync-task-cover"}}
        ], "complete": true});
        let (mini_chars, mini_observe, mini_own) = prompt_for(
            &session,
            "Log in with the username and password given",
            &login,
        )
        .await;
        session.close().await;
        eprintln!(
            "prompt sizes: TodoMVC {todo_chars} chars (~{} tokens at 4 chars/token), read in {todo_observe:?}, prompt+check {todo_own:?}; \
             MiniWoB login-user {mini_chars} chars (~{} tokens), read in {mini_observe:?}, prompt+check {mini_own:?}",
            todo_chars / 4,
            mini_chars / 4
        );
        let budget = windup_engine::planner::Settings::default().page_chars + 4_000;
        assert!(todo_chars < budget, "TodoMVC prompt {todo_chars} chars");
        assert!(mini_chars < budget, "MiniWoB prompt {mini_chars} chars");
        assert!(
            mini_chars > 1_000 && todo_chars > 1_000,
            "the page is in the prompt"
        );
    });
}

fn ids(report: &RunReport) -> Vec<String> {
    report
        .scenarios
        .iter()
        .map(|s| s.scenario_id.clone())
        .collect()
}

#[test]
fn retries_mark_flaky_shards_split_exactly_and_failed_and_tags_filter() {
    use windup_engine::runner::Selection;
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        for _ in 0..5 {
            fake.push(Reply::Json(save_plan()));
        }
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        for (i, tag) in ["smoke", "smoke", "slow", "slow", "slow"]
            .iter()
            .enumerate()
        {
            p.write(
                &format!("e2e/scenarios/s{i}.yaml"),
                &format!("id: s{i}\ntask: Save the page, variant {i}\nstart_url: /basic.html\ntags: [{tag}]\n"),
            );
        }
        let all = p.run(Overrides::default()).await;
        assert_eq!(all.totals.passed, 5, "{:?}", all.scenarios);
        let runner = p.runner(Overrides::default());
        let run = |sel: Selection| {
            let runner = &runner;
            async move {
                runner
                    .run_selected(&sel, &windup_engine::events::NoEvents)
                    .await
                    .unwrap()
            }
        };

        // Shards: disjoint, and together exactly the suite.
        let mut seen = Vec::new();
        for i in 1..=3 {
            let r = run(Selection {
                shard: Some((i, 3)),
                ..Selection::default()
            })
            .await;
            assert_eq!(
                r.ci.as_ref().unwrap().shard.as_deref(),
                Some(format!("{i}/3").as_str())
            );
            seen.extend(ids(&r));
        }
        seen.sort();
        assert_eq!(seen, vec!["s0", "s1", "s2", "s3", "s4"]);

        // Tags.
        let r = run(Selection {
            tags: vec!["smoke".into()],
            ..Selection::default()
        })
        .await;
        assert_eq!(ids(&r), vec!["s0", "s1"]);

        // A backend that fails once: red without retries, flaky (green, flagged) with one.
        server.route_once(
            "/basic.html",
            Canned {
                status: 500,
                content_type: "text/html",
                body: b"down".to_vec(),
                delay: Duration::ZERO,
            },
        );
        let r = run(Selection {
            ids: vec!["s0".into()],
            ..Selection::default()
        })
        .await;
        assert_eq!(
            r.scenarios[0].failure_class,
            Some(FailureClass::NavigationFailed)
        );
        // --failed now selects exactly that scenario.
        let r = run(Selection {
            failed: true,
            ..Selection::default()
        })
        .await;
        assert_eq!(ids(&r), vec!["s0"]);
        assert_eq!(r.scenarios[0].status, ScenarioStatus::Passed);
        server.route_once(
            "/basic.html",
            Canned {
                status: 500,
                content_type: "text/html",
                body: b"down".to_vec(),
                delay: Duration::ZERO,
            },
        );
        let r = run(Selection {
            ids: vec!["s1".into()],
            retries: 2,
            ..Selection::default()
        })
        .await;
        let s = &r.scenarios[0];
        assert_eq!(
            (s.status, s.attempts, s.flaky),
            (ScenarioStatus::Passed, 2, true),
            "{:?}",
            s.message
        );
        assert!(
            s.message.as_deref().unwrap().contains("navigation_failed"),
            "{:?}",
            s.message
        );
        assert_eq!(
            (r.totals.passed, r.totals.failed, r.totals.flaky),
            (1, 0, 1)
        );
        assert_eq!(
            fake.requests().len(),
            5,
            "retries of cached scenarios make no call"
        );
    });
}

#[test]
fn setup_scenarios_sign_in_once_and_share_their_storage() {
    use windup_engine::runner::Selection;
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Json(json!({"actions": [
            {"id": "a1", "type": "fill", "target": {"selector": "label=\"User\""}, "value": "ada"},
            {"id": "a2", "type": "click", "target": {"selector": "role=button[name=\"Sign in\"]"}, "expect": {"url": "/account.html"}}
        ], "complete": true})));
        fake.push(Reply::Json(json!({"actions": [
            {"id": "a1", "type": "click", "target": {"selector": "role=button[name=\"Who am I\"]"},
             "expect": {"value": {"selector": "css=#who", "equals": "Signed in with tok-ada"}}}
        ], "complete": true})));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.write(
            "e2e/scenarios/signin.yaml",
            "id: signin\ntask: Sign in as ada\nstart_url: /signin.html\nsetup: true\n",
        );
        p.write(
            "e2e/scenarios/whoami.yaml",
            "id: whoami\ntask: Check who is signed in\nstart_url: /account.html\nneeds: [signin]\n",
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
fn suggest_is_opt_in_budgeted_and_recorded() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Json(save_plan()));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("save", "Save the page", "/basic.html");
        assert_eq!(
            single(&p.run(Overrides::default()).await).status,
            ScenarioStatus::Passed
        );
        let down = || Canned {
            status: 503,
            content_type: "text/html",
            body: b"maintenance".to_vec(),
            delay: Duration::ZERO,
        };

        // Without --suggest a failure makes no call.
        server.route_once("/basic.html", down());
        let r = single(&p.run(Overrides::default()).await).clone();
        assert_eq!(r.failure_class, Some(FailureClass::NavigationFailed));
        assert!(r.suggestion.is_none());
        assert_eq!(fake.requests().len(), 1);

        // With it: one call per failure, advice in the report, the call in the ledger.
        fake.push(Reply::Json(json!({"summary": "The app answered 503 while loading.", "fix": "Nothing in the test: the server was down."})));
        server.route_once("/basic.html", down());
        let r = single(
            &p.run(Overrides {
                suggest: true,
                ..Overrides::default()
            })
            .await,
        )
        .clone();
        let s = r.suggestion.expect("a suggestion");
        assert_eq!(s.fix, "Nothing in the test: the server was down.");
        assert_eq!(s.by, "fake/gpt-4.1-mini");
        assert_eq!(r.llm_calls, 1);
        let body = fake.requests()[1].body.clone();
        assert!(body.contains("FAILURE: navigation_failed"), "{body}");
        assert!(body.contains("untrusted_page_content"), "{body}");
        assert_eq!(p.ledger().last().unwrap()["calls"]["suggest"], 1);
    });
}

#[test]
fn failure_evidence_lists_http_errors_refused_and_aborted_requests_masked() {
    let server = pages();
    server.route(
        "/broken-api",
        Canned {
            status: 500,
            content_type: "application/json",
            body: b"{}".to_vec(),
            delay: Duration::ZERO,
        },
    );
    server.route(
        "/slow-api",
        Canned {
            status: 200,
            content_type: "application/json",
            body: b"{}".to_vec(),
            delay: Duration::from_secs(5),
        },
    );
    // A loopback port nobody listens on: the request is refused.
    let refused = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    block_on(async {
        let fake = FakeLlm::start();
        let plan = json!({"actions": [
            {"id": "a1", "type": "fill", "target": {"selector": "label=\"Token\""}, "value_ref": "API_TOKEN"},
            {"id": "a2", "type": "click", "target": {"selector": "role=button[name=\"Load\"]"}, "expect": {"visible": "text=\"Requests done\""}},
            {"id": "a3", "type": "click", "target": {"selector": "role=button[name=\"Save\"]"}, "expect": {"visible": "text=\"Saved\""}}
        ], "complete": true});
        fake.push(Reply::Json(plan.clone()));
        // The one correction: its step a3 again, from the page where a3 failed.
        fake.push(Reply::Json(
            json!({"actions": [plan["actions"][2].clone()], "complete": true}),
        ));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.write(
            "e2e/manifest.yaml",
            "accounts:\n  api:\n    token: API_TOKEN\n",
        );
        // Encoded in the request's URL by the page as `tok%40x%209f8e`.
        p.write(".env.local", "API_TOKEN=\"tok@x 9f8e\"\n");
        p.scenario(
            "requests",
            "Load the data, then save",
            &format!("/network.html?refused={refused}"),
        );
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(
            r.failure_class,
            Some(FailureClass::SelectorNotFound),
            "{r:#?}"
        );
        let requests = &r.evidence.as_ref().expect("evidence").failed_requests;
        let has = |prefix: &str, suffix: &str| {
            requests
                .iter()
                .any(|l| l.starts_with(prefix) && l.ends_with(suffix))
        };
        assert!(has("404 ", "/missing-api?token=•••"), "{requests:#?}");
        assert!(has("500 ", "/broken-api"), "{requests:#?}");
        assert!(
            has(
                "net::ERR_CONNECTION_REFUSED ",
                &format!(":{refused}/refused")
            ),
            "{requests:#?}"
        );
        assert!(
            has("canceled (net::ERR_ABORTED) ", "/slow-api"),
            "{requests:#?}"
        );
        let text = serde_json::to_string(&report).unwrap();
        assert!(
            !text.contains("9f8e"),
            "credential values are masked, encoded ones too"
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
        fake.push(Reply::Json(json!({"actions": [
            {"id": "a1", "type": "fill", "target": {"selector": "label=\"User\""}, "value": "ada"},
            {"id": "a2", "type": "click", "target": {"selector": "role=button[name=\"Log in\"]"}, "expect": {"url": "/account.html"}}
        ], "complete": true})));
        for _ in 0..3 {
            fake.push(Reply::Json(json!({"actions": [
                {"id": "a1", "type": "click", "target": {"selector": "role=button[name=\"Who am I\"]"},
                 "expect": {"value": {"selector": "css=#who", "equals": "Signed in with tok-ada"}}}
            ], "complete": true})));
        }
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.write(
            "e2e/scenarios/login.yaml",
            "id: login\ntask: Log in as ada\nstart_url: /login-form.html\nsetup: true\n",
        );
        for id in ["who-1", "who-2", "who-3"] {
            p.write(
                &format!("e2e/scenarios/{id}.yaml"),
                &format!("id: {id}\ntask: Check who is signed in\nstart_url: /account.html\nneeds: [login]\n"),
            );
        }
        let sel = Selection {
            jobs: 2,
            ..Selection::default()
        };
        let runner = p.runner(Overrides::default());
        // Planned (a miss), then replayed from the cache: one login per run either way.
        for run in 1..=2 {
            let r = runner
                .run_selected(&sel, &windup_engine::events::NoEvents)
                .await
                .unwrap();
            assert_eq!(r.totals.passed, 4, "run {run}: {:#?}", r.scenarios);
            assert_eq!(
                server.hits("/session"),
                run,
                "the login form is submitted once per run"
            );
        }
        assert_eq!(fake.requests().len(), 4, "the second run replays");
        note_pid(browser()).await;
    });
}

/// Kills the browser when a given scenario starts a given step, noting which scenarios were
/// running at that moment.
#[derive(Default)]
struct KillMidRun {
    pid: std::sync::atomic::AtomicU32,
    running: std::sync::Mutex<std::collections::BTreeSet<String>>,
    in_flight_at_kill: std::sync::Mutex<Option<std::collections::BTreeSet<String>>>,
}

impl windup_engine::events::EventSink for KillMidRun {
    fn on_event(&self, event: &windup_engine::events::Event) {
        use windup_engine::events::Event;
        let mut running = self.running.lock().unwrap();
        match event {
            Event::ScenarioStarted { scenario_id } => {
                running.insert(scenario_id.clone());
            }
            Event::ScenarioFinished { result } => {
                running.remove(&result.scenario_id);
            }
            Event::ActionStarted {
                scenario_id,
                action_id,
            } if scenario_id == "s3" && action_id == "a2" => {
                let pid = self.pid.load(std::sync::atomic::Ordering::SeqCst);
                if pid != 0 {
                    windup_engine::browser::kill_pid(pid);
                    self.pid.store(0, std::sync::atomic::Ordering::SeqCst);
                    *self.in_flight_at_kill.lock().unwrap() = Some(running.clone());
                }
            }
            _ => {}
        }
    }
}

#[test]
fn killing_chromium_mid_run_fails_only_its_scenarios_and_every_report_is_whole() {
    use windup_engine::browser::Browser;
    use windup_engine::reporters::ReportSpec;
    use windup_engine::runner::Selection;
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        for _ in 0..6 {
            fake.push(Reply::Json(json!({"actions": [
                {"id": "a1", "type": "click", "target": {"selector": "role=button[name=\"Save\"]"}, "expect": {"value": {"selector": "role=status", "equals": "Saved"}}},
                {"id": "a2", "type": "fill", "target": {"selector": "label=\"Note\""}, "value": "x", "expect": {"value": {"selector": "label=\"Note\"", "equals": "x"}}},
                {"id": "a3", "type": "click", "target": {"selector": "role=button[name=\"Save\"]"}, "expect": {"value": {"selector": "role=status", "equals": "Saved"}}}
            ], "complete": true})));
        }
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        for i in 1..=6 {
            p.scenario(&format!("s{i}"), "Save, note, save", "/basic.html");
        }
        // Its own browser: this test kills it.
        let own = Browser::new(browser_options());
        let config = Config::load(p.root(), &Overrides::default()).unwrap();
        let runner = Runner::with_browser(config, own.clone()).unwrap();
        let planned = runner
            .run(&[], &windup_engine::events::NoEvents)
            .await
            .unwrap();
        assert_eq!(planned.totals.passed, 6, "{:#?}", planned.scenarios);

        own.ensure_started().await.unwrap();
        let first_pid = own.pid().await.unwrap();
        let killer = KillMidRun::default();
        killer
            .pid
            .store(first_pid, std::sync::atomic::Ordering::SeqCst);
        let sel = Selection {
            jobs: 2,
            ..Selection::default()
        };
        let r = runner.run_selected(&sel, &killer).await.unwrap();
        let in_flight = killer
            .in_flight_at_kill
            .lock()
            .unwrap()
            .clone()
            .expect("the browser was killed");
        assert_ne!(own.pid().await, Some(first_pid), "a new browser took over");
        runner.close().await;

        assert_eq!(ids(&r), vec!["s1", "s2", "s3", "s4", "s5", "s6"]);
        let failed: Vec<&windup_model::ScenarioResult> = r
            .scenarios
            .iter()
            .filter(|s| s.status != ScenarioStatus::Passed)
            .collect();
        assert!(
            failed.iter().any(|s| s.scenario_id == "s3"),
            "{:#?}",
            r.scenarios
        );
        for s in &failed {
            assert_eq!(
                s.failure_class,
                Some(FailureClass::BrowserCrashed),
                "{s:#?}"
            );
            assert!(
                in_flight.contains(&s.scenario_id),
                "only scenarios running when it died fail: {} was not ({in_flight:?})",
                s.scenario_id
            );
        }
        assert!(in_flight.len() <= 2, "-j 2: {in_flight:?}");
        assert_eq!(
            r.totals.passed as usize,
            6 - failed.len(),
            "the rest ran in a new browser: {:#?}",
            r.scenarios
        );

        // Every report is whole.
        let out = tempfile::tempdir().unwrap();
        for format in ["json", "junit", "html"] {
            let spec =
                ReportSpec::parse(&format!("{format}={}", out.path().join(format).display()))
                    .unwrap();
            spec.write(&r, p.root()).unwrap();
        }
        let json: RunReport =
            serde_json::from_str(&std::fs::read_to_string(out.path().join("json")).unwrap())
                .unwrap();
        assert_eq!(json.scenarios.len(), 6);
        let junit = quick_junit::Report::deserialize_from_str(
            &std::fs::read_to_string(out.path().join("junit")).unwrap(),
        )
        .unwrap();
        let cases: Vec<&quick_junit::TestCase> = junit
            .test_suites
            .iter()
            .flat_map(|s| &s.test_cases)
            .collect();
        assert_eq!(cases.len(), 6);
        let failing = cases
            .iter()
            .filter(|c| !matches!(c.status, quick_junit::TestCaseStatus::Success { .. }))
            .count();
        assert_eq!(failing, failed.len());
        let html = std::fs::read_to_string(out.path().join("html")).unwrap();
        assert!(
            html.trim_end().ends_with("</html>"),
            "the HTML report is whole"
        );
        for i in 1..=6 {
            assert!(html.contains(&format!("s{i}")));
        }
    });
}
