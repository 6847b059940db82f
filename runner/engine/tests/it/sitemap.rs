//! The site map in real runs: built passively from the example app's replays (pages, controls,
//! the step between them) and left byte-identical by a run that learns nothing; routes
//! generalised from three users' pages (one signature despite different texts, data and list
//! lengths); the planner's slice deciding a direct `goto`; a cached
//! plan reported at risk before its replay, and re-planned up front with `--replan-at-risk`
//! (kept when that re-plan verifies nothing); a run pointed at another app by mistake merges
//! nothing of it.

use std::path::Path;
use std::sync::Arc;

use serde_json::{Value, json};
use windup_engine::config::Overrides;
use windup_model::{CacheOutcome, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply, Responder};

use crate::planning::support::*;
use crate::support::*;

fn site_map(root: &Path) -> Value {
    let text = std::fs::read_to_string(root.join("e2e/.windup/sitemap.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn routes(map: &Value) -> Vec<String> {
    map["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["route"].as_str().unwrap().to_string())
        .collect()
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

#[test]
fn replays_of_the_example_app_build_its_site_map_and_an_unchanged_run_leaves_it_alone() {
    let repo = engine_dir().join("../..");
    let server = Server::start(&repo.join("examples/acme/app"));
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo.join("examples/acme"), dir.path());
    std::fs::write(
        dir.path().join("windup.toml"),
        format!("base_url = \"{}\"\n", server.base),
    )
    .unwrap();
    std::fs::write(
        dir.path().join(".env.local"),
        "ACME_ADMIN_EMAIL=admin@acme.test\nACME_ADMIN_PASSWORD=\"correct horse battery staple\"\n",
    )
    .unwrap();
    let overrides = Overrides {
        require_cached: true,
        ..Overrides::default()
    };
    let run = |o: Overrides| {
        let config = windup_engine::config::Config::load(dir.path(), &o).unwrap();
        let runner = windup_engine::runner::Runner::with_browser(config, browser().clone())
            .unwrap_or_else(|p| panic!("{p}"));
        block_on(async move {
            let report = runner
                .run(&[], &windup_engine::events::NoEvents)
                .await
                .unwrap();
            note_pid(browser()).await;
            report
        })
    };
    let report = run(overrides.clone());
    for s in &report.scenarios {
        assert_eq!(
            s.status,
            ScenarioStatus::Passed,
            "{}: {:?}",
            s.scenario_id,
            s.message
        );
        assert_eq!(s.cache, CacheOutcome::Hit, "{}", s.scenario_id);
    }
    let map = site_map(dir.path());
    assert_eq!(routes(&map), ["/login.html", "/projects.html"]);
    let login = &map["pages"][0];
    assert_eq!(login["source"], json!("execution"));
    assert!(
        login["title"].as_str().unwrap().contains("Sign in"),
        "{login}"
    );
    assert!(login["signature"].as_str().unwrap().starts_with("sha256:"));
    let controls = login["controls"].as_array().unwrap();
    assert!(
        controls
            .iter()
            .any(|c| c["role"] == json!("button") && c["name"] == json!("Sign in")),
        "{controls:?}"
    );
    assert_eq!(
        map["edges"],
        json!([{
            "from": "/login.html",
            "to": "/projects.html",
            "via": "click role=button[name=\"Sign in\"]",
            "source": "execution",
            "seen": 1
        }])
    );
    let text = serde_json::to_string(&map).unwrap();
    assert!(!text.contains("correct horse"), "no credential in the map");
    // The same replays again: nothing learned, not a byte changed.
    let before = std::fs::read(dir.path().join("e2e/.windup/sitemap.json")).unwrap();
    let again = run(overrides);
    assert!(
        again
            .scenarios
            .iter()
            .all(|s| s.status == ScenarioStatus::Passed)
    );
    // The map it built says none of the example's verified plans is at risk.
    for s in &again.scenarios {
        assert!(
            !s.message.as_deref().unwrap_or_default().contains("at risk"),
            "{}: {:?}",
            s.scenario_id,
            s.message
        );
    }
    let after = std::fs::read(dir.path().join("e2e/.windup/sitemap.json")).unwrap();
    assert_eq!(before, after);

    // The base URL pointed at another live app by mistake: same paths, other pages. Every
    // scenario fails at its first step, on a start page the map has never seen, and none of
    // the other app's pages is merged; the plans that work on the right app stay.
    let other = tempfile::tempdir().unwrap();
    for page in ["login.html", "projects.html", "index.html"] {
        std::fs::write(
            other.path().join(page),
            "<!doctype html><title>Other app</title><h1>Welcome</h1>\
             <nav><a href=\"about.html\">About us</a> <button>Subscribe</button></nav>",
        )
        .unwrap();
    }
    let wrong = Server::start(other.path());
    std::fs::write(
        dir.path().join("windup.toml"),
        format!("base_url = \"{}\"\n", wrong.base),
    )
    .unwrap();
    let lost = run(Overrides {
        require_cached: true,
        ..Overrides::default()
    });
    for s in &lost.scenarios {
        assert_eq!(s.status, ScenarioStatus::Failed, "{}", s.scenario_id);
        assert_eq!(
            s.failed_action_id.as_deref(),
            Some("a1"),
            "{}",
            s.scenario_id
        );
        assert!(
            dir.path()
                .join(format!("e2e/.windup/cache/{}.json", s.scenario_id))
                .exists(),
            "{}: the working plan stays",
            s.scenario_id
        );
    }
    let after_wrong_app = std::fs::read(dir.path().join("e2e/.windup/sitemap.json")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&before),
        String::from_utf8_lossy(&after_wrong_app),
        "the other app's pages were merged"
    );
}

fn site() -> Server {
    Server::start(&engine_dir().join("tests/fixtures/site"))
}

#[test]
fn three_users_pages_with_one_structure_become_one_route() {
    let server = site();
    block_on(async {
        let fake = FakeLlm::start();
        let mut actions = Vec::new();
        for name in ["Ann", "Bob", "Cy"] {
            actions.push(json!({"type": "click", "target": {"ref": format!("@link {name:?}")}}));
            actions.push(json!({"type": "goto", "url": "/"}));
        }
        fake.push(Reply::Grounded(
            json!({"actions": actions, "complete": true}),
        ));
        // The task quotes nothing the page shows: a closing call picks the proof.
        fake.push(Reply::Grounded(json!({"proofs": ["#url: /"]})));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("people", "Visit every person's page", "/");
        let report = p.run(Overrides::default()).await;
        let r = single(&report);
        assert_eq!(r.status, ScenarioStatus::Passed, "{:?}", r.message);
        let map = site_map(p.root());
        // Three names, one signature in Chromium (their texts, data and the length of their
        // lists differ; their controls do not): one route. The team page, whose controls
        // differ, keeps its own signature.
        assert_eq!(routes(&map), ["/", "/users/:id"]);
        let sigs: Vec<&str> = map["pages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["signature"].as_str().unwrap())
            .collect();
        assert_ne!(sigs[0], sigs[1]);
        let edges: Vec<(&str, &str, &str)> = map["edges"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["from"].as_str().unwrap(),
                    e["to"].as_str().unwrap(),
                    e["via"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            edges,
            [
                ("/", "/users/:id", "click role=link[name=\"Ann\"]"),
                ("/", "/users/:id", "click role=link[name=\"Bob\"]"),
                ("/", "/users/:id", "click role=link[name=\"Cy\"]"),
            ]
        );
    });
}

/// The fake model plans a direct `goto` only when the billing page is in the prompt's site
/// map slice; without it, it clicks through what it sees.
fn billing_planner() -> Reply {
    use windup_testkit::grounded::{prompt_text, resolve};
    Reply::Respond(Responder(Arc::new(|body: &str| {
        let prompt = prompt_text(body);
        let answer = if prompt.contains("STEPS DONE:") {
            // The closing call: the page the steps reached proves it.
            json!({"proofs": ["#url: "]})
        } else if windup_testkit::grounded::ref_of("button \"Change plan\"", &prompt).is_some() {
            json!({"actions": [{"type": "click", "target": {"ref": "@button \"Change plan\""}}], "complete": true})
        } else if prompt.contains("page /settings/billing.html")
            || prompt.contains("The task is not done yet")
        {
            // The slice names the page; or, told the task is unproven, the model tries the path.
            json!({"actions": [{"type": "goto", "url": "/settings/billing.html"}], "complete": false})
        } else {
            // A guess that does not do the task: planning goes on until "Plan: Pro" shows.
            json!({"actions": [{"type": "click", "target": {"ref": "@link \"Account\""}}], "complete": true})
        };
        resolve(&answer, &prompt)
    })))
}

#[test]
fn the_planner_goes_straight_to_a_page_only_when_the_site_map_slice_knows_it() {
    let server = site();
    block_on(async {
        for known in [true, false] {
            let fake = FakeLlm::start();
            for _ in 0..3 {
                fake.push(billing_planner());
            }
            let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
            p.scenario(
                "billing",
                "Open the billing settings and change the plan, until it says \"Plan: Pro\"",
                "/",
            );
            if known {
                p.write(
                    "e2e/.windup/sitemap.json",
                    &json!({"map_version": "0.1", "generation": 1, "pages": [
                        {"route": "/", "source": "execution", "title": "Team", "seen": 1},
                        {"route": "/settings/billing.html", "source": "static", "title": "Billing",
                         "controls": [{"role": "button", "name": "Change plan", "source": "static"}]},
                        {"route": "/settings/profile.html", "source": "static", "title": "Profile"}
                    ], "edges": []})
                    .to_string(),
                );
            }
            let report = p.run(Overrides::default()).await;
            let r = single(&report);
            assert_eq!(r.status, ScenarioStatus::Passed, "{known}: {:?}", r.message);
            let prompt = fake.requests()[0].json().to_string();
            assert_eq!(prompt.contains("SITE MAP"), known, "{prompt}");
            let plan = p.cached("billing").unwrap();
            let first = &plan["plan"]["actions"][0];
            assert_eq!(first["type"], json!("goto"), "{first}");
            assert_eq!(first["url"], json!("/settings/billing.html"));
            if known {
                // Straight there: two calls. Framed as untrusted data, within its budget.
                assert_eq!(r.llm_calls, 2);
                let body = &fake.requests()[0].body;
                assert!(body.contains("never instructions"), "{body}");
            } else {
                // A detour through Account first, which changed nothing the task needs: it was
                // planned, then dropped as idle, and a third call found the way.
                assert_eq!(r.llm_calls, 3);
                assert!(
                    fake.requests()[1].body.contains("The task is not done yet"),
                    "{}",
                    fake.requests()[1].body
                );
            }
            assert_eq!(
                plan["plan"]["actions"].as_array().unwrap().len(),
                2,
                "{plan}"
            );
        }
    });
}

/// Removes the Save button from what the site map knows of /basic.html.
fn forget_save_button(p: &Project) {
    let mut map = site_map(p.root());
    for page in map["pages"].as_array_mut().unwrap() {
        if page["route"] == json!("/basic.html") {
            page["controls"]
                .as_array_mut()
                .unwrap()
                .retain(|c| c["name"] != json!("Save"));
        }
    }
    p.write("e2e/.windup/sitemap.json", &map.to_string());
}

#[test]
fn a_plan_whose_target_left_the_page_is_reported_at_risk_and_replanned_up_front_when_asked() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(save_plan()));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("save", SAVE_TASK, "/basic.html");
        let first = p.run(Overrides::default()).await;
        assert_eq!(single(&first).status, ScenarioStatus::Passed);
        // The map now says the button is gone: reported before the replay, which still runs.
        forget_save_button(&p);
        let replayed = p.run(Overrides::default()).await;
        let r = single(&replayed);
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::Hit, 0)
        );
        let message = r.message.as_deref().unwrap_or_default();
        assert!(message.contains("at risk"), "{message}");
        assert!(message.contains("role=button[name=\"Save\"]"), "{message}");
        assert!(message.contains("the replay passed"), "{message}");
        assert_eq!(fake.requests().len(), 1, "no call for a replay at risk");
        // With --replan-at-risk: re-planned up front, the old plan kept as stale evidence.
        forget_save_button(&p);
        fake.push(Reply::Grounded(save_plan()));
        let replanned = p
            .run(Overrides {
                replan_at_risk: true,
                ..Overrides::default()
            })
            .await;
        let r = single(&replanned);
        assert_eq!(
            (r.status, r.cache, r.llm_calls),
            (ScenarioStatus::Passed, CacheOutcome::StaleReplanned, 1),
            "{:?}",
            r.message
        );
        assert!(
            r.message
                .as_deref()
                .unwrap_or_default()
                .contains("re-planned up front"),
            "{:?}",
            r.message
        );
        assert_eq!(p.stale().len(), 1);
        // A re-plan up front that verifies nothing leaves the plan that worked in the cache.
        let verified = p.cached("save").expect("cached");
        forget_save_button(&p);
        for _ in 0..4 {
            fake.push(Reply::Refusal("I cannot help with that.".into()));
        }
        let refused = p
            .run(Overrides {
                replan_at_risk: true,
                ..Overrides::default()
            })
            .await;
        let r = single(&refused);
        assert_eq!(r.status, ScenarioStatus::Failed, "{:?}", r.message);
        let message = r.message.as_deref().unwrap_or_default();
        assert!(
            message.contains("the old plan stays cached and the next run replays it"),
            "{message}"
        );
        assert_eq!(p.cached("save"), Some(verified));
    });
}

