//! The team dashboard, from the runner's side (API v1): run uploads with their ledger records
//! and failure screenshots, and the branch-aware remote plan cache.
//!
//! The dashboard is never in the way of a verdict. Every request retries transient failures
//! (connection errors, time-outs, 429 with `Retry-After`, 5xx) with a capped exponential
//! back-off; an upload that still fails is written to `e2e/.windup/spool/<run_id>.json` and sent
//! again by the next `windup push` or `windup run`, which removes the file once the dashboard has
//! it (uploads are idempotent on `run_id`, so a retry never duplicates). The token comes only
//! from the environment variable named in `[dashboard] token_env`; it is never logged, never in
//! `Debug` output and never in an error.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderValue, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use windup_model::validate::cache_entry_from_json;
use windup_model::{CacheEntry, CacheStatus, InputError, LedgerRecord, RunReport, Scenario};

use crate::project::Layout;
use crate::retry::{NextTry, RetryPolicy, parse_retry_after};

pub const SPOOL_VERSION: &str = "0.1";
pub const DEFAULT_TOKEN_ENV: &str = "WINDUP_DASHBOARD_TOKEN";
pub const DEFAULT_TIMEOUT_MS: u64 = 10_000;
pub const DEFAULT_MAX_RETRIES: u32 = 3;
/// What a run keeps for `windup push`, in `e2e/.windup/runs/<run_id>/`.
pub const RUN_REPORT_FILE: &str = "report.json";
pub const RUN_LEDGER_FILE: &str = "ledger.json";

/// `[dashboard]` of windup.toml. Unknown keys are rejected with their name.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DashboardSection {
    /// The dashboard's address, such as `https://windup.example.com`; no dashboard when absent
    /// (and no `--dashboard-url` / `WINDUP_DASHBOARD_URL`).
    pub url: Option<String>,
    /// The NAME of the environment variable holding the API token (default
    /// `WINDUP_DASHBOARD_TOKEN`), never the token itself.
    pub token_env: Option<String>,
    /// Restore newer plans from the dashboard before a run (default true).
    pub restore: Option<bool>,
    /// Save plans verified in a run to the dashboard after it (default true).
    pub save: Option<bool>,
    /// Upload every run after it (default true); `windup push` uploads either way.
    pub push: Option<bool>,
    /// Per HTTP attempt (default 10000).
    pub timeout_ms: Option<u64>,
    /// Transient retries after the first attempt (default 3).
    pub max_retries: Option<u32>,
}

/// The dashboard settings in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Ends with `/`, so `api/v1/…` joins under any path prefix.
    pub url: url::Url,
    pub token_env: String,
    pub restore: bool,
    pub save: bool,
    pub push: bool,
    pub timeout: Duration,
    pub max_retries: u32,
}

