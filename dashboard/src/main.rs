//! `windup-dashboard`: parse arguments, call the library, map the outcome to an exit code
//! (0 ok, 2 bad usage or input, 3 infrastructure such as an unreachable database).

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use windup_dashboard::commands::{
    self, CommandError, PeopleCommand, ProjectCommand, TokenCommand, UserCommand,
};
use windup_dashboard::oauth::GithubSignIn;
use windup_dashboard::sign_in::{ClientAddress, SignInLimits};
use windup_dashboard::{AppState, Config, GithubAuth, GithubConfig, store};

/// Where the dashboard listens unless told: loopback, on a port of its own (8080 is the example
/// app's and llama.cpp's, which a developer runs beside it).
const DEFAULT_LISTEN: &str = "127.0.0.1:8765";

#[derive(Parser)]
#[command(name = "windup-dashboard", version, about = "Windup's team dashboard")]
struct Cli {
    /// `postgres://…` for PostgreSQL, else a SQLite file (created when missing).
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "./windup-dashboard.db",
        global = true
    )]
    database: String,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the pages and the API (the default).
    Serve(ServeArgs),
    /// Manage projects.
    #[command(subcommand)]
    Project(ProjectCommand),
    /// Manage project tokens.
    #[command(subcommand)]
    Token(TokenCommand),
    /// Manage people who sign in, and instance administrators.
    #[command(subcommand)]
    User(UserCommand),
    /// Manage who holds which role in a project.
    #[command(subcommand)]
    People(PeopleCommand),
}

#[derive(Args, Default)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(
        long,
        alias = "listen",
        env = "WINDUP_DASHBOARD_LISTEN",
        default_value = DEFAULT_LISTEN
    )]
    addr: String,
    /// The address people reach the dashboard at (run links start with it); default http://ADDR.
    #[arg(long, env = "WINDUP_DASHBOARD_URL")]
    public_url: Option<String>,
    /// Leave `Secure` off the session cookie: only for plain-http development on localhost.
    #[arg(long, env = "WINDUP_DASHBOARD_INSECURE_COOKIES")]
    insecure_cookies: bool,
    /// GitHub API base: https://api.github.com, or a GitHub Enterprise `https://HOST/api/v3`.
    #[arg(
        long,
        env = "WINDUP_GITHUB_API_URL",
        default_value = "https://api.github.com"
    )]
    github_api_url: String,
    /// Once a day, delete runs (with their results, ledger records and screenshots) older than
    /// this many days; the totals on the pages and the plan cache are kept. Default: keep all.
    #[arg(
        long,
        env = "WINDUP_DASHBOARD_RETAIN_DAYS",
        value_parser = clap::value_parser!(u32).range(1..)
    )]
    retain_days: Option<u32>,
    /// GitHub's web address for sign-in with GitHub (an OAuth app: WINDUP_GITHUB_CLIENT_ID and
    /// WINDUP_GITHUB_CLIENT_SECRET or …_FILE): https://github.com, or `https://HOST`.
    #[arg(
        long,
        env = "WINDUP_GITHUB_WEB_URL",
        default_value = "https://github.com"
    )]
    github_web_url: String,
    /// Count failed sign-ins by the last address in `X-Forwarded-For` (the one the reverse
    /// proxy in front appends), not by the TCP peer: only behind a proxy that sets it.
    #[arg(long, env = "WINDUP_DASHBOARD_TRUST_FORWARDED_FOR")]
    trust_forwarded_for: bool,
}

enum Failure {
    Input(anyhow::Error),
    Infra(anyhow::Error),
}

fn failure(e: CommandError) -> Failure {
    match e {
        CommandError::Input(message) => Failure::Input(anyhow::anyhow!(message)),
        CommandError::Infra(e) => Failure::Infra(e.into()),
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| "windup_dashboard=info,warn".into()),
        )
        .init();
    let cli = Cli::parse();
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Input(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
        Err(Failure::Infra(e)) => {
            eprintln!("error: {e:#}");
            ExitCode::from(3)
        }
    }
}

/// GitHub credentials from the environment: a token, or a GitHub App's id and private key.
fn github_auth() -> anyhow::Result<Option<GithubAuth>> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let token = var("WINDUP_GITHUB_TOKEN");
    let app_id = var("WINDUP_GITHUB_APP_ID");
    let key =
        match (
            var("WINDUP_GITHUB_APP_PRIVATE_KEY"),
            var("WINDUP_GITHUB_APP_PRIVATE_KEY_FILE"),
        ) {
            (Some(pem), _) => Some(pem),
            (None, Some(path)) => Some(std::fs::read_to_string(&path).with_context(|| {
                format!("WINDUP_GITHUB_APP_PRIVATE_KEY_FILE: cannot read {path}")
            })?),
            (None, None) => None,
        };
    match (token, app_id, key) {
        (Some(_), Some(_), _) => anyhow::bail!(
            "both WINDUP_GITHUB_TOKEN and WINDUP_GITHUB_APP_ID are set: unset one (a token, or a GitHub App)"
        ),
        (Some(token), None, _) => Ok(Some(GithubAuth::Token(token))),
        (None, Some(id), Some(pem)) => {
            let app_id = id.trim().parse::<u64>().map_err(|_| {
                anyhow::anyhow!("WINDUP_GITHUB_APP_ID: `{id}` is not a number; use the App ID from the app's settings page")
            })?;
            octocrab::EncodingKey::from_rsa_pem(pem.as_bytes()).map_err(|e| {
                anyhow::anyhow!("WINDUP_GITHUB_APP_PRIVATE_KEY: not an RSA private key in PEM ({e}); use the .pem file GitHub generated for the app")
            })?;
            Ok(Some(GithubAuth::App {
                app_id,
                private_key_pem: pem,
            }))
        }
        (None, Some(_), None) => anyhow::bail!(
            "WINDUP_GITHUB_APP_ID is set without a key: set WINDUP_GITHUB_APP_PRIVATE_KEY (the PEM) or WINDUP_GITHUB_APP_PRIVATE_KEY_FILE"
        ),
        (None, None, _) => Ok(None),
    }
}

