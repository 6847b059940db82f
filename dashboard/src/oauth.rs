//! GitHub sign-in, the OAuth app's user flow (web application flow), from the dashboard's side:
//! the address that sends a person to GitHub to authorise, the code GitHub sends back exchanged
//! for a user token (`POST {web}/login/oauth/access_token`), and what the dashboard reads with
//! it: the user (`GET {api}/user`), their verified emails (`GET {api}/user/emails`) and their
//! membership of a team (`GET {api}/orgs/{org}/teams/{team}/memberships/{user}`). Both bases are
//! configurable (GitHub Enterprise, or a fake in tests). The user token is used for this sign-in
//! only and never stored.

use std::time::Duration;

use axum::http::header::ACCEPT;
use octocrab::Octocrab;
use serde::{Deserialize, Serialize};

/// The OAuth app the dashboard signs people in with. `Debug` hides the secret.
#[derive(Clone)]
pub struct GithubSignIn {
    pub client_id: String,
    pub client_secret: String,
    /// `https://github.com`, or a GitHub Enterprise server's `https://HOST`.
    pub web_url: String,
    /// `https://api.github.com`, or `https://HOST/api/v3`.
    pub api_url: String,
}

impl std::fmt::Debug for GithubSignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GithubSignIn")
            .field("client_id", &self.client_id)
            .field("client_secret", &"<redacted>")
            .field("web_url", &self.web_url)
            .field("api_url", &self.api_url)
            .finish()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum OauthError {
    /// GitHub did not take the code (expired, used, or not ours): GitHub's `error` field.
    #[error("GitHub refused the sign-in code ({0})")]
    Refused(String),
    #[error("GitHub answered {status}: {message}")]
    GitHub { status: u16, message: String },
    #[error("GitHub unreachable or its answer unreadable: {0}")]
    Transport(String),
}

impl From<octocrab::Error> for OauthError {
    fn from(e: octocrab::Error) -> Self {
        match e {
            octocrab::Error::GitHub { source, .. } => OauthError::GitHub {
                status: source.status_code.as_u16(),
                message: source.message.clone(),
            },
            other => OauthError::Transport(other.to_string()),
        }
    }
}

/// A user token, for this sign-in only. `Debug` hides it.
pub struct UserToken(String);

impl std::fmt::Debug for UserToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UserToken(<redacted>)")
    }
}

/// Who signed in: GitHub's numeric id (stable across renames), the login, and the emails
/// GitHub has verified, the primary one first. Unverified emails are left out here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GithubIdentity {
    pub id: i64,
    pub login: String,
    pub verified_emails: Vec<String>,
}

#[derive(Serialize)]
struct CodeExchange<'a> {
    client_id: &'a str,
    client_secret: &'a str,
    code: &'a str,
    redirect_uri: &'a str,
}

/// The token endpoint's answer: a token, or (with status 200) an error.
#[derive(Deserialize)]
struct TokenAnswer {
    access_token: Option<String>,
    error: Option<String>,
}

#[derive(Deserialize)]
struct User {
    id: i64,
    login: String,
}

#[derive(Deserialize)]
struct Email {
    email: String,
    #[serde(default)]
    primary: bool,
    #[serde(default)]
    verified: bool,
}

#[derive(Deserialize)]
struct TeamMembership {
    state: String,
}

/// GitHub's logins and org and team slugs: letters, digits, `-`, `_` and `.`; anything else
/// never goes into a path.
pub fn valid_github_name(name: &str) -> bool {
    (1..=100).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        && !name.starts_with('.')
}

