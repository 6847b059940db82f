//! The LLM boundary: one call turns a prompt and a JSON Schema into the model's output text.
//!
//! Windup calls an LLM only to plan a scenario, so this module does one thing, structured output
//! over HTTP, for two wire formats: OpenAI Chat Completions (also spoken by Ollama, llama.cpp's
//! server and vLLM) and Gemini `generateContent`. It owns what is the same for every caller:
//! reshaping the schema for each provider ([`schema`]), retrying transient failures with back-off
//! (`transport`, on the neutral [`crate::retry`] rule), summing the tokens of every attempt
//! (billed tokens are never lost, even when the call fails), and keeping the API key out of
//! logs, errors and `Debug`. It does not parse or validate the output: that is the planner's
//! job, against the real schema.

mod gemini;
mod openai;
pub mod schema;
mod transport;

use std::ops::{Add, AddAssign};
use std::time::Duration;

use futures::future::BoxFuture;
use secrecy::SecretString;
use serde::{Deserialize, Serialize};
use windup_model::InputError;

use crate::retry::RetryPolicy;

use crate::project::Layout;

/// OpenAI's API root, where an `openai` provider without a `base_url` is sent.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Google's Gemini API root, where a `gemini` provider without a `base_url` is sent.
pub const GEMINI_BASE_URL: &str = "https://generativelanguage.googleapis.com";
/// Milliseconds per HTTP attempt when `timeout_ms` is not set: a long plan takes a while to write.
const DEFAULT_TIMEOUT_MS: u64 = 60_000;
/// Transient retries after the first attempt when `max_retries` is not set.
const DEFAULT_MAX_RETRIES: u32 = 3;
/// The output cap when `max_output_tokens` is not set.
const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 4096;

/// Which wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// OpenAI Chat Completions, and the local servers that copy it.
    Openai,
    /// Google Gemini `generateContent`.
    Gemini,
}

/// One `[providers.NAME]` table of windup.toml. Unknown keys are rejected with their name.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// The wire format the provider speaks.
    pub kind: ProviderKind,
    /// The model to call, such as `gpt-4.1-mini` or `gemini-2.5-flash`; also the key of its
    /// price.
    pub model: String,
    /// Default [`OPENAI_BASE_URL`] or [`GEMINI_BASE_URL`].
    pub base_url: Option<String>,
    /// The NAME of the environment variable that holds the key (never the key itself). None
    /// sends no key, for local servers (Ollama, llama.cpp, vLLM).
    pub api_key_env: Option<String>,
    /// Per HTTP attempt (default 60000).
    pub timeout_ms: Option<u64>,
    /// Transient retries after the first attempt (default 3).
    pub max_retries: Option<u32>,
    /// Sampling temperature of this provider's calls, in place of the planner's (0, for
    /// repeatable plans).
    pub temperature: Option<f32>,
    /// Output cap in tokens for this provider's calls: the lower of it and `[planner]
    /// max_output_tokens` holds.
    pub max_output_tokens: Option<u32>,
    /// OpenAI strict structured output (default true). Set false for grammar-constrained local
    /// servers (llama.cpp), where strict mode's all-required fields make small models fill
    /// every field.
    pub strict: Option<bool>,
}

impl ProviderConfig {
    /// The API root calls go to: `base_url`, else the kind's public endpoint.
    pub fn base_url(&self) -> &str {
        self.base_url.as_deref().unwrap_or(match self.kind {
            ProviderKind::Openai => OPENAI_BASE_URL,
            ProviderKind::Gemini => GEMINI_BASE_URL,
        })
    }

    /// How long one HTTP attempt may take.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS))
    }

    /// Transient retries after the first attempt.
    pub fn max_retries(&self) -> u32 {
        self.max_retries.unwrap_or(DEFAULT_MAX_RETRIES)
    }

    /// The output cap in tokens, `max_output_tokens` or its default.
    pub fn max_output_tokens(&self) -> u32 {
        self.max_output_tokens.unwrap_or(DEFAULT_MAX_OUTPUT_TOKENS)
    }
}

/// One structured-output call.
#[derive(Debug, Clone)]
pub struct LlmRequest {
    /// The system prompt: the instructions, the same for every call of a kind.
    pub system: String,
    /// The user message: this call's task, page and what is known.
    pub user: String,
    /// A short identifier, such as `windup_plan` (OpenAI wants `^[a-zA-Z0-9_-]{1,64}$`).
    pub schema_name: String,
    /// A JSON Schema as schemars 1.x generates it; reshaped per provider by [`schema`].
    pub schema: serde_json::Value,
    /// Output tokens the model may generate; the budget gate prices all of them up front.
    pub max_output_tokens: u32,
    /// Sampling temperature; `None` leaves the provider's default.
    pub temperature: Option<f32>,
}

/// Tokens billed. `cached_tokens` is the part of `input_tokens` served from the provider's cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens, cached ones included.
    pub input_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
    /// Prompt tokens served from the provider's cache, billed at its cached rate.
    pub cached_tokens: u64,
}

