//! `windup-dashboard`: parse arguments, call the library, map the outcome to an exit code
//! (0 ok, 2 bad usage or input, 3 infrastructure such as an unreachable database).

use std::io::Read;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use windup_dashboard::sign_in::{ClientAddress, SignInLimits};
use windup_dashboard::time::{display, now_ms};
use windup_dashboard::{AppState, Config, GithubAuth, GithubConfig, admin, store};

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
    /// Manage people who sign in.
    #[command(subcommand)]
    User(UserCommand),
}

#[derive(Args, Default)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(
        long,
        alias = "listen",
        env = "WINDUP_DASHBOARD_LISTEN",
        default_value = "127.0.0.1:8080"
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
    /// Count failed sign-ins by the last address in `X-Forwarded-For` (the one the reverse
    /// proxy in front appends), not by the TCP peer: only behind a proxy that sets it.
    #[arg(long, env = "WINDUP_DASHBOARD_TRUST_FORWARDED_FOR")]
    trust_forwarded_for: bool,
}

#[derive(Subcommand)]
enum ProjectCommand {
    /// Create a project.
    Create {
        slug: String,
        #[arg(long, default_value = "main")]
        default_branch: String,
    },
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Create a token and print it once.
    Create {
        /// The project's slug.
        #[arg(value_name = "PROJECT", required_unless_present = "project_flag")]
        project: Option<String>,
        #[arg(long = "project", id = "project_flag", hide = true)]
        project_flag: Option<String>,
        /// ingest, cache:read, cache:write or admin; repeat for several.
        #[arg(long = "scope", required = true)]
        scopes: Vec<String>,
        /// Branches this token may write to the cache (glob, e.g. `feature/*`).
        #[arg(long)]
        branch: Option<String>,
        /// A name to tell it by in the list, e.g. `github-actions`.
        #[arg(long, default_value = "")]
        name: String,
        /// Expire after this long: hours, days or weeks, e.g. `12h`, `90d`, `2w`. Default: never.
        #[arg(long, value_name = "DURATION")]
        expires_in: Option<String>,
    },
    /// List a project's tokens: name, scopes, branches, created, last used, expiry, state.
    List {
        /// The project's slug.
        project: String,
    },
    /// Revoke a token: refused from its next request on, still listed.
    Revoke {
        /// The project's slug.
        project: String,
        /// The token's id, from `token list`.
        id: i64,
    },
}

#[derive(Subcommand)]
enum UserCommand {
    /// Create a person who signs in with a password (read from stdin unless --password-env).
    Create {
        email: String,
        /// Name of an environment variable holding the password.
        #[arg(long)]
        password_env: Option<String>,
    },
}

enum Failure {
    Input(anyhow::Error),
    Infra(anyhow::Error),
}

fn input(e: windup_dashboard::error::ApiError) -> Failure {
    Failure::Input(anyhow::anyhow!("{}", e.message))
}

fn infra(e: store::StoreError) -> Failure {
    Failure::Infra(e.into())
}

/// The project a command names; bad input when there is none.
async fn project_named(store: &dyn store::Store, slug: &str) -> Result<store::Project, Failure> {
    store
        .project(slug)
        .await
        .map_err(infra)?
        .ok_or_else(|| Failure::Input(anyhow::anyhow!("no project `{slug}`; create it first")))
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

async fn run(cli: Cli) -> Result<(), Failure> {
    let store = store::open(&cli.database)
        .await
        .context("opening the database (DATABASE_URL)")
        .map_err(Failure::Infra)?;
    match cli.command.unwrap_or(Command::Serve(ServeArgs {
        addr: std::env::var("WINDUP_DASHBOARD_LISTEN").unwrap_or_else(|_| "127.0.0.1:8080".into()),
        github_api_url: std::env::var("WINDUP_GITHUB_API_URL")
            .unwrap_or_else(|_| "https://api.github.com".into()),
        insecure_cookies: std::env::var_os("WINDUP_DASHBOARD_INSECURE_COOKIES").is_some(),
        public_url: std::env::var("WINDUP_DASHBOARD_URL").ok(),
        trust_forwarded_for: std::env::var_os("WINDUP_DASHBOARD_TRUST_FORWARDED_FOR").is_some(),
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
            tracing::info!(addr = %args.addr, github = config.github.is_some(), "serving");
            let state = AppState::new(store, config).with_sign_in_limits(limits);
            windup_dashboard::launch(listener, state)
                .await
                .context("serving")
                .map_err(Failure::Infra)
        }
        Command::Project(ProjectCommand::Create {
            slug,
            default_branch,
        }) => {
            let p = admin::create_project(&*store, &slug, Some(&default_branch))
                .await
                .map_err(input)?;
            println!(
                "created project {} (default branch {})",
                p.slug, p.default_branch
            );
            Ok(())
        }
        Command::Token(TokenCommand::Create {
            project,
            project_flag,
            scopes,
            branch,
            name,
            expires_in,
        }) => {
            let p = project_named(&*store, &project.or(project_flag).unwrap_or_default()).await?;
            let request = admin::TokenRequest {
                name,
                scopes,
                branch,
                expires_in,
            };
            let created = admin::issue_token(&*store, &p, &request)
                .await
                .map_err(input)?;
            let expiry = created.expires_ms.map_or_else(
                || "never expires".into(),
                |ms| format!("expires {}", display(ms)),
            );
            eprintln!(
                "token {} for {} with scopes {}, {expiry} (shown once; only its hash is stored):",
                created.id,
                p.slug,
                created.scopes.join(" ")
            );
            println!("{}", created.token);
            Ok(())
        }
        Command::Token(TokenCommand::List { project }) => {
            let p = project_named(&*store, &project).await?;
            let tokens = store.tokens(p.id).await.map_err(infra)?;
            print!("{}", admin::token_table(&tokens, now_ms()));
            Ok(())
        }
        Command::Token(TokenCommand::Revoke { project, id }) => {
            let p = project_named(&*store, &project).await?;
            let t = admin::revoke_token(&*store, &p, id).await.map_err(input)?;
            println!(
                "revoked token {id} of {} ({})",
                p.slug,
                if t.name.is_empty() {
                    "unnamed"
                } else {
                    &t.name
                }
            );
            Ok(())
        }
        Command::User(UserCommand::Create {
            email,
            password_env,
        }) => {
            let password = match password_env {
                Some(var) => std::env::var(&var).map_err(|_| {
                    Failure::Input(anyhow::anyhow!("environment variable {var} is not set"))
                })?,
                None => {
                    let mut s = String::new();
                    std::io::stdin()
                        .read_to_string(&mut s)
                        .context("reading the password from stdin")
                        .map_err(Failure::Input)?;
                    s.trim_end_matches(['\n', '\r']).to_string()
                }
            };
            admin::create_user(&*store, &email, &password)
                .await
                .map_err(input)?;
            println!("created user {email}");
            Ok(())
        }
    }
}
