//! The GitHub side: the run's context (event, ref, SHA, repository, workflow run), workflow
//! commands (`::error …::`) with GitHub's escaping, and the `$GITHUB_OUTPUT` and
//! `$GITHUB_STEP_SUMMARY` files.

use std::io::Write;
use std::path::{Path, PathBuf};

use secrecy::SecretString;

/// What the workflow run tells the entrypoint about itself. `Debug` shows no token
/// (`GITHUB_TOKEN` is a [`SecretString`]).
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// `GITHUB_WORKSPACE`: the checked-out repository (the current folder when unset).
    pub workspace: PathBuf,
    /// `owner/name`.
    pub repository: Option<String>,
    /// `GITHUB_SHA`: for a pull request, the merge commit; `head_sha` is what was pushed.
    pub sha: Option<String>,
    /// `GITHUB_REF`, such as `refs/heads/main` or `refs/pull/7/merge`.
    pub git_ref: Option<String>,
    /// `GITHUB_EVENT_NAME`: `push`, `pull_request`, `pull_request_target`…
    pub event_name: Option<String>,
    /// `GITHUB_RUN_ID`: every job and shard of one workflow run shares it.
    pub run_id: Option<String>,
    pub job: Option<String>,
    pub server_url: String,
    pub api_url: String,
    /// `GITHUB_TOKEN` passed to the step's environment, for the PR comment.
    pub token: Option<SecretString>,
    pub pull_request: Option<PullRequest>,
    /// `GITHUB_STEP_SUMMARY`: the job summary file.
    pub step_summary: Option<PathBuf>,
    /// `GITHUB_OUTPUT`: the step outputs file.
    pub output: Option<PathBuf>,
}

/// From the `pull_request` (or `pull_request_target`) event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequest {
    pub number: u64,
    pub head_sha: Option<String>,
    pub head_ref: Option<String>,
    /// `owner/name` of the head branch's repository; `None` when it was deleted.
    pub head_repo: Option<String>,
    /// The head branch lives in another repository (or in one since deleted): under
    /// `pull_request` the run gets no secrets; under `pull_request_target` it does, and runs a
    /// stranger's branch.
    pub from_fork: bool,
}

/// Where a fork's branches go on the dashboard: `fork/OWNER/REPO/BRANCH`. A token scope such
/// as `feature/*` never matches them (globs match the whole name); `fork/**` does.
pub const FORK_BRANCHES: &str = "fork/";

impl PullRequest {
    /// The branch this pull request's runs belong to, which plans are restored from and saved
    /// to: the head branch, qualified by its repository when that is a fork
    /// (`fork/evil/app/main`), so that a fork's `main` is never the base repository's `main`.
    pub fn branch(&self) -> Option<String> {
        let head = self.head_ref.as_deref()?;
        Some(if self.from_fork {
            let repo = self.head_repo.as_deref().unwrap_or("unknown");
            format!("{FORK_BRANCHES}{repo}/{head}")
        } else {
            head.to_string()
        })
    }
}

impl Context {
    pub fn read(env: &dyn Fn(&str) -> Option<String>) -> Context {
        let var = |k: &str| env(k).filter(|v| !v.is_empty());
        let pull_request = var("GITHUB_EVENT_PATH")
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
            .and_then(|event| pull_request(&event));
        Context {
            workspace: var("GITHUB_WORKSPACE")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(".")),
            repository: var("GITHUB_REPOSITORY"),
            sha: var("GITHUB_SHA"),
            git_ref: var("GITHUB_REF"),
            event_name: var("GITHUB_EVENT_NAME"),
            run_id: var("GITHUB_RUN_ID"),
            job: var("GITHUB_JOB"),
            server_url: var("GITHUB_SERVER_URL").unwrap_or_else(|| "https://github.com".into()),
            api_url: var("GITHUB_API_URL").unwrap_or_else(|| "https://api.github.com".into()),
            token: var("GITHUB_TOKEN").map(SecretString::from),
            pull_request,
            step_summary: var("GITHUB_STEP_SUMMARY").map(PathBuf::from),
            output: var("GITHUB_OUTPUT").map(PathBuf::from),
        }
    }

    /// The commit the run tested: a pull request's head, else `GITHUB_SHA`.
    pub fn commit(&self) -> Option<&str> {
        self.pull_request
            .as_ref()
            .and_then(|p| p.head_sha.as_deref())
            .or(self.sha.as_deref())
    }

    /// The branch: a pull request's ([`PullRequest::branch`], a fork's qualified), else the
    /// branch of `GITHUB_REF`.
    pub fn branch(&self) -> Option<String> {
        self.pull_request
            .as_ref()
            .and_then(PullRequest::branch)
            .or_else(|| {
                let name = self.git_ref.as_deref()?.strip_prefix("refs/heads/")?;
                Some(name.to_string())
            })
    }

    /// A link to this workflow run.
    pub fn run_url(&self) -> Option<String> {
        Some(format!(
            "{}/{}/actions/runs/{}",
            self.server_url,
            self.repository.as_deref()?,
            self.run_id.as_deref()?
        ))
    }
}

