//! Hooks: shell commands windup.toml's `[hooks]` runs before the run, before each scenario and
//! after each, to reset and seed the app's data (Playwright's global setup and fixtures).
//!
//! A hook runs with `sh -c` in the project root with a clear environment: `PATH`, `HOME`,
//! `LANG`, `TMPDIR` and `TZ` when set, the variables `[hooks] env` names, and Windup's own
//! `WINDUP_HOOK`, `WINDUP_BASE_URL` and `WINDUP_SCENARIO_ID`. Nothing else of Windup's
//! environment (provider keys, the dashboard token, credentials the hook was not given)
//! reaches it. Its output is kept only to quote the tail of its stderr when it fails, and that
//! quote is masked like every other message before it leaves the process.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde::Deserialize;
use windup_model::{HookName, HookRun, InputError};

use crate::env::Env;

/// How long a hook may run unless `[hooks] timeout_ms` says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// The variables of Windup's environment every hook gets, when set.
const BASE_ENV: [&str; 5] = ["PATH", "HOME", "LANG", "TMPDIR", "TZ"];

/// How much of a failed hook's stderr its message quotes.
const STDERR_TAIL: usize = 400;

/// `[hooks]` of windup.toml.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HooksSection {
    /// A command run once before the run's first scenario; if it fails no scenario runs.
    pub before_all: Option<String>,
    /// A command run before each attempt of each scenario; if it fails the scenario fails
    /// (`environment`) without running.
    pub before_each: Option<String>,
    /// A command run after each attempt of each scenario; if it fails a passed scenario fails
    /// (`environment`).
    pub after_each: Option<String>,
    /// How long each hook may run, in milliseconds (default 60000).
    pub timeout_ms: Option<u64>,
    /// Names of further variables of Windup's environment the hooks get (`DATABASE_URL`, …).
    #[serde(default)]
    pub env: Vec<String>,
}

/// The checked hooks of one invocation.
#[derive(Debug, Clone, Default)]
pub struct Hooks {
    before_all: Option<String>,
    before_each: Option<String>,
    after_each: Option<String>,
    timeout: Duration,
    env: Vec<String>,
}

/// Why a hook failed: for the scenario's message.
#[derive(Debug, Clone, PartialEq)]
pub struct HookFailure(pub String);

