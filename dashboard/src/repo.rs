//! A GitHub repository's `owner/name`, held to GitHub's own naming rules, so that one can only
//! ever be a single owner segment and a single name segment of an API path.
//!
//! The repository a project's PR comments go to is a project setting (`projects.github_repo`),
//! written only through [`RepoName::parse`]; an upload's `pull_request.repo` is only compared
//! with it and never reaches a GitHub API path.

use std::fmt;

/// `owner/name`, both checked. GitHub compares both without regard to case.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoName {
    owner: String,
    name: String,
}

/// Longest owner login GitHub allows.
const MAX_OWNER: usize = 39;
/// Longest repository name GitHub allows.
const MAX_NAME: usize = 100;

/// What to write instead of a malformed `owner/name`.
const USAGE: &str = "write the repository as `owner/name`, e.g. `octo-org/shop`";

/// Why text is not a GitHub `owner/name`, in words that say what to write instead. Each
/// variant holds the text as given; its message echoes it safely (one bounded line).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RepoNameError {
    /// No `/` at all.
    #[error("`{}` has no `/`: {USAGE}", shown(.text))]
    NoSlash { text: String },
    /// More than one `/`.
    #[error("`{}` has more than one `/`: {USAGE}", shown(.text))]
    Slashes { text: String },
    /// The part before the `/` is no GitHub login.
    #[error(
        "the owner `{}` is not a GitHub user or organization name (1-{MAX_OWNER} letters, \
         digits and hyphens, not starting with a hyphen)",
        shown(.owner)
    )]
    Owner { owner: String },
    /// The part after the `/` is no GitHub repository name.
    #[error(
        "the name `{}` is not a GitHub repository name (1-{MAX_NAME} letters, digits, `.`, \
         `_` and `-`, not `.` or `..`)",
        shown(.name)
    )]
    Name { name: String },
}

impl RepoName {
    /// `owner/name` by GitHub's rules, or why not, in words that say what to write instead.
    ///
    /// Owner: 1-39 of `A-Z a-z 0-9 -`, not starting with `-` (logins made before GitHub's
    /// current rules may hold `--` or end in `-`, so those pass). Name: 1-100 of
    /// `A-Z a-z 0-9 . _ -`, and neither `.` nor `..`. Exactly one `/`; no spaces, `%`, `?`
    /// or `#`.
    pub fn parse(text: &str) -> Result<RepoName, RepoNameError> {
        let (owner, name) = text.split_once('/').ok_or_else(|| RepoNameError::NoSlash {
            text: text.to_string(),
        })?;
        if name.contains('/') {
            return Err(RepoNameError::Slashes {
                text: text.to_string(),
            });
        }
        let owner_ok = (1..=MAX_OWNER).contains(&owner.len())
            && !owner.starts_with('-')
            && owner
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-');
        if !owner_ok {
            return Err(RepoNameError::Owner {
                owner: owner.to_string(),
            });
        }
        let name_ok = (1..=MAX_NAME).contains(&name.len())
            && name != "."
            && name != ".."
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
        if !name_ok {
            return Err(RepoNameError::Name {
                name: name.to_string(),
            });
        }
        Ok(RepoName {
            owner: owner.to_string(),
            name: name.to_string(),
        })
    }

    pub fn owner(&self) -> &str {
        &self.owner
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether `text` names this repository (GitHub ignores case in both parts).
    pub fn is(&self, text: &str) -> bool {
        text.split_once('/').is_some_and(|(owner, name)| {
            owner.eq_ignore_ascii_case(&self.owner) && name.eq_ignore_ascii_case(&self.name)
        })
    }
}

impl fmt::Display for RepoName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.owner, self.name)
    }
}

/// Input echoed in an error: one line, bounded, control characters replaced.
fn shown(text: &str) -> String {
    let mut out: String = text
        .chars()
        .take(120)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if text.chars().count() > 120 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_names_pass() {
        for ok in [
            "octo/shop",
            "Octo-Org/shop.js",
            "a/b",
            "octo/.github",
            "octo/my_repo-2",
            "old--login-/x",
            &format!("{}/{}", "a".repeat(39), "b".repeat(100)),
        ] {
            let repo = RepoName::parse(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
            assert_eq!(repo.to_string(), ok);
        }
    }

    #[test]
    fn anything_that_could_leave_its_path_segment_is_refused() {
        for bad in [
            "",
            "octo",
            "/",
            "octo/",
            "/shop",
            "../..",
            "octo/..",
            "octo/.",
            "../shop",
            "octo/shop/issues",
            "octo//shop",
            "octo/shop/",
            "octo/sh%2e%2e",
            "octo/shop?x=1",
            "octo/shop#1",
            "octo/sh op",
            "oc to/shop",
            "-octo/shop",
            "octo_org/shop",
            "octo.org/shop",
            "octo/shöp",
            "octo/shop\n",
            "octo\\shop",
            &format!("{}/b", "a".repeat(40)),
            &format!("a/{}", "b".repeat(101)),
        ] {
            assert!(RepoName::parse(bad).is_err(), "{bad:?} passed");
        }
    }

    #[test]
    fn an_upload_names_the_repository_in_any_case() {
        let repo = RepoName::parse("Octo/Shop").unwrap();
        assert!(repo.is("octo/shop"));
        assert!(repo.is("OCTO/SHOP"));
        assert!(!repo.is("octo/shop2"));
        assert!(!repo.is("octo/shop/x"));
        assert!(!repo.is("victim/shop"));
        assert!(!repo.is("octoshop"));
    }

    #[test]
    fn errors_say_what_to_write_and_echo_input_safely() {
        let e = RepoName::parse("octo").unwrap_err().to_string();
        assert!(e.contains("owner/name"), "{e}");
        let e = RepoName::parse(&format!("x/{}\u{7}", "y".repeat(300)))
            .unwrap_err()
            .to_string();
        assert!(!e.contains('\u{7}') && e.len() < 400, "{e}");
    }
}
