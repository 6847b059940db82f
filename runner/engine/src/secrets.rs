//! Credentials without committed secrets. `e2e/manifest.yaml` (committed) maps accounts to ENV
//! names; a plan's `value_ref` is such a name; the value comes from the environment or from
//! `.env.local` (never committed) and is looked up only here, at the input boundary.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::project::Layout;
use serde::Deserialize;
use windup_model::{InputError, Problems};

/// Where `value_ref` names are resolved.
pub trait SecretSource: Send + Sync {
    /// The value of the ENV name `name`, or none when it is not set.
    fn resolve(&self, name: &str) -> Option<String>;
}

/// The process environment only.
pub struct EnvSecrets;

impl SecretSource for EnvSecrets {
    fn resolve(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

/// `e2e/manifest.yaml`: accounts and the ENV names of their credentials.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Account (`admin`) to its fields (`email`, `password`), each the ENV name of its value:
    /// `accounts: {admin: {email: ADMIN_EMAIL, password: ADMIN_PASSWORD}}`.
    #[serde(default)]
    pub accounts: BTreeMap<String, BTreeMap<String, String>>,
}

impl Manifest {
    /// Every ENV name the manifest mentions, sorted and unique.
    pub fn env_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .accounts
            .values()
            .flat_map(|fields| fields.values().cloned())
            .collect();
        names.sort();
        names.dedup();
        names
    }
}

/// A project's secrets: the environment first, then `.env.local`.
pub struct ProjectSecrets {
    manifest: Manifest,
    env_local: HashMap<String, String>,
    /// The manifest's credential values, longest first (a value containing another is masked
    /// whole); worked out once, since every reported message is masked with them.
    masks: Vec<String>,
}

impl ProjectSecrets {
    /// Reads the manifest and `.env.local` under `root`; both are optional.
    pub fn load(root: &Path) -> Result<ProjectSecrets, Problems> {
        let mut problems = Vec::new();
        let manifest = match std::fs::read_to_string(root.join(Layout::MANIFEST_FILE)) {
            Ok(text) => match serde_norway::from_str::<Manifest>(&text) {
                Ok(m) => {
                    for (account, fields) in &m.accounts {
                        for (field, name) in fields {
                            if !is_env_name(name) {
                                problems.push(InputError::new(
                                    Layout::MANIFEST_FILE,
                                    format!("accounts.{account}.{field}"),
                                    // The value is not echoed: it may be the secret itself.
                                    "this is not an ENV variable name".to_string(),
                                    "write the NAME of the variable that holds the value (such as ADMIN_PASSWORD), never the value itself",
                                ));
                            }
                        }
                    }
                    m
                }
                Err(e) => {
                    problems.push(InputError::new(
                        Layout::MANIFEST_FILE,
                        "(file)",
                        format!("not a valid manifest: {e}"),
                        "write `accounts: {admin: {email: ADMIN_EMAIL, password: ADMIN_PASSWORD}}`",
                    ));
                    Manifest::default()
                }
            },
            Err(_) => Manifest::default(),
        };
        let env_path = root.join(Layout::ENV_LOCAL_FILE);
        let mut env_local = HashMap::new();
        if env_path.exists() {
            match dotenvy::from_path_iter(&env_path) {
                Ok(iter) => {
                    for item in iter {
                        match item {
                            Ok((k, v)) => {
                                env_local.insert(k, v);
                            }
                            Err(e) => problems.push(InputError::new(
                                Layout::ENV_LOCAL_FILE,
                                "(file)",
                                format!("cannot be parsed: {e}"),
                                "write one NAME=value per line",
                            )),
                        }
                    }
                }
                Err(e) => problems.push(InputError::new(
                    Layout::ENV_LOCAL_FILE,
                    "(file)",
                    format!("cannot be read: {e}"),
                    "check its permissions",
                )),
            }
            if git_tracks(root, Layout::ENV_LOCAL_FILE) {
                tracing::warn!(
                    "{env} is tracked by git: its secrets are in the repository; run `git rm --cached {env}` and rotate them",
                    env = Layout::ENV_LOCAL_FILE
                );
            }
        }
        if problems.is_empty() {
            let mut secrets = ProjectSecrets {
                manifest,
                env_local,
                masks: Vec::new(),
            };
            let mut masks: Vec<String> = secrets
                .manifest
                .env_names()
                .iter()
                .filter_map(|n| secrets.resolve(n))
                .filter(|v| v.len() >= 3)
                .collect();
            // A value also reaches evidence inside URLs (a failed request's query string), where
            // the page encoded it: mask those spellings too.
            let encoded: Vec<String> = masks.iter().flat_map(|v| url_spellings(v)).collect();
            masks.extend(encoded);
            masks.sort();
            masks.dedup();
            masks.sort_by_key(|v| std::cmp::Reverse(v.len()));
            secrets.masks = masks;
            Ok(secrets)
        } else {
            Err(Problems(problems))
        }
    }

    /// The accounts the planner may sign in with (their ENV names, never their values).
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Replaces every known secret value in `text`, so it can be shown or stored.
    pub fn redact(&self, text: &str) -> String {
        self.masks
            .iter()
            .fold(text.to_string(), |out, v| out.replace(v, "•••"))
    }
}

impl SecretSource for ProjectSecrets {
    fn resolve(&self, name: &str) -> Option<String> {
        std::env::var(name)
            .ok()
            .or_else(|| self.env_local.get(name).cloned())
    }
}

/// How a value looks percent-encoded in a URL (`%20` or `+` for a space), when that differs.
fn url_spellings(value: &str) -> Vec<String> {
    let form: String = url::form_urlencoded::byte_serialize(value.as_bytes()).collect();
    let mut out = Vec::new();
    if form != value {
        out.push(form.replace('+', "%20"));
        out.push(form);
    }
    out
}

fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

fn git_tracks(root: &Path, file: &str) -> bool {
    std::process::Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["ls-files", "--error-unmatch", file])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_local_values_resolve_and_are_redacted() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("e2e")).unwrap();
        std::fs::write(
            dir.path().join(Layout::MANIFEST_FILE),
            "accounts:\n  admin:\n    email: WINDUP_TEST_EMAIL_7F3\n    password: WINDUP_TEST_PASSWORD_7F3\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join(Layout::ENV_LOCAL_FILE),
            "WINDUP_TEST_EMAIL_7F3=admin@example.test\nWINDUP_TEST_PASSWORD_7F3=\"hunter two\"\n",
        )
        .unwrap();
        let s = ProjectSecrets::load(dir.path()).unwrap();
        assert_eq!(s.manifest().env_names().len(), 2);
        assert_eq!(
            s.resolve("WINDUP_TEST_PASSWORD_7F3").as_deref(),
            Some("hunter two")
        );
        assert_eq!(s.resolve("WINDUP_TEST_UNSET_7F3"), None);
        assert_eq!(
            s.redact("typed hunter two into admin@example.test"),
            "typed ••• into •••"
        );
        assert_eq!(
            s.redact("GET /a?u=admin%40example.test&p=hunter%20two&q=hunter+two"),
            "GET /a?u=•••&p=•••&q=•••"
        );
    }

    #[test]
    fn a_manifest_holding_a_value_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("e2e")).unwrap();
        std::fs::write(
            dir.path().join(Layout::MANIFEST_FILE),
            "accounts:\n  admin:\n    password: hunter2\n",
        )
        .unwrap();
        let err = ProjectSecrets::load(dir.path()).err().unwrap();
        assert_eq!(err.0[0].field, "accounts.admin.password");
        assert!(!err.0[0].problem.is_empty());
    }
}
