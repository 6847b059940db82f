//! Provider configuration: provider tables parse from TOML, and a missing key variable, a
//! malformed base URL or an empty model is an input error naming the field.

use windup_engine::llm::{self, ProviderConfig, ProviderKind};
use windup_testkit::fake_llm::FakeLlm;

use crate::support::*;

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
