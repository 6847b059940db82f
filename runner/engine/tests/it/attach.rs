//! A browser Windup did not start (`BrowserOptions::cdp_url`): sessions run in contexts of
//! Windup's own, closing removes only those and detaches, and a browser that dies is an error,
//! never a restart. Checked from outside by the test's own CDP client
//! (`windup_testkit::chromium`).

use std::time::Duration;

use windup_engine::browser::{Browser, BrowserError, BrowserOptions};

use crate::support::*;

const MINE: &str = "<!doctype html><title>mine</title><p>mine</p>\
    <script>document.cookie = 'mine=kept; max-age=3600; path=/';</script>";

fn attached(url: &str, reuse_context: bool) -> Browser {
    Browser::new(BrowserOptions {
        cdp_url: Some(url::Url::parse(url).unwrap()),
        reuse_context,
        ..browser_options()
    })
}

#[test]
fn an_attached_browser_keeps_its_tabs_and_cookies_and_is_never_closed_or_restarted() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    server.page("/mine.html", MINE);
    server.page("/app.html", "<!doctype html><title>app</title><p>app</p>");
    let mine = format!("{}mine.html", server.base);
    let app = format!("{}app.html", server.base);
    let mut chromium = chromium::UserChromium::start(&mine);
    let cookie = |c: &chromium::UserChromium| {
        c.default_cookies()
            .iter()
            .any(|k| k["name"] == "mine" && k["value"] == "kept")
    };
    chromium.wait_until(cookie, "the tab's cookie");
    for (url, reuse_context) in [(chromium.ws_url(), false), (chromium.cdp_url(), true)] {
        block_on(async {
            let browser = attached(&url, reuse_context);
            let session = browser.acquire_session().await.expect("attached");
            assert_eq!(browser.pid().await, None, "Windup started no Chromium");
            session.goto(&app, Duration::from_secs(10)).await.unwrap();
            let seen: String = session.eval("document.cookie").await.unwrap();
            // A new context sees nothing of the profile; its default context sees its cookie.
            assert_eq!(seen.contains("mine=kept"), reuse_context, "{seen}");
            session.close().await;
            browser.close().await;
        });
        assert!(chromium.is_running(), "closing detached, never closed it");
        assert_eq!(
            chromium.page_urls(),
            vec![mine.clone()],
            "only its tab is left"
        );
        assert!(chromium.contexts().is_empty(), "Windup's contexts are gone");
        assert!(cookie(&chromium), "its cookie is still there");
    }
    // A browser that dies under an attached run is an error, not a new Chromium.
    block_on(async {
        let browser = attached(&chromium.cdp_url(), false);
        browser.ensure_started().await.expect("attached");
        std::process::Command::new("kill")
            .args(["-9", &chromium.pid().to_string()])
            .status()
            .unwrap();
        // Until the connection notices, a session may still open (or fail opening).
        for _ in 0..100 {
            if browser.acquire_session().await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        match browser.acquire_session().await.map(|_| ()) {
            Err(BrowserError::Crashed(why)) => {
                assert!(why.contains("does not restart"), "{why}")
            }
            other => panic!("expected an error, got {other:?}"),
        }
        assert_eq!(browser.pid().await, None, "no Chromium was started instead");
        browser.close().await;
    });
}

#[test]
fn attaching_where_nothing_answers_is_bad_input_naming_the_url() {
    let free = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let url = format!("ws://127.0.0.1:{free}/devtools/browser/x");
    let err = block_on(attached(&url, false).ensure_started()).unwrap_err();
    let input = err.as_input_error().expect("bad input");
    assert_eq!(input.field, url);
    assert!(input.problem.contains("nothing answers"), "{input}");
    assert!(input.fix.contains("windup browser"), "{input}");
}
