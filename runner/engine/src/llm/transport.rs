//! The HTTP side shared by both LLM wire formats: one POST with a deadline, classified as done,
//! refused, rejected or transient; transient ones are tried again as [`RetryPolicy`] says.

use std::time::{Duration, Instant, SystemTime};

use reqwest::StatusCode;
use reqwest::header::{CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use secrecy::{ExposeSecret, SecretString};

use super::{Completion, Envelope, LlmError, Outcome, Usage, error_message};
use crate::retry::{RetryPolicy, parse_retry_after};

/// Which header carries the key, and how.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Auth {
    pub header: &'static str,
    pub prefix: &'static str,
}

/// The HTTP side shared by both wire formats. `Debug` shows whether a key is set, not the key.
pub(crate) struct Transport {
    pub provider: String,
    pub http: reqwest::Client,
    pub key: Option<SecretString>,
    pub auth: Auth,
    pub timeout: Duration,
    pub max_retries: u32,
    pub policy: RetryPolicy,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("provider", &self.provider)
            .field("key", &self.key.as_ref().map(|_| "[redacted]"))
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .field("policy", &self.policy)
            .finish()
    }
}

/// One attempt, classified.
enum Attempt {
    Done(Completion),
    Refused(String),
    Rejected {
        status: u16,
        message: String,
    },
    Transient {
        reason: String,
        retry_after: Option<Duration>,
    },
}

/// What one attempt came to, with the usage it reported and its HTTP status, if any.
struct Tried {
    attempt: Attempt,
    usage: Option<Usage>,
    status: Option<u16>,
}

impl Tried {
    /// No complete response: a time-out, a connection error or a cut-short body.
    fn failed(reason: String) -> Tried {
        Tried {
            attempt: Attempt::Transient {
                reason,
                retry_after: None,
            },
            usage: None,
            status: None,
        }
    }
}

/// 408 and 409 are worth repeating; so is any 5xx that is not a permanent "not supported".
fn is_transient(status: StatusCode) -> bool {
    matches!(status.as_u16(), 408 | 409 | 429)
        || (status.is_server_error()
            && status != StatusCode::NOT_IMPLEMENTED
            && status != StatusCode::HTTP_VERSION_NOT_SUPPORTED)
}

impl Transport {
    /// POSTs `body` to `url` until an attempt is not transient or the retries run out.
    pub(super) async fn call(
        &self,
        url: &str,
        body: Vec<u8>,
        read: fn(&[u8]) -> Envelope,
    ) -> Result<Completion, LlmError> {
        let start = Instant::now();
        let mut usage = Usage::default();
        let mut attempts = 0u32;
        loop {
            attempts += 1;
            let began = Instant::now();
            let Tried {
                attempt,
                usage: got,
                status,
            } = self.attempt(url, &body, read).await;
            if let Some(u) = got {
                usage += u;
            }
            tracing::debug!(
                provider = %self.provider,
                attempt = attempts,
                status,
                elapsed_ms = began.elapsed().as_millis() as u64,
                input_tokens = got.map(|u| u.input_tokens),
                output_tokens = got.map(|u| u.output_tokens),
                outcome = %match &attempt {
                    Attempt::Done(_) => "done".to_string(),
                    Attempt::Refused(_) => "refused".to_string(),
                    Attempt::Rejected { status, .. } => format!("rejected ({status})"),
                    Attempt::Transient { reason, .. } => self.redact(reason.clone()),
                },
                "llm attempt"
            );
            match attempt {
                Attempt::Done(mut c) => {
                    c.usage = usage;
                    c.attempts = attempts;
                    c.elapsed = start.elapsed();
                    return Ok(c);
                }
                Attempt::Refused(message) => {
                    return Err(LlmError::Refused {
                        message: self.redact(message),
                        usage,
                        attempts,
                    });
                }
                Attempt::Rejected { status, message } => {
                    return Err(LlmError::Rejected {
                        status,
                        message: self.redact(message),
                        usage,
                        attempts,
                    });
                }
                Attempt::Transient {
                    reason,
                    retry_after,
                } => {
                    let reason = self.redact(reason);
                    match self.policy.next_wait(
                        attempts,
                        self.max_retries,
                        retry_after,
                        reason,
                        "the provider",
                    ) {
                        Ok(wait) => {
                            tracing::debug!(provider = %self.provider, wait_ms = wait.as_millis() as u64, "llm retry");
                            tokio::time::sleep(wait).await;
                        }
                        Err(last) => {
                            return Err(LlmError::Exhausted {
                                attempts,
                                last: last.to_string(),
                                usage,
                            });
                        }
                    }
                }
            }
        }
    }

