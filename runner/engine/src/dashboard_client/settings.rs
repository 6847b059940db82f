//! The dashboard settings: `[dashboard]` of windup.toml with the URL flag and `--no-push`,
//! checked once so that a bad address or a pasted token is named before anything is sent.

use std::time::Duration;

use serde::Deserialize;
use windup_model::InputError;

/// The environment variable read for the API token when `[dashboard] token_env` names none.
pub const DEFAULT_TOKEN_ENV: &str = "WINDUP_DASHBOARD_TOKEN";
/// Milliseconds per HTTP attempt when `[dashboard] timeout_ms` is not set.
const DEFAULT_TIMEOUT_MS: u64 = 10_000;
/// Transient retries after the first attempt when `[dashboard] max_retries` is not set.
const DEFAULT_MAX_RETRIES: u32 = 3;

/// `[dashboard]` of windup.toml. Unknown keys are rejected with their name.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DashboardSection {
    /// The dashboard's address, such as `https://windup.example.com`; no dashboard when absent
    /// (and no `--dashboard-url` / `WINDUP_DASHBOARD_URL`).
    pub url: Option<String>,
    /// The NAME of the environment variable holding the API token (default
    /// `WINDUP_DASHBOARD_TOKEN`), never the token itself.
    pub token_env: Option<String>,
    /// Restore newer plans from the dashboard before a run (default true).
    pub restore: Option<bool>,
    /// Save plans verified in a run to the dashboard after it (default true).
    pub save: Option<bool>,
    /// Upload every run after it (default true); `windup push` uploads either way.
    pub push: Option<bool>,
    /// Per HTTP attempt (default 10000).
    pub timeout_ms: Option<u64>,
    /// Transient retries after the first attempt (default 3).
    pub max_retries: Option<u32>,
}

/// The dashboard settings in force.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Ends with `/`, so `api/v1/…` joins under any path prefix.
    pub url: url::Url,
    /// The NAME of the environment variable holding the API token.
    pub token_env: String,
    /// Restore newer plans from the dashboard before a run.
    pub restore: bool,
    /// Save plans verified in a run to the dashboard after it.
    pub save: bool,
    /// Upload the run after it (false with `--no-push`).
    pub push: bool,
    /// How long one HTTP attempt may take.
    pub timeout: Duration,
    /// Transient retries after the first attempt.
    pub max_retries: u32,
}

/// Resolves `[dashboard]` with `--dashboard-url` / `WINDUP_DASHBOARD_URL` (which wins) and
/// `--no-push`. `None`: no dashboard is configured.
pub fn settings(
    config_file: &str,
    section: &DashboardSection,
    url_override: Option<&str>,
    no_push: bool,
) -> Result<Option<Settings>, InputError> {
    // An empty WINDUP_DASHBOARD_URL (a CI variable that is not set) is no override.
    let url_override = url_override.filter(|u| !u.trim().is_empty());
    let (field, raw) = match (url_override, &section.url) {
        (Some(u), _) => ("--dashboard-url or WINDUP_DASHBOARD_URL", u),
        (None, Some(u)) => ("dashboard.url", u.as_str()),
        (None, None) => return Ok(None),
    };
    let raw = raw.trim();
    let mut url = match url::Url::parse(raw) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => u,
        _ => {
            return Err(InputError::new(
                config_file,
                field,
                format!("`{raw}` is not an http(s) URL"),
                "give the dashboard's address, such as https://windup.example.com",
            ));
        }
    };
    if !url.username().is_empty() || url.password().is_some() {
        return Err(InputError::new(
            config_file,
            field,
            "the URL carries credentials",
            format!(
                "remove them from the URL and export the token in {}",
                section.token_env.as_deref().unwrap_or(DEFAULT_TOKEN_ENV)
            ),
        ));
    }
    url.set_query(None);
    url.set_fragment(None);
    if !url.path().ends_with('/') {
        let path = format!("{}/", url.path());
        url.set_path(&path);
    }
    let token_env = section
        .token_env
        .clone()
        .unwrap_or_else(|| DEFAULT_TOKEN_ENV.to_string());
    if !is_env_name(&token_env) {
        // Never echo the value: it may be the token pasted in by mistake.
        return Err(InputError::new(
            config_file,
            "dashboard.token_env",
            "is not the name of an environment variable",
            "write the NAME of the variable that holds the token, such as WINDUP_DASHBOARD_TOKEN, never the token itself",
        ));
    }
    let timeout_ms = section.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS);
    if timeout_ms == 0 {
        return Err(InputError::new(
            config_file,
            "dashboard.timeout_ms",
            "a time-out of 0 ms lets no request finish",
            format!("remove it (default {DEFAULT_TIMEOUT_MS}) or give a number of milliseconds"),
        ));
    }
    let max_retries = section.max_retries.unwrap_or(DEFAULT_MAX_RETRIES);
    if max_retries > 10 {
        return Err(InputError::new(
            config_file,
            "dashboard.max_retries",
            format!("{max_retries} retries could stall a run for minutes"),
            "give at most 10 (default 3); failed uploads are spooled and sent later anyway",
        ));
    }
    Ok(Some(Settings {
        url,
        token_env,
        restore: section.restore.unwrap_or(true),
        save: section.save.unwrap_or(true),
        push: section.push.unwrap_or(true) && !no_push,
        timeout: Duration::from_millis(timeout_ms),
        max_retries,
    }))
}

