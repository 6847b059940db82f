//! `e2e/manifest.yaml`: the project's accounts, each field the ENV name of its value (never the
//! value) or, for two-factor sign-in, `{totp_secret: ENV_NAME}` (the ENV name of a base32 TOTP
//! secret, whose `value_ref` types the current one-time code), and the origins besides the
//! app's where the account signs in (single sign-on pages).

use std::collections::BTreeMap;

use serde::Deserialize;
use windup_model::InputError;

use super::fit::CredentialKind;
use crate::project::Layout;

/// `e2e/manifest.yaml`: accounts and the ENV names of their credentials.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// Account (`admin`) to its fields and sign-in origins:
    /// `accounts: {admin: {email: ADMIN_EMAIL, password: ADMIN_PASSWORD}}`.
    #[serde(default)]
    pub accounts: BTreeMap<String, Account>,
}

/// One account: its fields (`email`, `password`), each the ENV name of its value, and the
/// origins besides the app's where its credentials may be typed.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Account {
    /// Origins (`https://auth.example.com`) of the sign-on pages the account uses besides the
    /// app's own. Its credentials are typed there, and the app may navigate there.
    #[serde(default)]
    pub origins: Vec<String>,
    /// Field name to the ENV name of its value, or to a TOTP secret's.
    #[serde(flatten)]
    pub fields: BTreeMap<String, Field>,
}

/// One field of an account.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum Field {
    /// The ENV name of the value typed (`password: ADMIN_PASSWORD`).
    Env(String),
    /// A one-time code (`otp: {totp_secret: ADMIN_TOTP}`): `value_ref: ADMIN_TOTP` types the
    /// current RFC 6238 code computed from the base32 secret in `ADMIN_TOTP`, never the secret.
    Totp {
        /// The ENV name of the base32 secret.
        totp_secret: String,
    },
}

impl Field {
    /// The ENV name the field refers to (a plan's `value_ref`).
    pub fn env_name(&self) -> &str {
        match self {
            Field::Env(name) | Field::Totp { totp_secret: name } => name,
        }
    }
}

/// As prompts and messages name it: `ADMIN_PASSWORD`, or `ADMIN_TOTP (one-time code)`.
impl std::fmt::Display for Field {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Field::Env(name) => f.write_str(name),
            Field::Totp { totp_secret } => write!(f, "{totp_secret} (one-time code)"),
        }
    }
}

impl From<String> for Field {
    fn from(name: String) -> Field {
        Field::Env(name)
    }
}

impl Manifest {
    /// Parses the manifest's text; the problems name the field and never echo a value.
    pub fn parse(text: &str) -> Result<Manifest, Vec<InputError>> {
        let manifest = serde_norway::from_str::<Manifest>(text).map_err(|e| {
            vec![InputError::new(
                Layout::MANIFEST_FILE,
                "(file)",
                format!("not a valid manifest: {e}"),
                "write `accounts: {admin: {email: ADMIN_EMAIL, password: ADMIN_PASSWORD}}`, with `otp: {totp_secret: ADMIN_TOTP}` for a one-time code and `origins: [\"https://sso.example.com\"]` for a sign-on page on another origin",
            )]
        })?;
        let mut problems = Vec::new();
        for (account, a) in &manifest.accounts {
            for (field, f) in &a.fields {
                let name = f.env_name();
                if !is_env_name(name) {
                    let at = match f {
                        Field::Env(_) => format!("accounts.{account}.{field}"),
                        Field::Totp { .. } => format!("accounts.{account}.{field}.totp_secret"),
                    };
                    problems.push(InputError::new(
                        Layout::MANIFEST_FILE,
                        at,
                        // The value is not echoed: it may be the secret itself.
                        "this is not an ENV variable name".to_string(),
                        "write the NAME of the variable that holds the value (such as ADMIN_PASSWORD), never the value itself",
                    ));
                }
            }
            for (i, raw) in a.origins.iter().enumerate() {
                if let Err(problem) = parse_origin(raw) {
                    problems.push(InputError::new(
                        Layout::MANIFEST_FILE,
                        format!("accounts.{account}.origins[{i}]"),
                        problem.to_string(),
                        "write an http(s) origin such as \"https://auth.example.com\"",
                    ));
                }
            }
        }
        if problems.is_empty() {
            Ok(manifest)
        } else {
            Err(problems)
        }
    }

    /// Every ENV name the manifest mentions, sorted and unique.
    pub fn env_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self
            .accounts
            .values()
            .flat_map(|a| a.fields.values().map(|f| f.env_name().to_string()))
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// What the credential with the ENV name is, by its account field: a TOTP secret types a
    /// one-time code; a field named like `password`, `passcode`, `pin` or `secret` is a secret;
    /// any other (`email`, `username`, `phone`) an identifier. None when no account declares it.
    pub fn credential_kind(&self, env_name: &str) -> Option<CredentialKind> {
        const SECRET_WORDS: [&str; 9] = [
            "password",
            "passcode",
            "passphrase",
            "pass",
            "pwd",
            "pin",
            "secret",
            "token",
            "key",
        ];
        self.accounts
            .values()
            .flat_map(|a| &a.fields)
            .find(|(_, field)| field.env_name() == env_name)
            .map(|(key, field)| match field {
                Field::Totp { .. } => CredentialKind::OneTimeCode,
                Field::Env(_)
                    if key
                        .to_ascii_lowercase()
                        .split(['_', '-', '.'])
                        .any(|w| SECRET_WORDS.contains(&w)) =>
                {
                    CredentialKind::Secret
                }
                Field::Env(_) => CredentialKind::Identifier,
            })
    }

