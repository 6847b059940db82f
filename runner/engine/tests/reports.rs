//! The report formats on hand-built run reports: snapshots of JUnit XML and HTML, escaping of
//! hostile page text, the size of a large HTML report, atomic writes. No browser needed.

use std::path::Path;

use time::macros::datetime;
use windup_engine::reporters::{ReportFormat, ReportSpec, html, junit};
use windup_model::{
    ActionResult, ActionStatus, ActionType, CacheOutcome, CiInfo, Evidence, FailureClass, GitInfo,
    Rect, RunReport, ScenarioResult, ScenarioStatus, Totals, TraceFrame,
};

/// A real 2×2 red PNG (RGB, zlib-compressed IDAT, valid CRCs).
const PNG: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x02, 0x00, 0x00, 0x00, 0xfd, 0xd4, 0x9a,
    0x73, 0x00, 0x00, 0x00, 0x10, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0xb8, 0xa3, 0xa6, 0x06,
    0x44, 0x0c, 0x10, 0x0a, 0x00, 0x23, 0x46, 0x04, 0xa1, 0x06, 0xfe, 0xe7, 0x9c, 0x00, 0x00, 0x00,
    0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];
const SCREENSHOT: &str = "e2e/.windup/runs/0193a5b0-0000-7000-8000-000000000001/checkout.png";
/// A trace frame's picture: only its JPEG signature matters to the report.
const FRAME: &str = "e2e/.windup/runs/0193a5b0-0000-7000-8000-000000000001/checkout.trace-01.jpg";
const JPEG: &[u8] = b"\xff\xd8\xff\xe0 a JPEG's first bytes";

fn action(
    id: &str,
    kind: ActionType,
    step: &str,
    status: ActionStatus,
    started_ms: u64,
    [wait_ms, act_ms, verify_ms]: [u64; 3],
) -> ActionResult {
    ActionResult {
        id: id.into(),
        kind,
        fragment: None,
        step: Some(step.into()),
        status,
        started_ms,
        duration_ms: wait_ms + act_ms + verify_ms,
        wait_ms,
        act_ms,
        verify_ms,
        error: None,
        trace: None,
        download: None,
    }
}

fn scenario(id: &str, status: ScenarioStatus) -> ScenarioResult {
    ScenarioResult {
        scenario_id: id.into(),
        task: None,
        status,
        failure_class: None,
        failed_action_id: None,
        message: None,
        cache: CacheOutcome::Hit,
        llm_calls: 0,
        cost_micro_usd: 0,
        duration_ms: 0,
        final_url: None,
        attempts: 1,
        flaky: false,
        evidence: None,
        screenshot: None,
        suggestion: None,
        triage: None,
        heal: None,
        proposal: None,
        actions: Vec::new(),
        hooks: Vec::new(),
    }
}

fn passed() -> ScenarioResult {
    ScenarioResult {
        task: Some("Sign in as the demo user and see the dashboard".into()),
        duration_ms: 1_840,
        final_url: Some("http://127.0.0.1:3000/dashboard".into()),
        actions: vec![
            action(
                "a1",
                ActionType::Goto,
                "goto /login",
                ActionStatus::Passed,
                0,
                [0, 420, 80],
            ),
            ActionResult {
                fragment: Some("sign-in/login".into()),
                ..action(
                    "a2",
                    ActionType::Fill,
                    "fill label=\"Email\" with {{DEMO_EMAIL}}",
                    ActionStatus::Passed,
                    500,
                    [30, 60, 10],
                )
            },
            action(
                "a3",
                ActionType::Click,
                "click role=button[name=\"Sign in\"]",
                ActionStatus::Passed,
                600,
                [40, 20, 1_150],
            ),
        ],
        ..scenario("sign-in", ScenarioStatus::Passed)
    }
}

