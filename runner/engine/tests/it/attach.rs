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

/// A `/json/version` naming a WebSocket on another host (issue 33: Windup followed it without
/// the off-machine warning): Windup connects only to the host and port it was given.
#[test]
fn a_websocket_named_on_another_host_is_never_connected_to() {
    use std::io::{Read, Write};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let elsewhere = std::net::TcpListener::bind("127.0.0.2:0").unwrap();
    let elsewhere_port = elsewhere.local_addr().unwrap().port();
    let reached = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&reached);
    std::thread::spawn(move || {
        for conn in elsewhere.incoming() {
            counted.fetch_add(1, Ordering::SeqCst);
            drop(conn);
        }
    });
    // Answers /json/version as a Chromium would, naming the other host; anything else 404.
    let given = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let given_port = given.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for mut conn in given.incoming().flatten() {
            let mut buf = [0u8; 4096];
            let n = conn.read(&mut buf).unwrap_or(0);
            let request = String::from_utf8_lossy(&buf[..n]);
            let answer = if request.starts_with("GET /json/version") {
                let body = format!(
                    r#"{{"Browser": "Chrome/200.0.0.0", "webSocketDebuggerUrl": "ws://127.0.0.2:{elsewhere_port}/devtools/browser/x"}}"#
                );
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                )
            } else {
                "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".into()
            };
            let _ = conn.write_all(answer.as_bytes());
        }
    });
    let url = format!("http://127.0.0.1:{given_port}");
    let err = block_on(attached(&url, false).ensure_started()).unwrap_err();
    let input = err.as_input_error().expect("bad input");
    assert!(
        input
            .problem
            .contains(&format!("ws://127.0.0.1:{given_port}/devtools/browser/x")),
        "the WebSocket is tried where Windup was told: {input}"
    );
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        reached.load(Ordering::SeqCst),
        0,
        "the other host was reached"
    );
}
