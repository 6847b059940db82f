//! The administration subcommands of `windup-dashboard` (`project`, `token`, `user`,
//! `people`): their arguments and what each does, with its output for people. Whoever runs
//! them holds the database, so they act as an instance administrator. `main.rs` parses them and
//! turns a [`CommandError`] into an exit code.

use std::io::Read;

use clap::Subcommand;

use crate::access::Role;
use crate::admin::{self, Added, TokenRequest};
use crate::error::ApiError;
use crate::store::{Project, Store, StoreError};
use crate::time::{display, now_ms};

/// Why a subcommand failed: the input (exit 2) or the infrastructure (exit 3).
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("{0}")]
    Input(String),
    #[error("{0}")]
    Infra(#[from] StoreError),
}

impl From<ApiError> for CommandError {
    fn from(e: ApiError) -> Self {
        CommandError::Input(e.message)
    }
}

type Result<T> = std::result::Result<T, CommandError>;

#[derive(Subcommand)]
pub enum ProjectCommand {
    /// Create a project.
    Create {
        slug: String,
        #[arg(long, default_value = "main")]
        default_branch: String,
        /// Make this person (an account's email) its first owner.
        #[arg(long, value_name = "EMAIL")]
        owner: Option<String>,
    },
    /// Set the GitHub repository whose pull requests get the project's comment.
    SetRepo {
        /// The project's slug.
        slug: String,
        /// `owner/name`. An upload naming another repository gets no comment.
        #[arg(value_name = "OWNER/NAME", required_unless_present = "clear")]
        repo: Option<String>,
        /// Post no comments for the project.
        #[arg(long, conflicts_with = "repo")]
        clear: bool,
    },
}