fn failed() -> ScenarioResult {
    ScenarioResult {
        task: Some("Add a plan to the cart and check out".into()),
        failure_class: Some(FailureClass::SelectorNotFound),
        failed_action_id: Some("a2".into()),
        message: Some(
            "no visible match for role=button[name=\"Pay now\"] after 5000 ms; found role=button[name=\"Pay\"]"
                .into(),
        ),
        cache: CacheOutcome::StaleReplanned,
        llm_calls: 2,
        cost_micro_usd: 4_321,
        duration_ms: 6_200,
        final_url: Some("http://127.0.0.1:3000/checkout".into()),
        evidence: Some(Evidence {
            action_id: Some("a2".into()),
            url: Some("http://127.0.0.1:3000/checkout".into()),
            screenshot: Some(SCREENSHOT.into()),
            snapshot: Some(
                "main\n  heading \"Checkout\" [level=1]\n  button \"Pay\"\n  link \"Back to cart\""
                    .into(),
            ),
            console_errors: vec!["TypeError: cart.total is undefined".into()],
            failed_requests: vec!["500 http://127.0.0.1:3000/api/cart".into()],
            target: Some(
                "role=button[name=\"Pay now\"]: 0 matches; closest: button \"Pay\"".into(),
            ),
        }),
        actions: vec![
            ActionResult {
                trace: Some(TraceFrame {
                    url: Some("http://127.0.0.1:3000/checkout".into()),
                    screenshot: Some(FRAME.into()),
                    note: None,
                    viewport: Some(Rect {
                        x: 0,
                        y: 0,
                        width: 1280,
                        height: 800,
                    }),
                    target_box: Some(Rect {
                        x: 128,
                        y: 80,
                        width: 256,
                        height: 40,
                    }),
                }),
                ..action(
                    "a1",
                    ActionType::Goto,
                    "goto /checkout",
                    ActionStatus::Passed,
                    0,
                    [0, 600, 100],
                )
            },
            ActionResult {
                error: Some("selector_not_found: no visible match".into()),
                trace: Some(TraceFrame {
                    url: Some("http://127.0.0.1:3000/checkout".into()),
                    note: Some(
                        "screenshot dropped: a trace keeps at most 60 per scenario".into(),
                    ),
                    ..TraceFrame::default()
                }),
                download: None,
                ..action(
                    "a2",
                    ActionType::Click,
                    "click role=button[name=\"Pay now\"]",
                    ActionStatus::Failed,
                    700,
                    [5_000, 0, 0],
                )
            },
            action(
                "a3",
                ActionType::WaitFor,
                "wait_for text=\"Thank you\"",
                ActionStatus::Skipped,
                0,
                [0, 0, 0],
            ),
        ],
        ..scenario("checkout", ScenarioStatus::Failed)
    }
}

fn flaky() -> ScenarioResult {
    ScenarioResult {
        task: Some("Search projects for \"windup\"".into()),
        message: Some("the results list did not appear in 5000 ms".into()),
        failure_class: Some(FailureClass::PostconditionFailed),
        failed_action_id: Some("a2".into()),
        cache: CacheOutcome::Miss,
        llm_calls: 1,
        cost_micro_usd: 1_250,
        duration_ms: 900,
        attempts: 2,
        flaky: true,
        actions: vec![
            action(
                "a1",
                ActionType::Fill,
                "fill placeholder=\"Search\" with \"windup\"",
                ActionStatus::Passed,
                0,
                [100, 50, 0],
            ),
            action(
                "a2",
                ActionType::Press,
                "press Enter",
                ActionStatus::Passed,
                200,
                [0, 20, 600],
            ),
        ],
        ..scenario("search-projects", ScenarioStatus::Passed)
    }
}

fn healed() -> ScenarioResult {
    ScenarioResult {
        task: Some("Archive the Apollo project".into()),
        message: Some(
            "healed without an LLM: the target of a2 was gone and one element fitted".into(),
        ),
        cache: CacheOutcome::Healed,
        duration_ms: 700,
        heal: Some(windup_model::Heal {
            action_id: "a2".into(),
            rule: windup_model::HealRule::Renamed,
            from: "role=button[name=\"Archive\"]".into(),
            to: "role=button[name=\"Move to archive\"]".into(),
        }),
        actions: vec![action(
            "a2",
            ActionType::Click,
            "click role=button[name=\"Move to archive\"]",
            ActionStatus::Passed,
            0,
            [100, 50, 100],
        )],
        ..scenario("archive-project", ScenarioStatus::Passed)
    }
}