/// Resolves `[dashboard]` with `--dashboard-url` / `WINDUP_DASHBOARD_URL` (which wins) and
/// `--no-push`. `None`: no dashboard is configured.
pub fn settings(
    config_file: &str,
    section: &DashboardSection,
    url_override: Option<&str>,
    no_push: bool,
) -> Result<Option<Settings>, InputError> {
    // An empty WINDUP_DASHBOARD_URL (a CI variable that is not set) is no override.
    let url_override = url_override.filter(|u| !u.trim().is_empty());
    let (field, raw) = match (url_override, &section.url) {
        (Some(u), _) => ("--dashboard-url or WINDUP_DASHBOARD_URL", u),
        (None, Some(u)) => ("dashboard.url", u.as_str()),
        (None, None) => return Ok(None),
    };
    let raw = raw.trim();
    let mut url = match url::Url::parse(raw) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => u,
        _ => {
            return Err(InputError::new(
                config_file,
                field,
                format!("`{raw}` is not an http(s) URL"),
                "give the dashboard's address, such as https://windup.example.com",
            ));
        }
    };
    if !url.username().is_empty() || url.password().is_some() {
        return Err(InputError::new(
            config_file,
            field,
            "the URL carries credentials",
            format!(
                "remove them from the URL and export the token in {}",
                section.token_env.as_deref().unwrap_or(DEFAULT_TOKEN_ENV)
            ),
        ));
    }
    url.set_query(None);
    url.set_fragment(None);
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    let token_env = section
        .token_env
        .clone()
        .unwrap_or_else(|| DEFAULT_TOKEN_ENV.to_string());
    if !is_env_name(&token_env) {
        // Never echo the value: it may be the token pasted in by mistake.
        return Err(InputError::new(
            config_file,
            "dashboard.token_env",
            "is not the name of an environment variable",
            "write the NAME of the variable that holds the token, such as WINDUP_DASHBOARD_TOKEN, never the token itself",
        ));
    }
    let timeout_ms = section.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    if timeout_ms == 0 {
        return Err(InputError::new(
            config_file,
            "dashboard.timeout_ms",
            "a time-out of 0 ms lets no request finish",
            format!("remove it (default {DEFAULT_TIMEOUT_MS}) or give a number of milliseconds"),
        ));
    }
    let max_retries = section.max_retries.unwrap_or(DEFAULT_MAX_RETRIES);
    if max_retries > 10 {
        return Err(InputError::new(
            config_file,
            "dashboard.max_retries",
            format!("{max_retries} retries could stall a run for minutes"),
            "give at most 10 (default 3); failed uploads are spooled and sent later anyway",
        ));
    }
    Ok(Some(Settings {
        url,
        token_env,
        restore: section.restore.unwrap_or(true),
        save: section.save.unwrap_or(true),
        push: section.push.unwrap_or(true) && !no_push,
        timeout: Duration::from_millis(timeout_ms),
        max_retries,
    }))
}

fn is_env_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Why a dashboard request did not succeed. Messages never contain the token.
#[derive(Debug, thiserror::Error)]
pub enum RemoteError {
    #[error("the environment variable {env} holding the dashboard token is not set; export it")]
    MissingToken { env: String },
    #[error(
        "the value of {env} is not a valid HTTP header value; check it for quotes or line breaks"
    )]
    BadToken { env: String },
    /// Transient failures until the retries ran out.
    #[error("the dashboard could not be reached after {attempts} attempt(s): {last}")]
    Unreachable { attempts: u32, last: String },
    /// A 4xx (other than 429) with the dashboard's own error.
    #[error("the dashboard refused the request (HTTP {status}, {code}): {message}")]
    Rejected {
        status: u16,
        code: String,
        message: String,
    },
    #[error("the dashboard's answer could not be read: {0}")]
    BadAnswer(String),
    #[error("{0}")]
    Local(String),
}

impl RemoteError {
    /// The dashboard is down or unreachable (as opposed to refusing one request).
    pub fn is_outage(&self) -> bool {
        matches!(self, RemoteError::Unreachable { .. })
    }

    /// The same answer would come for every request of a batch: the dashboard is down, or
    /// refuses the token (401) or what it may do (403: the scope, or the run's branch). Callers
    /// stop at the first one instead of repeating it.
    pub fn ends_the_batch(&self) -> bool {
        self.is_outage()
            || matches!(
                self,
                RemoteError::Rejected {
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

/// `{"run_id","url","created"}`: the answer to an upload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunCreated {
    pub run_id: String,
    pub url: String,
    /// False when the dashboard already had this run (a retried upload).
    pub created: bool,
}

/// The pull request a run is for, from GitHub's event file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PullRequest {
    /// `owner/name`.
    pub repo: String,
    pub number: u64,
    pub head_sha: String,
}

/// The body of `POST /api/v1/runs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunUpload {
    pub report: RunReport,
    /// This run's ledger records.
    pub ledger: Vec<LedgerRecord>,
    pub pull_request: Option<PullRequest>,
}

/// A screenshot the report refers to, by its path from the project root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Artifact {
    pub file_name: String,
    pub path: String,
}

