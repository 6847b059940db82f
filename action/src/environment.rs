//! The Action's environment, read once at start, and the copy without secrets that the
//! processes it starts get: start-command's app (the pull request's code, which under
//! `pull_request_target` may be a stranger's) and Chromium.
//!
//! Stripped, by name:
//! - GitHub's tokens: `GITHUB_TOKEN`, `GH_TOKEN`, `GH_ENTERPRISE_TOKEN`, `GITHUB_ENTERPRISE_TOKEN`;
//! - `ACTIONS_*` (the runner's cache and artifact token, the OIDC request token);
//! - `INPUT_*` (every input, `dashboard-token` among them) and `WINDUP_*` (Windup's own
//!   settings, the dashboard token's default variable among them);
//! - the workflow-command files (`GITHUB_ENV`, `GITHUB_PATH`, `GITHUB_OUTPUT`, `GITHUB_STATE`,
//!   `GITHUB_STEP_SUMMARY`): writing them changes the steps after this one;
//! - provider keys: the `api_key_env` of every `[providers.*]` in windup.toml, and the
//!   well-known names in [`PROVIDER_KEYS`];
//! - the dashboard token: `[dashboard] token_env`, and `WINDUP_DASHBOARD_TOKEN`.
//!
//! And by value: any variable whose value contains the value of a token or key above (a copy
//! under another name, a URL with the token in it).
//!
//! Everything else is kept, because it is the app's own configuration or harmless: `PATH`,
//! `LANG`/`LC_*`, `TZ`, `CI`, the context variables (`GITHUB_WORKSPACE`, `GITHUB_REPOSITORY`,
//! `GITHUB_SHA`, `GITHUB_REF`, `GITHUB_HEAD_REF`, `GITHUB_EVENT_NAME`, `GITHUB_RUN_ID`…),
//! `RUNNER_*`, and whatever the workflow sets in the step's `env:` for the app (`NODE_ENV`,
//! `DATABASE_URL`, the manifest's credential variables: the app sees those values anyway
//! when a scenario signs in, and may need them to seed its accounts). `HOME` is replaced by a
//! private folder when start-command runs as another user (see `app`).

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};

use windup_engine::config::Config;
use windup_engine::dashboard_client::DEFAULT_TOKEN_ENV;
use windup_engine::env::ChildEnv;

/// GitHub's tokens, by the names workflows and the `gh` CLI give them.
pub(crate) const GITHUB_TOKENS: &[&str] = &[
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
];

/// Whole families: the runner's own (`ACTIONS_RUNTIME_TOKEN`, `ACTIONS_ID_TOKEN_REQUEST_TOKEN`),
/// the Action's inputs, Windup's settings.
const PREFIXES: &[&str] = &["ACTIONS_", "INPUT_", "WINDUP_"];

/// The files through which a step talks to the runner: whoever writes them sets the later
/// steps' environment, `PATH` and outputs.
const COMMAND_FILES: &[&str] = &[
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_OUTPUT",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
];

/// LLM providers' keys by their well-known names, stripped even when windup.toml names
/// another variable: a workflow often sets them for every step.
pub const PROVIDER_KEYS: &[&str] = &[
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "MISTRAL_API_KEY",
    "GROQ_API_KEY",
    "OPENROUTER_API_KEY",
    "DEEPSEEK_API_KEY",
    "XAI_API_KEY",
    "TOGETHER_API_KEY",
];

/// A secret's value shorter than this is not looked for inside other values: every real token
/// is longer, and a short one would strip innocent variables.
const MIN_SECRET_LEN: usize = 8;

/// The Action's environment, read once.
#[derive(Clone, Default)]
pub struct Environment {
    vars: Vec<(OsString, OsString)>,
}

impl Environment {
    /// The process's environment, as it started.
    pub fn of_process() -> Environment {
        Environment::new(std::env::vars_os())
    }

    pub fn new(vars: impl IntoIterator<Item = (OsString, OsString)>) -> Environment {
        Environment {
            vars: vars.into_iter().collect(),
        }
    }

    /// A variable's value, when it is set and valid UTF-8.
    pub fn get(&self, name: &str) -> Option<String> {
        self.vars
            .iter()
            .rev()
            .find(|(k, _)| k == OsStr::new(name))
            .and_then(|(_, v)| v.to_str().map(str::to_string))
    }