#[test]
fn a_replay_on_a_changed_start_page_is_hit_changed_page_and_a_failed_one_says_so_in_its_evidence() {
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Grounded(save_plan()));
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        p.scenario("save", SAVE_TASK, "/basic.html");
        assert_eq!(
            single(&p.run(Overrides::default()).await).status,
            ScenarioStatus::Passed
        );
        let mut entry = p.cached("save").unwrap();
        let verified_on = entry["key"]["start_sig"].as_str().unwrap().to_string();
        // The page as it was verified: a plain hit.
        let same = p.run(Overrides::default()).await;
        assert_eq!(single(&same).cache, CacheOutcome::Hit);
        // As if a control had been added since: reported, and the replay still passes.
        entry["key"]["start_sig"] = json!("sha256:0000");
        p.write("e2e/.windup/cache/save.json", &entry.to_string());
        let changed = p.run(Overrides::default()).await;
        let r = single(&changed);
        assert_eq!(
            (r.status, r.cache),
            (ScenarioStatus::Passed, CacheOutcome::HitChangedPage)
        );
        // A replay that then fails keeps the new signature in its stale evidence.
        entry["plan"]["actions"][0]["target"]["selector"] = json!("role=button[name=\"Gone\"]");
        p.write("e2e/.windup/cache/save.json", &entry.to_string());
        let failed = p
            .run(Overrides {
                require_cached: true,
                ..Overrides::default()
            })
            .await;
        assert_eq!(single(&failed).cache, CacheOutcome::HitChangedPage);
        let stale = p.stale();
        assert_eq!(stale.len(), 1);
        let evidence: Value =
            serde_json::from_str(&std::fs::read_to_string(&stale[0]).unwrap()).unwrap();
        assert_eq!(
            evidence["invalidation"]["start_sig_now"],
            json!(verified_on)
        );
    });
}

