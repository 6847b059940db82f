//! Gemini `generateContent` with `responseMimeType: application/json` and `responseJsonSchema`.

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::transport::{Auth, Transport};
use super::{
    Completion, Envelope, Finish, LlmClient, LlmError, LlmRequest, Outcome, ProviderKind, Usage,
    schema,
};

pub(crate) const AUTH: Auth = Auth {
    header: "x-goog-api-key",
    prefix: "",
};

/// Finish reasons that mean the output was blocked rather than finished.
const BLOCKED: &[&str] = &[
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "IMAGE_SAFETY",
];

#[derive(Debug)]
pub(crate) struct Gemini {
    model: String,
    url: String,
    transport: Transport,
}

impl Gemini {
    pub(super) fn new(base: &str, model: &str, transport: Transport) -> Self {
        // The API names models `models/NAME`; accept either spelling in the config.
        let name = model.strip_prefix("models/").unwrap_or(model);
        Gemini {
            model: model.to_string(),
            url: format!(
                "{}/v1beta/models/{name}:generateContent",
                base.trim_end_matches('/')
            ),
            transport,
        }
    }
}

impl LlmClient for Gemini {
    fn provider(&self) -> &str {
        &self.transport.provider
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::Gemini
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete<'a>(&'a self, req: &'a LlmRequest) -> BoxFuture<'a, Result<Completion, LlmError>> {
        Box::pin(async move {
            let body = serde_json::to_vec(&body(req)).expect("JSON serialises");
            self.transport.call(&self.url, body, read).await
        })
    }
}

pub(crate) fn body(req: &LlmRequest) -> Value {
    let mut config = json!({
        "responseMimeType": "application/json",
        "responseJsonSchema": schema::gemini(&req.schema),
        "maxOutputTokens": req.max_output_tokens,
    });
    if let Some(t) = req.temperature {
        config["temperature"] = json!(t);
    }
    json!({
        "systemInstruction": {"parts": [{"text": req.system}]},
        "contents": [{"role": "user", "parts": [{"text": req.user}]}],
        "generationConfig": config,
    })
}

/// Thinking tokens are billed as output.
fn usage(v: &Value) -> Option<Usage> {
    let u = v.get("usageMetadata").filter(|u| u.is_object())?;
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage {
        input_tokens: n("promptTokenCount"),
        output_tokens: n("candidatesTokenCount") + n("thoughtsTokenCount"),
        cached_tokens: n("cachedContentTokenCount"),
    })
}

/// Reads a 2xx body: the text parts of `candidates[0]` (thoughts skipped), its `finishReason`,
/// and `promptFeedback.blockReason`.
pub(crate) fn read(bytes: &[u8]) -> Envelope {
    let v: Value = match serde_json::from_slice(bytes) {
        Ok(v) => v,
        Err(e) => {
            return Envelope {
                usage: None,
                outcome: Outcome::Malformed(format!("the body is not JSON ({e})")),
            };
        }
    };
    Envelope {
        usage: usage(&v),
        outcome: outcome(&v),
    }
}

fn outcome(v: &Value) -> Outcome {
    if let Some(reason) = v
        .pointer("/promptFeedback/blockReason")
        .and_then(Value::as_str)
    {
        let detail = v
            .pointer("/promptFeedback/blockReasonMessage")
            .and_then(Value::as_str)
            .map(|m| format!(": {m}"))
            .unwrap_or_default();
        return Outcome::Refused(format!("the prompt was blocked ({reason}){detail}"));
    }
    let Some(candidate) = v.pointer("/candidates/0") else {
        return Outcome::Malformed("no `candidates[0]` in the body".into());
    };
    let finish = match candidate.get("finishReason").and_then(Value::as_str) {
        Some("STOP") => Finish::Stop,
        Some("MAX_TOKENS") => Finish::Length,
        Some(r) if BLOCKED.contains(&r) => {
            return Outcome::Refused(format!("the output was blocked ({r})"));
        }
        _ => Finish::Other,
    };
    let parts = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let texts: Vec<&str> = parts
        .iter()
        .filter(|p| p.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    if texts.is_empty() && finish != Finish::Length {
        // Gemini now and then answers STOP with no content at all; another attempt helps.
        return Outcome::Malformed("no text in `candidates[0].content.parts`".into());
    }
    Outcome::Done {
        text: texts.concat(),
        finish,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_text_without_thoughts() {
        let v = json!({
            "candidates": [{"content": {"role": "model", "parts": [
                {"text": "thinking…", "thought": true},
                {"text": "{\"a\":"},
                {"text": "1}"}
            ]}, "finishReason": "STOP"}],
            "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 7, "thoughtsTokenCount": 30, "cachedContentTokenCount": 64}
        });
        let e = read(v.to_string().as_bytes());
        assert!(
            matches!(e.outcome, Outcome::Done { ref text, finish: Finish::Stop } if text == "{\"a\":1}")
        );
        assert_eq!(
            e.usage,
            Some(Usage {
                input_tokens: 100,
                output_tokens: 37,
                cached_tokens: 64
            })
        );
    }

    #[test]
    fn blocked_prompts_and_outputs_are_refusals() {
        let v = json!({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 9}});
        let e = read(v.to_string().as_bytes());
        assert!(matches!(e.outcome, Outcome::Refused(ref m) if m.contains("SAFETY")));
        assert_eq!(e.usage.unwrap().input_tokens, 9);
        let v = json!({"candidates": [{"finishReason": "RECITATION"}]});
        assert!(matches!(outcome(&v), Outcome::Refused(_)));
    }

    #[test]
    fn length_and_empty_answers() {
        let v = json!({"candidates": [{"content": {"parts": []}, "finishReason": "MAX_TOKENS"}]});
        assert!(matches!(
            outcome(&v),
            Outcome::Done {
                finish: Finish::Length,
                ..
            }
        ));
        let v = json!({"candidates": [{"content": {}, "finishReason": "STOP"}]});
        assert!(matches!(outcome(&v), Outcome::Malformed(_)));
        assert!(matches!(outcome(&json!({})), Outcome::Malformed(_)));
    }
}
