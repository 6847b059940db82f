//! How Chromium is started: with exactly the environment the caller gives, when it gives one.

use std::collections::BTreeMap;

use windup_engine::browser::{Browser, BrowserOptions};
use windup_engine::env::ChildEnv;

use crate::support::*;

/// `/proc/PID/environ`: NUL-separated `NAME=VALUE`, as the process was started.
fn environ(pid: u32) -> BTreeMap<String, String> {
    let raw = std::fs::read(format!("/proc/{pid}/environ")).expect("read /proc/PID/environ");
    String::from_utf8_lossy(&raw)
        .split('\0')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn chromium_gets_exactly_the_environment_it_is_given_and_inherits_nothing() {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let inherited: Vec<String> = std::env::vars_os()
        .filter_map(|(k, _)| k.into_string().ok())
        .filter(|k| k != "PATH")
        .collect();
    assert!(
        !inherited.is_empty(),
        "the test process has variables to leak"
    );
    let given = ChildEnv::new([
        ("PATH".into(), path),
        ("WINDUP_PROBE".into(), "given".into()),
    ]);
    block_on(async {
        let browser = Browser::new(BrowserOptions {
            env: Some(given),
            ..browser_options()
        });
        browser.ensure_started().await.expect("Chromium starts");
        let pid = browser.pid().await.expect("a pid");
        let seen = environ(pid);
        browser.close().await;
        assert_eq!(seen.get("WINDUP_PROBE").map(String::as_str), Some("given"));
        for name in &inherited {
            assert!(!seen.contains_key(name), "{name} was inherited: {seen:?}");
        }
    });
}