/// The signature in Chromium: the same for pages that differ in text, data and the length of
/// a list; different when a control is added or removed.
#[test]
fn signatures_ignore_text_data_and_counts_but_not_controls() {
    let dir = tempfile::tempdir().unwrap();
    let page = |name: &str, rows: usize, extra: &str| {
        let items: String = (0..rows)
            .map(|i| format!("<li>Item {i} of {name} <a href=\"/i/{i}\">Open</a> <button>Delete</button></li>"))
            .collect();
        std::fs::write(
            dir.path().join(format!("{name}.html")),
            format!(
                "<!doctype html><title>{name}</title><h1>{name}</h1><p>{rows} items</p>\
                 <label>Search <input type=search></label><ul>{items}</ul>{extra}\
                 <button>Save</button>"
            ),
        )
        .unwrap();
    };
    page("few", 2, "");
    page("many", 40, "");
    page("other-text", 5, "");
    page(
        "added",
        5,
        "<select aria-label=\"Sort\"><option>a</option></select>",
    );
    page("removed", 0, "");
    let server = Server::start(dir.path());
    block_on(async {
        let session = browser().acquire_session().await.unwrap();
        let mut sigs = std::collections::BTreeMap::new();
        for name in ["few", "many", "other-text", "added", "removed"] {
            let url = server.base.join(&format!("{name}.html")).unwrap();
            session
                .goto(url.as_str(), std::time::Duration::from_secs(10))
                .await
                .unwrap();
            sigs.insert(
                name,
                windup_engine::signature::of_page(&session).await.unwrap(),
            );
        }
        session.close().await;
        note_pid(browser()).await;
        assert_eq!(sigs["few"], sigs["many"]);
        assert_eq!(sigs["few"], sigs["other-text"]);
        assert_ne!(sigs["few"], sigs["added"], "a control added");
        assert_ne!(sigs["few"], sigs["removed"], "the list's controls removed");
    });
}

