//! Project tokens: what each may do (scopes, the branches it may write the cache on), what it
//! is called and how long it lives; shown once when made, listed without the token, revoked.

use crate::error::ApiError;
use crate::secret::{self, Scope};
use crate::store::{NewToken, Project, Store, TokenInfo};
use crate::time::{display, now_ms};

/// What a new token may do, what it is called and how long it lives.
#[derive(Debug, Clone, Default)]
pub struct TokenRequest {
    /// Shown in the lists, e.g. `github-actions`; may be empty.
    pub name: String,
    pub scopes: Vec<String>,
    /// Branches the token may write the cache on (a glob).
    pub branch: Option<String>,
    /// `90d`, `12h` or `2w`; `None` (or empty): never expires.
    pub expires_in: Option<String>,
}

pub struct CreatedToken {
    /// Shown once; only its hash is stored.
    pub token: String,
    pub id: i64,
    pub name: String,
    pub scopes: Vec<String>,
    pub branch: Option<String>,
    pub expires_ms: Option<i64>,
}

impl std::fmt::Debug for CreatedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CreatedToken")
            .field("token", &"<redacted>")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("scopes", &self.scopes)
            .field("branch", &self.branch)
            .field("expires_ms", &self.expires_ms)
            .finish()
    }
}

/// A never-expiring token without a name: [`issue_token`] with the scopes and branch glob.
pub async fn create_token(
    store: &dyn Store,
    project: &Project,
    scopes: &[String],
    branch: Option<&str>,
) -> Result<CreatedToken, ApiError> {
    let request = TokenRequest {
        scopes: scopes.to_vec(),
        branch: branch.map(str::to_string),
        ..TokenRequest::default()
    };
    issue_token(store, project, &request).await
}

/// Longest token name, in characters.
const MAX_TOKEN_NAME: usize = 64;
/// Longest life a token can be given.
const MAX_EXPIRES_IN_DAYS: i64 = 3650;

/// Checks the request and stores a new token for `project`; the token itself is returned
/// once and never stored.
pub async fn issue_token(
    store: &dyn Store,
    project: &Project,
    request: &TokenRequest,
) -> Result<CreatedToken, ApiError> {
    let mut parsed: Vec<Scope> = Vec::new();
    for s in &request.scopes {
        let scope = Scope::parse(s).ok_or_else(|| {
            ApiError::unprocessable(
                "invalid_scope",
                format!("unknown scope `{s}`; use ingest, cache:read, cache:write or admin"),
            )
        })?;
        if !parsed.contains(&scope) {
            parsed.push(scope);
        }
    }
    if parsed.is_empty() {
        return Err(ApiError::unprocessable(
            "invalid_scope",
            "give at least one scope",
        ));
    }
    let branch = request
        .branch
        .as_deref()
        .map(str::trim)
        .filter(|b| !b.is_empty());
    if let Some(pattern) = branch
        && globset::Glob::new(pattern).is_err()
    {
        return Err(ApiError::unprocessable(
            "invalid_branch_pattern",
            format!("`{pattern}` is not a valid glob (e.g. `feature/*`)"),
        ));
    }
    let name = request.name.trim();
    if name.chars().count() > MAX_TOKEN_NAME || name.chars().any(char::is_control) {
        return Err(ApiError::unprocessable(
            "invalid_name",
            format!("a token's name is one line of at most {MAX_TOKEN_NAME} characters"),
        ));
    }
    let now = now_ms();
    let expires_ms = match request.expires_in.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(text) => Some(now + parse_expires_in(text)?),
    };
    let token = secret::new_project_token();
    let hash = secret::sha256_hex(&token);
    let scopes: Vec<String> = parsed.iter().map(|s| s.as_str().to_string()).collect();
    let joined = scopes.join(" ");
    let id = store
        .create_token(
            project.id,
            &NewToken {
                lookup: secret::lookup(&hash),
                sha256: &hash,
                scopes: &joined,
                branch_glob: branch,
                name,
                expires_ms,
                created_ms: now,
            },
        )
        .await?;
    Ok(CreatedToken {
        token,
        id,
        name: name.to_string(),
        scopes,
        branch: branch.map(str::to_string),
        expires_ms,
    })
}

