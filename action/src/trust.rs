//! What the checked-out workspace's configuration may make the Action do.
//!
//! `windup.toml` and `e2e/manifest.yaml` come from the checkout. Under `pull_request_target`,
//! or on a pull request whose head is another repository (a fork), a stranger wrote them while
//! the Action holds the base repository's secrets; so there they may not name what runs or
//! where secrets and credentials go:
//! - `[browser] executable`, `args` (`--renderer-cmd-prefix` runs a program) and `cdp_url`:
//!   the Action runs the image's own Chromium, or `WINDUP_CHROMIUM` from the workflow;
//! - `[providers.NAME] base_url`, unless the `provider-base-urls` input lists it;
//! - `[planner] allowed_origins` and the manifest's account `origins`, unless the
//!   `allowed-origins` input lists each;
//! - `base_url` and `[dashboard] url`, unless the `base-url` and `dashboard-url` inputs,
//!   which win over them, are given.
//!
//! In every event, a provider's key goes only to the provider's official API root or to one
//! `provider-base-urls` lists, and no `api_key_env` or `[dashboard] token_env` may name one of
//! GitHub's tokens. Each refusal is bad input (exit 2) naming the file, the key and the fix,
//! found before anything starts.

use std::path::Path;

use windup_engine::config::Config;
use windup_engine::llm::{GEMINI_BASE_URL, OPENAI_BASE_URL, ProviderConfig, ProviderKind};
use windup_engine::project::Layout;
use windup_engine::secrets::Manifest;
use windup_model::InputError;

use crate::github::Context;
use crate::inputs::Inputs;

/// Whether the workspace's configuration is the repository's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Workspace {
    /// A push, or a pull request from a branch of the repository itself.
    Trusted,
    /// Written by whoever opened the pull request; the words say when (`under
    /// pull_request_target`).
    Untrusted(String),
}

impl Workspace {
    /// `pull_request_target` runs the base's workflow, with its secrets, on a checkout that is
    /// usually the pull request's; a fork's pull request is a stranger's under any event.
    pub fn of(ctx: &Context) -> Workspace {
        if ctx.event_name.as_deref() == Some("pull_request_target") {
            return Workspace::Untrusted("under pull_request_target".into());
        }
        match &ctx.pull_request {
            Some(pr) if pr.from_fork => Workspace::Untrusted(format!(
                "on a pull request from the fork {}",
                pr.head_repo.as_deref().unwrap_or("(deleted)")
            )),
            _ => Workspace::Trusted,
        }
    }
}

/// Every key of the workspace's configuration the Action refuses (see the module's
/// documentation); empty when the run may go on.
pub fn check(config: &Config, inputs: &Inputs, workspace: &Workspace) -> Vec<InputError> {
    let toml = config.root.join(Layout::CONFIG_FILE).display().to_string();
    let file = &config.file;
    let mut refused = Vec::new();
    for (name, p) in &file.providers {
        refused.extend(provider(&toml, name, p, inputs, workspace));
        if let Some(var) = p.api_key_env.as_deref().filter(|v| is_github_token(v)) {
            refused.push(InputError::new(
                &toml,
                format!("[providers.{name}] api_key_env"),
                format!("`{var}` holds a GitHub token, not a provider's key"),
                "name the variable that holds the provider's key, such as OPENAI_API_KEY",
            ));
        }
    }
    if let Some(var) = file
        .dashboard
        .token_env
        .as_deref()
        .filter(|v| is_github_token(v))
    {
        refused.push(InputError::new(
            &toml,
            "[dashboard] token_env",
            format!("`{var}` holds a GitHub token, not the dashboard's"),
            "pass the dashboard's project token in the `dashboard-token` input, or name the variable that holds it",
        ));
    }
    let Workspace::Untrusted(why) = workspace else {
        return refused;
    };
    let mut refuse = |key: &str, what: &str, fix: &str| {
        refused.push(InputError::new(
            &toml,
            key,
            format!(
                "{why} this windup.toml is the pull request's, and may not {what}, since that would run with the Action's secrets"
            ),
            fix,
        ));
    };
    if file.browser.executable.is_some() {
        refuse(
            "[browser] executable",
            "choose the program the browser runs as",
            "remove `executable` from [browser]: the Action runs its image's Chromium (a workflow that needs another sets WINDUP_CHROMIUM in the step's `env:`)",
        );
    }
    if !file.browser.args.is_empty() {
        refuse(
            "[browser] args",
            "give the browser flags (`--renderer-cmd-prefix` and the like run programs)",
            "remove `args` from [browser]: the Action's Chromium needs none",
        );
    }
    if file.browser.cdp_url.is_some() {
        refuse(
            "[browser] cdp_url",
            "choose a browser to attach to",
            "remove `cdp_url` from [browser]: the Action starts its own Chromium",
        );
    }
    if file.base_url.is_some() && inputs.base_url.is_none() {
        refuse(
            "base_url",
            "choose the app's address (where the test accounts' credentials are typed)",
            "set the Action's `base-url` input in the workflow: it wins over windup.toml's",
        );
    }
    if file.dashboard.url.is_some() && inputs.dashboard_url.is_none() {
        refuse(
            "[dashboard] url",
            "choose where the dashboard token is sent",
            "set the Action's `dashboard-url` input in the workflow: it wins over windup.toml's",
        );
    }
    let allowed = |raw: &str| {
        url::Url::parse(raw).is_ok_and(|u| inputs.allowed_origins.contains(&u.origin()))
    };
    for (i, raw) in file.planner.allowed_origins.iter().enumerate() {
        if !allowed(raw) {
            refuse(
                &format!("[planner] allowed_origins[{i}]"),
                &format!("let plans go to `{raw}`"),
                &format!(
                    "list `{raw}` in the Action's `allowed-origins` input if the app really goes there, or remove it"
                ),
            );
        }
    }
    for (account, origin, i) in manifest_origins(&config.root) {
        if !allowed(&origin) {
            refused.push(InputError::new(
                config.root.join(Layout::MANIFEST_FILE).display().to_string(),
                format!("accounts.{account}.origins[{i}]"),
                format!(
                    "{why} e2e/manifest.yaml is the pull request's, and may not send the account's credentials to `{origin}`"
                ),
                format!(
                    "list `{origin}` in the Action's `allowed-origins` input if the account really signs in there, or remove it"
                ),
            ));
        }
    }
    refused
}

