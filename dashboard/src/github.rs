//! The sticky pull-request comment: one comment per project and PR, found by a hidden marker
//! and its author, updated in place, else created. Posted off the request path: a GitHub
//! failure never fails ingest; it is logged, retried (5xx and network errors, with back-off)
//! and recorded as the run's `comment_status`, which the run page shows.
//!
//! Whom it goes to is the project's setting (`Project::github_repo`, set by a person), never
//! the upload's: an upload's `pull_request.repo` is only compared with the setting, and a
//! mismatch or a project without one posts nothing. Anyone can write the marker into a
//! comment; only a comment whose author is the dashboard's own identity (`GET /user`'s login
//! for a token, `<app-slug>[bot]` from `GET /app` for a GitHub App) is edited.

use std::time::Duration;

use octocrab::Octocrab;
use octocrab::models::issues::Comment;
use windup_model::RunReport;
use windup_model::markdown::{SummaryOptions, TotalsLayout, run_summary};

use crate::repo::RepoName;
use crate::store::{Project, RunFilter, StoreError};
use crate::{AppState, GithubAuth, GithubConfig};

const ATTEMPTS: u32 = 3;

pub fn marker(project: &str) -> String {
    format!("<!-- windup:{project} -->")
}

/// After an upload that names a pull request: posts the comment on the project's repository
/// when the upload names that repository, else records on the run why nothing was posted (and
/// logs a mismatch, the sign of a token used for someone else's repository).
pub async fn comment_for_upload(
    state: &AppState,
    project: &Project,
    run_id: &str,
    upload_repo: &str,
    number: u64,
) -> Result<(), StoreError> {
    let setting = project.github_repo.as_deref().map(RepoName::parse);
    let skipped = match setting {
        None => "skipped: the project has no GitHub repository set (set it on the project \
                 page or with `windup-dashboard project set-repo`)"
            .to_string(),
        Some(Err(why)) => {
            tracing::error!(project = %project.slug, error = %why, "the project's stored repository is invalid");
            "skipped: the project's GitHub repository setting is invalid; set it again".into()
        }
        Some(Ok(repo)) if repo.is(upload_repo) => {
            spawn_sticky_comment(
                state.clone(),
                project.clone(),
                run_id.to_string(),
                repo,
                number,
            );
            return Ok(());
        }
        Some(Ok(repo)) => {
            tracing::warn!(
                project = %project.slug, run_id, upload_repo, project_repo = %repo,
                "the upload names another repository than the project's; no PR comment"
            );
            format!(
                "skipped: the upload names the repository `{upload_repo}`, not the project's \
                 `{repo}`"
            )
        }
    };
    state
        .store
        .set_comment_status(project.id, run_id, &skipped)
        .await
}

fn spawn_sticky_comment(
    state: AppState,
    project: Project,
    run_id: String,
    repo: RepoName,
    number: u64,
) {
    tokio::spawn(async move {
        let status = match &state.config.github {
            None => "skipped: no WINDUP_GITHUB_TOKEN or GitHub App configured".to_string(),
            Some(_) => {
                // One poster at a time, so two shards of one PR never both create the comment.
                let _guard = state.github_lock.lock().await;
                match post_with_retries(&state, &project, &run_id, &repo, number).await {
                    Ok(action) => format!("{action} comment on {repo}#{number}"),
                    Err(e) => {
                        tracing::warn!(project = %project.slug, run_id, repo = %repo, pr = number, error = %e, "PR comment failed");
                        format!("failed: {e}")
                    }
                }
            }
        };
        if let Err(e) = state
            .store
            .set_comment_status(project.id, &run_id, &status)
            .await
        {
            tracing::error!(error = %e, "could not record the PR comment status");
        }
    });
}

#[derive(Debug, thiserror::Error)]
pub enum CommentError {
    #[error("GitHub answered {status}: {message}")]
    GitHub { status: u16, message: String },
    #[error("GitHub unreachable: {0}")]
    Transport(String),
    #[error("{0}")]
    Local(String),
}

impl CommentError {
    fn retryable(&self) -> bool {
        match self {
            CommentError::GitHub { status, .. } => *status >= 500 || *status == 429,
            CommentError::Transport(_) => true,
            CommentError::Local(_) => false,
        }
    }
}

impl From<octocrab::Error> for CommentError {
    fn from(e: octocrab::Error) -> Self {
        match e {
            octocrab::Error::GitHub { source, .. } => CommentError::GitHub {
                status: source.status_code.as_u16(),
                message: source.message.clone(),
            },
            other => CommentError::Transport(other.to_string()),
        }
    }
}

async fn post_with_retries(
    state: &AppState,
    project: &Project,
    run_id: &str,
    repo: &RepoName,
    number: u64,
) -> Result<&'static str, CommentError> {
    let body = comment_body(state, project, run_id).await?;
    let mut delay = Duration::from_millis(200);
    let mut attempt = 1;
    loop {
        match post(state, project, repo, number, &body).await {
            Err(e) if e.retryable() && attempt < ATTEMPTS => {
                tracing::info!(attempt, error = %e, "PR comment failed; retrying");
                tokio::time::sleep(delay).await;
                delay *= 2;
                attempt += 1;
            }
            other => return other,
        }
    }
}

