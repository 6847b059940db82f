//! The sticky pull-request comment: one comment per project and PR, found by a hidden marker,
//! updated in place, else created. Posted off the request path: a GitHub failure never fails
//! ingest; it is logged, retried (5xx and network errors, with back-off) and recorded as the
//! run's `comment_status`, which the run page shows.

use std::time::Duration;

use octocrab::Octocrab;
use octocrab::models::issues::Comment;
use windup_model::RunReport;
use windup_model::api::PullRequest;
use windup_model::markdown::{SummaryOptions, TotalsLayout, run_summary};

use crate::store::{Project, RunFilter};
use crate::{AppState, GithubAuth, GithubConfig};

const ATTEMPTS: u32 = 3;

pub fn marker(project: &str) -> String {
    format!("<!-- windup:{project} -->")
}

pub fn spawn_sticky_comment(state: AppState, project: Project, run_id: String, pr: PullRequest) {
    tokio::spawn(async move {
        let status = match &state.config.github {
            None => "skipped: no WINDUP_GITHUB_TOKEN or GitHub App configured".to_string(),
            Some(_) => {
                // One poster at a time, so two shards of one PR never both create the comment.
                let _guard = state.github_lock.lock().await;
                match post_with_retries(&state, &project, &run_id, &pr).await {
                    Ok(action) => format!("{action} comment on {}#{}", pr.repo, pr.number),
                    Err(e) => {
                        tracing::warn!(project = %project.slug, run_id, repo = %pr.repo, pr = pr.number, error = %e, "PR comment failed");
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
    pr: &PullRequest,
) -> Result<&'static str, CommentError> {
    let body = comment_body(state, project, run_id).await?;
    let mut delay = Duration::from_millis(200);
    let mut attempt = 1;
    loop {
        match post(state, project, pr, &body).await {
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

/// A client for the PR's repository: the token's, or the GitHub App's installation on it.
async fn client(gh: &GithubConfig, owner: &str, repo: &str) -> Result<Octocrab, CommentError> {
    let builder = Octocrab::builder()
        .base_uri(gh.api_url.as_str())
        .map_err(|e| CommentError::Local(format!("WINDUP_GITHUB_API_URL: {e}")))?
        .set_connect_timeout(Some(Duration::from_secs(5)))
        .set_read_timeout(Some(Duration::from_secs(15)));
    let built = match &gh.auth {
        GithubAuth::Token(token) => builder.personal_token(token.clone()).build(),
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
            let installation = app.apps().get_repository_installation(owner, repo).await?;
            // Requests through it carry the installation's token, fetched (and renewed) by
            // octocrab from `POST /app/installations/{id}/access_tokens`.
            return app
                .installation(installation.id)
                .map_err(|e| CommentError::Local(format!("GitHub App installation: {e}")));
        }
    };
    built.map_err(|e| CommentError::Local(format!("GitHub client: {e}")))
}

async fn post(
    state: &AppState,
    project: &Project,
    pr: &PullRequest,
    body: &str,
) -> Result<&'static str, CommentError> {
    let gh = state
        .config
        .github
        .as_ref()
        .ok_or_else(|| CommentError::Local("no GitHub token or App".into()))?;
    let (owner, name) = pr
        .owner_name()
        .ok_or_else(|| CommentError::Local("bad repo".into()))?;
    let client = client(gh, owner, name).await?;
    let issues = client.issues(owner, name);
    let marker = marker(&project.slug);
    let mut page = issues.list_comments(pr.number).per_page(100).send().await?;
    let mut found: Option<Comment> = None;
    loop {
        if let Some(c) = page
            .items
            .iter()
            .find(|c| c.body.as_deref().is_some_and(|b| b.contains(&marker)))
        {
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
            issues.create_comment(pr.number, body).await?;
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