    /// One POST within the per-attempt timeout.
    async fn attempt(&self, url: &str, body: &[u8], read: fn(&[u8]) -> Envelope) -> Tried {
        let mut request = self
            .http
            .post(url)
            .header(CONTENT_TYPE, "application/json")
            .body(body.to_vec());
        if let Some(key) = &self.key {
            let mut value =
                HeaderValue::from_str(&format!("{}{}", self.auth.prefix, key.expose_secret()))
                    .expect("the key was checked when the client was built");
            value.set_sensitive(true);
            request = request.header(self.auth.header, value);
        }
        let exchange = async {
            let response = request
                .send()
                .await
                .map_err(|e| describe("request failed", &e))?;
            let status = response.status();
            let retry_after = response
                .headers()
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| parse_retry_after(v, SystemTime::now()));
            let bytes = response.bytes().await.map_err(|e| {
                describe(
                    &format!("the HTTP {} response was cut short", status.as_u16()),
                    &e,
                )
            })?;
            Ok::<_, String>((status, retry_after, bytes))
        };
        let (status, retry_after, bytes) = match tokio::time::timeout(self.timeout, exchange).await
        {
            Err(_) => {
                return Tried::failed(format!(
                    "no complete response within {} ms",
                    self.timeout.as_millis()
                ));
            }
            Ok(Err(reason)) => return Tried::failed(reason),
            Ok(Ok(got)) => got,
        };
        if status.is_success() {
            let envelope = read(&bytes);
            let attempt = match envelope.outcome {
                Outcome::Done { text, finish } => Attempt::Done(Completion {
                    text,
                    finish,
                    usage: Usage::default(),
                    attempts: 0,
                    elapsed: Duration::ZERO,
                }),
                Outcome::Refused(message) => Attempt::Refused(message),
                Outcome::Malformed(why) => Attempt::Transient {
                    reason: format!("unexpected HTTP {} response: {why}", status.as_u16()),
                    retry_after: None,
                },
            };
            return Tried {
                attempt,
                usage: envelope.usage,
                status: Some(status.as_u16()),
            };
        }
        let message = error_message(&bytes);
        let attempt = if is_transient(status) {
            Attempt::Transient {
                reason: format!("HTTP {}: {message}", status.as_u16()),
                retry_after,
            }
        } else {
            Attempt::Rejected {
                status: status.as_u16(),
                message,
            }
        };
        Tried {
            attempt,
            usage: None,
            status: Some(status.as_u16()),
        }
    }

    /// Removes the key from text that came from outside (a provider may echo it back).
    fn redact(&self, text: String) -> String {
        match &self.key {
            Some(key) if key.expose_secret().len() >= 6 => {
                text.replace(key.expose_secret(), "[redacted]")
            }
            _ => text,
        }
    }
}

/// A reqwest error with its causes, after what was being done.
fn describe(what: &str, e: &reqwest::Error) -> String {
    format!("{what}: {}", windup_browser::http::error_chain(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_statuses() {
        for s in [408, 409, 429, 500, 502, 503, 504, 529] {
            assert!(is_transient(StatusCode::from_u16(s).unwrap()), "{s}");
        }
        for s in [400, 401, 403, 404, 422, 501] {
            assert!(!is_transient(StatusCode::from_u16(s).unwrap()), "{s}");
        }
    }
}
