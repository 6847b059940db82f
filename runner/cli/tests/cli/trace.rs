//! `--trace`: a failed scenario's filmstrip in the HTML report, opened offline in Chromium (one
//! frame per executed step with its URL and timings, every picture loaded from inside the page,
//! the credential field covered in the picture, the size bounds held); `--trace on` keeps a
//! passing run's frames, `on-failure` keeps none of them.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};
use windup_engine::browser::{Browser, BrowserOptions, Session};
use windup_engine::executor::{FRAME_WIDTH, MAX_FRAME_BYTES, MAX_FRAMES, MAX_TRACE_BYTES};

use crate::support::{
    DASH_TOKEN, example, report, serve, stderr, windup, windup_dash, with_dashboard,
};

/// `windup run ID --trace WHEN` with JSON and HTML reports under `out/`; checks the exit code.
fn run_traced(root: &Path, id: &str, base: &str, when: &str, code: i32) -> Value {
    let out = windup(
        root,
        &[
            "run",
            id,
            "--base-url",
            base,
            "--trace",
            when,
            "--report",
            "json=out/r.json",
            "--report",
            "html=out/report.html",
        ],
    );
    assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
    report(&root.join("out/r.json"))
}

/// The trace pictures kept in the project (`e2e/.windup/runs/*/*.jpg`), with their sizes.
fn kept_pictures(root: &Path) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let Ok(runs) = std::fs::read_dir(root.join("e2e/.windup/runs")) else {
        return out;
    };
    for run in runs.flatten().filter(|r| r.path().is_dir()) {
        for f in std::fs::read_dir(run.path()).unwrap().flatten() {
            let name = f.file_name().to_string_lossy().to_string();
            if name.ends_with(".jpg") {
                out.push((name, f.metadata().unwrap().len()));
            }
        }
    }
    out.sort();
    out
}

/// Opens `file` in a fresh session with the network off and every http(s) URL blocked: the
/// page may only use what is inside it.
async fn open_offline(browser: &Browser, file: &Path) -> Session {
    let session = browser.acquire_session().await.unwrap();
    session
        .send_raw(
            "Network.emulateNetworkConditions",
            json!({"offline": true, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}),
        )
        .await
        .unwrap();
    session
        .send_raw(
            "Network.setBlockedURLs",
            json!({"urls": ["http://*", "https://*", "ws://*", "wss://*"]}),
        )
        .await
        .unwrap();
    session
        .goto(
            &format!("file://{}", file.display()),
            Duration::from_secs(10),
        )
        .await
        .unwrap();
    session
}

/// Every frame of the filmstrip as the page shows it, and Chromium's own decoding of each
/// picture: the pixels across the middle of every step's target box (in the viewport's CSS
/// pixels), by step, read back from a canvas the picture is drawn on.
const FRAMES_JS: &str = "(async (targets) => {
    const out = [];
    for (const li of document.querySelectorAll('ol.film > li')) {
        const img = li.querySelector('img');
        if (img) await img.decode().catch(() => {});
        const f = { step: li.dataset.step, text: li.innerText, url: li.querySelector('code.url')?.textContent ?? null,
            timings: li.querySelector('.timings')?.textContent ?? null };
        if (img) {
            Object.assign(f, { complete: img.complete, width: img.naturalWidth, height: img.naturalHeight,
                shown: img.checkVisibility(), inline: img.src.startsWith('data:image/jpeg;base64,') });
            const c = document.createElement('canvas');
            c.width = img.naturalWidth; c.height = img.naturalHeight;
            const g = c.getContext('2d');
            g.drawImage(img, 0, 0);
            f.across = {};
            for (const [step, t] of Object.entries(targets)) {
                const s = img.naturalWidth / t.viewport;
                const y = Math.round((t.y + t.height / 2) * s);
                f.across[step] = [];
                for (let i = 1; i < 12; i++) {
                    const x = Math.round((t.x + t.width * i / 12) * s);
                    f.across[step].push(Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3)));
                }
            }
        }
        out.push(f);
    }
    return out;
})";