/// A person's plan that broke: kept, failed, and the verified re-plan proposed with its diff.
fn proposed() -> ScenarioResult {
    ScenarioResult {
        task: Some("Invite a member to the team".into()),
        failure_class: Some(FailureClass::SelectorNotFound),
        failed_action_id: Some("a1".into()),
        message: Some(
            "no visible match for label=\"Email\"; the plan was written or accepted by a person, so it is kept: a verified re-plan was written as a proposal; review it, then adopt it with `windup accept invite-member`"
                .into(),
        ),
        llm_calls: 2,
        cost_micro_usd: 2_100,
        duration_ms: 3_100,
        proposal: Some(serde_json::from_value(serde_json::json!({
            "file": "e2e/.windup/cache/proposals/invite-member.json", "source": "planned",
            "diff": {"old_steps": 3, "new_steps": 4, "added": ["click role=button[name=\"<Continue>\"]"],
                "changed": [{"from": "fill label=\"Email\" value_ref=ACME_ADMIN_EMAIL",
                    "to": "fill label=\"Work email\" value_ref=ACME_ADMIN_EMAIL"}]}
        })).unwrap()),
        actions: vec![action(
            "a1",
            ActionType::Fill,
            "fill label=\"Email\" with {{ACME_ADMIN_EMAIL}}",
            ActionStatus::Failed,
            0,
            [1_500, 0, 0],
        )],
        ..scenario("invite-member", ScenarioStatus::Failed)
    }
}

fn skipped() -> ScenarioResult {
    ScenarioResult {
        message: Some("skipped: depends on checkout, which failed".into()),
        cache: CacheOutcome::None,
        ..scenario("refund", ScenarioStatus::Skipped)
    }
}

fn report(scenarios: Vec<ScenarioResult>) -> RunReport {
    let count = |s: ScenarioStatus| scenarios.iter().filter(|r| r.status == s).count() as u32;
    let totals = Totals {
        scenarios: scenarios.len() as u32,
        passed: count(ScenarioStatus::Passed),
        failed: count(ScenarioStatus::Failed),
        skipped: count(ScenarioStatus::Skipped),
        llm_calls: scenarios.iter().map(|s| s.llm_calls).sum(),
        cost_micro_usd: scenarios.iter().map(|s| s.cost_micro_usd).sum(),
        cache_hits: scenarios
            .iter()
            .filter(|s| s.cache == CacheOutcome::Hit)
            .count() as u32,
        duration_ms: scenarios.iter().map(|s| s.duration_ms).sum(),
        flaky: scenarios.iter().filter(|s| s.flaky).count() as u32,
        healed: scenarios.iter().filter(|s| s.heal.is_some()).count() as u32,
    };
    RunReport {
        report_version: windup_model::report::REPORT_VERSION.into(),
        run_id: "0193a5b0-0000-7000-8000-000000000001".into(),
        started_at: datetime!(2026-11-30 03:00:00 UTC),
        finished_at: datetime!(2026-11-30 03:00:09 UTC),
        windup_version: "0.1.0".into(),
        base_url: Some("http://127.0.0.1:3000".into()),
        environment: None,
        git: Some(GitInfo {
            commit: "aaa9097c0ffee".into(),
            branch: Some("main".into()),
        }),
        ci: Some(CiInfo {
            provider: "github".into(),
            workflow_run: Some("1234".into()),
            job: Some("e2e".into()),
            shard: None,
        }),
        totals,
        scenarios,
        debrief: None,
        hooks: Vec::new(),
    }
}

fn fixed() -> RunReport {
    report(vec![
        passed(),
        failed(),
        flaky(),
        healed(),
        proposed(),
        skipped(),
    ])
}

/// A project root holding the failed scenario's screenshot.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join(SCREENSHOT);
    std::fs::create_dir_all(shot.parent().unwrap()).unwrap();
    std::fs::write(&shot, PNG).unwrap();
    std::fs::write(dir.path().join(FRAME), JPEG).unwrap();
    dir
}

#[test]
fn junit_snapshot() {
    insta::assert_snapshot!("junit", junit::render(&fixed(), None).unwrap());
}

