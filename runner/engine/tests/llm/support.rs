//! Helpers shared by the llm tests: a provider config pointed at the fake, a client with fast
//! retries, the one request every test sends, and a loop over both wire formats.

use windup_engine::llm::{
    self, Completion, LlmClient, LlmError, LlmRequest, ProviderConfig, ProviderKind,
};
use windup_engine::retry::RetryPolicy;
use windup_model::schema::{Format, schema_value};
use windup_testkit::block_on;
use windup_testkit::fake_llm::{FakeLlm, Reply};

/// The variable a client reads its key from, and the key: a canary that must show up nowhere.
pub(crate) const KEY_ENV: &str = "WINDUP_TEST_LLM_KEY";
pub(crate) const KEY: &str = "sk-test-S3CRET-0123456789abcdef";
/// Both wire formats; most tests run against each.
pub(crate) const KINDS: [ProviderKind; 2] = [ProviderKind::Openai, ProviderKind::Gemini];

pub(crate) fn env(name: &str) -> Option<String> {
    (name == KEY_ENV).then(|| KEY.to_string())
}

pub(crate) fn config(kind: ProviderKind, fake: &FakeLlm) -> ProviderConfig {
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

pub(crate) fn client_for(cfg: &ProviderConfig) -> Box<dyn LlmClient> {
    llm::client_with_policy("local", cfg, &env, RetryPolicy::fast()).expect("client")
}

pub(crate) fn request() -> LlmRequest {
    LlmRequest {
        system: "You plan browser tests.".into(),
        user: "Scenario: add a todo.".into(),
        schema_name: "windup_plan".into(),
        schema: schema_value(Format::Plan),
        max_output_tokens: 1234,
        temperature: Some(0.0),
    }
}

pub(crate) fn call(client: &dyn LlmClient) -> Result<Completion, LlmError> {
    let req = request();
    block_on(async { client.complete(&req).await })
}

/// Runs `f` once per wire format, each with a fresh fake and default config.
pub(crate) fn each_kind(f: impl Fn(ProviderKind, &FakeLlm, ProviderConfig)) {
    for kind in KINDS {
        let fake = FakeLlm::start();
        let cfg = config(kind, &fake);
        f(kind, &fake, cfg);
    }
}

pub(crate) fn status(status: u16, headers: &[(&str, &str)], body: &str) -> Reply {
    Reply::Status {
        status,
        headers: headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect(),
        body: body.into(),
    }
}

pub(crate) fn no_refs(v: &serde_json::Value) -> bool {
    !v.to_string().contains("\"$ref\"")
}
