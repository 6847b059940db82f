//! A fake LLM provider: a real HTTP/1.1 server on 127.0.0.1 that speaks both wire formats the
//! engine's `llm` module speaks, answering each request with the next scripted [`Reply`].
//!
//! It routes on the path: `…/chat/completions` is OpenAI Chat Completions, and
//! `…/models/{model}:generateContent` is Gemini. Successful replies report usage
//! deterministically in the wire format's own fields: input tokens = request body characters / 4,
//! output tokens = output text characters / 4 (both rounded up, see [`tokens`]), cached 0.
//!
//! Like llama.cpp's server, it answers HTTP 400 ([`GRAMMAR_ERROR`]) to a request whose response
//! schema holds an empty `enum` anywhere, without taking a scripted reply: the engine must
//! never send one.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::AbortHandle;

use crate::RUNTIME;
use crate::http::{self, respond};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Reply {
    /// Success whose output text is this value serialized.
    Json(Value),
    /// Success whose output text is this value with its element and fact descriptions
    /// resolved against the prompt received (see [`crate::grounded`]).
    Grounded(Value),
    /// Success whose output text is this raw string.
    Text(String),
    /// Success cut off by the token limit: finish_reason `length` / finishReason `MAX_TOKENS`.
    Length(String),
    /// OpenAI `message.refusal`; Gemini `promptFeedback.blockReason: SAFETY` with this message.
    Refusal(String),
    /// Any status, headers and body, such as 429 with `Retry-After: 1`, 500 or 401.
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
    /// Reads the request and never answers, until the client closes the connection.
    Hang,
    /// 200 with a `Content-Length` larger than the bytes sent, then the connection closes.
    Truncated,
    /// Success whose output is computed from the request's body (the prompt): for tests whose
    /// answer must depend on what the model was shown.
    Respond(Responder),
}

/// Computes an answer from a request body.
#[derive(Clone)]
pub struct Responder(pub Arc<dyn Fn(&str) -> Value + Send + Sync>);

impl std::fmt::Debug for Responder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Responder(..)")
    }
}

/// One request as the fake received it. Header names are lower-case.
#[derive(Debug, Clone)]
pub struct Received {
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Received {
    /// The body as JSON; panics when it is not.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("request body to {} is not JSON: {e}", self.path))
    }

    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// The token count the fake reports for a text: characters / 4, rounded up.
pub fn tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

#[derive(Default)]
struct State {
    script: VecDeque<Reply>,
    received: Vec<Received>,
    connections: Vec<AbortHandle>,
}

/// The fake provider. Dropping it stops the server and closes its connections.
pub struct FakeLlm {
    addr: SocketAddr,
    state: Arc<Mutex<State>>,
    accept: AbortHandle,
}

impl Drop for FakeLlm {
    fn drop(&mut self) {
        self.accept.abort();
        for c in self.state.lock().unwrap().connections.drain(..) {
            c.abort();
        }
    }
}

impl FakeLlm {
    /// Starts on a random loopback port. The server runs on the shared test runtime, so this
    /// works from a plain `#[test]` as well as inside [`crate::block_on`].
    pub fn start() -> FakeLlm {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener
            .set_nonblocking(true)
            .expect("non-blocking listener");
        let addr = listener.local_addr().expect("local addr");
        let state: Arc<Mutex<State>> = Arc::default();
        let shared = state.clone();
        let accept = RUNTIME
            .spawn(async move {
                let listener = TcpListener::from_std(listener).expect("tokio listener");
                while let Ok((stream, _)) = listener.accept().await {
                    let state = shared.clone();
                    let task = tokio::spawn(async move {
                        let _ = serve(stream, &state).await;
                    });
                    shared.lock().unwrap().connections.push(task.abort_handle());
                }
            })
            .abort_handle();
        FakeLlm {
            addr,
            state,
            accept,
        }
    }

    /// `{base}/chat/completions` reaches the fake.
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// `{base}/v1beta/models/{model}:generateContent` reaches the fake.
    pub fn gemini_base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Queues a reply. When the queue is empty every request gets 500 `script exhausted`.
    pub fn push(&self, reply: Reply) {
        self.state.lock().unwrap().script.push_back(reply);
    }

    /// Every request received, in order.
    pub fn requests(&self) -> Vec<Received> {
        self.state.lock().unwrap().received.clone()
    }