#[derive(Subcommand)]
pub enum TokenCommand {
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
pub enum UserCommand {
    /// Create a person who signs in with a password (read from stdin unless --password-env).
    Create {
        email: String,
        /// Name of an environment variable holding the password.
        #[arg(long)]
        password_env: Option<String>,
        /// An instance administrator: creates projects and owns every one.
        #[arg(long)]
        admin: bool,
    },
    /// Make a person an instance administrator (or, with --remove, no longer one).
    Admin {
        email: String,
        #[arg(long)]
        remove: bool,
    },
    /// List the people who can sign in.
    List,
}

#[derive(Subcommand)]
pub enum PeopleCommand {
    /// Give someone a role in a project (an email without an account is invited).
    Add {
        /// The project's slug.
        project: String,
        email: String,
        /// owner (settings, tokens, people) or viewer (pages only).
        #[arg(long, value_parser = ["owner", "viewer"])]
        role: String,
    },
    /// Take someone's role (or invitation) in a project away.
    Remove {
        /// The project's slug.
        project: String,
        email: String,
    },
    /// List a project's people, invitations and GitHub team mappings.
    List {
        /// The project's slug.
        project: String,
    },
    /// Give the members of a GitHub team a role in a project at their GitHub sign-in.
    TeamAdd {
        /// The project's slug.
        project: String,
        /// The organisation and the team's slug, e.g. `acme-inc/qa`.
        #[arg(value_name = "ORG/TEAM")]
        team: String,
        #[arg(long, value_parser = ["owner", "viewer"])]
        role: String,
    },
    /// Remove a team mapping and the roles it gave.
    TeamRemove {
        /// The project's slug.
        project: String,
        #[arg(value_name = "ORG/TEAM")]
        team: String,
    },
}

/// The project a command names.
async fn project_named(store: &dyn Store, slug: &str) -> Result<Project> {
    store
        .project(slug)
        .await?
        .ok_or_else(|| CommandError::Input(format!("no project `{slug}`; create it first")))
}

pub async fn project(store: &dyn Store, command: ProjectCommand) -> Result<()> {
    let (slug, default_branch, owner) = match command {
        ProjectCommand::Create {
            slug,
            default_branch,
            owner,
        } => (slug, default_branch, owner),
        ProjectCommand::SetRepo { slug, repo, clear } => {
            let p = project_named(store, &slug).await?;
            let repo = if clear {
                String::new()
            } else {
                repo.unwrap_or_default()
            };
            match admin::set_repo(store, &p, &repo).await? {
                Some(r) => println!("project {} comments on pull requests of {r}", p.slug),
                None => println!("project {} posts no PR comments", p.slug),
            }
            return Ok(());
        }
    };
    let p = match owner {
        None => admin::create_project(store, &slug, Some(&default_branch)).await?,
        Some(email) => {
            let email = admin::normal_email(&email)?;
            let person = store.user(&email).await?.ok_or_else(|| {
                CommandError::Input(format!(
                    "no account has the email `{email}`: create it first (`user create`)"
                ))
            })?;
            admin::create_project_owned_by(store, &slug, Some(&default_branch), person.id).await?
        }
    };
    println!(
        "created project {} (default branch {})",
        p.slug, p.default_branch
    );
    Ok(())
}

pub async fn token(store: &dyn Store, command: TokenCommand) -> Result<()> {
    match command {
        TokenCommand::Create {
            project,
            project_flag,
            scopes,
            branch,
            name,
            expires_in,
        } => {
            let p = project_named(store, &project.or(project_flag).unwrap_or_default()).await?;
            let request = TokenRequest {
                name,
                scopes,
                branch,
                expires_in,
            };
            let created = admin::issue_token(store, &p, &request).await?;
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
        }
        TokenCommand::List { project } => {
            let p = project_named(store, &project).await?;
            let tokens = store.tokens(p.id).await?;
            print!("{}", admin::token_table(&tokens, now_ms()));
        }
        TokenCommand::Revoke { project, id } => {
            let p = project_named(store, &project).await?;
            let t = admin::revoke_token(store, &p, id).await?;
            let name = if t.name.is_empty() {
                "unnamed"
            } else {
                &t.name
            };
            println!("revoked token {id} of {} ({name})", p.slug);
        }
    }
    Ok(())
}

pub async fn user(store: &dyn Store, command: UserCommand) -> Result<()> {
    match command {
        UserCommand::Create {
            email,
            password_env,
            admin,
        } => {
            let password = match password_env {
                Some(var) => std::env::var(&var).map_err(|_| {
                    CommandError::Input(format!("environment variable {var} is not set"))
                })?,
                None => {
                    let mut s = String::new();
                    std::io::stdin().read_to_string(&mut s).map_err(|e| {
                        CommandError::Input(format!("reading the password from stdin: {e}"))
                    })?;
                    s.trim_end_matches(['\n', '\r']).to_string()
                }
            };
            admin::create_person(store, &email, Some(&password), admin).await?;
            let what = if admin {
                "instance administrator"
            } else {
                "user"
            };
            println!("created {what} {email}");
        }
        UserCommand::Admin { email, remove } => {
            admin::set_instance_admin(store, &email, !remove).await?;
            let now = if remove { "no longer" } else { "now" };
            println!("{email} is {now} an instance administrator");
        }
        UserCommand::List => {
            for u in store.users().await? {
                let admin = if u.instance_admin != 0 { "  admin" } else { "" };
                println!("{}  since {}{admin}", u.email, display(u.created_ms));
            }
        }
    }
    Ok(())
}

pub async fn people(store: &dyn Store, command: PeopleCommand) -> Result<()> {
    match command {
        PeopleCommand::Add {
            project,
            email,
            role,
        } => {
            let p = project_named(store, &project).await?;
            let role = Role::parse(&role)
                .ok_or_else(|| CommandError::Input(format!("unknown role `{role}`")))?;
            match admin::add_person(store, &p, &email, role).await? {
                Added::Member => println!("{email} is now a {} of {}", role.as_str(), p.slug),
                Added::Invited => println!(
                    "{email} has no account yet: invited as a {} of {}",
                    role.as_str(),
                    p.slug
                ),
            }
        }
        PeopleCommand::Remove { project, email } => {
            let p = project_named(store, &project).await?;
            admin::remove_person(store, &p, &email).await?;
            println!("{email} no longer has a role in {}", p.slug);
        }
        PeopleCommand::List { project } => {
            let p = project_named(store, &project).await?;
            let (members, invitations) = admin::people(store, &p).await?;
            for m in members {
                println!("{}  {}", m.email, m.role);
            }
            for i in invitations {
                println!("{}  {} (invited)", i.email, i.role);
            }
            for t in store.team_roles(Some(p.id)).await? {
                println!("{}  {} (GitHub team)", t.name(), t.role);
            }
        }
        PeopleCommand::TeamAdd {
            project,
            team,
            role,
        } => {
            let p = project_named(store, &project).await?;
            let role = Role::parse(&role)
                .ok_or_else(|| CommandError::Input(format!("unknown role `{role}`")))?;
            let mapping = admin::map_team(store, &p, &team, role).await?;
            println!(
                "members of {} are {}s of {} from their next sign-in with GitHub",
                mapping.name(),
                mapping.role,
                p.slug
            );
        }
        PeopleCommand::TeamRemove { project, team } => {
            let p = project_named(store, &project).await?;
            admin::unmap_team(store, &p, &team).await?;
            println!("{team} no longer gives a role in {}", p.slug);
        }
    }
    Ok(())
}
