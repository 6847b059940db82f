//! Answers that end a call without retrying it: a rejection (4xx) with the provider's message
//! and the attempts counted, and a refusal with its usage.

use serde_json::json;
use windup_engine::llm::LlmError;
use windup_testkit::block_on;
use windup_testkit::fake_llm::{Reply, tokens};

use crate::support::*;

#[test]
fn a_401_is_rejected_at_once_with_the_providers_message() {
    each_kind(|_, fake, cfg| {
        // Providers echo part of a bad key; this one echoes all of it.
        let body = json!({"error": {"message": format!("Incorrect API key provided: {KEY}."), "type": "invalid_request_error"}});
        fake.push(status(401, &[], &body.to_string()));
        fake.push(Reply::Json(json!({})));
        let err = call(&*client_for(&cfg)).unwrap_err();
        let LlmError::Rejected {
            status, message, ..
        } = &err
        else {
            panic!("{err:?}")
        };
        assert_eq!(*status, 401);
        assert!(
            message.starts_with("Incorrect API key provided"),
            "{message}"
        );
        assert!(
            !message.contains(KEY) && !err.to_string().contains(KEY),
            "{err}"
        );
        assert_eq!(err.attempts(), 1);
        assert_eq!(fake.requests().len(), 1);
        assert_eq!(fake.pending(), 1);
    });
}

#[test]
fn a_schema_with_an_empty_enum_is_rejected_as_llama_cpp_does() {
    each_kind(|_, fake, cfg| {
        fake.push(Reply::Json(json!({})));
        let mut req = request();
        req.schema = json!({
            "type": "object",
            "properties": {"needs": {"type": "array", "items": {"type": "string", "enum": []}}},
        });
        let err = block_on(async { client_for(&cfg).complete(&req).await }).unwrap_err();
        assert!(
            matches!(&err, LlmError::Rejected { status: 400, message, attempts: 1, .. } if message == "Failed to parse grammar"),
            "{err:?}"
        );
        assert_eq!(fake.pending(), 1, "the scripted answer was never reached");
        // The same request with a value to choose from is answered.
        req.schema["properties"]["needs"]["items"]["enum"] = json!(["signed-in"]);
        assert!(block_on(async { client_for(&cfg).complete(&req).await }).is_ok());
    });
}

#[test]
fn a_rejection_after_a_transient_failure_counts_both_attempts() {
    each_kind(|_, fake, cfg| {
        fake.push(status(502, &[], "bad gateway"));
        fake.push(status(
            404,
            &[],
            r#"{"error":{"code":404,"message":"models/test-model is not found","status":"NOT_FOUND"}}"#,
        ));
        let err = call(&*client_for(&cfg)).unwrap_err();
        assert!(
            matches!(&err, LlmError::Rejected { status: 404, message, attempts: 2, .. } if message == "models/test-model is not found"),
            "{err:?}"
        );
    });
}

#[test]
fn a_refusal_is_refused_with_its_usage() {
    each_kind(|_, fake, cfg| {
        fake.push(Reply::Refusal("I can't help with that.".into()));
        let err = call(&*client_for(&cfg)).unwrap_err();
        let LlmError::Refused { message, usage, .. } = &err else {
            panic!("{err:?}")
        };
        assert!(message.contains("I can't help with that."), "{message}");
        assert_eq!(usage.input_tokens, tokens(&fake.requests()[0].body));
        assert_eq!(err.attempts(), 1);
    });
}
