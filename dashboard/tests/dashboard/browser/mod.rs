//! The pages in a real Chromium: what a team lead sees as runs arrive (none, one, a failure, a
//! heal, many), that filters push their URL and a pushed URL opens as a whole page, that the
//! trace viewer steps with the keyboard, and that no page logs a console error (a failed load,
//! a CSP refusal, an exception). The oracle is the browser: its DOM as rendered, its location,
//! its console. With `WINDUP_SCREENSHOTS_DIR` set, the overview, a project page and a healed
//! run's page are saved there as PNGs.

mod busy;
mod harness;

use std::sync::Arc;

use serde_json::{Value, json};
use windup_dashboard::admin;
use windup_dashboard::store::{NewResult, NewRun};

use crate::common::{Backend, Dash, PASSWORD, ledger, report, today};
use harness::Browser;

/// A dashboard over real HTTP with plain-http cookies (as `--insecure-cookies` serves on
/// localhost), a project `acme`, an ingest token and an instance administrator.
async fn serve() -> (Dash, String, String) {
    let dash = Dash::start(Backend::Sqlite, None, |mut state| {
        let mut config = (*state.config).clone();
        config.secure_cookies = false;
        state.config = Arc::new(config);
        state
    })
    .await;
    dash.project("acme").await;
    admin::create_person(&*dash.state.store, "ada@example.com", Some(PASSWORD), true)
        .await
        .expect("create user");
    let token = dash.token("acme", &["ingest"], None).await;
    let base = dash
        .server
        .server_address()
        .expect("served over http")
        .to_string()
        .trim_end_matches('/')
        .to_string();
    (dash, token, base)
}

async fn push(dash: &Dash, token: &str, body: Value) {
    let r = dash
        .server
        .post("/api/v1/runs")
        .authorization_bearer(token)
        .json(&body)
        .await;
    assert!(r.status_code().is_success(), "{}", r.text());
}

/// A run of `scenarios` on main at `hour` today.
fn run(id: &str, commit: &str, hour: u8, scenarios: &[(&str, &str, bool)]) -> Value {
    let mut r = report(id, "main", commit, scenarios);
    r["started_at"] = json!(today(hour));
    r["ci"]["workflow_run"] = json!(format!("wf-{id}"));
    r
}

fn sign_in(b: &mut Browser, base: &str) {
    b.open(&format!("{base}/login"));
    b.eval(&format!(
        "document.querySelector('input[name=email]').value = 'ada@example.com';
         document.querySelector('input[name=password]').value = {};
         document.querySelector('main.login form').submit(); true",
        json!(PASSWORD)
    ));
    b.landed("/");
}