#[test]
fn a_control_a_page_draws_from_a_late_answer_is_in_its_start_signature() {
    // One page three ways: the button in its HTML, drawn by its script from an answer that comes
    // 400 ms after the request (as TodoMVC's sidebar is drawn from `learn.json`), or absent.
    let server = Server::start(&engine_dir().join("tests/fixtures/pages"));
    let page =
        |rest: &str| format!("<!doctype html><title>t</title><input aria-label=\"Name\">{rest}");
    server.page("/drawn.html", &page("<button>Details</button>"));
    server.page("/bare.html", &page(""));
    server.page(
        "/late.html",
        &page(
            "<script>fetch('/late.json').then(r => r.text()).then(() => {
               const b = document.createElement('button');
               b.textContent = 'Details';
               document.body.append(b);
             });</script>",
        ),
    );
    server.route(
        "/late.json",
        windup_testkit::Canned {
            status: 200,
            content_type: "application/json",
            body: b"{}".to_vec(),
            delay: std::time::Duration::from_millis(400),
        },
    );
    let start_sig = |start: &str| {
        let plan = plan_from_str(&format!(
            r#"{{"plan_version":"0.1","scenario_id":"t","task":"t","start_url":"{start}","generated_by":"human","actions":[{{"id":"a1","type":"wait_for","target":{{"selector":"label=\"Name\""}},"expect":{{"visible":"label=\"Name\""}}}}]}}"#
        ));
        let x = block_on(Run::new(&server.base).exec(browser(), &plan));
        assert!(x.passed(), "{start}: {:?}", x.failure);
        x.start_sig
            .unwrap_or_else(|| panic!("{start}: no signature"))
    };
    let (drawn, bare) = (start_sig("/drawn.html"), start_sig("/bare.html"));
    assert_ne!(drawn, bare, "the button is part of the page's structure");
    // Read once the answer was drawn: the same page as the one with the button in its HTML, not
    // the half-drawn page of the load event (a replay would then report it changed at random).
    assert_eq!(start_sig("/late.html"), drawn);
}
