//! The provider key kept out of sight: not in a client's `Debug` output, its errors, or the
//! attempt logs (which carry no prompt either).

use serde_json::json;
use windup_engine::llm;
use windup_testkit::fake_llm::Reply;

use crate::support::*;

#[test]
fn the_key_never_shows_in_debug_or_errors() {
    each_kind(|kind, fake, cfg| {
        let client = llm::client("prod", &cfg, &env).expect("client");
        let debug = format!("{client:?}");
        assert!(!debug.contains(KEY), "{debug}");
        assert!(
            debug.contains("prod") && debug.contains("test-model"),
            "{debug}"
        );
        assert_eq!(client.provider(), "prod");
        assert_eq!(client.kind(), kind);
        assert_eq!(client.model(), "test-model");

        let client = client_for(&cfg);
        let echo = format!("upstream said: key {KEY} is over quota");
        for _ in 0..3 {
            fake.push(status(503, &[], &echo));
        }
        let err = call(&*client).unwrap_err();
        for text in [err.to_string(), format!("{err:?}")] {
            assert!(!text.contains(KEY), "{text}");
            assert!(text.contains("[redacted]"), "{text}");
        }
    });
}

/// Collects what the process logs.
#[derive(Clone, Default)]
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn attempts_are_logged_without_prompt_or_key() {
    let captured = Captured::default();
    let writer = captured.clone();
    // Global: the calls run on the shared runtime's threads. Other tests ignore it.
    let _ = tracing::subscriber::set_global_default(
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .with_writer(move || writer.clone())
            .finish(),
    );
    each_kind(|_, fake, cfg| {
        fake.push(status(500, &[], &format!("echo {KEY}")));
        fake.push(Reply::Json(json!({"ok": true})));
        call(&*client_for(&cfg)).expect("completion");
    });
    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let attempts: Vec<&str> = logs.lines().filter(|l| l.contains("llm attempt")).collect();
    assert_eq!(attempts.len(), 4, "{logs}");
    assert!(attempts.iter().any(|l| l.contains("status=500")), "{logs}");
    assert!(
        attempts
            .iter()
            .any(|l| l.contains("status=200") && l.contains("output_tokens=3")),
        "{logs}"
    );
    assert!(logs.contains("llm retry"), "{logs}");
    for secret in [KEY, "You plan browser tests.", "Scenario: add a todo."] {
        assert!(!logs.contains(secret), "{secret} logged:\n{logs}");
    }
}