impl AddAssign for Usage {
    fn add_assign(&mut self, o: Usage) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.cached_tokens += o.cached_tokens;
    }
}

impl Add for Usage {
    type Output = Usage;
    fn add(mut self, o: Usage) -> Usage {
        self += o;
        self
    }
}

/// Why the model stopped writing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// The model finished its answer.
    Stop,
    /// The output hit the token limit; the text is likely cut short.
    Length,
    /// Any other reason the provider gave (a content filter, say).
    Other,
}

/// A successful call.
#[derive(Debug, Clone)]
pub struct Completion {
    /// The model's output, not parsed.
    pub text: String,
    /// Why the model stopped: `Length` means the text is probably cut short.
    pub finish: Finish,
    /// Summed over every HTTP attempt of this call that reported usage.
    pub usage: Usage,
    /// HTTP attempts made.
    pub attempts: u32,
    /// Wall time of the whole call, retries and back-off included.
    pub elapsed: Duration,
}

/// Why a call gave no completion. Messages never contain the API key.
#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// Transient failures (429, 5xx, timeouts, cut-short or malformed responses, connection
    /// errors) until the retries ran out, or a wait longer than the policy allows.
    #[error("the LLM call failed after {attempts} attempt(s): {last}")]
    Exhausted {
        /// HTTP attempts made.
        attempts: u32,
        /// What went wrong on the last attempt.
        last: String,
        /// Tokens billed over every attempt.
        usage: Usage,
    },
    /// The model or the provider's filter refused.
    #[error("the model refused: {message}")]
    Refused {
        /// The refusal as the provider worded it.
        message: String,
        /// Tokens billed over every attempt.
        usage: Usage,
        /// HTTP attempts made.
        attempts: u32,
    },
    /// A non-retryable HTTP error, with the provider's own message.
    #[error("the provider rejected the request (HTTP {status}): {message}")]
    Rejected {
        /// The HTTP status code.
        status: u16,
        /// The provider's error message.
        message: String,
        /// Tokens billed over every attempt.
        usage: Usage,
        /// HTTP attempts made.
        attempts: u32,
    },
    /// The `api_key_env` variable is not set. ([`client`] reports this as an [`InputError`]
    /// before any call; the variant is for callers that resolve keys later.)
    #[error("the environment variable {env} holding the API key is not set; export it")]
    MissingKey {
        /// The variable's name (never its value).
        env: String,
    },
}

impl LlmError {
    /// Tokens billed before the call failed.
    pub fn usage(&self) -> Usage {
        match self {
            LlmError::Exhausted { usage, .. }
            | LlmError::Refused { usage, .. }
            | LlmError::Rejected { usage, .. } => *usage,
            LlmError::MissingKey { .. } => Usage::default(),
        }
    }

    /// HTTP attempts made.
    pub fn attempts(&self) -> u32 {
        match self {
            LlmError::Exhausted { attempts, .. }
            | LlmError::Refused { attempts, .. }
            | LlmError::Rejected { attempts, .. } => *attempts,
            LlmError::MissingKey { .. } => 0,
        }
    }
}

/// A configured provider.
pub trait LlmClient: Send + Sync {
    /// The config NAME, as in `[providers.NAME]`.
    fn provider(&self) -> &str;
    /// The wire format it speaks.
    fn kind(&self) -> ProviderKind;
    /// The model it calls.
    fn model(&self) -> &str;
    /// Makes one structured-output call, retrying transient failures.
    fn complete<'a>(&'a self, req: &'a LlmRequest) -> BoxFuture<'a, Result<Completion, LlmError>>;
}

/// Shows what a client talks to, never its key.
impl std::fmt::Debug for dyn LlmClient + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmClient")
            .field("provider", &self.provider())
            .field("kind", &self.kind())
            .field("model", &self.model())
            .finish()
    }
}