/// A provider's `base_url`: its official API root, or one the workflow lists; else, in a
/// trusted workspace, a server that gets no key.
fn provider(
    toml: &str,
    name: &str,
    p: &ProviderConfig,
    inputs: &Inputs,
    workspace: &Workspace,
) -> Option<InputError> {
    let raw = p.base_url.as_deref()?;
    let official = match p.kind {
        ProviderKind::Openai => OPENAI_BASE_URL,
        ProviderKind::Gemini => GEMINI_BASE_URL,
    };
    let same = |a: &str, b: &str| a.trim_end_matches('/') == b.trim_end_matches('/');
    let listed = url::Url::parse(raw).is_ok_and(|u| {
        same(u.as_str(), official)
            || inputs
                .provider_base_urls
                .iter()
                .any(|l| same(u.as_str(), l.as_str()))
    });
    let problem = match (workspace, &p.api_key_env) {
        _ if listed => return None,
        (Workspace::Untrusted(why), _) => format!(
            "{why} this windup.toml is the pull request's, and may not send the provider's requests to `{raw}`"
        ),
        (Workspace::Trusted, Some(var)) => format!(
            "the provider's key (`{var}`) would be sent to `{raw}`, which the workflow does not allow"
        ),
        (Workspace::Trusted, None) => return None,
    };
    Some(InputError::new(
        toml,
        format!("[providers.{name}] base_url"),
        problem,
        format!(
            "list `{raw}` in the Action's `provider-base-urls` input if it is yours, or remove `base_url` for the provider's own {official}"
        ),
    ))
}

/// Each account's `origins` in the manifest under `root`, with its index. A manifest that does
/// not parse gives none: loading the project's secrets reports it before anything runs.
fn manifest_origins(root: &Path) -> Vec<(String, String, usize)> {
    let Ok(text) = std::fs::read_to_string(root.join(Layout::MANIFEST_FILE)) else {
        return Vec::new();
    };
    let Ok(manifest) = Manifest::parse(&text) else {
        return Vec::new();
    };
    manifest
        .accounts
        .into_iter()
        .flat_map(|(account, a)| {
            a.origins
                .into_iter()
                .enumerate()
                .map(move |(i, o)| (account.clone(), o, i))
        })
        .collect()
}