    /// This environment without the secrets (see the module's documentation); `secrets` names
    /// the variables holding tokens and keys ([`secret_names`]).
    pub fn stripped(&self, secrets: &BTreeSet<String>) -> ChildEnv {
        let values: Vec<String> = self
            .vars
            .iter()
            .filter(|(k, _)| k.to_str().is_some_and(|k| holds_secret(k, secrets)))
            .filter_map(|(_, v)| v.to_str())
            .map(|v| v.trim().to_string())
            .filter(|v| v.len() >= MIN_SECRET_LEN)
            .collect();
        ChildEnv::new(
            self.vars
                .iter()
                .filter(|(k, v)| {
                    let by_name = k.to_str().is_some_and(|k| stripped_by_name(k, secrets));
                    let value = v.to_string_lossy();
                    !by_name && !values.iter().any(|s| value.contains(s.as_str()))
                })
                .cloned(),
        )
    }
}

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Environment(..)")
    }
}

/// The variables whose values are secrets, for this configuration: GitHub's tokens, the
/// `dashboard-token` input, the dashboard token's variable, and every provider key's.
pub fn secret_names(config: &Config) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = GITHUB_TOKENS
        .iter()
        .chain(PROVIDER_KEYS)
        .chain(&[DEFAULT_TOKEN_ENV])
        .map(|n| n.to_string())
        .collect();
    names.insert(crate::inputs::env_name("dashboard-token"));
    names.extend(config.file.dashboard.token_env.clone());
    names.extend(
        config
            .file
            .providers
            .values()
            .filter_map(|p| p.api_key_env.clone()),
    );
    names
}

/// A token or key: one of `secrets`, or one of the runner's `ACTIONS_*_TOKEN`s.
fn holds_secret(name: &str, secrets: &BTreeSet<String>) -> bool {
    secrets.contains(name) || (name.starts_with("ACTIONS_") && name.ends_with("TOKEN"))
}

fn stripped_by_name(name: &str, secrets: &BTreeSet<String>) -> bool {
    secrets.contains(name)
        || PREFIXES.iter().any(|p| name.starts_with(p))
        || COMMAND_FILES.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Environment {
        Environment::new(pairs.iter().map(|(k, v)| (k.into(), v.into())))
    }

    fn names(child: &ChildEnv) -> Vec<String> {
        child
            .iter()
            .map(|(k, _)| k.to_string_lossy().to_string())
            .collect()
    }

    #[test]
    fn tokens_keys_inputs_and_command_files_go_the_rest_stays() {
        let secrets: BTreeSet<String> = [
            "GITHUB_TOKEN",
            "GH_TOKEN",
            "ACME_LLM_KEY",
            "INPUT_DASHBOARD-TOKEN",
        ]
        .map(String::from)
        .into();
        let e = env(&[
            ("PATH", "/usr/bin:/bin"),
            ("CI", "true"),
            ("GITHUB_WORKSPACE", "/github/workspace"),
            ("GITHUB_TOKEN", "ghs_aaaaaaaaaaaaaaaa"),
            ("ACTIONS_RUNTIME_TOKEN", "runtime-token-xyz"),
            ("ACTIONS_CACHE_URL", "https://cache.example/"),
            ("INPUT_DASHBOARD-TOKEN", "wdp_bbbbbbbbbbbbbbbb"),
            ("INPUT_WORKING-DIRECTORY", "web"),
            ("WINDUP_DASHBOARD_TOKEN", "wdp_cccccccccccccccc"),
            ("ACME_LLM_KEY", "sk-dddddddddddddddd"),
            ("GITHUB_ENV", "/github/file_commands/set_env_1"),
            ("NODE_ENV", "test"),
            ("APP_CALLBACK", "https://x.example/?t=ghs_aaaaaaaaaaaaaaaa"),
            ("APP_RUNTIME", "runtime-token-xyz"),
            // Too short to look for: PATH, which contains it, stays.
            ("GH_TOKEN", "bin"),
        ]);
        assert_eq!(
            names(&e.stripped(&secrets)),
            ["CI", "GITHUB_WORKSPACE", "NODE_ENV", "PATH"]
        );
        assert_eq!(e.get("NODE_ENV").as_deref(), Some("test"));
        assert_eq!(format!("{e:?}"), "Environment(..)");
    }

    #[test]
    fn the_configured_key_and_token_variables_are_secrets() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("windup.toml"),
            "[providers.a]\nkind = \"openai\"\nmodel = \"m\"\napi_key_env = \"ACME_LLM_KEY\"\n\
             [dashboard]\nurl = \"https://windup.example.com\"\ntoken_env = \"ACME_DASH\"\n",
        )
        .unwrap();
        let config = Config::load(dir.path(), &Default::default()).unwrap();
        let names = secret_names(&config);
        for n in [
            "ACME_LLM_KEY",
            "ACME_DASH",
            "OPENAI_API_KEY",
            "GITHUB_TOKEN",
            "INPUT_DASHBOARD-TOKEN",
            "WINDUP_DASHBOARD_TOKEN",
        ] {
            assert!(names.contains(n), "{n} in {names:?}");
        }
    }
}