fn pull_request(event: &serde_json::Value) -> Option<PullRequest> {
    let pr = event.get("pull_request")?;
    let full_name = |side: &str| {
        pr.pointer(&format!("/{side}/repo/full_name"))
            .and_then(|v| v.as_str())
            .map(str::to_string)
    };
    let (head_repo, base_repo) = (full_name("head"), full_name("base"));
    Some(PullRequest {
        number: pr.get("number").or_else(|| event.get("number"))?.as_u64()?,
        head_sha: pr
            .pointer("/head/sha")
            .and_then(|v| v.as_str())
            .map(str::to_string),
        head_ref: pr
            .pointer("/head/ref")
            .and_then(|v| v.as_str())
            .map(str::to_string),
        // A deleted fork's event has `head.repo: null`; the base's is always there.
        from_fork: head_repo != base_repo && base_repo.is_some(),
        head_repo,
    })
}

/// A workflow command's message (`::error::MESSAGE`): `%`, `\r` and `\n` escaped.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value (`file=VALUE`): also `:` and `,`.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// `::error file=…,title=…::message`, to print on stdout.
pub fn error_command(file: Option<&str>, title: &str, message: &str) -> String {
    command("error", file, title, message)
}

/// `::warning title=…::message`.
pub fn warning_command(title: &str, message: &str) -> String {
    command("warning", None, title, message)
}

/// `::warning file=…,title=…::message`, shown on the file in the pull request.
pub fn warning_on(file: &str, title: &str, message: &str) -> String {
    command("warning", Some(file), title, message)
}

fn command(kind: &str, file: Option<&str>, title: &str, message: &str) -> String {
    let mut props = Vec::new();
    if let Some(f) = file {
        props.push(format!("file={}", escape_property(f)));
    }
    props.push(format!("title={}", escape_property(title)));
    format!("::{kind} {}::{}", props.join(","), escape_data(message))
}

/// Appends `name=value` pairs to `$GITHUB_OUTPUT` in the multi-line form
/// (`name<<DELIMITER`), with a delimiter no value contains.
pub fn write_outputs(path: &Path, outputs: &[(&str, String)]) -> std::io::Result<()> {
    let mut text = String::new();
    for (name, value) in outputs {
        let delimiter = loop {
            let d = format!("windup_{:016x}", fastrand::u64(..));
            if !value.contains(&d) {
                break d;
            }
        };
        text.push_str(&format!("{name}<<{delimiter}\n{value}\n{delimiter}\n"));
    }
    append(path, &text)
}