/// The frames of the report's first scenario in the HTML page, with the pixels across each
/// step's target box.
async fn filmstrip(browser: &Browser, html: &Path, scenario: &Value) -> (Vec<Value>, Vec<String>) {
    let mut targets = serde_json::Map::new();
    for a in scenario["actions"].as_array().unwrap() {
        let t = &a["trace"];
        if t["target_box"].is_object() {
            let mut b = t["target_box"].clone();
            b["viewport"] = t["viewport"]["width"].clone();
            targets.insert(a["id"].as_str().unwrap().to_string(), b);
        }
    }
    let session = open_offline(browser, html).await;
    let frames: Vec<Value> = session
        .eval(&format!("{FRAMES_JS}({})", Value::Object(targets)))
        .await
        .unwrap();
    let requests = session.log().failed_requests;
    session.close().await;
    (frames, requests)
}

fn dark(p: &Value) -> bool {
    p.as_array()
        .unwrap()
        .iter()
        .all(|c| c.as_u64().unwrap() < 0x50)
}

#[test]
fn a_failed_run_traced_on_failure_shows_its_filmstrip_offline_with_the_credential_covered() {
    let project = example();
    let root = project.path();
    // The app renamed its button (too far for healing): the replay fills both fields, then
    // fails at the click.
    let login = root.join("app/login.html");
    let html = std::fs::read_to_string(&login).unwrap();
    std::fs::write(
        &login,
        html.replace(
            "<button type=\"submit\">Sign in</button>",
            "<button type=\"submit\">Continue</button>",
        ),
    )
    .unwrap();
    let (server, base) = serve(root);
    let r = run_traced(root, "sign-in", &base, "on-failure", 1);
    drop(server);
    let s = &r["scenarios"][0];
    assert_eq!(s["failure_class"], "selector_not_found", "{s}");
    let actions = s["actions"].as_array().unwrap();
    let traced: Vec<&str> = actions
        .iter()
        .filter(|a| a["trace"].is_object())
        .map(|a| a["id"].as_str().unwrap())
        .collect();
    // One frame per executed step: a1 and a2 passed, a3 failed, a4 never ran.
    assert_eq!(traced, ["a1", "a2", "a3"], "{s}");
    for a in &actions[..3] {
        let t = &a["trace"];
        assert!(t["screenshot"].as_str().unwrap().ends_with(".jpg"), "{t}");
        assert!(t["url"].as_str().unwrap().ends_with("/login.html"), "{t}");
    }
    assert!(actions[0]["trace"]["target_box"]["width"].as_u64().unwrap() > 0);
    // Bounded: each picture and the scenario's pictures together.
    let pictures = kept_pictures(root);
    assert_eq!(pictures.len(), 3, "{pictures:?}");
    assert!(pictures.len() <= MAX_FRAMES);
    assert!(
        pictures.iter().all(|(_, n)| *n as usize <= MAX_FRAME_BYTES),
        "{pictures:?}"
    );
    assert!(pictures.iter().map(|(_, n)| *n as usize).sum::<usize>() <= MAX_TRACE_BYTES);
    let json = std::fs::read_to_string(root.join("out/r.json")).unwrap();
    let page = std::fs::read_to_string(root.join("out/report.html")).unwrap();
    for text in [&json, &page] {
        assert!(!text.contains("correct horse battery staple"));
        assert!(!text.contains("admin@acme.test"));
    }

    windup_testkit::block_on(async {
        let browser = Browser::new(BrowserOptions::default());
        let (frames, requests) = filmstrip(&browser, &root.join("out/report.html"), s).await;
        browser.close().await;
        assert!(
            requests.is_empty(),
            "the report asked the network for {requests:?}"
        );
        let steps: Vec<&str> = frames.iter().map(|f| f["step"].as_str().unwrap()).collect();
        assert_eq!(steps, ["a1", "a2", "a3"], "{frames:#?}");
        for (f, a) in frames.iter().zip(actions) {
            assert_eq!(f["complete"], true, "{f}");
            assert_eq!(f["inline"], true, "{f}");
            assert_eq!(f["shown"], true, "{f}");
            let width = f["width"].as_u64().unwrap();
            assert!(width > 0 && width <= u64::from(FRAME_WIDTH), "{f}");
            assert!(f["height"].as_u64().unwrap() > 0, "{f}");
            assert_eq!(f["url"], a["trace"]["url"], "{f}");
            let timings = f["timings"].as_str().unwrap();
            assert!(
                timings.starts_with("wait ")
                    && timings.contains(" · act ")
                    && timings.contains(" · verify "),
                "{f}"
            );
        }
        // The email field (a1, typed from ACME_ADMIN_EMAIL) is covered across its whole middle in
        // every frame after it was filled; the password field (a2) too.
        for (field, from) in [("a1", 0), ("a2", 1)] {
            for f in &frames[from..] {
                let across = f["across"][field].as_array().unwrap();
                assert!(
                    across.iter().all(dark),
                    "{field}'s field is covered in {}'s frame: {across:?}",
                    f["step"]
                );
            }
        }
        assert!(frames[2]["text"].as_str().unwrap().contains("failed"));
    });
}