/// `90d`, `12h` or `2w` in milliseconds: a whole number of hours, days or weeks, from an hour
/// to ten years.
pub fn parse_expires_in(text: &str) -> Result<i64, ApiError> {
    let bad = || {
        ApiError::unprocessable(
            "invalid_expires_in",
            format!(
                "`{text}` is not a lifetime: give a number of hours, days or weeks such as 12h, 90d or 2w (at most {MAX_EXPIRES_IN_DAYS}d)"
            ),
        )
    };
    let (split, _) = text.char_indices().last().ok_or_else(bad)?;
    let (number, unit) = text.split_at(split);
    let hours: i64 = match unit {
        "h" => 1,
        "d" => 24,
        "w" => 24 * 7,
        _ => return Err(bad()),
    };
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    let n: i64 = number.parse().map_err(|_| bad())?;
    let total_hours = n.checked_mul(hours).ok_or_else(bad)?;
    if n == 0 || total_hours > MAX_EXPIRES_IN_DAYS * 24 {
        return Err(bad());
    }
    Ok(total_hours * 3_600_000)
}

/// Revokes the project's token `id`: refused from then on, kept in the list.
pub async fn revoke_token(
    store: &dyn Store,
    project: &Project,
    id: i64,
) -> Result<TokenInfo, ApiError> {
    store
        .revoke_token(project.id, id, now_ms())
        .await?
        .ok_or_else(|| {
            ApiError::not_found(
                "no_token",
                format!("project `{}` has no token {id}", project.slug),
            )
        })
}

/// The project's tokens as a table for people (`token list`): one line each, never the token.
pub fn token_table(tokens: &[TokenInfo], now_ms: i64) -> String {
    let when = |ms: Option<i64>, none: &str| ms.map_or_else(|| none.to_string(), display);
    let mut rows = vec![
        [
            "ID",
            "NAME",
            "SCOPES",
            "BRANCHES",
            "CREATED",
            "LAST USED",
            "EXPIRES",
            "STATE",
        ]
        .map(str::to_string),
    ];
    for t in tokens {
        rows.push([
            t.id.to_string(),
            if t.name.is_empty() {
                "-".into()
            } else {
                t.name.clone()
            },
            t.scopes.replace(' ', ","),
            t.branch_glob.clone().unwrap_or_else(|| "*".into()),
            display(t.created_ms),
            when(t.last_used_ms, "never"),
            when(t.expires_ms, "never"),
            t.state(now_ms).as_str().to_string(),
        ]);
    }
    let mut widths = [0usize; 8];
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .zip(widths)
            .map(|(cell, w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(line.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_token_never_shows_in_debug_output() {
        let t = CreatedToken {
            token: "wdp_abc".into(),
            id: 1,
            name: "ci".into(),
            scopes: vec!["ingest".into()],
            branch: None,
            expires_ms: None,
        };
        assert!(!format!("{t:?}").contains("wdp_abc"));
    }

    #[test]
    fn lifetimes_are_hours_days_or_weeks() {
        assert_eq!(parse_expires_in("90d").unwrap(), 90 * 24 * 3_600_000);
        assert_eq!(parse_expires_in("12h").unwrap(), 12 * 3_600_000);
        assert_eq!(parse_expires_in("2w").unwrap(), 14 * 24 * 3_600_000);
        assert!(parse_expires_in("3650d").is_ok());
        for bad in [
            "",
            "d",
            "0d",
            "-1d",
            "+1d",
            "90",
            "90 d",
            "1y",
            "3651d",
            "99999999999999999999d",
            "1.5d",
            "9é",
        ] {
            let e = parse_expires_in(bad).unwrap_err();
            assert_eq!(e.code, "invalid_expires_in", "{bad}");
        }
    }

    #[test]
    fn the_table_lists_every_token_with_its_state_and_never_a_hash() {
        let token = |id, revoked_ms, expires_ms| TokenInfo {
            id,
            name: if id == 1 { "ci".into() } else { String::new() },
            scopes: "ingest cache:read".into(),
            branch_glob: (id == 2).then(|| "feature/*".into()),
            created_ms: 0,
            last_used_ms: (id == 1).then_some(60_000),
            expires_ms,
            revoked_ms,
        };
        let table = token_table(
            &[
                token(1, None, None),
                token(2, Some(5), None),
                token(3, None, Some(10)),
            ],
            100,
        );
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 4, "{table}");
        assert!(lines[0].starts_with("ID  NAME  SCOPES"), "{table}");
        assert!(
            lines[1].contains("ci") && lines[1].ends_with("active"),
            "{table}"
        );
        assert!(
            lines[1].contains("1970-01-01 00:01 UTC"),
            "last used: {table}"
        );
        assert!(lines[2].contains("feature/*") && lines[2].ends_with("revoked"));
        assert!(lines[3].ends_with("expired"));
    }
}