fn is_env_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(url: &str) -> DashboardSection {
        DashboardSection {
            url: Some(url.into()),
            ..DashboardSection::default()
        }
    }

    #[test]
    fn settings_have_defaults_and_the_flag_wins() {
        assert_eq!(
            settings("windup.toml", &DashboardSection::default(), None, false).unwrap(),
            None,
            "no URL, no dashboard"
        );
        let s = settings(
            "windup.toml",
            &section("https://d.example/team"),
            None,
            false,
        )
        .unwrap()
        .unwrap();
        assert_eq!(s.url.as_str(), "https://d.example/team/");
        assert_eq!(s.token_env, DEFAULT_TOKEN_ENV);
        assert!(s.restore && s.save && s.push);
        let s = settings(
            "windup.toml",
            &section("https://d.example"),
            Some("http://127.0.0.1:9"),
            true,
        )
        .unwrap()
        .unwrap();
        assert_eq!(s.url.as_str(), "http://127.0.0.1:9/");
        assert!(!s.push, "--no-push");
        let s = settings(
            "windup.toml",
            &section("https://d.example"),
            Some(" "),
            false,
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            s.url.as_str(),
            "https://d.example/",
            "an empty override is none"
        );
    }

    #[test]
    fn bad_settings_name_the_field_and_never_echo_a_token() {
        let err = settings("windup.toml", &section("ftp://x"), None, false).unwrap_err();
        assert_eq!(err.field, "dashboard.url");
        let err = settings("windup.toml", &section("x"), Some("nope"), false).unwrap_err();
        assert_eq!(err.field, "--dashboard-url or WINDUP_DASHBOARD_URL");
        let pasted = DashboardSection {
            token_env: Some("wd_live secret-token-123".into()),
            ..section("https://d.example")
        };
        let err = settings("windup.toml", &pasted, None, false).unwrap_err();
        assert_eq!(err.field, "dashboard.token_env");
        assert!(!err.to_string().contains("secret-token-123"), "{err}");
        let zero = DashboardSection {
            timeout_ms: Some(0),
            ..section("https://d.example")
        };
        assert_eq!(
            settings("windup.toml", &zero, None, false)
                .unwrap_err()
                .field,
            "dashboard.timeout_ms"
        );
        let err = settings(
            "windup.toml",
            &section("https://u:p@d.example"),
            None,
            false,
        )
        .unwrap_err();
        assert!(err.problem.contains("credentials"), "{err}");
    }
}
