//! What is retried and how: 429 with Retry-After (and one too long to wait), 5xx, hangs past
//! the time-out, truncated or non-JSON envelopes, refused connections; usage of failed
//! attempts is kept.

use std::time::{Duration, Instant};

use serde_json::json;
use windup_engine::llm::{LlmError, ProviderConfig, ProviderKind, Usage};
use windup_testkit::fake_llm::{Reply, tokens};

use crate::support::*;

#[test]
fn a_429_with_retry_after_is_waited_for_then_retried() {
    each_kind(|_, fake, cfg| {
        fake.push(status(
            429,
            &[("Retry-After", "1")],
            r#"{"error":{"message":"rate limited"}}"#,
        ));
        fake.push(Reply::Json(json!({"ok": 1})));
        let started = Instant::now();
        let c = call(&*client_for(&cfg)).expect("completion");
        assert!(
            started.elapsed() >= Duration::from_secs(1),
            "{:?}",
            started.elapsed()
        );
        assert!(c.elapsed >= Duration::from_secs(1));
        assert_eq!(c.attempts, 2);
        assert_eq!(fake.requests().len(), 2);
        // The 429 reported no usage: only the success counts.
        assert_eq!(c.usage.output_tokens, tokens(r#"{"ok":1}"#));
    });
}

#[test]
fn a_retry_after_longer_than_the_cap_ends_the_call() {
    each_kind(|_, fake, cfg| {
        fake.push(status(429, &[("retry-after", "3600")], "slow down"));
        let started = Instant::now();
        let err = call(&*client_for(&cfg)).unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(5));
        let LlmError::Exhausted { attempts, last, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(*attempts, 1);
        assert!(last.contains("3600 s"), "{last}");
        assert!(last.contains("slow down"), "{last}");
    });
}

#[test]
fn a_500_then_success() {
    each_kind(|_, fake, cfg| {
        fake.push(status(500, &[], "oops"));
        fake.push(Reply::Json(json!([1, 2])));
        let c = call(&*client_for(&cfg)).expect("completion");
        assert_eq!(c.text, "[1,2]");
        assert_eq!(c.attempts, 2);
    });
}

#[test]
fn a_500_forever_exhausts_the_retries() {
    each_kind(|_, fake, cfg| {
        // An empty script answers 500 "script exhausted" every time.
        let err = call(&*client_for(&cfg)).unwrap_err();
        let LlmError::Exhausted {
            attempts,
            last,
            usage,
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(*attempts, 3);
        assert_eq!(err.attempts(), 3);
        assert_eq!(*usage, Usage::default());
        assert!(
            last.contains("HTTP 500") && last.contains("script exhausted"),
            "{last}"
        );
        assert_eq!(fake.requests().len(), 3);
        assert!(err.to_string().contains("3 attempt"), "{err}");
    });
}

#[test]
fn usage_of_failed_attempts_is_kept() {
    each_kind(|kind, fake, cfg| {
        // A 200 whose envelope lacks the output but reports billed tokens.
        let body = match kind {
            ProviderKind::Openai => {
                json!({"choices": [], "usage": {"prompt_tokens": 70, "completion_tokens": 30}})
            }
            ProviderKind::Gemini => {
                json!({"usageMetadata": {"promptTokenCount": 70, "candidatesTokenCount": 10, "thoughtsTokenCount": 20}})
            }
        };
        fake.push(status(200, &[], &body.to_string()));
        fake.push(Reply::Json(json!({"ok": true})));
        let c = call(&*client_for(&cfg)).expect("completion");
        assert_eq!(c.attempts, 2);
        let second = &fake.requests()[1];
        assert_eq!(c.usage.input_tokens, 70 + tokens(&second.body));
        assert_eq!(c.usage.output_tokens, 30 + tokens(r#"{"ok":true}"#));

        // And when every attempt fails, the error still carries them.
        fake.push(status(200, &[], &body.to_string()));
        fake.push(status(200, &[], &body.to_string()));
        fake.push(status(503, &[], "busy"));
        let err = call(&*client_for(&cfg)).unwrap_err();
        assert!(
            matches!(err, LlmError::Exhausted { attempts: 3, .. }),
            "{err:?}"
        );
        assert_eq!(err.usage().input_tokens, 140);
        assert_eq!(err.usage().output_tokens, 60);
    });
}

#[test]
fn a_hang_past_the_timeout_is_retried() {
    each_kind(|_, fake, mut cfg| {
        cfg.timeout_ms = Some(300);
        fake.push(Reply::Hang);
        fake.push(Reply::Json(json!({"ok": true})));
        let started = Instant::now();
        let c = call(&*client_for(&cfg)).expect("completion");
        assert!(started.elapsed() >= Duration::from_millis(300));
        assert_eq!(c.attempts, 2);
    });
}

#[test]
fn hanging_forever_exhausts_the_retries() {
    each_kind(|_, fake, mut cfg| {
        cfg.timeout_ms = Some(200);
        cfg.max_retries = Some(1);
        fake.push(Reply::Hang);
        fake.push(Reply::Hang);
        let err = call(&*client_for(&cfg)).unwrap_err();
        let LlmError::Exhausted { attempts, last, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(*attempts, 2);
        assert!(last.contains("within 200 ms"), "{last}");
    });
}

#[test]
fn a_truncated_body_is_retried() {
    each_kind(|_, fake, cfg| {
        fake.push(Reply::Truncated);
        fake.push(Reply::Json(json!({"ok": true})));
        let c = call(&*client_for(&cfg)).expect("completion");
        assert_eq!(c.attempts, 2);
        assert_eq!(c.text, r#"{"ok":true}"#);
    });
}

#[test]
fn a_non_json_envelope_is_retried() {
    each_kind(|_, fake, cfg| {
        fake.push(status(
            200,
            &[("content-type", "text/html")],
            "<html>proxy</html>",
        ));
        fake.push(Reply::Json(json!({"ok": true})));
        let c = call(&*client_for(&cfg)).expect("completion");
        assert_eq!(c.attempts, 2);
    });
}

#[test]
fn a_refused_connection_exhausts_the_retries() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    for kind in KINDS {
        let cfg = ProviderConfig {
            kind,
            model: "m".into(),
            base_url: Some(format!("http://127.0.0.1:{port}")),
            api_key_env: None,
            timeout_ms: Some(2_000),
            max_retries: Some(1),
            temperature: None,
            max_output_tokens: None,
            strict: None,
        };
        let err = call(&*client_for(&cfg)).unwrap_err();
        let LlmError::Exhausted { attempts, last, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(*attempts, 2);
        assert!(last.contains("request failed"), "{last}");
    }
}