/// A client for the repository and the login its comments carry: the token's user
/// (`GET /user`), or the GitHub App's installation on the repository and the app's bot
/// (`GET /app`'s slug, `<slug>[bot]`).
async fn client(gh: &GithubConfig, repo: &RepoName) -> Result<(Octocrab, String), CommentError> {
    let builder = Octocrab::builder()
        .base_uri(gh.api_url.as_str())
        .map_err(|e| CommentError::Local(format!("WINDUP_GITHUB_API_URL: {e}")))?
        .set_connect_timeout(Some(Duration::from_secs(5)))
        .set_read_timeout(Some(Duration::from_secs(15)));
    match &gh.auth {
        GithubAuth::Token(token) => {
            let client = builder
                .personal_token(token.clone())
                .build()
                .map_err(|e| CommentError::Local(format!("GitHub client: {e}")))?;
            let login = match client.current().user().await {
                Ok(user) => user.login,
                Err(e) => {
                    return Err(match CommentError::from(e) {
                        CommentError::GitHub { status, message }
                            if status == 401 || status == 403 =>
                        {
                            CommentError::GitHub {
                                status,
                                message: format!(
                                    "{message} (GET /user refused WINDUP_GITHUB_TOKEN, so whose \
                                     comments to edit is unknown; use a user's or bot account's \
                                     token, or a GitHub App)"
                                ),
                            }
                        }
                        other => other,
                    });
                }
            };
            Ok((client, login))
        }
        GithubAuth::App {
            app_id,
            private_key_pem,
        } => {
            let key = octocrab::EncodingKey::from_rsa_pem(private_key_pem.as_bytes())
                .map_err(|e| CommentError::Local(format!("the GitHub App's private key: {e}")))?;
            let app = builder
                .app((*app_id).into(), key)
                .build()
                .map_err(|e| CommentError::Local(format!("GitHub client: {e}")))?;
            let installation = app
                .apps()
                .get_repository_installation(repo.owner(), repo.name())
                .await?;
            let slug = app.apps().get().await?.slug.ok_or_else(|| {
                CommentError::Local("GitHub's `GET /app` answer has no slug".into())
            })?;
            // Requests through it carry the installation's token, fetched (and renewed) by
            // octocrab from `POST /app/installations/{id}/access_tokens`.
            let client = app
                .installation(installation.id)
                .map_err(|e| CommentError::Local(format!("GitHub App installation: {e}")))?;
            Ok((client, format!("{slug}[bot]")))
        }
    }
}

async fn post(
    state: &AppState,
    project: &Project,
    repo: &RepoName,
    number: u64,
    body: &str,
) -> Result<&'static str, CommentError> {
    let gh = state
        .config
        .github
        .as_ref()
        .ok_or_else(|| CommentError::Local("no GitHub token or App".into()))?;
    let (client, login) = client(gh, repo).await?;
    let issues = client.issues(repo.owner(), repo.name());
    let marker = marker(&project.slug);
    let ours = |c: &Comment| {
        c.user.login.eq_ignore_ascii_case(&login)
            && c.body.as_deref().is_some_and(|b| b.contains(&marker))
    };
    let mut page = issues.list_comments(number).per_page(100).send().await?;
    let mut found: Option<Comment> = None;
    loop {
        if let Some(c) = page.items.iter().find(|c| ours(c)) {
            found = Some(c.clone());
            break;
        }
        match client.get_page::<Comment>(&page.next).await? {
            Some(next) => page = next,
            None => break,
        }
    }
    match found {
        Some(c) => {
            issues.update_comment(c.id, body).await?;
            Ok("updated")
        }
        None => {
            issues.create_comment(number, body).await?;
            Ok("created")
        }
    }
}

/// The comment summarises every shard of the run's CI workflow run (or the run alone).
pub async fn comment_body(
    state: &AppState,
    project: &Project,
    run_id: &str,
) -> Result<String, CommentError> {
    let store_err = |e: crate::store::StoreError| CommentError::Local(e.to_string());
    let run = state
        .store
        .run(project.id, run_id)
        .await
        .map_err(store_err)?
        .ok_or_else(|| CommentError::Local(format!("run {run_id} vanished")))?;
    let mut reports: Vec<RunReport> = Vec::new();
    let siblings = match &run.summary.workflow_run {
        Some(w) => {
            let filter = RunFilter {
                workflow_run: Some(w.clone()),
                limit: 100,
                ..RunFilter::default()
            };
            state
                .store
                .runs(project.id, &filter)
                .await
                .map_err(store_err)?
        }
        None => vec![run.summary.clone()],
    };
    for s in siblings {
        if let Some(d) = state
            .store
            .run(project.id, &s.run_id)
            .await
            .map_err(store_err)?
            && let Ok(r) = serde_json::from_str::<RunReport>(&d.report_json)
        {
            reports.push(r);
        }
    }
    reports.sort_by(|a, b| a.run_id.cmp(&b.run_id));
    Ok(render(
        &project.slug,
        &state.config.run_url(&project.slug, run_id),
        &reports,
    ))
}

/// The comment: every shard summed in a totals table, each scenario, the failures, and a
/// link to the run on the dashboard. The Action renders its own comment with the same renderer.
pub fn render(project: &str, url: &str, reports: &[RunReport]) -> String {
    run_summary(
        reports,
        &SummaryOptions {
            marker: Some(marker(project)),
            totals: TotalsLayout::Table,
            dashboard_link: Some(url.to_string()),
            ..SummaryOptions::default()
        },
    )
}
