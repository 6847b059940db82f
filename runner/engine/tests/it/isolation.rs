//! Scenarios share one browser: a reused tab must start as empty as a new context.

use std::time::Duration;

use serde_json::Value;
use windup_engine::browser::{Browser, BrowserOptions, Session};

use crate::support::*;

/// Reads what the page can see of earlier visits, then leaves state of every kind behind:
/// a cookie, local and session storage, an IndexedDB database, history entries.
const STATE_PAGE: &str = r#"<!doctype html><title>state</title><p>state</p><script>
window.__seen = {
  cookie: document.cookie,
  local: localStorage.getItem('k'),
  session: sessionStorage.getItem('k'),
  history: history.length,
  extra: typeof window.__extra,
};
document.cookie = 'k=1; max-age=3600; path=/';
localStorage.setItem('k', '1');
sessionStorage.setItem('k', '1');
history.pushState({}, '', '#one'); history.pushState({}, '', '#two'); history.pushState({}, '', '#three');
window.__done = indexedDB.databases().then((dbs) => {
  window.__seen.databases = dbs.map((d) => d.name);
  return new Promise((resolve) => {
    const open = indexedDB.open('windup-test', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('s');
    open.onsuccess = () => { open.result.close(); resolve(true); };
    open.onerror = () => resolve(false);
  });
});
</script>"#;

fn server() -> Server {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(dir.path());
    server.route(
        "/state.html",
        Canned {
            status: 200,
            content_type: "text/html",
            body: STATE_PAGE.as_bytes().to_vec(),
            delay: Duration::ZERO,
        },
    );
    std::mem::forget(dir);
    server
}

/// Visits the state page and returns what it saw on arrival.
async fn visit(session: &Session, url: &str) -> Value {
    session
        .goto(url, Duration::from_secs(10))
        .await
        .expect("the state page loads");
    assert!(
        session.eval::<bool>("window.__done").await.unwrap(),
        "the page stored its state"
    );
    session.eval("window.__seen").await.unwrap()
}

fn options(reuse_tabs: bool) -> BrowserOptions {
    BrowserOptions {
        reuse_tabs,
        ..browser_options()
    }
}

#[test]
fn a_reused_tab_starts_with_no_trace_of_the_previous_scenario() {
    let server = server();
    let url = server.base.join("state.html").unwrap().to_string();
    block_on(async {
        let browser = Browser::new(options(true));
        // Twice: the start-up tab (default context) and a tab of its own context.
        let first = browser.acquire_session().await.unwrap();
        let second = browser.acquire_session().await.unwrap();
        let mut tabs = Vec::new();
        for session in [first, second] {
            session.add_init_script("window.__extra = 1").await.unwrap();
            let seen = visit(&session, &url).await;
            assert_eq!(seen["cookie"], "", "{seen}");
            assert_eq!(seen["extra"], "number", "the init script ran: {seen}");
            tabs.push(session.target_id().to_string());
            session.close().await;
        }
        for _ in 0..2 {
            let session = browser.acquire_session().await.unwrap();
            assert!(
                tabs.contains(&session.target_id().to_string()),
                "a closed tab is reused"
            );
            let seen = visit(&session, &url).await;
            assert_eq!(seen["session"], Value::Null, "sessionStorage: {seen}");
            assert_eq!(seen["cookie"], "", "cookies are cleared: {seen}");
            assert_eq!(seen["local"], Value::Null, "localStorage: {seen}");
            assert_eq!(
                seen["databases"],
                serde_json::json!([]),
                "IndexedDB: {seen}"
            );
            assert!(
                seen["history"].as_u64().unwrap() <= 2,
                "history is emptied: {seen}"
            );
            assert_eq!(seen["extra"], "undefined", "init scripts go: {seen}");
            assert!(session.log().failed_requests.is_empty());
            session.close().await;
        }
        browser.close().await;
    });
}

#[test]
fn every_origin_a_tab_visited_is_cleared_and_a_tab_with_others_is_not_reused() {
    let server = server();
    let here = server.base.join("state.html").unwrap().to_string();
    // The same server under another origin, left before the scenario ends.
    let mut other = server.base.join("state.html").unwrap();
    other.set_host(Some("localhost")).unwrap();
    block_on(async {
        let browser = Browser::new(options(true));
        let session = browser.acquire_session().await.unwrap();
        visit(&session, other.as_str()).await;
        visit(&session, &here).await;
        let used = session.target_id().to_string();
        session.close().await;
        let next = browser.acquire_session().await.unwrap();
        assert_eq!(next.target_id(), used, "reused");
        let seen = visit(&next, other.as_str()).await;
        assert_eq!(seen["session"], Value::Null, "{seen}");
        assert_eq!(seen["local"], Value::Null, "{seen}");
        assert_eq!(seen["cookie"], "", "{seen}");

        // A page that opened another tab.
        next.eval::<Value>("window.open('about:blank') && null")
            .await
            .unwrap();
        let used = next.target_id().to_string();
        next.close().await;
        let after = browser.acquire_session().await.unwrap();
        assert_ne!(after.target_id(), used, "a new tab in a new context");
        after.close().await;
        browser.close().await;
    });
}

#[test]
fn with_context_isolation_every_session_gets_a_new_tab() {
    let server = server();
    let url = server.base.join("state.html").unwrap().to_string();
    block_on(async {
        let browser = Browser::new(options(false));
        let mut seen_tabs = Vec::new();
        for _ in 0..3 {
            let session = browser.acquire_session().await.unwrap();
            assert!(!seen_tabs.contains(&session.target_id().to_string()));
            seen_tabs.push(session.target_id().to_string());
            let seen = visit(&session, &url).await;
            assert_eq!(seen["local"], Value::Null, "{seen}");
            session.close().await;
        }
        browser.close().await;
    });
}

/// Runs six scenarios on the state page one after another, each in a new session closed at its
/// end; returns the distinct tabs they got.
async fn six_in_a_row(browser: &Browser, url: &str) -> Vec<String> {
    let mut tabs: Vec<String> = Vec::new();
    for i in 0..6 {
        let session = browser.acquire_session().await.unwrap();
        let seen = visit(&session, url).await;
        assert_eq!(seen["local"], Value::Null, "scenario {i}: {seen}");
        assert_eq!(seen["cookie"], "", "scenario {i}: {seen}");
        let id = session.target_id().to_string();
        if !tabs.contains(&id) {
            tabs.push(id);
        }
        session.close().await;
    }
    tabs
}

#[test]
fn one_scenario_at_a_time_keeps_one_tab_and_beside_another_a_reset_overlaps_the_next() {
    let server = server();
    let url = server.base.join("state.html").unwrap().to_string();
    block_on(async {
        let browser = Browser::new(options(true));
        // `-j 1`: each scenario waits for the previous one's reset; no spare renderer.
        let alone = six_in_a_row(&browser, &url).await;
        assert_eq!(alone.len(), 1, "{alone:?}");
        // Another scenario is running: the next one does not wait for the reset but takes a
        // second tab, and the two alternate; no more tabs than that.
        let other = browser.acquire_session().await.unwrap();
        let beside = six_in_a_row(&browser, &url).await;
        assert_eq!(beside.len(), 2, "{beside:?}");
        assert!(!beside.contains(&other.target_id().to_string()));
        other.close().await;
        browser.close().await;
    });
}