/// An upload that waits in the spool, with its artifacts referenced by path.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Spooled {
    spool_version: String,
    upload: RunUpload,
    artifacts: Vec<Artifact>,
    /// Why the last attempt failed (never the token).
    last_error: String,
    #[serde(with = "time::serde::rfc3339")]
    spooled_at: OffsetDateTime,
}

/// `GET /api/v1/cache/{id}`: the entry the dashboard holds for a scenario, and where from.
#[derive(Debug, Clone, PartialEq)]
pub struct RemoteEntry {
    /// The branch it was saved on (the default branch when the run's own has none).
    pub branch: String,
    pub updated_at: OffsetDateTime,
    pub entry: CacheEntry,
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
enum Attempt {
    Done(Vec<u8>),
    Rejected(u16, Vec<u8>),
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
    ) -> Result<Dashboard, RemoteError> {
        Self::with_policy(settings, env, RetryPolicy::default())
    }

    /// [`Dashboard::new`] with another back-off (tests use [`RetryPolicy::fast`]).
    pub fn with_policy(
        settings: &Settings,
        env: &dyn Fn(&str) -> Option<String>,
        policy: RetryPolicy,
    ) -> Result<Dashboard, RemoteError> {
        let var = &settings.token_env;
        let token = env(var)
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty())
            .ok_or_else(|| RemoteError::MissingToken { env: var.clone() })?;
        if HeaderValue::from_str(&format!("Bearer {token}")).is_err() {
            return Err(RemoteError::BadToken { env: var.clone() });
        }
        let http = reqwest::Client::builder()
            .user_agent(concat!("windup/", env!("CARGO_PKG_VERSION")))
            .tls_backend_preconfigured(crate::llm::tls_config())
            .connect_timeout(settings.timeout)
            .build()
            .map_err(|e| RemoteError::Local(format!("the HTTP client could not be set up: {e}")))?;
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
    fn endpoint(&self, segments: &[&str]) -> url::Url {
        let mut url = self
            .base
            .join("api/v1/")
            .expect("a base URL ending with / joins");
        {
            let mut path = url.path_segments_mut().expect("http URLs have paths");
            path.pop_if_empty();
            path.extend(segments);
        }
        url
    }

