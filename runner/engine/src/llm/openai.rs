//! OpenAI Chat Completions with `response_format: json_schema` (strict). Ollama, llama.cpp's
//! server and vLLM accept the same request at their own base URL; some ignore `strict` or leave
//! out usage, which then counts as zero.

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::transport::{Auth, Transport};
use super::{
    Completion, Envelope, Finish, LlmClient, LlmError, LlmRequest, Outcome, ProviderKind, Usage,
    schema,
};

pub(crate) const AUTH: Auth = Auth {
    header: "authorization",
    prefix: "Bearer ",
};

#[derive(Debug)]
pub(crate) struct OpenAi {
    model: String,
    url: String,
    transport: Transport,
    strict: bool,
}

impl OpenAi {
    pub(super) fn new(base: &str, model: &str, transport: Transport, strict: bool) -> Self {
        OpenAi {
            model: model.to_string(),
            url: format!("{}/chat/completions", base.trim_end_matches('/')),
            transport,
            strict,
        }
    }
}

impl LlmClient for OpenAi {
    fn provider(&self) -> &str {
        &self.transport.provider
    }

    fn kind(&self) -> ProviderKind {
        ProviderKind::Openai
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn complete<'a>(&'a self, req: &'a LlmRequest) -> BoxFuture<'a, Result<Completion, LlmError>> {
        Box::pin(async move {
            let body =
                serde_json::to_vec(&body(&self.model, req, self.strict)).expect("JSON serialises");
            self.transport.call(&self.url, body, read).await
        })
    }
}

/// The request body. `max_tokens` rather than `max_completion_tokens`: llama.cpp's server and
/// OpenAI's chat models both accept it.
/// `strict` false sends the schema with its optional fields left optional: grammar-constrained
/// local servers (llama.cpp) otherwise force a small model to write every field.
pub(crate) fn body(model: &str, req: &LlmRequest, strict: bool) -> Value {
    let mut body = json!({
        "model": model,
        "messages": [
            {"role": "system", "content": req.system},
            {"role": "user", "content": req.user},
        ],
        "max_tokens": req.max_output_tokens,
        "response_format": {
            "type": "json_schema",
            "json_schema": {
                "name": req.schema_name,
                "strict": strict,
                "schema": if strict {
                    schema::openai_strict(&req.schema)
                } else {
                    schema::loose(&req.schema)
                },
            },
        },
    });
    if let Some(t) = req.temperature {
        body["temperature"] = json!(t);
    }
    body
}

fn usage(v: &Value) -> Option<Usage> {
    let u = v.get("usage").filter(|u| u.is_object())?;
    let n = |p: &str| u.pointer(p).and_then(Value::as_u64).unwrap_or(0);
    Some(Usage {
        input_tokens: n("/prompt_tokens"),
        output_tokens: n("/completion_tokens"),
        cached_tokens: n("/prompt_tokens_details/cached_tokens"),
    })
}

/// Reads a 2xx body: `choices[0].message.content`, `.refusal` and `finish_reason`.
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
    let outcome = outcome(&v);
    Envelope {
        usage: usage(&v),
        outcome,
    }
}

fn outcome(v: &Value) -> Outcome {
    let Some(choice) = v.pointer("/choices/0") else {
        return Outcome::Malformed("no `choices[0]` in the body".into());
    };
    let message = choice.get("message");
    if let Some(refusal) = message
        .and_then(|m| m.get("refusal"))
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty())
    {
        return Outcome::Refused(refusal.to_string());
    }
    let finish = match choice.get("finish_reason").and_then(Value::as_str) {
        Some("stop") => Finish::Stop,
        Some("length") => Finish::Length,
        Some("content_filter") => {
            return Outcome::Refused("the provider's content filter stopped the output".into());
        }
        _ => Finish::Other,
    };
    let text = match message.and_then(|m| m.get("content")) {
        Some(Value::String(s)) => s.clone(),
        // Some servers send content parts.
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect(),
        _ if finish == Finish::Length => String::new(),
        _ => return Outcome::Malformed("no `choices[0].message.content` in the body".into()),
    };
    Outcome::Done { text, finish }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(v: Value) -> (String, Finish) {
        match outcome(&v) {
            Outcome::Done { text, finish } => (text, finish),
            _ => panic!("not done: {v}"),
        }
    }

    #[test]
    fn reads_content_refusal_and_finish() {
        let v = json!({"choices": [{"message": {"content": "{}", "refusal": null}, "finish_reason": "stop"}]});
        assert_eq!(done(v), ("{}".to_string(), Finish::Stop));
        let v = json!({"choices": [{"message": {"content": null}, "finish_reason": "length"}]});
        assert_eq!(done(v), (String::new(), Finish::Length));
        let v = json!({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]});
        assert_eq!(done(v), ("ab".to_string(), Finish::Other));
        let v = json!({"choices": [{"message": {"content": null, "refusal": "no"}, "finish_reason": "stop"}]});
        assert!(matches!(outcome(&v), Outcome::Refused(m) if m == "no"));
        let v =
            json!({"choices": [{"message": {"content": "x"}, "finish_reason": "content_filter"}]});
        assert!(matches!(outcome(&v), Outcome::Refused(_)));
        assert!(matches!(
            outcome(&json!({"choices": []})),
            Outcome::Malformed(_)
        ));
        assert!(matches!(
            outcome(&json!({"choices": [{"message": {}}]})),
            Outcome::Malformed(_)
        ));
    }

    #[test]
    fn usage_fields_may_be_missing() {
        let v = json!({"usage": {"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 4}}});
        assert_eq!(
            usage(&v),
            Some(Usage {
                input_tokens: 10,
                output_tokens: 5,
                cached_tokens: 4
            })
        );
        assert_eq!(
            usage(&json!({"usage": {"completion_tokens": 5}})),
            Some(Usage {
                input_tokens: 0,
                output_tokens: 5,
                cached_tokens: 0
            })
        );
        assert_eq!(usage(&json!({})), None);
        assert!(read(b"<html>").usage.is_none());
    }
}