    /// Replies still queued.
    pub fn pending(&self) -> usize {
        self.state.lock().unwrap().script.len()
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Wire {
    OpenAi,
    Gemini,
}

fn wire(path: &str) -> Option<Wire> {
    if path.ends_with("/chat/completions") {
        Some(Wire::OpenAi)
    } else if path.contains("/models/") && path.ends_with(":generateContent") {
        Some(Wire::Gemini)
    } else {
        None
    }
}

/// One request, as the tests inspect it.
async fn read_request(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<Received>> {
    Ok(http::read_request(stream, buf).await?.map(|r| Received {
        path: r.target.split(['?', '#']).next().unwrap_or("/").to_string(),
        headers: r.headers,
        body: String::from_utf8_lossy(&r.body).to_string(),
    }))
}

async fn serve(mut stream: TcpStream, state: &Mutex<State>) -> std::io::Result<()> {
    let mut buf = Vec::new();
    while let Some(request) = read_request(&mut stream, &mut buf).await? {
        let wire = wire(&request.path);
        let rejected = wire.is_some_and(|w| empty_enum(&request, w));
        let reply = {
            let mut s = state.lock().unwrap();
            s.received.push(request.clone());
            // The server refuses the schema before a model would answer: no reply is used.
            if rejected { None } else { s.script.pop_front() }
        };
        let Some(wire) = wire else {
            let body = json!({"error": {"message": format!("no route {}", request.path)}});
            respond(&mut stream, 404, &[], &body.to_string()).await?;
            continue;
        };
        if rejected {
            respond(&mut stream, 400, &[], GRAMMAR_ERROR).await?;
            continue;
        }
        let model = model_of(&request, wire);
        let input = tokens(&request.body);
        match reply {
            None => {
                respond(&mut stream, 500, &[], r#"{"error":"script exhausted"}"#).await?;
            }
            Some(Reply::Json(v)) => {
                let body = success(wire, &model, &v.to_string(), false, input);
                respond(&mut stream, 200, &[], &body).await?;
            }
            Some(Reply::Grounded(template)) => {
                let prompt = crate::grounded::prompt_text(&request.body);
                let v = crate::grounded::resolve(&template, &prompt);
                let body = success(wire, &model, &v.to_string(), false, input);
                respond(&mut stream, 200, &[], &body).await?;
            }
            Some(Reply::Respond(answer)) => {
                let v = (answer.0)(&request.body);
                let body = success(wire, &model, &v.to_string(), false, input);
                respond(&mut stream, 200, &[], &body).await?;
            }
            Some(Reply::Text(text)) => {
                let body = success(wire, &model, &text, false, input);
                respond(&mut stream, 200, &[], &body).await?;
            }
            Some(Reply::Length(text)) => {
                let body = success(wire, &model, &text, true, input);
                respond(&mut stream, 200, &[], &body).await?;
            }
            Some(Reply::Refusal(message)) => {
                let body = refusal(wire, &model, &message, input);
                respond(&mut stream, 200, &[], &body).await?;
            }
            Some(Reply::Status {
                status,
                headers,
                body,
            }) => {
                respond(&mut stream, status, &headers, &body).await?;
            }
            Some(Reply::Hang) => {
                // Wait for the client to give up and close; answer nothing.
                let mut sink = [0u8; 1024];
                while stream.read(&mut sink).await? > 0 {}
                return Ok(());
            }
            Some(Reply::Truncated) => {
                let body = success(wire, &model, "{}", false, input);
                let sent = &body[..body.len() / 2];
                let head = format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
                    body.len()
                );
                stream.write_all(head.as_bytes()).await?;
                stream.write_all(sent.as_bytes()).await?;
                stream.flush().await?;
                let _ = stream.shutdown().await;
                return Ok(());
            }
        }
    }
    Ok(())
}

/// What llama.cpp's server answers when the grammar compiled from a request's schema does not
/// parse (an empty `enum` compiles to the empty alternative `()`): its own body, word for word.
pub const GRAMMAR_ERROR: &str =
    r#"{"error":{"code":400,"message":"Failed to parse grammar","type":"invalid_request_error"}}"#;

/// Whether the response schema a request sends holds an empty `enum` anywhere, which no value
/// can match and llama.cpp's grammar cannot express.
fn empty_enum(request: &Received, wire: Wire) -> bool {
    let Ok(body) = serde_json::from_str::<Value>(&request.body) else {
        return false;
    };
    let pointer = match wire {
        Wire::OpenAi => "/response_format/json_schema/schema",
        Wire::Gemini => "/generationConfig/responseJsonSchema",
    };
    body.pointer(pointer).is_some_and(has_empty_enum)
}

fn has_empty_enum(v: &Value) -> bool {
    match v {
        Value::Object(o) => {
            matches!(o.get("enum"), Some(Value::Array(values)) if values.is_empty())
                || o.values().any(has_empty_enum)
        }
        Value::Array(items) => items.iter().any(has_empty_enum),
        _ => false,
    }
}

/// The model asked for: in the body for OpenAI, in the path for Gemini.
fn model_of(request: &Received, wire: Wire) -> String {
    match wire {
        Wire::OpenAi => serde_json::from_str::<Value>(&request.body)
            .ok()
            .and_then(|v| v.get("model").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_default(),
        Wire::Gemini => request
            .path
            .rsplit_once("/models/")
            .map(|(_, m)| m.trim_end_matches(":generateContent").to_string())
            .unwrap_or_default(),
    }
}

fn success(wire: Wire, model: &str, text: &str, length: bool, input: u64) -> String {
    let output = tokens(text);
    match wire {
        Wire::OpenAi => json!({
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": text, "refusal": null},
                "finish_reason": if length { "length" } else { "stop" },
            }],
            "usage": {
                "prompt_tokens": input,
                "completion_tokens": output,
                "total_tokens": input + output,
                "prompt_tokens_details": {"cached_tokens": 0},
            },
        }),
        Wire::Gemini => json!({
            "candidates": [{
                "content": {"role": "model", "parts": [{"text": text}]},
                "finishReason": if length { "MAX_TOKENS" } else { "STOP" },
                "index": 0,
            }],
            "usageMetadata": {
                "promptTokenCount": input,
                "candidatesTokenCount": output,
                "totalTokenCount": input + output,
            },
            "modelVersion": model,
        }),
    }
    .to_string()
}

fn refusal(wire: Wire, model: &str, message: &str, input: u64) -> String {
    match wire {
        Wire::OpenAi => {
            let output = tokens(message);
            json!({
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [{
                    "index": 0,
                    "message": {"role": "assistant", "content": null, "refusal": message},
                    "finish_reason": "stop",
                }],
                "usage": {
                    "prompt_tokens": input,
                    "completion_tokens": output,
                    "total_tokens": input + output,
                },
            })
        }
        Wire::Gemini => json!({
            "promptFeedback": {"blockReason": "SAFETY", "blockReasonMessage": message},
            "usageMetadata": {"promptTokenCount": input, "totalTokenCount": input},
            "modelVersion": model,
        }),
    }
    .to_string()
}
