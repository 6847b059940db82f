//! Windup's team dashboard: run history, pass rates, flaky scenarios, LLM spend, stale-plan
//! evidence, the branch-aware shared plan cache, and sticky PR comments.
//!
//! It depends on `windup-model` only (the serde types it ingests): never on the engine or a
//! browser. `app()` returns the `Router`, so tests drive it in-process or on a loopback port.

pub mod access;
pub mod admin;
pub mod api;
pub mod argon;
pub mod commands;
pub mod error;
pub mod github;
pub mod ingest;
pub mod oauth;
pub mod repo;
pub mod retention;
pub mod secret;
pub mod sign_in;
pub mod store;
pub mod svg;
pub mod time;
pub mod web;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::http::{HeaderName, HeaderValue, header};
use tower_http::set_header::SetResponseHeaderLayer;

use crate::oauth::GithubSignIn;
use crate::sign_in::{SignInGuard, SignInLimits};
use crate::store::Store;

/// Where the dashboard is reached and who it talks to.
#[derive(Debug, Clone)]
pub struct Config {
    /// The dashboard's own address as people reach it, without a trailing slash: run links in
    /// API answers and PR comments start with it.
    pub public_url: String,
    /// `Secure` on cookies; off only for plain-http development on localhost.
    pub secure_cookies: bool,
    pub github: Option<GithubConfig>,
}

impl Config {
    pub fn run_url(&self, project: &str, run_id: &str) -> String {
        format!(
            "{}/p/{project}/runs/{run_id}",
            self.public_url.trim_end_matches('/')
        )
    }
}

/// How the dashboard authenticates to GitHub (`https://api.github.com`, a GitHub Enterprise
/// `…/api/v3`, or a local fake in tests) to post PR comments. No secret appears in `Debug`.
#[derive(Clone)]
pub struct GithubConfig {
    pub auth: GithubAuth,
    pub api_url: String,
}

#[derive(Clone)]
pub enum GithubAuth {
    /// A token (a personal access token or a bot's): `WINDUP_GITHUB_TOKEN`.
    Token(String),
    /// A GitHub App (`WINDUP_GITHUB_APP_ID`, `WINDUP_GITHUB_APP_PRIVATE_KEY` or `…_FILE`): each
    /// comment is posted with a short-lived token of the app's installation on the PR's
    /// repository, obtained with a JWT signed by the app's RSA key.
    App {
        app_id: u64,
        private_key_pem: String,
    },
}

impl std::fmt::Debug for GithubConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let auth = match &self.auth {
            GithubAuth::Token(_) => "token <redacted>".to_string(),
            GithubAuth::App { app_id, .. } => format!("app {app_id}, key <redacted>"),
        };
        f.debug_struct("GithubConfig")
            .field("auth", &auth)
            .field("api_url", &self.api_url)
            .finish()
    }
}

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub config: Arc<Config>,
    pub github_lock: Arc<tokio::sync::Mutex<()>>,
    /// Failed sign-ins counted and argon2's gate, for the whole process.
    pub sign_in: Arc<SignInGuard>,
    /// GitHub sign-in beside local accounts, when an OAuth app is configured.
    pub github_sign_in: Option<Arc<GithubSignIn>>,
}

impl AppState {
    /// The state with the default sign-in limits (see [`SignInLimits`]).
    pub fn new(store: Arc<dyn Store>, config: Config) -> Self {
        AppState {
            store,
            config: Arc::new(config),
            github_lock: Arc::default(),
            sign_in: Arc::new(SignInGuard::new(SignInLimits::default())),
            github_sign_in: None,
        }
    }

    pub fn with_github_sign_in(mut self, app: GithubSignIn) -> Self {
        self.github_sign_in = Some(Arc::new(app));
        self
    }

    pub fn with_sign_in_limits(mut self, limits: SignInLimits) -> Self {
        self.sign_in = Arc::new(SignInGuard::new(limits));
        self
    }
}

/// Strict CSP: scripts, styles and images only from the dashboard itself; no inline script.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; \
    connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

pub fn app(state: AppState) -> Router {
    Router::new()
        .merge(api::routes())
        .merge(web::routes())
        .route("/healthz", axum::routing::get(|| async { "ok" }))
        .with_state(state)
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::REFERRER_POLICY,
            HeaderValue::from_static("same-origin"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            HeaderName::from_static("x-frame-options"),
            HeaderValue::from_static("DENY"),
        ))
}

/// Serves until Ctrl-C or SIGTERM, then finishes the requests in flight. Each request knows
/// its peer's address (`ConnectInfo`), which sign-in throttling counts failures by.
pub async fn launch(listener: tokio::net::TcpListener, state: AppState) -> std::io::Result<()> {
    axum::serve(
        listener,
        app(state).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown_signal())
    .await
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {},
            _ = term.recv() => {},
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_github_token_never_shows_in_debug_output() {
        let config = Config {
            public_url: "http://x".into(),
            secure_cookies: true,
            github: Some(GithubConfig {
                auth: GithubAuth::Token("ghp_secret123".into()),
                api_url: "https://api.github.com".into(),
            }),
        };
        let shown = format!("{config:?}");
        assert!(!shown.contains("ghp_secret123"), "{shown}");
        assert!(shown.contains("<redacted>"));
        let app = GithubConfig {
            auth: GithubAuth::App {
                app_id: 7,
                private_key_pem: "-----BEGIN RSA PRIVATE KEY-----\nMIIsecret".into(),
            },
            api_url: "https://api.github.com".into(),
        };
        let shown = format!("{app:?}");
        assert!(
            !shown.contains("MIIsecret") && shown.contains("app 7"),
            "{shown}"
        );
        assert_eq!(config.run_url("shop", "r1"), "http://x/p/shop/runs/r1");
    }
}
