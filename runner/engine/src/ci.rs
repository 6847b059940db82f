//! What the run knows of its CI system and its commit: the branch (which the dashboard's plan
//! cache is read and written for), the commit, the CI run and the pull request, read from an
//! injected [`Env`] and from git. The engine knows no CI system beyond these variables.

use std::path::Path;

use windup_model::api::PullRequest;
use windup_model::{CiInfo, GitInfo};

use crate::env::Env;

/// The branch a run belongs to: `GITHUB_HEAD_REF` (a pull request), else `GITHUB_REF_NAME`,
/// else git's current branch.
pub fn branch(root: &Path, env: &Env) -> Option<String> {
    env.non_blank("GITHUB_HEAD_REF")
        .or_else(|| env.non_blank("GITHUB_REF_NAME"))
        .or_else(|| {
            let out = std::process::Command::new("git")
                .arg("-C")
                .arg(root)
                .args(["rev-parse", "--abbrev-ref", "HEAD"])
                .stderr(std::process::Stdio::null())
                .output()
                .ok()?;
            let b = String::from_utf8(out.stdout).ok()?.trim().to_string();
            (out.status.success() && !b.is_empty() && b != "HEAD").then_some(b)
        })
}

fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}

/// The commit (git's, else `GITHUB_SHA`) and the branch ([`branch`]), when there
/// is a commit.
pub fn git_info(root: &Path, env: &Env) -> Option<GitInfo> {
    let commit = git(root, &["rev-parse", "HEAD"])
        .or_else(|| env.get("GITHUB_SHA").filter(|c| !c.is_empty()))?;
    // The same branch the dashboard's plan cache is read and written for.
    let branch = branch(root, env);
    Some(GitInfo { commit, branch })
}

/// The person git says is committing here, `user.name <user.email>` (either alone when only one
/// is set), for a plan they accept; none when git says neither.
pub fn git_user(root: &Path) -> Option<String> {
    let name = git(root, &["config", "user.name"]);
    let email = git(root, &["config", "user.email"]);
    match (name, email) {
        (Some(n), Some(e)) => Some(format!("{n} <{e}>")),
        (n, e) => n.or(e),
    }
}

/// The CI system, when the run is in one.
pub fn ci_info(env: &Env) -> Option<CiInfo> {
    let var = |k: &str| env.get(k).filter(|v| !v.is_empty());
    if var("GITHUB_ACTIONS").is_some() {
        Some(CiInfo {
            provider: "github".into(),
            workflow_run: var("GITHUB_RUN_ID"),
            job: var("GITHUB_JOB"),
            shard: None,
        })
    } else if var("GITLAB_CI").is_some() {
        Some(CiInfo {
            provider: "gitlab".into(),
            workflow_run: var("CI_PIPELINE_ID"),
            job: var("CI_JOB_NAME"),
            shard: None,
        })
    } else if var("CI").is_some_and(|v| v != "false" && v != "0") {
        Some(CiInfo {
            provider: "ci".into(),
            workflow_run: None,
            job: None,
            shard: None,
        })
    } else {
        None
    }
}

/// The pull request of a GitHub Actions `pull_request` event: `GITHUB_EVENT_PATH` names the
/// event's JSON, `GITHUB_REPOSITORY` the repository.
pub fn pull_request(env: &Env) -> Option<PullRequest> {
    let path = env.get("GITHUB_EVENT_PATH").filter(|p| !p.is_empty())?;
    let repo = env.get("GITHUB_REPOSITORY").filter(|r| r.contains('/'))?;
    let text = std::fs::read_to_string(path).ok()?;
    let event: serde_json::Value = serde_json::from_str(&text).ok()?;
    let pr = event.get("pull_request")?;
    Some(PullRequest {
        repo,
        number: pr.get("number")?.as_u64()?,
        head_sha: Some(pr.pointer("/head/sha")?.as_str()?.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let env = Env::from_fn(move |k| match k {
            "GITHUB_EVENT_PATH" => Some(path.clone()),
            "GITHUB_REPOSITORY" => Some("acme/shop".to_string()),
            _ => None,
        });
        assert_eq!(
            pull_request(&env),
            Some(PullRequest {
                repo: "acme/shop".into(),
                number: 42,
                head_sha: Some("abc123".into())
            })
        );
        std::fs::write(&event, r#"{"ref":"refs/heads/main","commits":[]}"#).unwrap();
        assert_eq!(pull_request(&env), None, "a push event has no pull request");
        assert_eq!(pull_request(&Env::from_fn(|_| None)), None);
    }
}
