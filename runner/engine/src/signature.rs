//! Structural page identity: SHA-256 of the page's visible interactive elements as
//! `tag|role|type`, with no text and no data, so environment noise does not split identities.
//!
//! Counts are noise too: a list of 3 rows and one of 30 are the same page. Before hashing, a
//! block of up to [`MAX_PERIOD`] tokens repeated back to back is kept once (`a b a b a b` reads
//! as `a b`). So a control added or removed changes the signature unless it sits right beside
//! one exactly like it (a third "Delete" button after two reads as a longer list).

use sha2::{Digest, Sha256};

use crate::browser::{BrowserError, Session, injected};

/// The longest repeated block (a list row's controls) that is collapsed.
pub const MAX_PERIOD: usize = 8;

/// The tokens with every run of a repeated block kept once, in page order.
pub fn normalize(tokens: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::with_capacity(tokens.len());
    for t in tokens {
        out.push(t);
        // Collapsing one repetition can expose another (`a a b a b` → `a b a b` → `a b`).
        'collapse: loop {
            let n = out.len();
            for p in 1..=MAX_PERIOD.min(n / 2) {
                if out[n - 2 * p..n - p] == out[n - p..] {
                    out.truncate(n - p);
                    continue 'collapse;
                }
            }
            break;
        }
    }
    out
}

/// `sha256:<hex>` of the normalized tokens, one per line, in page order.
pub fn hash(tokens: &[String]) -> String {
    let mut hasher = Sha256::new();
    for t in normalize(tokens) {
        hasher.update(t.as_bytes());
        hasher.update(b"\n");
    }
    format!("sha256:{}", hex::encode(hasher.finalize()))
}

/// The signature `now`, when it is known and differs from the one a plan was verified on.
pub fn changed(verified: Option<&str>, now: Option<&str>) -> Option<String> {
    match (verified, now) {
        (Some(v), Some(n)) if v != n => Some(n.to_string()),
        _ => None,
    }
}

/// The current page's signature.
pub async fn of_page(session: &Session) -> Result<String, BrowserError> {
    let tokens = injected::signature(session.page()).await?;
    Ok(hash(&tokens))
}

/// How many of a page's first controls a `PageSeen` carries, for the site map's inventory.
pub const SEEN_CONTROLS: usize = 40;

/// A page as the site map keeps it.
#[derive(Debug, Clone)]
pub struct Observed {
    /// Its structural signature.
    pub signature: String,
    /// Its title.
    pub title: String,
    /// Its first controls as (role, accessible name).
    pub controls: Vec<(String, String)>,
}

/// The current page's signature, title and first `limit` controls, read in one call.
pub async fn observe(session: &Session, limit: usize) -> Result<Observed, BrowserError> {
    let inv = injected::inventory(session.page(), limit).await?;
    Ok(Observed {
        signature: hash(&inv.tokens),
        title: inv.title,
        controls: inv.controls,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    // A page: a nav of links, a search box, a list of rows (link + button each), a form.
    fn page(rows: usize) -> Vec<String> {
        let mut t = toks("a|link| a|link| a|link| input|searchbox|search");
        for _ in 0..rows {
            t.extend(toks("a|link| button|button|"));
        }
        t.extend(toks(
            "input|textbox|text input|textbox|email button|button|",
        ));
        t
    }

    #[test]
    fn counts_do_not_change_the_signature() {
        assert_eq!(hash(&page(1)), hash(&page(3)));
        assert_eq!(hash(&page(3)), hash(&page(250)));
        // A nav of 3 links and one of 7.
        let mut more_links = toks("a|link| a|link| a|link| a|link| a|link| a|link| a|link|");
        more_links.extend(page(2).into_iter().skip(3));
        assert_eq!(hash(&more_links), hash(&page(2)));
    }

    #[test]
    fn a_control_added_or_removed_changes_the_signature() {
        let base = page(3);
        let mut added = base.clone();
        added.insert(3, "select|combobox|".into());
        assert_ne!(hash(&base), hash(&added));
        let mut removed = base.clone();
        removed.retain(|t| t != "input|searchbox|search");
        assert_ne!(hash(&base), hash(&removed));
        let mut typed = base.clone();
        let last = typed.len() - 2;
        typed[last] = "input|textbox|password".into();
        assert_ne!(hash(&base), hash(&typed));
    }

    #[test]
    fn an_empty_list_is_a_different_page_from_a_full_one() {
        // No row at all means the row's controls are absent: a structural difference.
        assert_ne!(hash(&page(0)), hash(&page(1)));
    }

    #[test]
    fn normalize_collapses_nested_repetition() {
        assert_eq!(normalize(&toks("a a b a b c")), vec!["a", "b", "c"]);
        assert_eq!(
            normalize(&toks("x a b c a b c a b c y")),
            vec!["x", "a", "b", "c", "y"]
        );
    }

    #[test]
    fn changed_needs_both_signatures() {
        assert_eq!(changed(Some("s1"), Some("s2")), Some("s2".into()));
        assert_eq!(changed(Some("s1"), Some("s1")), None);
        assert_eq!(changed(None, Some("s2")), None);
        assert_eq!(changed(Some("s1"), None), None);
    }
}
