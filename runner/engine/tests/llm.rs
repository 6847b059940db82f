//! The `llm` module against the fake provider on loopback, for both wire formats: request shape,
//! usage, retries, time-outs, refusals, rejections, and the key kept out of sight.

use std::time::{Duration, Instant};

use serde_json::json;
use windup_engine::llm::{
    self, Completion, Finish, LlmClient, LlmError, LlmRequest, ProviderConfig, ProviderKind, Usage,
};
use windup_engine::retry::RetryPolicy;
use windup_model::schema::{Format, schema_value};
use windup_testkit::block_on;
use windup_testkit::fake_llm::{FakeLlm, Reply, tokens};

const KEY_ENV: &str = "WINDUP_TEST_LLM_KEY";
const KEY: &str = "sk-test-S3CRET-0123456789abcdef";
const KINDS: [ProviderKind; 2] = [ProviderKind::Openai, ProviderKind::Gemini];

fn env(name: &str) -> Option<String> {
    (name == KEY_ENV).then(|| KEY.to_string())
}

fn config(kind: ProviderKind, fake: &FakeLlm) -> ProviderConfig {
    ProviderConfig {
        kind,
        model: "test-model".into(),
        base_url: Some(match kind {
            ProviderKind::Openai => fake.openai_base_url(),
            ProviderKind::Gemini => fake.gemini_base_url(),
        }),
        api_key_env: Some(KEY_ENV.into()),
        timeout_ms: Some(2_000),
        max_retries: Some(2),
        temperature: Some(0.0),
        max_output_tokens: None,
        strict: None,
    }
}

fn client_for(cfg: &ProviderConfig) -> Box<dyn LlmClient> {
    llm::client_with_policy("local", cfg, &env, RetryPolicy::fast()).expect("client")
}

fn request() -> LlmRequest {
    LlmRequest {
        system: "You plan browser tests.".into(),
        user: "Scenario: add a todo.".into(),
        schema_name: "windup_plan".into(),
        schema: schema_value(Format::Plan),
        max_output_tokens: 1234,
        temperature: Some(0.0),
    }
}

fn call(client: &dyn LlmClient) -> Result<Completion, LlmError> {
    let req = request();
    block_on(async { client.complete(&req).await })
}

/// Runs `f` once per wire format, each with a fresh fake and default config.
fn each_kind(f: impl Fn(ProviderKind, &FakeLlm, ProviderConfig)) {
    for kind in KINDS {
        let fake = FakeLlm::start();
        let cfg = config(kind, &fake);
        f(kind, &fake, cfg);
    }
}

fn status(status: u16, headers: &[(&str, &str)], body: &str) -> Reply {
    Reply::Status {
        status,
        headers: headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
        body: body.into(),
    }
}

fn no_refs(v: &serde_json::Value) -> bool {
    !v.to_string().contains("\"$ref\"")
}

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

#[test]
fn a_missing_key_variable_is_an_input_error_naming_the_field() {
    let fake = FakeLlm::start();
    for kind in KINDS {
        let mut cfg = config(kind, &fake);
        cfg.api_key_env = Some("WINDUP_NO_SUCH_KEY".into());
        let err = llm::client("gemini", &cfg, &env).unwrap_err();
        assert_eq!(err.file, "windup.toml");
        assert_eq!(err.field, "providers.gemini.api_key_env");
        assert!(err.problem.contains("WINDUP_NO_SUCH_KEY"), "{err}");
        assert!(err.fix.contains("WINDUP_NO_SUCH_KEY"), "{err}");
        // Blank counts as missing.
        let blank = |_: &str| Some("  ".to_string());
        assert!(llm::client("gemini", &cfg, &blank).is_err());
    }
}

#[test]
fn a_malformed_base_url_or_empty_model_is_an_input_error() {
    let fake = FakeLlm::start();
    let mut cfg = config(ProviderKind::Openai, &fake);
    cfg.base_url = Some("localhost:8080".into());
    let err = llm::client("local", &cfg, &env).unwrap_err();
    assert_eq!(err.field, "providers.local.base_url");
    let mut cfg = config(ProviderKind::Gemini, &fake);
    cfg.model = " ".into();
    let err = llm::client("g", &cfg, &env).unwrap_err();
    assert_eq!(err.field, "providers.g.model");
}

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
fn provider_tables_parse_from_toml() {
    let cfg: ProviderConfig = toml::from_str(
        r#"
        kind = "openai"
        model = "qwen2.5"
        base_url = "http://127.0.0.1:8080/v1"
        timeout_ms = 1000
        max_retries = 0
        temperature = 0.2
        max_output_tokens = 2048
        "#,
    )
    .unwrap();
    assert_eq!(cfg.kind, ProviderKind::Openai);
    assert_eq!(cfg.api_key_env, None);
    assert_eq!(cfg.max_retries(), 0);
    assert_eq!(cfg.max_output_tokens(), 2048);
    assert!(toml::from_str::<ProviderConfig>("kind = \"claude\"\nmodel = \"x\"").is_err());
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
