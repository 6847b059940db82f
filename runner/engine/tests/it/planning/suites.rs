//! Running a suite: retries mark flaky scenarios, shards split it exactly, `--failed` and tags
//! select; Chromium killed mid-run fails only the scenarios it was running, and every report
//! stays whole.

use std::time::Duration;

use serde_json::json;
use windup_engine::config::{Config, Overrides};
use windup_engine::runner::Runner;
use windup_model::{FailureClass, RunReport, ScenarioStatus};
use windup_testkit::fake_llm::{FakeLlm, Reply};

use crate::support::*;

use super::support::*;

#[test]
fn retries_mark_flaky_shards_split_exactly_and_failed_and_tags_filter() {
    use windup_engine::runner::Selection;
    let server = pages();
    block_on(async {
        let fake = FakeLlm::start();
        for _ in 0..5 {
            fake.push(Reply::Grounded(save_plan()));
        }
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        for (i, tag) in ["smoke", "smoke", "slow", "slow", "slow"]
            .iter()
            .enumerate()
        {
            p.write(
                &format!("e2e/scenarios/s{i}.yaml"),
                &format!("id: s{i}\ntask: Save the page until it says \"Saved\", variant {i}\nstart_url: /basic.html\ntags: [{tag}]\n"),
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
            // Two steps kept: the note (it sets only its own field, before the step that
            // proves the plan) and Save.
            fake.push(Reply::Grounded(json!({"actions": [
                {"type": "fill", "target": {"ref": "@textbox \"Note\""}, "value": "x"},
                {"type": "click", "target": {"ref": "@button \"Save\""}}
            ], "complete": true})));
        }
        let p = Project::new(&server.base, &provider_toml(&fake, Wire::OpenAi, ""));
        for i in 1..=6 {
            p.scenario(
                &format!("s{i}"),
                "Save until it says \"Saved\", note, save",
                "/basic.html",
            );
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
