//! Credentials without committed secrets. `e2e/manifest.yaml` (committed) maps accounts to ENV
//! names; a plan's `value_ref` is such a name; the value comes from the environment or from
//! `.env.local` (never committed) and is looked up only here, at the input boundary, and only
//! for names the manifest declares. Every secret the run holds (credentials, the provider's
//! key, the dashboard token) is masked in whatever it shows, stores or sends. A TOTP field's
//! name resolves to the current one-time code (`totp`), and the codes are masked like values.

mod fit;
mod manifest;
mod mask;
mod totp;

use std::collections::HashMap;
use std::path::Path;

pub use fit::{CredentialKind, FieldFacts, Misfit, credential_fits};
pub use manifest::{Account, Field, Manifest};
pub use mask::{MASK, Masks, redact_log};
pub use totp::TotpSecret;
use windup_model::{InputError, Problems};

use crate::env::Env;
use crate::project::Layout;

/// Where `value_ref` names are resolved.
pub trait SecretSource: Send + Sync {
    /// The value of the ENV name `name`, or none when it is not set.
    fn resolve(&self, name: &str) -> Option<String>;
}

/// A project's secrets: the environment first, then `.env.local`.
pub struct ProjectSecrets {
    manifest: Manifest,
    /// The manifest's ENV names, sorted: the only names [`SecretSource::resolve`] answers for,
    /// worked out once since every `fill` from a credential asks.
    declared: Vec<String>,
    env: Env,
    env_local: HashMap<String, String>,
    /// Every secret value, worked out once, since every reported message is masked with them.
    masks: Masks,
    /// The ENV names masked besides the manifest's (the provider's key, the dashboard token).
    other_names: Vec<String>,
    /// The ENV names of TOTP secrets, sorted: these resolve to the current code.
    totp: Vec<String>,
}

impl ProjectSecrets {
    /// Reads the manifest and `.env.local` under `root`; both are optional. Values are read
    /// from `env` first.
    pub fn load(root: &Path, env: &Env) -> Result<ProjectSecrets, Problems> {
        let mut problems = Vec::new();
        let manifest = match std::fs::read_to_string(root.join(Layout::MANIFEST_FILE)) {
            Ok(text) => Manifest::parse(&text).unwrap_or_else(|p| {
                problems.extend(p);
                Manifest::default()
            }),
            Err(_) => Manifest::default(),
        };
        let env_local = read_env_local(root, &mut problems);
        if !problems.is_empty() {
            return Err(Problems(problems));
        }
        let mut secrets = ProjectSecrets {
            declared: manifest.env_names(),
            totp: manifest.totp_names().into_iter().map(|(n, _)| n).collect(),
            manifest,
            env: env.clone(),
            env_local,
            masks: Masks::default(),
            other_names: Vec::new(),
        };
        // A TOTP secret that is set must decode, or every code typed would be wrong.
        let bad: Vec<InputError> = secrets
            .manifest
            .totp_names()
            .into_iter()
            .filter(|(name, _)| {
                secrets
                    .lookup(name)
                    .is_some_and(|v| totp::TotpSecret::parse(&v).is_none())
            })
            .map(|(name, field)| {
                InputError::new(
                    Layout::MANIFEST_FILE,
                    field,
                    // The value is not echoed.
                    format!("the value of {name} is not a base32 TOTP secret"),
                    format!(
                        "set {name} to the secret the site shows for an authenticator app (letters A-Z and digits 2-7)"
                    ),
                )
            })
            .collect();
        if !bad.is_empty() {
            return Err(Problems(bad));
        }
        secrets.remask();
        Ok(secrets)
    }