#[test]
fn html_snapshot() {
    let root = project();
    let page = html::render(&fixed(), root.path()).unwrap();
    // The screenshot is inlined, so the snapshot does not depend on the temporary root.
    assert!(
        page.contains("src=\"data:image/png;base64,iVBORw0KGgo"),
        "no inlined screenshot"
    );
    assert!(!page.contains(&root.path().display().to_string()));
    insta::assert_snapshot!("html", page);
}

#[test]
fn html_is_self_contained_and_puts_failures_first() {
    let root = project();
    let page = html::render(&fixed(), root.path()).unwrap();
    for remote in [
        "http-equiv=\"refresh\"",
        "<script",
        "<link",
        "@import",
        "url(",
        "href=",
    ] {
        assert!(!page.contains(remote), "the page has {remote}");
    }
    assert!(page.contains("default-src 'none'"));
    let at = |needle: &str| page.find(needle).unwrap_or_else(|| panic!("no {needle}"));
    assert!(at("<b>checkout</b>") < at("<b>search-projects</b>"));
    assert!(at("<b>search-projects</b>") < at("<b>sign-in</b>"));
    assert!(page.contains("<details class=\"sc failed\" open>"));
    assert!(page.contains("<details class=\"sc passed\">"));
    // Integer micro-dollars shown as dollars: 4 321 + 1 250 + 2 100 µ$ = $0.0077 (rounded up).
    assert!(page.contains("<dd>$0.0077</dd>"), "total cost");
}

#[test]
fn a_missing_screenshot_is_named_not_fatal() {
    let root = tempfile::tempdir().unwrap();
    let page = html::render(&fixed(), root.path()).unwrap();
    assert!(!page.contains("data:image/png"));
    assert!(page.contains(&format!("screenshot {SCREENSHOT} cannot be read")));
}

const HOSTILE: &str = "</details></pre><script>alert(1)</script><img src=x onerror=alert(2)>\"'&";

fn hostile() -> RunReport {
    let mut s = failed();
    s.scenario_id = format!("evil{HOSTILE}");
    s.task = Some(format!("task {HOSTILE}"));
    s.message = Some(format!("message {HOSTILE}"));
    s.final_url = Some("javascript:alert(3)".into());
    let e = s.evidence.as_mut().unwrap();
    e.url = Some(format!("http://x/{HOSTILE}"));
    e.snapshot = Some(format!("heading \"{HOSTILE}\"\n{HOSTILE}"));
    e.target = Some(format!("target {HOSTILE}"));
    e.console_errors = vec![format!("console {HOSTILE}")];
    e.failed_requests = vec![format!("500 http://x/{HOSTILE}")];
    e.screenshot = Some(format!("{HOSTILE}.png"));
    for a in &mut s.actions {
        a.step = Some(format!("click text=\"{HOSTILE}\""));
        a.error = Some(format!("error {HOSTILE}"));
        a.fragment = Some(HOSTILE.into());
    }
    let mut f = flaky();
    f.message = Some(HOSTILE.into());
    report(vec![s, f])
}

#[test]
fn page_text_cannot_inject_markup_into_html() {
    let page = html::render(&hostile(), Path::new("/nonexistent")).unwrap();
    for raw in [
        "<script",
        "<img src=x",
        "</pre><script",
        "onerror=alert(2)>",
    ] {
        assert!(!page.contains(raw), "unescaped {raw:?} in the page");
    }
    assert!(page.contains("&#60;script&#62;alert(1)&#60;/script&#62;"));
    // Every <details> the template opens is closed by the template, and nothing else.
    assert_eq!(
        page.matches("<details").count(),
        page.matches("</details>").count()
    );
    assert_eq!(
        page.matches("<pre>").count(),
        page.matches("</pre>").count()
    );
    // A URL is text, never a link.
    assert!(!page.contains("href="));
}

