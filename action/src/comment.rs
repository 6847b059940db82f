//! The sticky PR comment, posted with `GITHUB_TOKEN` when no dashboard posts it: one comment
//! per pull request, found again by its marker and its author and updated in place. Anyone can
//! write the marker into a comment; only a comment the token's own identity wrote is edited.
//!
//! The author is the login `GET /user` returns for the token (a personal access token's
//! user). A GitHub App installation token, `GITHUB_TOKEN` among them, may not call `GET /user`
//! (403): its comments are taken to be [`ACTIONS_BOT`]'s, `GITHUB_TOKEN`'s identity. Another
//! App's installation token therefore never finds its earlier comment and adds a new one each
//! run: a duplicate, never someone else's comment edited.

use octocrab::Octocrab;
use octocrab::models::CommentId;

use crate::summary::COMMENT_MARKER;

/// The login of `GITHUB_TOKEN`'s comments: the GitHub Actions app's bot.
pub const ACTIONS_BOT: &str = "github-actions[bot]";

/// What happened to the comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Posted {
    Created,
    Updated,
}

/// Why the comment was not posted: the step's environment, or what GitHub answered. Each cause
/// is in the message, so none is also a source.
#[derive(Debug, thiserror::Error)]
pub enum CommentError {
    /// `GITHUB_REPOSITORY` is not `owner/name`.
    #[error("GITHUB_REPOSITORY `{0}` is not owner/name")]
    Repository(String),
    /// `GITHUB_API_URL` is not a URI the client takes.
    #[error("GITHUB_API_URL `{url}`: {cause}")]
    ApiUrl { url: String, cause: octocrab::Error },
    /// The client could not be built.
    #[error("cannot set up the GitHub client: {0}")]
    Client(octocrab::Error),
    /// GitHub refused a request (`what`: "list the comments"); a 403 names the permission.
    #[error(
        "could not {what}: GitHub answered {} {}{}",
        .answer.status_code,
        .answer.message,
        permission_hint(.answer)
    )]
    Refused {
        what: &'static str,
        answer: Box<octocrab::GitHubError>,
    },
    /// A request failed before GitHub answered.
    #[error("could not {what}: {cause}")]
    Failed {
        what: &'static str,
        cause: octocrab::Error,
    },
}

/// Creates the comment, or updates the one an earlier run left. Any failure is returned for a
/// warning: a comment never changes the verdict.
pub async fn upsert(
    api_url: &str,
    token: &str,
    repository: &str,
    number: u64,
    body: &str,
) -> Result<Posted, CommentError> {
    let (owner, repo) = repository
        .split_once('/')
        .ok_or_else(|| CommentError::Repository(repository.to_string()))?;
    let github = Octocrab::builder()
        .base_uri(api_url)
        .map_err(|cause| CommentError::ApiUrl {
            url: api_url.to_string(),
            cause,
        })?
        .personal_token(token.to_string())
        .build()
        .map_err(CommentError::Client)?;
    let author = author(&github).await?;
    let issues = github.issues(owner, repo);
    let mut existing: Option<CommentId> = None;
    let mut page = issues
        .list_comments(number)
        .per_page(100)
        .send()
        .await
        .map_err(|e| describe("list the comments", e))?;
    loop {
        if let Some(c) = page.items.iter().find(|c| {
            c.user.login.eq_ignore_ascii_case(&author)
                && c.body
                    .as_deref()
                    .is_some_and(|b| b.contains(COMMENT_MARKER))
        }) {
            existing = Some(c.id);
            break;
        }
        match github
            .get_page::<octocrab::models::issues::Comment>(&page.next)
            .await
            .map_err(|e| describe("list the comments", e))?
        {
            Some(next) => page = next,
            None => break,
        }
    }
    match existing {
        Some(id) => {
            // PATCH, the documented verb (octocrab's update_comment sends POST).
            let route = format!("/repos/{owner}/{repo}/issues/comments/{id}");
            let _: octocrab::models::issues::Comment = github
                .patch(route, Some(&serde_json::json!({ "body": body })))
                .await
                .map_err(|e| describe("update the comment", e))?;
            Ok(Posted::Updated)
        }
        None => {
            issues
                .create_comment(number, body)
                .await
                .map_err(|e| describe("create the comment", e))?;
            Ok(Posted::Created)
        }
    }
}

/// Who the token comments as: `GET /user`'s login, or [`ACTIONS_BOT`] for an installation
/// token, which `GET /user` refuses with 403.
async fn author(github: &Octocrab) -> Result<String, CommentError> {
    match github.current().user().await {
        Ok(user) => Ok(user.login),
        Err(octocrab::Error::GitHub { source, .. }) if source.status_code.as_u16() == 403 => {
            Ok(ACTIONS_BOT.to_string())
        }
        Err(e) => Err(describe("find whom the token belongs to (GET /user)", e)),
    }
}

fn describe(what: &'static str, e: octocrab::Error) -> CommentError {
    match e {
        octocrab::Error::GitHub { source, .. } => CommentError::Refused {
            what,
            answer: source,
        },
        cause => CommentError::Failed { what, cause },
    }
}

/// What a 403 needs: the job's permission to write on pull requests.
fn permission_hint(answer: &octocrab::GitHubError) -> &'static str {
    if answer.status_code.as_u16() == 403 {
        " (give the job `permissions: pull-requests: write`)"
    } else {
        ""
    }
}