/// Appends to a file GitHub gave the step (`$GITHUB_OUTPUT`, `$GITHUB_STEP_SUMMARY`); other
/// steps append to them too, so they are never replaced.
pub fn append(path: &Path, text: &str) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?;
    file.write_all(text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_escape_by_github_rules() {
        assert_eq!(
            error_command(
                Some("e2e/scenarios/a,b:c.yaml"),
                "selector_not_found",
                "100% gone\r\nline two"
            ),
            "::error file=e2e/scenarios/a%2Cb%3Ac.yaml,title=selector_not_found::100%25 gone%0D%0Aline two"
        );
        assert_eq!(
            warning_command("dashboard", "down: a, b"),
            "::warning title=dashboard::down: a, b"
        );
    }

    #[test]
    fn outputs_are_multiline_safe() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out");
        std::fs::write(&path, "earlier=1\n").unwrap();
        write_outputs(&path, &[("a", "1".into()), ("b", "x\ny".into())]).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("earlier=1\na<<windup_"), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[2], "1");
        assert_eq!(lines[3], lines[1].trim_start_matches("a<<"));
        assert_eq!(&lines[5..7], ["x", "y"]);
    }

    #[test]
    fn a_pull_request_event_gives_number_head_and_fork() {
        let event = json!({
            "number": 7,
            "pull_request": {
                "number": 7,
                "head": {"sha": "abc", "ref": "feature", "repo": {"full_name": "someone/app"}},
                "base": {"sha": "def", "ref": "main", "repo": {"full_name": "acme/app"}}
            }
        });
        let pr = pull_request(&event).unwrap();
        assert_eq!(pr.number, 7);
        assert_eq!(pr.head_sha.as_deref(), Some("abc"));
        assert!(pr.from_fork);
        assert!(pull_request(&json!({"ref": "refs/heads/main"})).is_none());
        let ctx = Context {
            git_ref: Some("refs/heads/main".into()),
            sha: Some("123".into()),
            ..Context::default()
        };
        assert_eq!(ctx.branch().as_deref(), Some("main"));
        assert_eq!(ctx.commit(), Some("123"));
    }

    /// GitHub's event payloads (`tests/events/`), read as the runner hands them over.
    #[test]
    fn a_forks_branch_is_qualified_by_its_repository_and_a_same_repo_branch_is_not() {
        let events = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/events");
        for (file, event_name, head_ref, branch, fork) in [
            (
                "pull_request_target-fork-main.json",
                "pull_request_target",
                "main",
                "fork/evil/app/main",
                true,
            ),
            (
                "pull_request_target-fork-feature.json",
                "pull_request_target",
                "feature/x",
                "fork/evil/app/feature/x",
                true,
            ),
            (
                "pull_request_target-deleted-fork.json",
                "pull_request_target",
                "main",
                "fork/unknown/main",
                true,
            ),
            (
                "pull_request-same-repo.json",
                "pull_request",
                "feature/x",
                "feature/x",
                false,
            ),
        ] {
            let path = events.join(file).display().to_string();
            let env = |k: &str| -> Option<String> {
                Some(match k {
                    "GITHUB_EVENT_PATH" => path.clone(),
                    "GITHUB_EVENT_NAME" => event_name.into(),
                    "GITHUB_HEAD_REF" => head_ref.into(),
                    // pull_request_target runs on the base's default branch.
                    "GITHUB_REF" => "refs/heads/main".into(),
                    "GITHUB_REPOSITORY" => "acme/app".into(),
                    _ => return None,
                })
            };
            let ctx = Context::read(&env);
            let pr = ctx.pull_request.as_ref().expect(file);
            assert_eq!(pr.from_fork, fork, "{file}");
            assert_eq!(ctx.branch().as_deref(), Some(branch), "{file}");
            assert_eq!(
                ctx.commit(),
                Some("0123456789abcdef0123456789abcdef01234567")
            );
        }
    }

    #[test]
    fn debug_never_shows_the_github_token() {
        let dir = tempfile::tempdir().unwrap();
        let event = dir.path().join("event.json");
        std::fs::write(
            &event,
            json!({"pull_request": {"number": 7, "head": {"sha": "abc", "ref": "feature"}}})
                .to_string(),
        )
        .unwrap();
        let token = "ghs_0123456789abcdefSECRET";
        let env = |k: &str| -> Option<String> {
            Some(match k {
                "GITHUB_TOKEN" => token.to_string(),
                "GITHUB_EVENT_PATH" => event.display().to_string(),
                "GITHUB_WORKSPACE" => "/github/workspace".into(),
                "GITHUB_REPOSITORY" => "acme/app".into(),
                "GITHUB_RUN_ID" => "4242".into(),
                _ => return None,
            })
        };
        let ctx = Context::read(&env);
        assert!(ctx.token.is_some() && ctx.pull_request.is_some());
        let shown = format!("{ctx:?} {ctx:#?}");
        assert!(
            shown.contains("acme/app") && shown.contains("token: Some("),
            "{shown}"
        );
        assert!(!shown.contains(token), "{shown}");
        assert!(!shown.contains("SECRET"), "{shown}");
    }
}