#[test]
fn page_text_cannot_inject_markup_into_junit() {
    let xml = junit::render(&hostile(), None).unwrap();
    assert!(!xml.contains("<script"), "unescaped markup in the XML");
    assert!(!xml.contains("</details>"));
    // The XML parses back, with the text intact.
    let parsed = quick_junit::Report::deserialize_from_str(&xml).unwrap();
    let case = &parsed.test_suites[0].test_cases[0];
    assert_eq!(case.name.as_str(), format!("evil{HOSTILE}"));
    let quick_junit::TestCaseStatus::NonSuccess {
        message,
        description,
        ..
    } = &case.status
    else {
        panic!("the failed scenario is not a failure: {:?}", case.status);
    };
    assert_eq!(
        message.as_ref().unwrap().as_str(),
        format!("selector_not_found at a2: message {HOSTILE}")
    );
    assert!(
        description
            .as_ref()
            .unwrap()
            .as_str()
            .contains(&format!("target: target {HOSTILE}"))
    );
}

#[test]
fn junit_maps_every_status() {
    let xml = junit::render(&fixed(), None).unwrap();
    let parsed = quick_junit::Report::deserialize_from_str(&xml).unwrap();
    assert_eq!(parsed.test_suites.len(), 1);
    let suite = &parsed.test_suites[0];
    assert_eq!(suite.name.as_str(), "windup");
    assert_eq!((suite.tests, suite.failures, suite.errors), (6, 2, 0));
    let case = |id: &str| {
        suite
            .test_cases
            .iter()
            .find(|c| c.name.as_str() == id)
            .unwrap()
    };
    assert_eq!(
        case("checkout").classname.as_ref().unwrap().as_str(),
        "windup"
    );
    assert_eq!(case("checkout").time.unwrap().as_millis(), 6_200);
    assert!(matches!(
        &case("search-projects").status,
        quick_junit::TestCaseStatus::Success { flaky_runs } if flaky_runs.len() == 1
    ));
    assert!(matches!(
        case("refund").status,
        quick_junit::TestCaseStatus::Skipped { .. }
    ));
    assert!(matches!(
        &case("sign-in").status,
        quick_junit::TestCaseStatus::Success { flaky_runs } if flaky_runs.is_empty()
    ));
}

/// 200 scenarios of 12 steps, one in ten failed with a 4 KB accessibility snapshot.
fn large() -> RunReport {
    let scenarios = (0..200)
        .map(|i| {
            let mut s = if i % 10 == 3 {
                let mut s = failed();
                s.evidence.as_mut().unwrap().screenshot = None;
                s.evidence.as_mut().unwrap().snapshot =
                    Some("  listitem \"Project number 42 of the list\"\n".repeat(90));
                s
            } else {
                passed()
            };
            s.scenario_id = format!("scenario-{i:03}");
            let template = s.actions.clone();
            s.actions = (0..12)
                .map(|n| {
                    let mut a = template[n % template.len()].clone();
                    a.id = format!("a{}", n + 1);
                    a.started_ms = n as u64 * 400;
                    a
                })
                .collect();
            s.duration_ms = 12 * 400;
            s
        })
        .collect();
    report(scenarios)
}

#[test]
fn a_200_scenario_html_report_stays_small() {
    let page = html::render(&large(), Path::new("/nonexistent")).unwrap();
    eprintln!("a 200-scenario report: {} bytes", page.len());
    assert_eq!(page.matches("<details class=\"sc").count(), 200);
    assert!(
        page.len() < 1_500_000,
        "a 200-scenario report is {} bytes",
        page.len()
    );
}

#[test]
fn report_specs_write_each_format_atomically() {
    let root = project();
    let out = tempfile::tempdir().unwrap();
    let report = fixed();
    for (raw, format) in [
        ("json", ReportFormat::Json),
        ("junit", ReportFormat::Junit),
        ("html", ReportFormat::Html),
    ] {
        let path = out.path().join(format!("reports/run.{raw}"));
        let spec = ReportSpec::parse(&format!("{raw}={}", path.display())).unwrap();
        assert_eq!(spec.format, format);
        spec.write(&report, root.path()).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.is_empty());
    }
    let names: Vec<_> = std::fs::read_dir(out.path().join("reports"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 3, "no temporary file left behind: {names:?}");
    let json: RunReport = serde_json::from_str(
        &std::fs::read_to_string(out.path().join("reports/run.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(json, report);
}