/// Builds the client for `[providers.NAME]`. `env` looks up environment variables.
pub fn client(
    name: &str,
    cfg: &ProviderConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Box<dyn LlmClient>, InputError> {
    client_with_policy(name, cfg, env, RetryPolicy::default())
}

/// [`client`] with another back-off (tests use [`RetryPolicy::fast`]).
pub fn client_with_policy(
    name: &str,
    cfg: &ProviderConfig,
    env: &dyn Fn(&str) -> Option<String>,
    policy: RetryPolicy,
) -> Result<Box<dyn LlmClient>, InputError> {
    let field = |f: &str| format!("providers.{name}.{f}");
    if cfg.model.trim().is_empty() {
        return Err(InputError::new(
            Layout::CONFIG_FILE,
            field("model"),
            "the model is empty",
            "set `model`, such as \"gpt-4.1-mini\" or \"gemini-2.5-flash\"",
        ));
    }
    let base = cfg.base_url().trim_end_matches('/').to_string();
    match url::Url::parse(&base) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {}
        _ => {
            return Err(InputError::new(
                Layout::CONFIG_FILE,
                field("base_url"),
                format!("`{base}` is not an http(s) URL"),
                "set base_url to the provider's API root, such as \"http://127.0.0.1:8080/v1\"",
            ));
        }
    }
    let key = match &cfg.api_key_env {
        None => None,
        Some(var) => {
            let value = env(var).filter(|v| !v.trim().is_empty()).ok_or_else(|| {
                InputError::new(
                    Layout::CONFIG_FILE,
                    field("api_key_env"),
                    format!("the environment variable {var} is not set"),
                    format!(
                        "export {var} (or put it in .env.local), or remove api_key_env for a local server that needs no key"
                    ),
                )
            })?;
            let value = value.trim().to_string();
            if reqwest::header::HeaderValue::from_str(&value).is_err() {
                return Err(InputError::new(
                    Layout::CONFIG_FILE,
                    field("api_key_env"),
                    format!("the value of {var} is not a valid HTTP header value"),
                    format!("check {var} for stray characters such as quotes or line breaks"),
                ));
            }
            Some(SecretString::from(value))
        }
    };
    let http = reqwest::Client::builder()
        .user_agent(concat!("windup/", env!("CARGO_PKG_VERSION")))
        .tls_backend_preconfigured(windup_browser::http::tls_config())
        .build()
        .map_err(|e| {
            InputError::new(
                Layout::CONFIG_FILE,
                format!("providers.{name}"),
                format!("the HTTP client could not be set up: {e}"),
                "report this as a bug",
            )
        })?;
    let transport = transport::Transport {
        provider: name.to_string(),
        http,
        key,
        auth: match cfg.kind {
            ProviderKind::Openai => openai::AUTH,
            ProviderKind::Gemini => gemini::AUTH,
        },
        timeout: cfg.timeout(),
        max_retries: cfg.max_retries(),
        policy,
    };
    Ok(match cfg.kind {
        ProviderKind::Openai => Box::new(openai::OpenAi::new(
            &base,
            &cfg.model,
            transport,
            cfg.strict.unwrap_or(true),
        )),
        ProviderKind::Gemini => Box::new(gemini::Gemini::new(&base, &cfg.model, transport)),
    })
}

/// What one HTTP 2xx response said, as read by a wire format.
pub(crate) struct Envelope {
    /// None when the response carried no usage (or was not JSON).
    pub usage: Option<Usage>,
    pub outcome: Outcome,
}

pub(crate) enum Outcome {
    Done {
        text: String,
        finish: Finish,
    },
    Refused(String),
    /// Not the envelope expected: worth another attempt.
    Malformed(String),
}

/// The provider's error message from an error body: `error.message` (OpenAI, Gemini, most
/// servers), `error` as a string, `message`, or else the start of the body.
pub(crate) fn error_message(body: &[u8]) -> String {
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
        let found = v
            .pointer("/error/message")
            .or_else(|| v.get("error").filter(|e| e.is_string()))
            .or_else(|| v.get("message"))
            .and_then(|m| m.as_str());
        if let Some(m) = found {
            return m.to_string();
        }
    }
    let text = String::from_utf8_lossy(body);
    let text = text.trim();
    if text.is_empty() {
        return "(empty body)".to_string();
    }
    let cut: String = text.chars().take(300).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_are_extracted() {
        assert_eq!(
            error_message(br#"{"error":{"message":"Incorrect API key","type":"x"}}"#),
            "Incorrect API key"
        );
        assert_eq!(
            error_message(br#"{"error":"model not found"}"#),
            "model not found"
        );
        assert_eq!(error_message(b"  Bad Gateway \n"), "Bad Gateway");
        assert_eq!(error_message(b""), "(empty body)");
        assert!(error_message("é".repeat(400).as_bytes()).ends_with('…'));
    }

    #[test]
    fn usage_adds_up() {
        let a = Usage {
            input_tokens: 1,
            output_tokens: 2,
            cached_tokens: 3,
        };
        let mut b = a + a;
        b += a;
        assert_eq!(
            b,
            Usage {
                input_tokens: 3,
                output_tokens: 6,
                cached_tokens: 9
            }
        );
    }

    #[test]
    fn provider_config_rejects_unknown_keys_and_has_defaults() {
        let cfg: ProviderConfig = toml::from_str("kind = \"gemini\"\nmodel = \"m\"").unwrap();
        assert_eq!(cfg.base_url(), GEMINI_BASE_URL);
        assert_eq!(cfg.timeout(), Duration::from_secs(60));
        assert_eq!(cfg.max_retries(), 3);
        assert_eq!(cfg.max_output_tokens(), 4096);
        let err =
            toml::from_str::<ProviderConfig>("kind = \"openai\"\nmodel = \"m\"\napi_key = \"k\"")
                .unwrap_err();
        assert!(err.to_string().contains("api_key"), "{err}");
    }
}