/// `WINDUP_DASHBOARD_RETAIN_DAYS` when `serve` is implied (no subcommand), held to the flag's
/// rule: a whole number of days, at least 1.
fn retain_days_from_env() -> Result<Option<u32>, Failure> {
    match std::env::var("WINDUP_DASHBOARD_RETAIN_DAYS") {
        Ok(v) if !v.trim().is_empty() => match v.trim().parse::<u32>() {
            Ok(days) if days >= 1 => Ok(Some(days)),
            _ => Err(Failure::Input(anyhow::anyhow!(
                "WINDUP_DASHBOARD_RETAIN_DAYS: `{v}` is not a number of days of at least 1"
            ))),
        },
        _ => Ok(None),
    }
}

/// The OAuth app for sign-in with GitHub: its client id and secret, both or neither.
fn github_oauth_app() -> anyhow::Result<Option<(String, String)>> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    let secret = match (
        var("WINDUP_GITHUB_CLIENT_SECRET"),
        var("WINDUP_GITHUB_CLIENT_SECRET_FILE"),
    ) {
        (Some(secret), _) => Some(secret),
        (None, Some(path)) => Some(
            std::fs::read_to_string(&path)
                .with_context(|| format!("WINDUP_GITHUB_CLIENT_SECRET_FILE: cannot read {path}"))?
                .trim()
                .to_string(),
        ),
        (None, None) => None,
    };
    match (var("WINDUP_GITHUB_CLIENT_ID"), secret) {
        (Some(id), Some(secret)) => Ok(Some((id.trim().to_string(), secret))),
        (Some(_), None) => anyhow::bail!(
            "WINDUP_GITHUB_CLIENT_ID is set without a secret: set WINDUP_GITHUB_CLIENT_SECRET (or …_FILE) from the OAuth app's settings"
        ),
        (None, Some(_)) => anyhow::bail!(
            "WINDUP_GITHUB_CLIENT_SECRET is set without WINDUP_GITHUB_CLIENT_ID: set the OAuth app's client id"
        ),
        (None, None) => Ok(None),
    }
}

async fn run(cli: Cli) -> Result<(), Failure> {
    let store = store::open(&cli.database)
        .await
        .context("opening the database (DATABASE_URL)")
        .map_err(Failure::Infra)?;
    match cli.command.unwrap_or(Command::Serve(ServeArgs {
        addr: std::env::var("WINDUP_DASHBOARD_LISTEN").unwrap_or_else(|_| DEFAULT_LISTEN.into()),
        github_api_url: std::env::var("WINDUP_GITHUB_API_URL")
            .unwrap_or_else(|_| "https://api.github.com".into()),
        insecure_cookies: std::env::var_os("WINDUP_DASHBOARD_INSECURE_COOKIES").is_some(),
        public_url: std::env::var("WINDUP_DASHBOARD_URL").ok(),
        retain_days: retain_days_from_env()?,
        trust_forwarded_for: std::env::var_os("WINDUP_DASHBOARD_TRUST_FORWARDED_FOR").is_some(),
        github_web_url: std::env::var("WINDUP_GITHUB_WEB_URL")
            .unwrap_or_else(|_| "https://github.com".into()),
    })) {
        Command::Serve(args) => {
            let listener = tokio::net::TcpListener::bind(&args.addr)
                .await
                .with_context(|| format!("listening on {}", args.addr))
                .map_err(Failure::Infra)?;
            let github = github_auth()
                .map_err(Failure::Input)?
                .map(|auth| GithubConfig {
                    auth,
                    api_url: args.github_api_url.clone(),
                });
            let config = Config {
                public_url: args
                    .public_url
                    .unwrap_or_else(|| format!("http://{}", args.addr)),
                secure_cookies: !args.insecure_cookies,
                github,
            };
            let limits = SignInLimits {
                client_address: if args.trust_forwarded_for {
                    ClientAddress::ForwardedFor
                } else {
                    ClientAddress::Peer
                },
                ..SignInLimits::default()
            };
            let comments = config.github.is_some();
            let mut state = AppState::new(store, config).with_sign_in_limits(limits);
            if let Some((client_id, client_secret)) = github_oauth_app().map_err(Failure::Input)? {
                state = state.with_github_sign_in(GithubSignIn {
                    client_id,
                    client_secret,
                    web_url: args.github_web_url.trim_end_matches('/').to_string(),
                    api_url: args.github_api_url.trim_end_matches('/').to_string(),
                });
            }
            let github_sign_in = state.github_sign_in.is_some();
            tracing::info!(
                addr = %args.addr,
                comments,
                github_sign_in,
                retain_days = ?args.retain_days,
                "serving"
            );
            if let Some(days) = args.retain_days {
                windup_dashboard::retention::spawn_daily(state.store.clone(), days);
            }
            windup_dashboard::launch(listener, state)
                .await
                .context("serving")
                .map_err(Failure::Infra)
        }
        Command::Project(command) => commands::project(&*store, command).await.map_err(failure),
        Command::Token(command) => commands::token(&*store, command).await.map_err(failure),
        Command::User(command) => commands::user(&*store, command).await.map_err(failure),
        Command::People(command) => commands::people(&*store, command).await.map_err(failure),
    }
}