/// One of GitHub's or the runner's tokens, which no key variable should name.
fn is_github_token(name: &str) -> bool {
    crate::environment::GITHUB_TOKENS.contains(&name) || name.starts_with("ACTIONS_")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn inputs(pairs: &[(&str, &str)]) -> Inputs {
        let env: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (crate::inputs::env_name(k), v.to_string()))
            .collect();
        Inputs::read(&|k| env.get(k).cloned()).unwrap()
    }

    fn config(toml: &str, manifest: Option<&str>) -> (tempfile::TempDir, Config) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("windup.toml"), toml).unwrap();
        if let Some(m) = manifest {
            std::fs::create_dir_all(dir.path().join("e2e")).unwrap();
            std::fs::write(dir.path().join("e2e/manifest.yaml"), m).unwrap();
        }
        let config = Config::load(dir.path(), &Default::default()).unwrap();
        (dir, config)
    }

    fn fields(refused: &[InputError]) -> Vec<&str> {
        refused.iter().map(|e| e.field.as_str()).collect()
    }

    fn untrusted() -> Workspace {
        Workspace::Untrusted("under pull_request_target".into())
    }

    #[test]
    fn pull_request_target_and_forks_are_untrusted_pushes_and_own_branches_are_not() {
        let pr = |from_fork| crate::github::PullRequest {
            number: 7,
            head_sha: None,
            head_ref: Some("main".into()),
            head_repo: Some("evil/app".into()),
            from_fork,
        };
        let ctx = |event: &str, pull_request| Context {
            event_name: Some(event.into()),
            pull_request,
            ..Context::default()
        };
        assert_eq!(Workspace::of(&ctx("push", None)), Workspace::Trusted);
        assert_eq!(
            Workspace::of(&ctx("pull_request", Some(pr(false)))),
            Workspace::Trusted
        );
        assert_eq!(
            Workspace::of(&ctx("pull_request_target", Some(pr(false)))),
            untrusted()
        );
        assert!(matches!(
            Workspace::of(&ctx("pull_request", Some(pr(true)))),
            Workspace::Untrusted(why) if why.contains("evil/app")
        ));
    }

    #[test]
    fn an_untrusted_workspace_names_each_key_it_may_not_set() {
        let (_dir, c) = config(
            "base_url = \"http://127.0.0.1:8080\"\n\
             [browser]\nexecutable = \"/tmp/x.sh\"\nargs = [\"--renderer-cmd-prefix=/tmp/x.sh\"]\ncdp_url = \"http://127.0.0.1:9222\"\n\
             [planner]\nallowed_origins = [\"https://sso.example.com\", \"https://evil.example\"]\n\
             [dashboard]\nurl = \"https://evil.example\"\n\
             [providers.a]\nkind = \"openai\"\nmodel = \"m\"\nbase_url = \"https://evil.example/v1\"\n",
            Some("accounts:\n  admin:\n    password: P\n    origins: [\"https://evil.example\"]\n"),
        );
        let refused = check(
            &c,
            &inputs(&[("allowed-origins", "https://sso.example.com/")]),
            &untrusted(),
        );
        assert_eq!(
            fields(&refused),
            [
                "[providers.a] base_url",
                "[browser] executable",
                "[browser] args",
                "[browser] cdp_url",
                "base_url",
                "[dashboard] url",
                "[planner] allowed_origins[1]",
                "accounts.admin.origins[0]",
            ]
        );
        assert!(
            refused
                .iter()
                .all(|e| e.problem.contains("under pull_request_target"))
        );
        assert!(
            refused[0].fix.contains("provider-base-urls"),
            "{:?}",
            refused[0]
        );
        assert!(refused[7].file.ends_with("e2e/manifest.yaml"));
        assert!(
            check(&c, &inputs(&[]), &Workspace::Trusted).is_empty(),
            "a keyless provider"
        );
        // What the workflow's inputs allow, or win over, passes.
        let allowed = inputs(&[
            (
                "allowed-origins",
                "https://sso.example.com, https://evil.example",
            ),
            ("provider-base-urls", "https://evil.example/v1/"),
            ("base-url", "http://127.0.0.1:3000"),
            ("dashboard-url", "https://windup.example.com"),
        ]);
        assert_eq!(
            fields(&check(&c, &allowed, &untrusted())),
            [
                "[browser] executable",
                "[browser] args",
                "[browser] cdp_url"
            ]
        );
    }

    #[test]
    fn a_key_goes_only_to_the_official_root_or_one_the_workflow_lists_in_every_event() {
        let (_dir, c) = config(
            "[providers.own]\nkind = \"openai\"\nmodel = \"m\"\napi_key_env = \"K\"\nbase_url = \"https://api.openai.com/v1/\"\n\
             [providers.proxy]\nkind = \"gemini\"\nmodel = \"m\"\napi_key_env = \"K\"\nbase_url = \"https://llm.acme.test\"\n\
             [providers.local]\nkind = \"openai\"\nmodel = \"m\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n\
             [planner]\nprovider = \"own\"\n",
            None,
        );
        let refused = check(&c, &inputs(&[]), &Workspace::Trusted);
        assert_eq!(fields(&refused), ["[providers.proxy] base_url"]);
        assert!(
            refused[0]
                .problem
                .contains("(`K`) would be sent to `https://llm.acme.test`")
        );
        let listed = inputs(&[("provider-base-urls", "https://llm.acme.test/")]);
        assert!(check(&c, &listed, &Workspace::Trusted).is_empty());
        assert_eq!(
            fields(&check(&c, &listed, &untrusted())),
            ["[providers.local] base_url"],
            "untrusted, even a keyless server must be listed"
        );
    }

    #[test]
    fn no_key_variable_may_name_a_github_token() {
        let (_dir, c) = config(
            "[providers.a]\nkind = \"openai\"\nmodel = \"m\"\napi_key_env = \"GITHUB_TOKEN\"\n\
             [dashboard]\ntoken_env = \"ACTIONS_RUNTIME_TOKEN\"\n",
            None,
        );
        assert_eq!(
            fields(&check(&c, &inputs(&[]), &Workspace::Trusted)),
            ["[providers.a] api_key_env", "[dashboard] token_env"]
        );
    }
}