impl GithubSignIn {
    /// The scopes asked for: the profile and emails, and `read:org` when a team mapping needs
    /// to read team memberships.
    pub fn scopes(read_org: bool) -> &'static str {
        if read_org {
            "read:user user:email read:org"
        } else {
            "read:user user:email"
        }
    }

    /// Where to send the person: GitHub's authorisation page for this app, which comes back
    /// to `redirect_uri` with a code and `state`.
    pub fn authorize_url(&self, redirect_uri: &str, state: &str, read_org: bool) -> String {
        let query = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("client_id", &self.client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("scope", Self::scopes(read_org))
            .append_pair("state", state)
            .append_pair("allow_signup", "false")
            .finish();
        format!(
            "{}/login/oauth/authorize?{query}",
            self.web_url.trim_end_matches('/')
        )
    }

    /// A client for `base`: as the user when given their token; asking for JSON when told
    /// (the token endpoint answers form-encoded without it).
    fn client(base: &str, token: Option<&UserToken>, json: bool) -> Result<Octocrab, OauthError> {
        let mut builder = Octocrab::builder()
            .base_uri(base)
            .map_err(|e| OauthError::Transport(format!("the GitHub URL `{base}`: {e}")))?
            .set_connect_timeout(Some(Duration::from_secs(5)))
            .set_read_timeout(Some(Duration::from_secs(15)));
        if json {
            builder = builder.add_header(ACCEPT, "application/json".into());
        }
        let built = match token {
            Some(token) => builder.user_access_token(token.0.clone()).build(),
            None => builder.build(),
        };
        Ok(built?)
    }

    /// Exchanges the code GitHub sent back for a user token.
    pub async fn exchange(&self, code: &str, redirect_uri: &str) -> Result<UserToken, OauthError> {
        let crab = Self::client(&self.web_url, None, true)?;
        let answer: TokenAnswer = crab
            .post(
                "/login/oauth/access_token",
                Some(&CodeExchange {
                    client_id: &self.client_id,
                    client_secret: &self.client_secret,
                    code,
                    redirect_uri,
                }),
            )
            .await?;
        match (answer.access_token, answer.error) {
            (Some(token), None) if !token.is_empty() => Ok(UserToken(token)),
            (_, error) => Err(OauthError::Refused(
                error.unwrap_or_else(|| "no access_token".into()),
            )),
        }
    }

    /// The user and their verified emails.
    pub async fn identity(&self, token: &UserToken) -> Result<GithubIdentity, OauthError> {
        let crab = Self::client(&self.api_url, Some(token), false)?;
        let user: User = crab.get("/user", None::<&()>).await?;
        let mut emails: Vec<Email> = crab.get("/user/emails", None::<&()>).await?;
        emails.retain(|e| e.verified);
        emails.sort_by_key(|e| !e.primary);
        Ok(GithubIdentity {
            id: user.id,
            login: user.login,
            verified_emails: emails.into_iter().map(|e| e.email.to_lowercase()).collect(),
        })
    }

    /// Whether `login` is an active member of `org`'s team `team` (a pending invitation is
    /// not membership).
    pub async fn in_team(
        &self,
        token: &UserToken,
        org: &str,
        team: &str,
        login: &str,
    ) -> Result<bool, OauthError> {
        if ![org, team, login].into_iter().all(valid_github_name) {
            return Ok(false);
        }
        let crab = Self::client(&self.api_url, Some(token), false)?;
        let route = format!("/orgs/{org}/teams/{team}/memberships/{login}");
        match crab.get::<TeamMembership, _, ()>(route, None).await {
            Ok(m) => Ok(m.state == "active"),
            Err(octocrab::Error::GitHub { source, .. }) if source.status_code.as_u16() == 404 => {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn app() -> GithubSignIn {
        GithubSignIn {
            client_id: "Iv1.abc".into(),
            client_secret: "shh-secret".into(),
            web_url: "https://github.com/".into(),
            api_url: "https://api.github.com".into(),
        }
    }

    #[test]
    fn the_secret_never_shows_and_the_authorize_url_carries_the_state() {
        let shown = format!("{:?} {:?}", app(), UserToken("gho_x".into()));
        assert!(
            !shown.contains("shh-secret") && !shown.contains("gho_x"),
            "{shown}"
        );
        let url = app().authorize_url("https://dash.example/auth/github/callback", "s1", false);
        assert_eq!(
            url,
            "https://github.com/login/oauth/authorize?client_id=Iv1.abc&redirect_uri=https%3A%2F%2Fdash.example%2Fauth%2Fgithub%2Fcallback&scope=read%3Auser+user%3Aemail&state=s1&allow_signup=false"
        );
        assert!(app().authorize_url("x", "s", true).contains("read%3Aorg"));
    }

    #[test]
    fn github_names_never_carry_a_path() {
        assert!(valid_github_name("acme-inc") && valid_github_name("qa_team.1"));
        for bad in [
            "",
            "..",
            ".x",
            "a/b",
            "a?b",
            "a%2F",
            "a b",
            &"a".repeat(101),
        ] {
            assert!(!valid_github_name(bad), "{bad}");
        }
    }
}
