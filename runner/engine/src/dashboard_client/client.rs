//! The HTTP client: one request retried while it fails transiently (connection errors,
//! time-outs, 429 with `Retry-After`, 5xx) with a capped exponential back-off, refusals read
//! from the dashboard's error body, and the token redacted from everything that comes back.

use std::time::{Duration, SystemTime};

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use secrecy::{ExposeSecret, SecretString};
use windup_model::api::API_VERSION;

use super::settings::Settings;
use crate::retry::{RetryPolicy, parse_retry_after};
use windup_browser::http::error_chain as describe;

/// Why a dashboard request did not succeed. Messages never contain the token.
#[derive(Debug, thiserror::Error)]
pub enum DashboardError {
    /// The token's environment variable is not set (or is blank).
    #[error("the environment variable {env} holding the dashboard token is not set; export it")]
    MissingToken {
        /// The variable's name.
        env: String,
    },
    /// The token cannot be sent as a header: a pasted quote or line break, usually.
    #[error(
        "the value of {env} is not a valid HTTP header value; check it for quotes or line breaks"
    )]
    BadToken {
        /// The variable's name (never its value).
        env: String,
    },
    /// Transient failures until the retries ran out.
    #[error("the dashboard could not be reached after {attempts} attempt(s): {last}")]
    Unreachable {
        /// HTTP attempts made.
        attempts: u32,
        /// What went wrong on the last attempt, token redacted.
        last: String,
    },
    /// A 4xx (other than 429) with the dashboard's own error.
    #[error("the dashboard refused the request (HTTP {status}, {code}): {message}")]
    Rejected {
        /// The HTTP status code.
        status: u16,
        /// The error body's `error.code`, or `error` when it has none.
        code: String,
        /// The error body's `error.message`, or the start of the body.
        message: String,
    },
    /// A success whose body is not what API v1 promises (or a plan that fails its checks).
    #[error("the dashboard's answer could not be read: {0}")]
    BadAnswer(String),
    /// A failure on our side before anything was sent, such as an HTTP client that could not
    /// be built.
    #[error("{0}")]
    Local(String),
}

impl DashboardError {
    /// The dashboard is down or unreachable (as opposed to refusing one request).
    pub fn is_outage(&self) -> bool {
        matches!(self, DashboardError::Unreachable { .. })
    }

    /// The same answer would come for every request of a batch: the dashboard is down, or
    /// refuses the token (401) or what it may do (403: the scope, or the run's branch). Callers
    /// stop at the first one instead of repeating it.
    pub fn ends_the_batch(&self) -> bool {
        self.is_outage()
            || matches!(
                self,
                DashboardError::Rejected {
                    status: 401 | 403,
                    ..
                }
            )
    }
}

/// A dashboard client. `Debug` shows where it points, never the token.
pub struct Dashboard {
    base: url::Url,
    http: reqwest::Client,
    token: SecretString,
    timeout: Duration,
    max_retries: u32,
    policy: RetryPolicy,
}

impl std::fmt::Debug for Dashboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dashboard")
            .field("url", &self.base.as_str())
            .field("token", &"[redacted]")
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

/// 408, 429 and most 5xx are worth repeating; other 4xx are not.
fn is_transient(status: StatusCode) -> bool {
    matches!(status.as_u16(), 408 | 429)
        || (status.is_server_error()
            && status != StatusCode::NOT_IMPLEMENTED
            && status != StatusCode::HTTP_VERSION_NOT_SUPPORTED)
}

/// `error.code` and `error.message` of a contract error body, else the start of the body.
fn error_of(body: &[u8]) -> (String, String) {
    let v: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let text = |p: &str| v.pointer(p).and_then(|m| m.as_str()).map(str::to_string);
    match (text("/error/code"), text("/error/message")) {
        (code, Some(message)) => (code.unwrap_or_else(|| "error".into()), message),
        (code, None) => {
            let raw = String::from_utf8_lossy(body);
            let cut: String = raw.trim().chars().take(200).collect();
            (
                code.unwrap_or_else(|| "error".into()),
                if cut.is_empty() {
                    "(empty body)".into()
                } else {
                    cut
                },
            )
        }
    }
}

/// One attempt, classified.
/// The most an answer may hold: the largest API v1 answer is a restored plan, a cache entry of
/// at most `PLAN_BYTES` with its branch and date around it. A larger one is refused, not read.
const MAX_ANSWER_BYTES: usize = windup_model::limits::PLAN_BYTES + 64 * 1024;