    /// Masks the values of these ENV names too (the provider's key, the dashboard token), as
    /// the config names them.
    pub fn mask_also<'n>(&mut self, names: impl IntoIterator<Item = &'n str>) {
        for name in names {
            if !self.other_names.iter().any(|n| n == name) {
                self.other_names.push(name.to_string());
            }
        }
        self.remask();
    }

    fn remask(&mut self) {
        let values: Vec<String> = self
            .declared
            .iter()
            .chain(&self.other_names)
            .filter_map(|n| self.lookup(n))
            .collect();
        let totp = self
            .totp
            .iter()
            .filter_map(|n| totp::TotpSecret::parse(&self.lookup(n)?))
            .collect();
        self.masks = Masks::new(values).with_totp(totp);
        mask::mask_in_logs(&self.masks);
    }

    /// The accounts the planner may sign in with (their ENV names, never their values).
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// A variable the config names (a provider's key): the environment, then `.env.local`. Not
    /// for credentials, which [`SecretSource::resolve`] gives only for declared names.
    pub fn lookup(&self, name: &str) -> Option<String> {
        self.env
            .get(name)
            .or_else(|| self.env_local.get(name).cloned())
    }

    /// Every secret value this run holds, for masking what else it shows.
    pub fn masks(&self) -> &Masks {
        &self.masks
    }

    /// Replaces every known secret value in `text`, so it can be shown or stored.
    pub fn redact(&self, text: &str) -> String {
        self.masks.redact(text)
    }

    /// Whether `text` shows a secret value, also in another case or split by spaces: what is
    /// refused outright rather than masked (`Masks::reveals`).
    pub fn reveals(&self, text: &str) -> bool {
        self.masks.reveals(text)
    }

    /// `value` with every secret masked in every string it holds: how a result, a report, a
    /// ledger record or stale evidence is made safe to store or send.
    pub fn redact_all<T: serde::Serialize + serde::de::DeserializeOwned>(&self, value: T) -> T {
        self.masks.redact_all(value)
    }
}

impl SecretSource for ProjectSecrets {
    /// Only names the manifest declares: a plan cannot read any other variable (a provider's
    /// key, `GITHUB_TOKEN`) by naming it. A TOTP secret's name gives the current code, worked
    /// out here and handed straight to the input, never the secret.
    fn resolve(&self, name: &str) -> Option<String> {
        if self
            .declared
            .binary_search_by(|n| n.as_str().cmp(name))
            .is_err()
        {
            return None;
        }
        let value = self.lookup(name)?;
        if self.totp.binary_search_by(|n| n.as_str().cmp(name)).is_ok() {
            return totp::TotpSecret::parse(&value).map(|s| s.current());
        }
        Some(value)
    }
}

/// The ENV names of the TOTP secrets `root`'s manifest declares (none when it has no manifest,
/// or one that does not parse, which loading the secrets reports): for the exporter, which
/// reads no value.
pub fn totp_names(root: &Path) -> Vec<String> {
    std::fs::read_to_string(root.join(Layout::MANIFEST_FILE))
        .ok()
        .and_then(|text| Manifest::parse(&text).ok())
        .map(|m| m.totp_names().into_iter().map(|(n, _)| n).collect())
        .unwrap_or_default()
}

/// `.env.local`'s variables; problems are added to `problems`.
fn read_env_local(root: &Path, problems: &mut Vec<InputError>) -> HashMap<String, String> {
    let env_path = root.join(Layout::ENV_LOCAL_FILE);
    let mut env_local = HashMap::new();
    if !env_path.exists() {
        return env_local;
    }
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
    env_local
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
        let s = ProjectSecrets::load(dir.path(), &Env::process()).unwrap();
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
        let err = ProjectSecrets::load(dir.path(), &Env::process())
            .err()
            .unwrap();
        assert_eq!(err.0[0].field, "accounts.admin.password");
        assert!(!err.0[0].problem.is_empty());
    }

    #[test]
    fn only_declared_names_resolve_and_config_named_secrets_are_masked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("e2e")).unwrap();
        std::fs::write(
            dir.path().join(Layout::MANIFEST_FILE),
            "accounts:\n  admin:\n    password: ADMIN_PASSWORD\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join(Layout::ENV_LOCAL_FILE),
            "PROVIDER_KEY=sk-local-key\n",
        )
        .unwrap();
        let env = Env::from_fn(|k| match k {
            "ADMIN_PASSWORD" => Some("pw-admin-1".into()),
            "CI_DEPLOY_KEY" => Some("deploy-key-9".into()),
            "DASH_TOKEN" => Some("wd_dash_token".into()),
            _ => None,
        });
        let mut s = ProjectSecrets::load(dir.path(), &env).unwrap();
        assert_eq!(s.resolve("ADMIN_PASSWORD").as_deref(), Some("pw-admin-1"));
        // Set in the environment, but not declared: a plan cannot read it.
        assert_eq!(s.resolve("CI_DEPLOY_KEY"), None);
        assert_eq!(s.resolve("PROVIDER_KEY"), None);
        assert_eq!(s.lookup("PROVIDER_KEY").as_deref(), Some("sk-local-key"));
        assert_eq!(
            s.redact("sk-local-key wd_dash_token"),
            "sk-local-key wd_dash_token"
        );
        s.mask_also(["PROVIDER_KEY", "DASH_TOKEN"]);
        assert_eq!(
            s.redact("sk-local-key wd_dash_token pw-admin-1"),
            "••• ••• •••"
        );
    }
}