    /// The ENV names of TOTP secrets, with where each is declared (`accounts.admin.otp`).
    pub fn totp_names(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = self
            .accounts
            .iter()
            .flat_map(|(account, a)| {
                a.fields.iter().filter_map(move |(field, f)| match f {
                    Field::Totp { totp_secret } => Some((
                        totp_secret.clone(),
                        format!("accounts.{account}.{field}.totp_secret"),
                    )),
                    Field::Env(_) => None,
                })
            })
            .collect();
        out.sort();
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }

    /// Each credential's ENV name with the origins its account lists (besides the app's).
    pub fn credential_origins(&self) -> BTreeMap<String, Vec<url::Origin>> {
        let mut out: BTreeMap<String, Vec<url::Origin>> = BTreeMap::new();
        for a in self.accounts.values() {
            let origins: Vec<url::Origin> = a
                .origins
                .iter()
                .filter_map(|o| parse_origin(o).ok())
                .collect();
            for field in a.fields.values() {
                let entry = out.entry(field.env_name().to_string()).or_default();
                for o in &origins {
                    if !entry.contains(o) {
                        entry.push(o.clone());
                    }
                }
            }
        }
        out
    }
}

/// Why an account's `origins` entry is not an http(s) origin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum NotAnOrigin {
    /// A URL of another scheme.
    #[error("`{raw}` is a {scheme}: URL, not an http(s) origin")]
    Scheme { raw: String, scheme: String },
    /// No URL at all (the cause is in the message, so not also its source).
    #[error("`{raw}` is not a URL ({cause})")]
    NotAUrl { raw: String, cause: url::ParseError },
}

/// An http(s) origin, or why it is not one.
fn parse_origin(raw: &str) -> Result<url::Origin, NotAnOrigin> {
    match url::Url::parse(raw) {
        Ok(u) if matches!(u.scheme(), "http" | "https") => Ok(u.origin()),
        Ok(u) => Err(NotAnOrigin::Scheme {
            raw: raw.to_string(),
            scheme: u.scheme().to_string(),
        }),
        Err(cause) => Err(NotAnOrigin::NotAUrl {
            raw: raw.to_string(),
            cause,
        }),
    }
}

/// Whether `name` looks like an ENV variable name (`ADMIN_PASSWORD`).
fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accounts_list_fields_and_sign_on_origins() {
        let m = Manifest::parse(
            "accounts:\n  admin:\n    email: ADMIN_EMAIL\n    password: ADMIN_PASSWORD\n    origins: [\"https://auth.example.com\"]\n  viewer:\n    password: VIEWER_PASSWORD\n",
        )
        .unwrap();
        assert_eq!(
            m.env_names(),
            ["ADMIN_EMAIL", "ADMIN_PASSWORD", "VIEWER_PASSWORD"]
        );
        let origins = m.credential_origins();
        let auth = url::Url::parse("https://auth.example.com/")
            .unwrap()
            .origin();
        assert_eq!(origins["ADMIN_PASSWORD"], vec![auth]);
        assert!(origins["VIEWER_PASSWORD"].is_empty());
    }

    #[test]
    fn secret_fields_are_told_from_identifiers_by_their_field_name() {
        let m = Manifest::parse(
            "accounts:\n  admin:\n    email: ADMIN_EMAIL\n    password: ADMIN_PASSWORD\n    login_pin: ADMIN_PIN\n    username: ADMIN_USER\n    otp: {totp_secret: ADMIN_TOTP}\n",
        )
        .unwrap();
        let kind = |n| m.credential_kind(n);
        assert_eq!(kind("ADMIN_PASSWORD"), Some(CredentialKind::Secret));
        assert_eq!(kind("ADMIN_PIN"), Some(CredentialKind::Secret));
        assert_eq!(kind("ADMIN_EMAIL"), Some(CredentialKind::Identifier));
        assert_eq!(kind("ADMIN_USER"), Some(CredentialKind::Identifier));
        assert_eq!(kind("ADMIN_TOTP"), Some(CredentialKind::OneTimeCode));
        assert_eq!(kind("UNDECLARED"), None);
    }

    #[test]
    fn a_totp_field_names_its_secret_and_keeps_the_origin_rule() {
        let m = Manifest::parse(
            "accounts:\n  admin:\n    password: ADMIN_PASSWORD\n    otp: {totp_secret: ADMIN_TOTP}\n    origins: [\"https://auth.example.com\"]\n",
        )
        .unwrap();
        assert_eq!(m.env_names(), ["ADMIN_PASSWORD", "ADMIN_TOTP"]);
        assert_eq!(
            m.totp_names(),
            [(
                "ADMIN_TOTP".to_string(),
                "accounts.admin.otp.totp_secret".to_string()
            )]
        );
        let auth = url::Url::parse("https://auth.example.com/")
            .unwrap()
            .origin();
        assert_eq!(m.credential_origins()["ADMIN_TOTP"], vec![auth]);
        let err =
            Manifest::parse("accounts:\n  admin:\n    otp: {totp_secret: jbswy3dpehpk3pxp}\n")
                .map(|_| ())
                .unwrap_err();
        assert_eq!(err[0].field, "accounts.admin.otp.totp_secret");
        assert!(!err[0].problem.contains("jbswy3dpehpk3pxp"));
    }

    #[test]
    fn values_and_bad_origins_are_named_without_echoing_values() {
        let err = Manifest::parse(
            "accounts:\n  admin:\n    password: hunter2\n    origins: [\"javascript:alert(1)\"]\n",
        )
        .unwrap_err();
        let fields: Vec<&str> = err.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            ["accounts.admin.password", "accounts.admin.origins[0]"]
        );
        assert!(err.iter().all(|e| !e.problem.contains("hunter2")));
    }
}
