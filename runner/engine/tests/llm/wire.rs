//! What goes over the wire in each format, and how a reply reads back: the request's path,
//! headers, body and schema; plain text and cut-off output; the strict and non-strict schema.

use serde_json::json;
use windup_engine::llm::{Finish, ProviderKind, Usage};
use windup_testkit::block_on;
use windup_testkit::fake_llm::{FakeLlm, Reply, tokens};

use crate::support::*;

#[test]
fn a_json_reply_gives_text_usage_and_a_well_formed_request() {
    each_kind(|kind, fake, cfg| {
        fake.push(Reply::Json(json!({"ok": true})));
        let c = call(&*client_for(&cfg)).expect("completion");
        assert_eq!(c.text, r#"{"ok":true}"#);
        assert_eq!(c.finish, Finish::Stop);
        assert_eq!(c.attempts, 1);
        let reqs = fake.requests();
        assert_eq!(reqs.len(), 1);
        let r = &reqs[0];
        assert_eq!(
            c.usage,
            Usage {
                input_tokens: tokens(&r.body),
                output_tokens: tokens(&c.text),
                cached_tokens: 0
            }
        );
        assert_eq!(r.header("content-type"), Some("application/json"));
        let body = r.json();
        match kind {
            ProviderKind::Openai => {
                assert_eq!(r.path, "/v1/chat/completions");
                assert_eq!(r.header("authorization"), Some(&*format!("Bearer {KEY}")));
                assert_eq!(r.header("x-goog-api-key"), None);
                assert_eq!(body["model"], "test-model");
                assert_eq!(body["messages"][0]["role"], "system");
                assert_eq!(body["messages"][0]["content"], "You plan browser tests.");
                assert_eq!(body["messages"][1]["role"], "user");
                assert_eq!(body["messages"][1]["content"], "Scenario: add a todo.");
                assert_eq!(body["max_tokens"], 1234);
                assert_eq!(body["temperature"], 0.0);
                let rf = &body["response_format"];
                assert_eq!(rf["type"], "json_schema");
                assert_eq!(rf["json_schema"]["name"], "windup_plan");
                assert_eq!(rf["json_schema"]["strict"], true);
                let schema = &rf["json_schema"]["schema"];
                assert_eq!(schema["additionalProperties"], false);
                assert!(schema.get("$defs").is_none() && no_refs(schema));
                let action = &schema["properties"]["actions"]["items"];
                assert_eq!(
                    action["required"].as_array().unwrap().len(),
                    action["properties"].as_object().unwrap().len()
                );
            }
            ProviderKind::Gemini => {
                assert_eq!(r.path, "/v1beta/models/test-model:generateContent");
                assert_eq!(r.header("x-goog-api-key"), Some(KEY));
                assert_eq!(r.header("authorization"), None);
                assert_eq!(
                    body["systemInstruction"]["parts"][0]["text"],
                    "You plan browser tests."
                );
                assert_eq!(body["contents"][0]["role"], "user");
                assert_eq!(
                    body["contents"][0]["parts"][0]["text"],
                    "Scenario: add a todo."
                );
                let g = &body["generationConfig"];
                assert_eq!(g["responseMimeType"], "application/json");
                assert_eq!(g["maxOutputTokens"], 1234);
                assert_eq!(g["temperature"], 0.0);
                let schema = &g["responseJsonSchema"];
                assert!(schema.get("$defs").is_none() && no_refs(schema));
                assert!(schema.get("$schema").is_none());
                assert_eq!(
                    schema["properties"]["actions"]["items"]["properties"]["type"]["type"],
                    "string"
                );
            }
        }
    });
}

#[test]
fn no_key_configured_sends_no_key_header() {
    each_kind(|_, fake, mut cfg| {
        cfg.api_key_env = None;
        cfg.temperature = None;
        fake.push(Reply::Json(json!({})));
        let mut req = request();
        req.temperature = None;
        let client = client_for(&cfg);
        block_on(client.complete(&req)).expect("completion");
        let r = &fake.requests()[0];
        assert_eq!(r.header("authorization"), None);
        assert_eq!(r.header("x-goog-api-key"), None);
        let body = r.json();
        assert!(body.get("temperature").is_none());
        assert!(body["generationConfig"].get("temperature").is_none());
    });
}

#[test]
fn a_trailing_slash_on_base_url_is_tolerated() {
    each_kind(|kind, fake, mut cfg| {
        cfg.base_url = cfg.base_url.map(|b| format!("{b}/"));
        fake.push(Reply::Json(json!({})));
        call(&*client_for(&cfg)).expect("completion");
        let expected = match kind {
            ProviderKind::Openai => "/v1/chat/completions",
            ProviderKind::Gemini => "/v1beta/models/test-model:generateContent",
        };
        assert_eq!(fake.requests()[0].path, expected);
    });
}

#[test]
fn non_json_output_is_returned_as_text() {
    each_kind(|_, fake, cfg| {
        fake.push(Reply::Text("not json at all".into()));
        let c = call(&*client_for(&cfg)).expect("completion");
        assert_eq!(c.text, "not json at all");
        assert_eq!(c.finish, Finish::Stop);
        assert_eq!(c.attempts, 1);
    });
}

#[test]
fn output_cut_by_the_token_limit_finishes_with_length() {
    each_kind(|_, fake, cfg| {
        fake.push(Reply::Length(r#"{"actions": [{"id": "a1""#.into()));
        let c = call(&*client_for(&cfg)).expect("completion");
        assert_eq!(c.finish, Finish::Length);
        assert_eq!(c.text, r#"{"actions": [{"id": "a1""#);
    });
}

#[test]
fn the_fake_starts_inside_the_shared_runtime_too() {
    let (fake, c) = block_on(async {
        let fake = FakeLlm::start();
        fake.push(Reply::Json(json!({"inside": true})));
        let cfg = config(ProviderKind::Gemini, &fake);
        let client = client_for(&cfg);
        let c = client.complete(&request()).await;
        (fake, c)
    });
    assert_eq!(c.expect("completion").text, r#"{"inside":true}"#);
    assert_eq!(fake.requests().len(), 1);
}

#[test]
fn a_non_strict_openai_provider_leaves_optional_fields_optional() {
    let fake = FakeLlm::start();
    let mut cfg = config(ProviderKind::Openai, &fake);
    cfg.strict = Some(false);
    fake.push(Reply::Json(json!({"ok": true})));
    call(&*client_for(&cfg)).expect("completion");
    let body = fake.requests()[0].json();
    let js = &body["response_format"]["json_schema"];
    assert_eq!(js["strict"], false);
    assert!(no_refs(&js["schema"]));
    let action = &js["schema"]["properties"]["actions"]["items"];
    let required = action["required"].as_array().unwrap().len();
    assert!(
        required < action["properties"].as_object().unwrap().len(),
        "optional fields stay optional: {action}"
    );
}