#[test]
fn trace_on_keeps_a_passing_runs_frames_and_on_failure_keeps_none() {
    let project = example();
    let root = project.path();
    let (_server, base) = serve(root);
    let r = run_traced(root, "search-projects", &base, "on-failure", 0);
    let s = &r["scenarios"][0];
    assert!(
        s["actions"]
            .as_array()
            .unwrap()
            .iter()
            .all(|a| a.get("trace").is_none()),
        "{s}"
    );
    assert_eq!(kept_pictures(root), Vec::<(String, u64)>::new());
    assert!(
        !std::fs::read_to_string(root.join("out/report.html"))
            .unwrap()
            .contains("class=\"film\"")
    );

    let r = run_traced(root, "search-projects", &base, "on", 0);
    let s = &r["scenarios"][0];
    let actions = s["actions"].as_array().unwrap();
    assert!(
        actions.iter().all(|a| a["trace"]["screenshot"].is_string()),
        "{s}"
    );
    assert_eq!(kept_pictures(root).len(), actions.len());
    windup_testkit::block_on(async {
        let browser = Browser::new(BrowserOptions::default());
        let (frames, _) = filmstrip(&browser, &root.join("out/report.html"), s).await;
        browser.close().await;
        assert_eq!(frames.len(), actions.len(), "{frames:#?}");
        assert!(frames.iter().all(|f| f["width"].as_u64().unwrap() > 0));
        // The search box holds plain text, no credential: it is not covered.
        let last = frames.last().unwrap();
        let search = last["across"][last["step"].as_str().unwrap()]
            .as_array()
            .unwrap();
        assert!(!search.iter().all(dark), "{search:?}");
    });
}

#[test]
fn a_pushed_run_uploads_its_trace_frames_as_jpeg_artifacts() {
    use windup_testkit::fake_dashboard::FakeDashboard;
    let project = example();
    let root = project.path();
    let login = root.join("app/login.html");
    let html = std::fs::read_to_string(&login).unwrap();
    std::fs::write(
        &login,
        html.replace(">Sign in</button>", ">Continue</button>"),
    )
    .unwrap();
    let fake = FakeDashboard::start(DASH_TOKEN);
    with_dashboard(root, &fake.url());
    let (_server, base) = serve(root);
    let out = windup_dash(
        root,
        &[
            "run",
            "sign-in",
            "--base-url",
            &base,
            "--trace",
            "on-failure",
            "--report",
            "json=r.json",
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = report(&root.join("r.json"));
    let run_id = r["run_id"].as_str().unwrap();
    let frames: Vec<&str> = r["scenarios"][0]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["trace"]["screenshot"].as_str())
        .collect();
    assert_eq!(frames.len(), 3, "{r}");
    for path in frames {
        let name = path.rsplit('/').next().unwrap();
        assert_eq!(
            fake.artifact(run_id, name),
            Some(std::fs::read(root.join(path)).unwrap()),
            "{name}, byte for byte"
        );
    }
    let puts = fake.requests_to("PUT", &format!("/api/v1/runs/{run_id}/artifacts/"));
    let jpegs: Vec<_> = puts.iter().filter(|p| p.path.ends_with(".jpg")).collect();
    assert_eq!(jpegs.len(), 3);
    assert!(
        jpegs
            .iter()
            .all(|p| p.header("content-type") == Some("image/jpeg"))
    );
}