impl Hooks {
    /// Checks `[hooks]`: every command non-blank, a positive timeout, variable names.
    pub fn from_section(config_file: &str, section: &HooksSection) -> Result<Hooks, InputError> {
        let command = |name: &str, v: &Option<String>| -> Result<Option<String>, InputError> {
            match v {
                Some(c) if c.trim().is_empty() => Err(InputError::new(
                    config_file,
                    format!("hooks.{name}"),
                    "is empty",
                    format!(
                        "write the shell command to run, e.g. {name} = \"./scripts/seed.sh\", or remove the key"
                    ),
                )),
                v => Ok(v.clone()),
            }
        };
        let timeout = match section.timeout_ms {
            Some(0) => {
                return Err(InputError::new(
                    config_file,
                    "hooks.timeout_ms",
                    "is 0, so no hook could ever finish",
                    "give the milliseconds a hook may take, e.g. timeout_ms = 30000, or remove the key (60000)",
                ));
            }
            Some(ms) => Duration::from_millis(ms),
            None => DEFAULT_TIMEOUT,
        };
        for (i, name) in section.env.iter().enumerate() {
            let valid = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(InputError::new(
                    config_file,
                    format!("hooks.env[{i}]"),
                    format!("`{name}` is not an environment variable's name"),
                    "list names only, such as env = [\"DATABASE_URL\"]; the values are read from Windup's environment",
                ));
            }
        }
        Ok(Hooks {
            before_all: command("before_all", &section.before_all)?,
            before_each: command("before_each", &section.before_each)?,
            after_each: command("after_each", &section.after_each)?,
            timeout,
            env: section.env.clone(),
        })
    }

    /// There is a `before_each` or an `after_each`: scenarios then run one at a time, since
    /// those hooks reset data every scenario shares.
    pub fn per_scenario(&self) -> bool {
        self.before_each.is_some() || self.after_each.is_some()
    }

    /// The command of a hook, when windup.toml has one.
    pub fn command(&self, hook: HookName) -> Option<&str> {
        match hook {
            HookName::BeforeAll => self.before_all.as_deref(),
            HookName::BeforeEach => self.before_each.as_deref(),
            HookName::AfterEach => self.after_each.as_deref(),
        }
    }

    /// Runs `hook` when configured: its record, and why it failed if it did. `None` when
    /// windup.toml has no such hook.
    pub async fn run(
        &self,
        hook: HookName,
        ctx: &HookContext<'_>,
    ) -> Option<(HookRun, Option<HookFailure>)> {
        let command = self.command(hook)?;
        let started = Instant::now();
        let failure = self.execute(hook, command, ctx).await.err();
        let record = HookRun {
            hook,
            duration_ms: started.elapsed().as_millis() as u64,
            passed: failure.is_none(),
        };
        Some((record, failure))
    }

    async fn execute(
        &self,
        hook: HookName,
        command: &str,
        ctx: &HookContext<'_>,
    ) -> Result<(), HookFailure> {
        let name = hook.as_str();
        let mut cmd = tokio::process::Command::new("sh");
        cmd.arg("-c")
            .arg(command)
            .current_dir(ctx.root)
            .env_clear()
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for key in BASE_ENV
            .iter()
            .copied()
            .chain(self.env.iter().map(String::as_str))
        {
            if let Some(v) = ctx.env.get(key) {
                cmd.env(key, v);
            }
        }
        cmd.env("WINDUP_HOOK", name);
        if let Some(base) = ctx.base_url {
            cmd.env("WINDUP_BASE_URL", base);
        }
        if let Some(id) = ctx.scenario_id {
            cmd.env("WINDUP_SCENARIO_ID", id);
        }
        let child = cmd.spawn().map_err(|e| {
            HookFailure(format!(
                "the {name} hook could not start (`sh -c` in {}): {e}",
                ctx.root.display()
            ))
        })?;
        let out = match tokio::time::timeout(self.timeout, child.wait_with_output()).await {
            Err(_) => {
                return Err(HookFailure(format!(
                    "the {name} hook ran out of its {} ms ([hooks] timeout_ms) and was stopped",
                    self.timeout.as_millis()
                )));
            }
            Ok(Err(e)) => return Err(HookFailure(format!("the {name} hook failed: {e}"))),
            Ok(Ok(out)) => out,
        };
        if out.status.success() {
            return Ok(());
        }
        let status = match out.status.code() {
            Some(code) => format!("exited with status {code}"),
            None => "was killed by a signal".to_string(),
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        Err(HookFailure(format!(
            "the {name} hook {status}{}",
            tail(stderr.trim())
        )))
    }
}

/// What a hook is run for.
pub struct HookContext<'a> {
    /// The project root: the hook's working directory.
    pub root: &'a Path,
    /// Where its variables are read.
    pub env: &'a Env,
    /// The run's base URL, as `WINDUP_BASE_URL`.
    pub base_url: Option<&'a str>,
    /// The scenario, for `before_each` and `after_each`, as `WINDUP_SCENARIO_ID`.
    pub scenario_id: Option<&'a str>,
}

/// `: …<last lines of stderr>`, or nothing when it printed nothing.
fn tail(stderr: &str) -> String {
    if stderr.is_empty() {
        return String::new();
    }
    let start = stderr
        .char_indices()
        .map(|(i, _)| i)
        .find(|&i| stderr.len() - i <= STDERR_TAIL)
        .unwrap_or(stderr.len());
    let cut = if start > 0 { "…" } else { "" };
    format!(": {cut}{}", stderr[start..].replace('\n', " | "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_stderr_is_quoted_by_its_end() {
        let long = format!("{}END", "x".repeat(1000));
        let t = tail(&long);
        assert!(t.starts_with(": …") && t.ends_with("END"), "{t}");
        assert!(t.len() <= STDERR_TAIL + 8);
        assert_eq!(tail(""), "");
        assert_eq!(tail("a\nb"), ": a | b");
    }

    #[test]
    fn bad_sections_name_their_field() {
        let err = |s: HooksSection| Hooks::from_section("windup.toml", &s).unwrap_err();
        let e = err(HooksSection {
            before_each: Some("  ".into()),
            ..HooksSection::default()
        });
        assert_eq!(e.field, "hooks.before_each");
        let e = err(HooksSection {
            timeout_ms: Some(0),
            ..HooksSection::default()
        });
        assert_eq!(e.field, "hooks.timeout_ms");
        let e = err(HooksSection {
            env: vec!["OK".into(), "NOT-A-NAME".into()],
            ..HooksSection::default()
        });
        assert_eq!(e.field, "hooks.env[1]");
    }
}