    /// One request, retried while it fails transiently. A 2xx gives its body.
    async fn send(
        &self,
        method: Method,
        url: url::Url,
        body: Option<(&[u8], &'static str)>,
    ) -> Result<Vec<u8>, RemoteError> {
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
                    Attempt::Transient { reason, .. } => self.redact(reason.clone()),
                },
                "dashboard request"
            );
            match attempt {
                Attempt::Done(bytes) => return Ok(bytes),
                Attempt::Rejected(status, bytes) => {
                    let (code, message) = error_of(&bytes);
                    return Err(RemoteError::Rejected {
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
                    let last = match self.policy.after_transient(
                        attempts,
                        self.max_retries,
                        retry_after,
                    ) {
                        NextTry::Wait(wait) => {
                            tokio::time::sleep(wait).await;
                            continue;
                        }
                        NextTry::WaitTooLong(wait) => format!(
                            "{reason}; it asked to retry after {} s, longer than the {} s Windup waits",
                            wait.as_secs(),
                            self.policy.max_retry_after.as_secs()
                        ),
                        NextTry::Exhausted => reason,
                    };
                    return Err(RemoteError::Unreachable { attempts, last });
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
            let bytes = response.bytes().await.map_err(|e| describe(&e))?;
            Ok::<_, String>((status, retry_after, bytes.to_vec()))
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
            Ok(Ok((status, _, bytes))) if status.is_success() => Attempt::Done(bytes),
            Ok(Ok((status, retry_after, bytes))) if is_transient(status) => {
                let (_, message) = error_of(&bytes);
                Attempt::Transient {
                    reason: format!("HTTP {}: {message}", status.as_u16()),
                    retry_after,
                }
            }
            Ok(Ok((status, _, bytes))) => Attempt::Rejected(status.as_u16(), bytes),
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

    /// `POST /api/v1/runs`, then `PUT` of every artifact (read from under `root`).
    pub async fn upload(
        &self,
        root: &Path,
        upload: &RunUpload,
        artifacts: &[Artifact],
    ) -> Result<RunCreated, RemoteError> {
        let body = serde_json::to_vec(upload).map_err(|e| RemoteError::Local(e.to_string()))?;
        let answer = self
            .send(
                Method::POST,
                self.endpoint(&["runs"]),
                Some((&body, "application/json")),
            )
            .await?;
        let created: RunCreated =
            serde_json::from_slice(&answer).map_err(|e| RemoteError::BadAnswer(e.to_string()))?;
        for a in artifacts {
            let png = match std::fs::read(root.join(&a.path)) {
                Ok(b) => b,
                Err(e) => {
                    // Nothing to retry later: the file is gone. The run itself is delivered.
                    tracing::warn!("the screenshot {} is not uploaded: {e}", a.path);
                    continue;
                }
            };
            let url = self.endpoint(&["runs", &upload.report.run_id, "artifacts", &a.file_name]);
            self.send(Method::PUT, url, Some((&png, "image/png")))
                .await?;
        }
        Ok(created)
    }

    /// `GET /api/v1/cache/{id}` for the scenario's current text; `None` when there is none.
    pub async fn get_plan(
        &self,
        scenario: &Scenario,
        branch: Option<&str>,
    ) -> Result<Option<RemoteEntry>, RemoteError> {
        let mut url = self.endpoint(&["cache", &scenario.id]);
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("start_url", &scenario.start_url);
            q.append_pair("scenario_sha", &scenario.sha());
            if let Some(b) = branch {
                q.append_pair("branch", b);
            }
        }
        let bytes = match self.send(Method::GET, url, None).await {
            Ok(b) => b,
            Err(RemoteError::Rejected { status: 404, .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        #[derive(Deserialize)]
        struct Answer {
            branch: String,
            #[serde(with = "time::serde::rfc3339")]
            updated_at: OffsetDateTime,
            entry: serde_json::Value,
        }
        let answer: Answer =
            serde_json::from_slice(&bytes).map_err(|e| RemoteError::BadAnswer(e.to_string()))?;
        // The plan will run here: it is checked like a committed cache file.
        let label = format!("the dashboard's plan for {}", scenario.id);
        let entry = cache_entry_from_json(&label, &answer.entry.to_string()).map_err(|p| {
            RemoteError::BadAnswer(
                p.0.iter()
                    .map(|e| format!("{}: {}", e.field, e.problem))
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        })?;
        Ok(Some(RemoteEntry {
            branch: answer.branch,
            updated_at: answer.updated_at,
            entry,
        }))
    }

    /// `PUT /api/v1/cache/{id}?branch=NAME[&reason=WHY]`: `reason` says why the plan it
    /// replaces went stale.
    pub async fn put_plan(
        &self,
        entry: &CacheEntry,
        branch: &str,
        reason: Option<&str>,
    ) -> Result<(), RemoteError> {
        let mut url = self.endpoint(&["cache", &entry.key.scenario_id]);
        url.query_pairs_mut().append_pair("branch", branch);
        if let Some(reason) = reason {
            url.query_pairs_mut().append_pair("reason", reason);
        }
        let body = serde_json::to_vec(entry).map_err(|e| RemoteError::Local(e.to_string()))?;
        self.send(Method::PUT, url, Some((&body, "application/json")))
            .await
            .map(|_| ())
    }
}

/// A reqwest error with its causes, which hold the useful part ("connection refused").
fn describe(e: &reqwest::Error) -> String {
    let mut text = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let s_text = s.to_string();
        if !text.contains(&s_text) {
            text.push_str(": ");
            text.push_str(&s_text);
        }
        source = s.source();
    }
    text
}

/// Whether the dashboard's entry should replace what the local cache holds: only an active plan
/// for exactly this scenario text, and only when the local one is not a hit for it or was last
/// verified before the dashboard's was saved.
pub fn prefer_remote(
    remote: &RemoteEntry,
    scenario: &Scenario,
    local: Option<&CacheEntry>,
) -> bool {
    let key = &remote.entry.key;
    let fits = key.scenario_id == scenario.id
        && key.scenario_sha == scenario.sha()
        && key.start_url == scenario.start_url
        && remote.entry.status == CacheStatus::Active;
    if !fits {
        return false;
    }
    match local {
        None => true,
        Some(l)
            if l.key.scenario_sha != scenario.sha()
                || l.key.start_url != scenario.start_url
                || l.status != CacheStatus::Active =>
        {
            true
        }
        // Verification times from the runners' clocks, not the upload's: an entry uploaded
        // after the local copy was verified, but verified no later, is not newer.
        Some(l) => {
            remote.entry.stats.last_verified_at > l.stats.last_verified_at
                && remote.entry.plan != l.plan
        }
    }
}

/// The pull request of a GitHub Actions `pull_request` event: `GITHUB_EVENT_PATH` names the
/// event's JSON, `GITHUB_REPOSITORY` the repository.
pub fn pull_request(env: &dyn Fn(&str) -> Option<String>) -> Option<PullRequest> {
    let path = env("GITHUB_EVENT_PATH").filter(|p| !p.is_empty())?;
    let repo = env("GITHUB_REPOSITORY").filter(|r| r.contains('/'))?;
    let text = std::fs::read_to_string(path).ok()?;
    let event: serde_json::Value = serde_json::from_str(&text).ok()?;
    let pr = event.get("pull_request")?;
    Some(PullRequest {
        repo,
        number: pr.get("number")?.as_u64()?,
        head_sha: pr.pointer("/head/sha")?.as_str()?.to_string(),
    })
}

fn run_dir(root: &Path, run_id: &str) -> PathBuf {
    root.join(Layout::RUNS_DIR).join(run_id)
}

/// Keeps a run's report and ledger records in `e2e/.windup/runs/<run_id>/` for `windup push`.
pub fn keep_run(root: &Path, report: &RunReport, ledger: &[LedgerRecord]) -> std::io::Result<()> {
    let dir = run_dir(root, &report.run_id);
    crate::fsutil::write_json(&dir.join(RUN_REPORT_FILE), report)?;
    crate::fsutil::write_json(&dir.join(RUN_LEDGER_FILE), &ledger)
}

/// The upload of a kept run: the one named, else the last run (`e2e/.windup/last-run.json`).
pub fn load_run(
    root: &Path,
    run_id: Option<&str>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(RunUpload, Vec<Artifact>), InputError> {
    let run_id = match run_id {
        Some(id) => id.to_string(),
        None => {
            let path = root.join(Layout::LAST_RUN_FILE);
            std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .and_then(|v| v.get("run_id")?.as_str().map(str::to_string))
                .ok_or_else(|| {
                    InputError::new(
                        crate::project::display(root, &path),
                        "run_id",
                        "there is no record of a last run to push",
                        "run `windup run` first, or name a run with --run-id",
                    )
                })?
        }
    };
    if uuid::Uuid::parse_str(&run_id).is_err() {
        return Err(InputError::new(
            "command line",
            "--run-id",
            format!("`{run_id}` is not a run id"),
            "give the run_id of a run report (a UUID)",
        ));
    }
    let dir = run_dir(root, &run_id);
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).map_err(|e| {
            InputError::new(
                crate::project::display(root, &path),
                "(file)",
                format!("cannot be read: {e}"),
                "push a run made by this version of windup in this project",
            )
        })
    };
    let bad = |name: &str, e: serde_json::Error| {
        InputError::new(
            crate::project::display(root, &dir.join(name)),
            "(file)",
            format!("is not valid: {e}"),
            "run the suite again; this run cannot be pushed",
        )
    };
    let report: RunReport =
        serde_json::from_str(&read(RUN_REPORT_FILE)?).map_err(|e| bad(RUN_REPORT_FILE, e))?;
    let ledger: Vec<LedgerRecord> =
        serde_json::from_str(&read(RUN_LEDGER_FILE)?).map_err(|e| bad(RUN_LEDGER_FILE, e))?;
    let artifacts = artifacts(&report);
    Ok((
        RunUpload {
            report,
            ledger,
            pull_request: pull_request(env),
        },
        artifacts,
    ))
}

/// The screenshots a report refers to, under its own run's folder.
pub fn artifacts(report: &RunReport) -> Vec<Artifact> {
    let prefix = format!("{}/{}/", Layout::RUNS_DIR, report.run_id);
    let mut out: Vec<Artifact> = report
        .scenarios
        .iter()
        .filter_map(|s| s.evidence.as_ref()?.screenshot.as_deref())
        .filter_map(|path| {
            let name = path.strip_prefix(&prefix)?;
            (!name.is_empty() && !name.contains(['/', '\\']) && name != "..").then(|| Artifact {
                file_name: name.to_string(),
                path: path.to_string(),
            })
        })
        .collect();
    out.dedup();
    out
}

/// How one upload ended.
#[derive(Debug)]
pub enum Pushed {
    Delivered(RunCreated),
    /// Kept in the spool, to be sent by the next `windup push` or `windup run`.
    Spooled {
        path: PathBuf,
        error: String,
    },
}

pub fn spool_path(root: &Path, run_id: &str) -> PathBuf {
    root.join(Layout::SPOOL_DIR).join(format!("{run_id}.json"))
}

/// Uploads a run, or spools it when that fails (`dashboard` is `None` when no client could be
/// made, such as when the token is not set: the run is spooled for later). The only error is a
/// spool that cannot be written.
pub async fn push(
    root: &Path,
    dashboard: Result<&Dashboard, &RemoteError>,
    upload: RunUpload,
    artifacts: Vec<Artifact>,
) -> std::io::Result<Pushed> {
    let error = match dashboard {
        Ok(d) => match d.upload(root, &upload, &artifacts).await {
            Ok(created) => {
                remove_spooled(&spool_path(root, &upload.report.run_id))?;
                return Ok(Pushed::Delivered(created));
            }
            Err(e) => e.to_string(),
        },
        Err(e) => e.to_string(),
    };
    let path = spool_path(root, &upload.report.run_id);
    let spooled = Spooled {
        spool_version: SPOOL_VERSION.to_string(),
        upload,
        artifacts,
        last_error: error.clone(),
        spooled_at: OffsetDateTime::now_utc(),
    };
    crate::fsutil::write_json(&path, &spooled)?;
    Ok(Pushed::Spooled { path, error })
}

/// What the upload after a run did, for the caller to tell its way.
#[derive(Debug)]
pub struct AfterRun {
    pub pushed: std::io::Result<Pushed>,
    /// The spool, sent once the dashboard took this run.
    pub flushed: Option<Flushed>,
}

/// The upload after a run, as `windup run` and the GitHub Action do it: the run kept in
/// `e2e/.windup/runs/<run_id>/`, then every spooled upload once the dashboard has it. `Err`:
/// the run's files could not be read, so there is nothing to upload.
pub async fn push_run(
    root: &Path,
    settings: &Settings,
    run_id: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<AfterRun, InputError> {
    let (upload, artifacts) = load_run(root, Some(run_id), env)?;
    let client = Dashboard::new(settings, env);
    let pushed = push(root, client.as_ref(), upload, artifacts).await;
    let flushed = match (&pushed, &client) {
        (Ok(Pushed::Delivered(_)), Ok(d)) => Some(flush_spool(root, d).await),
        _ => None,
    };
    Ok(AfterRun { pushed, flushed })
}

fn remove_spooled(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// What a spool flush did.
#[derive(Debug, Default)]
pub struct Flushed {
    /// Run ids delivered (and removed from the spool).
    pub delivered: Vec<String>,
    /// Spool files still waiting, with why.
    pub waiting: Vec<(PathBuf, String)>,
}

/// Sends every spooled upload, oldest run first (run ids are UUID v7), removing each one the
/// dashboard took. Stops trying at the first outage or refused token; the rest wait for the next
/// flush.
pub async fn flush_spool(root: &Path, dashboard: &Dashboard) -> Flushed {
    let mut out = Flushed::default();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(Layout::SPOOL_DIR))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "json")
                && p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| !n.starts_with('.'))
        })
        .collect();
    paths.sort();
    let mut down: Option<String> = None;
    for path in paths {
        if let Some(why) = &down {
            out.waiting.push((path, why.clone()));
            continue;
        }
        let spooled: Spooled = match std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        {
            Ok(s) => s,
            Err(e) => {
                out.waiting
                    .push((path, format!("the spool file cannot be read: {e}")));
                continue;
            }
        };
        match dashboard
            .upload(root, &spooled.upload, &spooled.artifacts)
            .await
        {
            Ok(_) => match remove_spooled(&path) {
                Ok(()) => out.delivered.push(spooled.upload.report.run_id),
                Err(e) => out
                    .waiting
                    .push((path, format!("delivered, but not removed: {e}"))),
            },
            Err(e) => {
                if e.ends_the_batch() {
                    down = Some(e.to_string());
                }
                out.waiting.push((path, e.to_string()));
            }
        }
    }
    out
}

/// Spool files waiting, for messages.
pub fn spooled(root: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(Layout::SPOOL_DIR))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(url: &str) -> DashboardSection {
        DashboardSection {
            url: Some(url.into()),
            ..DashboardSection::default()
        }
    }

    #[test]
    fn settings_have_defaults_and_the_flag_wins() {
        assert_eq!(
            settings("windup.toml", &DashboardSection::default(), None, false).unwrap(),
            None,
            "no URL, no dashboard"
        );
        let s = settings(
            "windup.toml",
            &section("https://d.example/team"),
            None,
            false,
        )
        .unwrap()
        .unwrap();
        assert_eq!(s.url.as_str(), "https://d.example/team/");
        assert_eq!(s.token_env, DEFAULT_TOKEN_ENV);
        assert!(s.restore && s.save && s.push);
        let s = settings(
            "windup.toml",
            &section("https://d.example"),
            Some("http://127.0.0.1:9"),
            true,
        )
        .unwrap()
        .unwrap();
        assert_eq!(s.url.as_str(), "http://127.0.0.1:9/");
        assert!(!s.push, "--no-push");
        let s = settings(
            "windup.toml",
            &section("https://d.example"),
            Some(" "),
            false,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            s.url.as_str(),
            "https://d.example/",
            "an empty override is none"
        );
    }

    #[test]
    fn bad_settings_name_the_field_and_never_echo_a_token() {
        let err = settings("windup.toml", &section("ftp://x"), None, false).unwrap_err();
        assert_eq!(err.field, "dashboard.url");
        let err = settings("windup.toml", &section("x"), Some("nope"), false).unwrap_err();
        assert_eq!(err.field, "--dashboard-url or WINDUP_DASHBOARD_URL");
        let pasted = DashboardSection {
            token_env: Some("wd_live secret-token-123".into()),
            ..section("https://d.example")
        };
        let err = settings("windup.toml", &pasted, None, false).unwrap_err();
        assert_eq!(err.field, "dashboard.token_env");
        assert!(!err.to_string().contains("secret-token-123"), "{err}");
        let zero = DashboardSection {
            timeout_ms: Some(0),
            ..section("https://d.example")
        };
        assert_eq!(
            settings("windup.toml", &zero, None, false)
                .unwrap_err()
                .field,
            "dashboard.timeout_ms"
        );
        let err = settings(
            "windup.toml",
            &section("https://u:p@d.example"),
            None,
            false,
        )
        .unwrap_err();
        assert!(err.problem.contains("credentials"), "{err}");
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

    #[test]
    fn the_dashboard_plan_wins_only_for_the_same_text_and_when_newer() {
        use time::macros::datetime;
        use windup_model::{CacheKey, CacheStats, Plan};
        let scenario = windup_model::validate::scenario_from_yaml(
            "s.yaml",
            "id: s\ntask: Do it.\nstart_url: /start\n",
            Some("s"),
        )
        .unwrap();
        let entry = |sha: String, by: &str, verified: OffsetDateTime| CacheEntry {
            cache_version: windup_model::cache::CACHE_VERSION.into(),
            key: CacheKey {
                scenario_id: "s".into(),
                start_url: "/start".into(),
                scenario_sha: sha,
                start_sig: None,
            },
            plan: Plan {
                plan_version: "0.1".into(),
                scenario_id: "s".into(),
                task: "Do it.".into(),
                start_url: "/start".into(),
                generated_by: by.into(),
                actions: Vec::new(),
            },
            status: CacheStatus::Active,
            stats: CacheStats {
                created_at: verified,
                last_verified_at: verified,
                verified_runs: 1,
                last_duration_ms: 1,
            },
            invalidation: None,
        };
        let sha = scenario.sha();
        let local = entry(sha.clone(), "local", datetime!(2026-06-01 0:00 UTC));
        let remote = |sha: String, by: &str, at: OffsetDateTime| RemoteEntry {
            branch: "main".into(),
            updated_at: at,
            entry: entry(sha, by, at),
        };
        let newer = remote(sha.clone(), "remote", datetime!(2026-07-01 0:00 UTC));
        let older = remote(sha.clone(), "remote", datetime!(2026-05-01 0:00 UTC));
        let other = remote("0".repeat(64), "remote", datetime!(2026-07-01 0:00 UTC));
        assert!(prefer_remote(&newer, &scenario, Some(&local)));
        assert!(prefer_remote(&newer, &scenario, None), "nothing cached");
        assert!(!prefer_remote(&older, &scenario, Some(&local)));
        let mut uploaded_later = older.clone();
        uploaded_later.updated_at = datetime!(2026-07-01 0:00 UTC);
        assert!(
            !prefer_remote(&uploaded_later, &scenario, Some(&local)),
            "verified before the local plan, however late it was uploaded"
        );
        assert!(
            !prefer_remote(&other, &scenario, Some(&local)),
            "another text"
        );
        assert!(
            !prefer_remote(&other, &scenario, None),
            "another text, even over nothing"
        );
        let same_plan = remote(sha.clone(), "local", datetime!(2026-07-01 0:00 UTC));
        assert!(
            !prefer_remote(&same_plan, &scenario, Some(&local)),
            "the same plan is not rewritten"
        );
        let outdated_local = entry("1".repeat(64), "local", datetime!(2027-01-01 0:00 UTC));
        assert!(
            prefer_remote(&older, &scenario, Some(&outdated_local)),
            "a local plan for an older text is no hit"
        );
        let mut stale = newer.clone();
        stale.entry.status = CacheStatus::Stale;
        assert!(!prefer_remote(&stale, &scenario, None));
    }

    #[test]
    fn pull_requests_come_from_the_event_file() {
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        std::fs::write(
            &event,
            r#"{"action":"opened","pull_request":{"number":42,"head":{"sha":"abc123"}}}"#,
        )
        .unwrap();
        let path = event.display().to_string();
        let env = |k: &str| match k {
            "GITHUB_EVENT_PATH" => Some(path.clone()),
            "GITHUB_REPOSITORY" => Some("acme/shop".to_string()),
            _ => None,
        };
        assert_eq!(
            pull_request(&env),
            Some(PullRequest {
                repo: "acme/shop".into(),
                number: 42,
                head_sha: "abc123".into()
            })
        );
        std::fs::write(&event, r#"{"ref":"refs/heads/main","commits":[]}"#).unwrap();
        assert_eq!(pull_request(&env), None, "a push event has no pull request");
        assert_eq!(pull_request(&|_| None), None);
    }
}