enum Attempt {
    Done(Vec<u8>),
    Rejected(u16, Vec<u8>),
    /// An answer larger than [`MAX_ANSWER_BYTES`]: the same answer would come again.
    TooLarge,
    Transient {
        reason: String,
        retry_after: Option<Duration>,
    },
}

impl Dashboard {
    /// A client for `settings`; the token is read through `env` (the process environment).
    pub fn new(
        settings: &Settings,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Dashboard, DashboardError> {
        Self::with_policy(settings, env, RetryPolicy::default())
    }

    /// [`Dashboard::new`] with another back-off (tests use [`RetryPolicy::fast`]).
    pub fn with_policy(
        settings: &Settings,
        env: &dyn Fn(&str) -> Option<String>,
        policy: RetryPolicy,
    ) -> Result<Dashboard, DashboardError> {
        let var = &settings.token_env;
        let token = env(var)
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .ok_or_else(|| DashboardError::MissingToken { env: var.clone() })?;
        if HeaderValue::from_str(&format!("Bearer {token}")).is_err() {
            return Err(DashboardError::BadToken { env: var.clone() });
        }
        let http = reqwest::Client::builder()
            .user_agent(concat!("windup/", env!("CARGO_PKG_VERSION")))
            .tls_backend_preconfigured(windup_browser::http::tls_config())
            .connect_timeout(settings.timeout)
            .build()
            .map_err(|e| {
                DashboardError::Local(format!("the HTTP client could not be set up: {e}"))
            })?;
        Ok(Dashboard {
            base: settings.url.clone(),
            http,
            token: SecretString::from(token),
            timeout: settings.timeout,
            max_retries: settings.max_retries,
            policy,
        })
    }

    /// `api/v1/` followed by `segments`, each percent-encoded as one path segment.
    pub(super) fn endpoint(&self, segments: &[&str]) -> url::Url {
        let mut url = self
            .base
            .join(&format!("api/{API_VERSION}/"))
            .expect("a base URL ending with / joins");
        {
            let mut path = url.path_segments_mut().expect("http URLs have paths");
            path.pop_if_empty();
            path.extend(segments);
        }
        url
    }

    /// [`Dashboard::endpoint`] with `query`, one of the API's typed queries
    /// (`windup_model::api`), as its query string.
    pub(super) fn endpoint_with<Q: serde::Serialize>(
        &self,
        segments: &[&str],
        query: &Q,
    ) -> url::Url {
        let mut url = self.endpoint(segments);
        let encoded = serde_urlencoded::to_string(query)
            .expect("the API's queries are flat structs of strings");
        url.set_query((!encoded.is_empty()).then_some(encoded.as_str()));
        url
    }

    /// One request, retried while it fails transiently. A 2xx gives its body.
    pub(super) async fn send(
        &self,
        method: Method,
        url: url::Url,
        body: Option<(&[u8], &'static str)>,
    ) -> Result<Vec<u8>, DashboardError> {
        let mut attempts = 0u32;
        loop {
            attempts += 1;
            let attempt = self.attempt(method.clone(), url.clone(), body).await;
            tracing::debug!(
                method = %method,
                path = url.path(),
                attempt = attempts,
                outcome = match &attempt {
                    Attempt::Done(_) => "done".to_string(),
                    Attempt::Rejected(s, _) => format!("rejected ({s})"),
                    Attempt::TooLarge => "too large".to_string(),
                    Attempt::Transient { reason, .. } => self.redact(reason.clone()),
                },
                "dashboard request"
            );
            match attempt {
                Attempt::Done(bytes) => return Ok(bytes),
                Attempt::TooLarge => {
                    return Err(DashboardError::BadAnswer(format!(
                        "it is larger than {}, more than any answer of API v1",
                        windup_model::limits::bytes(MAX_ANSWER_BYTES)
                    )));
                }
                Attempt::Rejected(status, bytes) => {
                    let (code, message) = error_of(&bytes);
                    return Err(DashboardError::Rejected {
                        status,
                        code: self.redact(code),
                        message: self.redact(message),
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
                        "it",
                    ) {
                        Ok(wait) => tokio::time::sleep(wait).await,
                        Err(last) => {
                            return Err(DashboardError::Unreachable {
                                attempts,
                                last: last.to_string(),
                            });
                        }
                    }
                }
            }
        }
    }

    async fn attempt(
        &self,
        method: Method,
        url: url::Url,
        body: Option<(&[u8], &'static str)>,
    ) -> Attempt {
        let mut auth = HeaderValue::from_str(&format!("Bearer {}", self.token.expose_secret()))
            .expect("checked when the client was built");
        auth.set_sensitive(true);
        let mut request = self.http.request(method, url).header(AUTHORIZATION, auth);
        if let Some((bytes, content_type)) = body {
            request = request
                .header(CONTENT_TYPE, content_type)
                .body(bytes.to_vec());
        }
        let exchange = async {
            let response = request.send().await.map_err(|e| describe(&e))?;
            let status = response.status();
            let retry_after = response
                .headers()
                .get(RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| parse_retry_after(v, SystemTime::now()));
            let mut response = response;
            let mut bytes = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(|e| describe(&e))? {
                if bytes.len() + chunk.len() > MAX_ANSWER_BYTES {
                    return Ok((status, retry_after, None));
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok::<_, String>((status, retry_after, Some(bytes)))
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Err(_) => Attempt::Transient {
                reason: format!("no answer within {} ms", self.timeout.as_millis()),
                retry_after: None,
            },
            Ok(Err(reason)) => Attempt::Transient {
                reason,
                retry_after: None,
            },
            Ok(Ok((_, _, None))) => Attempt::TooLarge,
            Ok(Ok((status, _, Some(bytes)))) if status.is_success() => Attempt::Done(bytes),
            Ok(Ok((status, retry_after, Some(bytes)))) if is_transient(status) => {
                let (_, message) = error_of(&bytes);
                Attempt::Transient {
                    reason: format!("HTTP {}: {message}", status.as_u16()),
                    retry_after,
                }
            }
            Ok(Ok((status, _, Some(bytes)))) => Attempt::Rejected(status.as_u16(), bytes),
        }
    }

    /// Removes the token from text that came from outside (a server may echo it back).
    fn redact(&self, text: String) -> String {
        let token = self.token.expose_secret();
        if token.len() >= 4 {
            text.replace(token, "[redacted]")
        } else {
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dashboard_client::{DEFAULT_TOKEN_ENV, DashboardSection, settings};

    fn section(url: &str) -> DashboardSection {
        DashboardSection {
            url: Some(url.into()),
            ..DashboardSection::default()
        }
    }

    #[test]
    fn the_token_is_in_no_debug_output_or_error() {
        let s = settings("windup.toml", &section("http://127.0.0.1:9"), None, false)
            .unwrap()
            .unwrap();
        let d = Dashboard::new(&s, &|_| Some("tok-canary-5150".into())).unwrap();
        let shown = format!("{d:?}");
        assert!(!shown.contains("tok-canary-5150"), "{shown}");
        assert!(shown.contains("[redacted]"));
        assert_eq!(
            d.redact("echoed tok-canary-5150 back".into()),
            "echoed [redacted] back"
        );
        let err = Dashboard::new(&s, &|_| None).unwrap_err();
        assert!(err.to_string().contains(DEFAULT_TOKEN_ENV), "{err}");
        let err = Dashboard::new(&s, &|_| Some("a\nb".into())).unwrap_err();
        assert!(!err.to_string().contains("a\nb"), "{err}");
    }

    #[test]
    fn endpoints_encode_each_segment() {
        let s = settings("windup.toml", &section("http://h:1/dash"), None, false)
            .unwrap()
            .unwrap();
        let d = Dashboard::new(&s, &|_| Some("t".into())).unwrap();
        assert_eq!(
            d.endpoint(&["runs", "r1", "artifacts", "a b/c.png"])
                .as_str(),
            "http://h:1/dash/api/v1/runs/r1/artifacts/a%20b%2Fc.png"
        );
    }

    #[test]
    fn transient_statuses_and_error_bodies() {
        for s in [408, 429, 500, 502, 503, 504] {
            assert!(is_transient(StatusCode::from_u16(s).unwrap()), "{s}");
        }
        for s in [400, 401, 403, 404, 409, 413, 422, 501] {
            assert!(!is_transient(StatusCode::from_u16(s).unwrap()), "{s}");
        }
        assert_eq!(
            error_of(br#"{"error":{"code":"forbidden","message":"no write to main"}}"#),
            ("forbidden".into(), "no write to main".into())
        );
        assert_eq!(error_of(b""), ("error".into(), "(empty body)".into()));
    }
}