fn no_errors(b: &mut Browser, page: &str) {
    let errors = b.take_errors();
    assert!(errors.is_empty(), "{page} logged errors: {errors:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_lead_reads_the_state_of_main_from_empty_to_red_to_healed() {
    let (dash, token, base) = serve().await;
    let mut b = tokio::task::block_in_place(|| {
        let mut b = Browser::start();
        b.open(&format!("{base}/login"));
        no_errors(&mut b, "the login page");
        sign_in(&mut b, &base);
        // Empty: every page says why it has nothing to show.
        let headline = b.text("document.querySelector('section.headline').innerText");
        assert!(headline.contains("No run on main yet"), "{headline}");
        no_errors(&mut b, "the empty overview");
        b.open(&format!("{base}/p/acme"));
        let body = b.text("document.body.innerText");
        assert!(
            body.contains("No runs yet, so there is nothing to chart"),
            "{body}"
        );
        b.open(&format!("{base}/p/acme/spend"));
        let body = b.text("document.body.innerText");
        assert!(body.contains("No LLM calls in the last 30 days"), "{body}");
        assert!(!body.contains("$0.0000"), "{body}");
        no_errors(&mut b, "the empty project's pages");
        b
    });

    // One run, green; then two more, then a failure.
    push(&dash, &token, json!({"report": run("g1", "c1", 1, &[("login", "passed", false), ("cart", "passed", false)]), "ledger": [], "pull_request": null})).await;
    tokio::task::block_in_place(|| {
        b.open(&format!("{base}/"));
        let headline = b.text("document.querySelector('section.headline').innerText");
        assert!(headline.contains("main is green"), "{headline}");
        b.open(&format!("{base}/p/acme"));
        assert_eq!(
            b.eval("document.querySelectorAll('svg rect.runbar').length"),
            json!(1)
        );
        no_errors(&mut b, "the one-run pages");
    });
    for (id, commit, hour) in [("g2", "c2", 2), ("g3", "c3", 3)] {
        push(&dash, &token, json!({"report": run(id, commit, hour, &[("login", "passed", false), ("cart", "passed", false)]), "ledger": [], "pull_request": null})).await;
    }
    push(&dash, &token, json!({"report": run("f1", "c4", 4, &[("login", "passed", false), ("cart", "failed", false)]), "ledger": [], "pull_request": null})).await;
    tokio::task::block_in_place(|| {
        b.open(&format!("{base}/"));
        let headline = b.text("document.querySelector('section.headline').innerText");
        assert!(headline.contains("main is red"), "{headline}");
        assert!(
            headline.contains("cart") && headline.contains("app_changed"),
            "{headline}"
        );
        assert!(
            headline.contains("c4"),
            "names the breaking commit: {headline}"
        );
        no_errors(&mut b, "the red overview");
    });

    // A heal, with ten calls of a local model at $0.
    let mut healed = run(
        "h1",
        "c5",
        5,
        &[("login", "passed", false), ("cart", "passed", false)],
    );
    healed["totals"]["healed"] = json!(1);
    healed["scenarios"][0]["cache"] = json!("healed");
    healed["scenarios"][0]["heal"] = json!({"action_id": "s2", "rule": "renamed",
        "from": "role=button[name=\"Save\"]", "to": "role=button[name=\"Store\"]"});
    // The engine times the steps after a heal from the healed run's start.
    healed["scenarios"][0]["actions"][1]["started_ms"] = json!(1);
    let mut local = ledger("h1", "login", Some("local"), 10, 0);
    local["model"] = json!("qwen2.5-coder");
    local["started_at"] = json!(today(5));
    let mut replay = ledger("h1", "cart", None, 0, 0);
    replay["started_at"] = json!(today(5));
    push(
        &dash,
        &token,
        json!({"report": healed, "ledger": [local, replay], "pull_request": null}),
    )
    .await;

    tokio::task::block_in_place(|| {
        b.open(&format!("{base}/"));
        let headline = b.text("document.querySelector('section.headline').innerText");
        assert!(headline.contains("main is green"), "{headline}");
        assert!(headline.contains("awaiting review"), "{headline}");
        assert!(headline.contains("10 calls"), "{headline}");
        b.screenshot("overview");
        no_errors(&mut b, "the overview");

        b.open(&format!("{base}/p/acme"));
        let review = b.text("document.querySelector('table.reviews').innerText");
        assert!(
            review.contains("login") && review.contains("Store"),
            "{review}"
        );
        let h1 = b.text("[...document.querySelectorAll('#runs tr:not(.group-head)')].find(r => r.cells[0].innerText === 'h1').innerText");
        assert!(h1.contains("1 healed"), "{h1}");
        // Five runs, one bar each; 2 scenarios x 5 runs in the grid, the heal and the failure
        // in their own colours.
        assert_eq!(
            b.eval("document.querySelectorAll('svg rect.runbar').length"),
            json!(5)
        );
        assert_eq!(
            b.eval("document.querySelectorAll('svg.heat rect.cell').length"),
            json!(10)
        );
        assert_eq!(
            b.eval("document.querySelectorAll('svg.heat rect.cell.healed').length"),
            json!(1)
        );
        assert_eq!(
            b.eval("document.querySelectorAll('svg.heat rect.cell.fail').length"),
            json!(1)
        );
        b.screenshot("project");
        no_errors(&mut b, "the project page");

        // The filter pushes its URL, and the URL opens as the whole page.
        b.eval(
            "const s = document.querySelector('select[name=status]'); s.value = 'failed';
                s.dispatchEvent(new Event('change', {bubbles: true})); true",
        );
        b.wait_for("location.search.includes('status=failed') && document.querySelectorAll('#runs tbody tr:not(.group-head)').length === 1");
        let pushed = b.text("location.href");
        assert!(pushed.contains("/p/acme/runs?"), "{pushed}");
        b.open(&pushed);
        assert_eq!(
            b.eval("document.querySelector('header.top') !== null"),
            json!(true)
        );
        assert_eq!(
            b.eval("document.querySelector('select[name=status]').value"),
            json!("failed")
        );
        let rows = b.text("document.querySelector('#runs').innerText");
        assert!(rows.contains("f1") && !rows.contains("g1"), "{rows}");
        no_errors(&mut b, "the filtered page");

        // The healed run: green, but not silently; the step after the heal follows a1.
        b.open(&format!("{base}/p/acme/runs/h1"));
        let page = b.text("document.body.innerText");
        assert!(
            page.contains("1 healed") && page.contains("Healed without an LLM"),
            "{page}"
        );
        let diff = b.text("document.querySelector('div.heal table').innerText");
        assert!(
            diff.contains("name=\"Save\"") && diff.contains("name=\"Store\""),
            "{diff}"
        );
        let starts = b.eval("[...document.querySelectorAll('#s-login table.actions tbody tr')].map(r => Number(r.cells[3].innerText))");
        assert_eq!(starts, json!([0, 300]), "s2 starts when s1 ends");
        b.screenshot("run-healed");
        no_errors(&mut b, "the healed run's page");

        // Spend: a $0 local model shows as its calls, one row a day.
        b.open(&format!("{base}/p/acme/spend"));
        let days = b.text("document.querySelector('table.days').innerText");
        assert!(
            days.contains("qwen2.5-coder 10 calls") && !days.contains("(none"),
            "{days}"
        );
        assert_eq!(
            b.eval("document.querySelectorAll('table.days tbody tr').length"),
            json!(1)
        );
        let chart = b.text("document.querySelector('svg.chart').textContent");
        assert!(chart.contains("10 calls"), "{chart}");
        no_errors(&mut b, "the spend page");
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_trace_viewer_steps_and_zooms_with_the_keyboard() {
    let (dash, token, base) = serve().await;
    let mut b = tokio::task::block_in_place(|| {
        let mut b = Browser::start();
        sign_in(&mut b, &base);
        b
    });
    // A real JPEG, from Chromium itself, stands for the trace's pictures.
    let jpeg = tokio::task::block_in_place(|| {
        let shot = b.send(
            "Page.captureScreenshot",
            json!({"format": "jpeg", "quality": 50,
                   "clip": {"x": 0, "y": 0, "width": 320, "height": 200, "scale": 1}}),
        );
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().unwrap())
            .unwrap()
    });
    let mut body = run("t1", "c1", 1, &[("cart", "failed", false)]);
    for (n, action) in body["scenarios"][0]["actions"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        action["trace"] = json!({
            "url": format!("http://localhost:3000/step{n}"),
            "screenshot": format!("e2e/.windup/runs/t1/cart.trace-0{n}.jpg"),
            "viewport": {"x": 0, "y": 0, "width": 1280, "height": 800},
            "target_box": {"x": 473, "y": 265, "width": 334, "height": 44}
        });
    }
    push(
        &dash,
        &token,
        json!({"report": body, "ledger": [], "pull_request": null}),
    )
    .await;
    for n in 0..2 {
        let r = dash
            .server
            .put(&format!("/api/v1/runs/t1/artifacts/cart.trace-0{n}.jpg"))
            .authorization_bearer(&token)
            .content_type("image/jpeg")
            .bytes(jpeg.clone().into())
            .await;
        assert!(r.status_code().is_success(), "{}", r.text());
    }
    tokio::task::block_in_place(|| {
        b.open(&format!("{base}/p/acme/runs/t1"));
        b.eval("document.querySelector('a.open-trace').click(); true");
        b.landed("/p/acme/runs/t1/trace/cart");
        let facts = b.text("document.querySelector('dl.step-facts').innerText");
        assert!(
            facts.contains("s1") && facts.contains("334×44 at (473, 265)"),
            "{facts}"
        );
        assert!(
            facts.contains("wait 0 ms · act 250 ms · verify 50 ms"),
            "{facts}"
        );
        b.press("ArrowRight", "ArrowRight", 39);
        // Each key loads the frame's page: read it once it has loaded.
        b.wait_for("location.search === '?frame=1' && document.readyState === 'complete'");
        let facts = b.text("document.querySelector('dl.step-facts').innerText");
        assert!(facts.contains("s2") && facts.contains("/step1"), "{facts}");
        b.press("+", "Equal", 187);
        b.wait_for("location.search === '?frame=1&zoom=2' && document.readyState === 'complete' && document.querySelector('.viewer.zoomed') !== null");
        // Zoomed, the picture is wider than its frame: the page scrolls it.
        assert_eq!(
            b.eval("(() => { const p = document.querySelector('.viewer .picture'); return p.scrollWidth > p.clientWidth; })()"),
            json!(true)
        );
        b.press("ArrowLeft", "ArrowLeft", 37);
        b.wait_for("location.search === '?frame=0&zoom=2' && document.readyState === 'complete'");
        no_errors(&mut b, "the trace viewer");
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_runs_over_ten_days_chart_per_day_and_grid_the_last_thirty() {
    let (dash, _token, base) = serve().await;
    let project = dash.state.store.project("acme").await.unwrap().unwrap();
    let now = windup_dashboard::time::now_ms();
    // 300 runs of 20 scenarios over ten days, written through the store (as ingest would).
    store_runs(&dash, project.id, 300, 48 * 60_000, now).await;
    tokio::task::block_in_place(|| {
        let mut b = Browser::start();
        sign_in(&mut b, &base);
        b.open(&format!("{base}/p/acme"));
        let title = b.text("document.querySelector('section h2').innerText");
        assert!(title.starts_with("Pass rate per day"), "{title}");
        assert_eq!(
            b.eval("document.querySelectorAll('svg.heat rect.cell').length"),
            json!(600)
        );
        // The runs list pages through all 300: its last page is reached from the URL.
        b.open(&format!("{base}/p/acme/runs?page=11"));
        let rows = b.eval("document.querySelectorAll('#runs tbody tr').length");
        assert_eq!(rows, json!(25));
        no_errors(&mut b, "the pages of a busy project");
    });
}

/// `count` runs of 20 scenarios on main, `spacing_ms` apart and ending at `now`, written through
/// the store (as ingest would); scenario `n` of run `i` fails when 17 divides `i + n`.
async fn store_runs(dash: &Dash, project_id: i64, count: i64, spacing_ms: i64, now: i64) {
    for i in 0..count {
        let started = now - (count - i) * spacing_ms;
        let results: Vec<NewResult> = (0..20)
            .map(|n| NewResult {
                scenario_id: format!("scenario-{n:02}"),
                status: if (i + n) % 17 == 0 {
                    "failed"
                } else {
                    "passed"
                }
                .into(),
                cache: "hit".into(),
                ..NewResult::default()
            })
            .collect();
        let failed = results.iter().filter(|r| r.status == "failed").count() as i64;
        let run = NewRun {
            run_id: format!("run-{i:03}"),
            started_ms: started,
            finished_ms: started + 60_000,
            branch: Some("main".into()),
            commit_sha: Some(format!("{i:040x}")),
            scenarios: 20,
            passed: 20 - failed,
            failed,
            report_json: json!({"report_version": "0.2", "run_id": format!("run-{i:03}"),
                "started_at": "2026-11-29T10:00:00Z", "finished_at": "2026-11-29T10:01:00Z",
                "windup_version": "0.1.0", "totals": {"scenarios": 20, "passed": 20 - failed,
                "failed": failed, "skipped": 0, "llm_calls": 0, "cost_micro_usd": 0,
                "cache_hits": 20, "duration_ms": 1}, "scenarios": []})
            .to_string(),
            results,
            ..NewRun::default()
        };
        assert!(
            dash.state
                .store
                .insert_run(project_id, &run, now)
                .await
                .unwrap()
        );
    }
}
