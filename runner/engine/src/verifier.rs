//! Postconditions, all LLM-free: visible, hidden, url, value, count. Polled until they hold or
//! the step's time runs out.

use std::time::Duration;

use globset::{GlobBuilder, GlobMatcher};
use tokio::time::Instant;
use windup_model::{Expect, Part};

use crate::browser::injected::{self, CheckSpec, CountSpec, Observed, ValueSpec};
use crate::browser::{BrowserError, Session};
use crate::locator::Locator;

/// A compiled `expect`.
#[derive(Debug, Clone)]
pub struct Check {
    spec: CheckSpec,
    url: Option<(String, GlobMatcher)>,
}

/// Compiles a URL glob: `*` stays within a path segment, `**/` crosses segments.
pub fn url_glob(pattern: &str) -> Result<GlobMatcher, String> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| e.to_string())
}

/// The part of `url` a glob is matched against: path+query+fragment when it is on the base
/// URL's origin (plans stay portable across environments), the full URL otherwise.
pub fn url_for_match(url: &str, base: &url::Url) -> String {
    match url::Url::parse(url) {
        Ok(u) if u.origin() == base.origin() => {
            let mut s = u.path().to_string();
            if let Some(q) = u.query() {
                s.push('?');
                s.push_str(q);
            }
            if let Some(f) = u.fragment() {
                s.push('#');
                s.push_str(f);
            }
            s
        }
        _ => url.to_string(),
    }
}

impl Check {
    /// Parses every selector and the URL glob of `expect` once, before polling; the error
    /// names the bad selector or glob.
    pub fn compile(expect: &Expect) -> Result<Check, String> {
        let parts = |s: &str| -> Result<Vec<Part>, String> {
            Locator::parse(s)
                .map(|l| l.parts().to_vec())
                .map_err(|e| format!("bad selector `{s}`: {e}"))
        };
        let spec = CheckSpec {
            visible: expect.visible.as_deref().map(parts).transpose()?,
            hidden: expect.hidden.as_deref().map(parts).transpose()?,
            value: match &expect.value {
                Some(v) => Some(ValueSpec {
                    parts: parts(&v.selector)?,
                    equals: v.equals.clone(),
                }),
                None => None,
            },
            count: match &expect.count {
                Some(c) => Some(CountSpec {
                    parts: parts(&c.selector)?,
                    equals: c.equals,
                }),
                None => None,
            },
        };
        let url = match &expect.url {
            Some(p) => Some((p.clone(), url_glob(p)?)),
            None => None,
        };
        Ok(Check { spec, url })
    }

    /// Polls until every postcondition holds. On timeout, says which did not and what was seen.
    pub async fn wait(
        &self,
        session: &Session,
        base: &url::Url,
        expect: &Expect,
        deadline: Instant,
    ) -> Result<(), VerifyError> {
        const BACKOFF_MS: [u64; 6] = [0, 10, 20, 50, 100, 100];
        let mut attempt = 0;
        let mut last: Option<Observed> = None;
        loop {
            match injected::check(session, &self.spec).await {
                Ok(obs) => {
                    if !obs.navigating && self.failures(&obs, base, expect).is_empty() {
                        return Ok(());
                    }
                    last = Some(obs);
                }
                Err(BrowserError::ContextLost) => {}
                Err(e) => return Err(VerifyError::Browser(e)),
            }
            let pause = Duration::from_millis(BACKOFF_MS[attempt.min(BACKOFF_MS.len() - 1)]);
            attempt += 1;
            if Instant::now() + pause >= deadline {
                let message = match last {
                    Some(obs) => self.failures(&obs, base, expect).join("; "),
                    None => "the page never answered the check".into(),
                };
                return Err(VerifyError::NotMet(message));
            }
            tokio::time::sleep(pause).await;
        }
    }

    fn failures(&self, obs: &Observed, base: &url::Url, expect: &Expect) -> Vec<String> {
        let mut out = Vec::new();
        if let (Some(false), Some(s)) = (obs.visible, &expect.visible) {
            out.push(format!("expected `{s}` to be visible, but it is not"));
        }
        if let (Some(false), Some(s)) = (obs.hidden, &expect.hidden) {
            out.push(format!("expected `{s}` to be hidden, but it is visible"));
        }
        if let (Some(v), Some(e)) = (&obs.value, &expect.value)
            && !v.ok
        {
            match &v.actual {
                Some(a) => out.push(format!(
                    "expected `{}` to have value {:?}, but it is {:?}",
                    e.selector, e.equals, a
                )),
                None => out.push(format!(
                    "expected `{}` to have value {:?}, but it has no visible match",
                    e.selector, e.equals
                )),
            }
        }
        if let (Some(c), Some(e)) = (&obs.count, &expect.count)
            && !c.ok
        {
            out.push(format!(
                "expected {} visible matches of `{}`, found {}",
                e.equals, e.selector, c.actual
            ));
        }
        if let Some((pattern, glob)) = &self.url {
            let candidate = url_for_match(&obs.url, base);
            if !glob.is_match(&candidate) {
                out.push(format!(
                    "expected the URL to match `{pattern}`, but it is `{candidate}`"
                ));
            }
        }
        out
    }
}

/// Why postconditions were not verified.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The deadline passed with a postcondition still false: which ones, and what the page
    /// showed instead.
    #[error("{0}")]
    NotMet(String),
    /// The browser failed while checking (a replaced document is not one: it is checked
    /// again).
    #[error(transparent)]
    Browser(BrowserError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_origin_urls_match_on_their_path() {
        let base = url::Url::parse("http://127.0.0.1:8000/").unwrap();
        let u = url_for_match("http://127.0.0.1:8000/examples/vanillajs/#/active", &base);
        assert_eq!(u, "/examples/vanillajs/#/active");
        assert!(url_glob("**/#/active").unwrap().is_match(&u));
        assert!(url_glob("/examples/*/#/active").unwrap().is_match(&u));
        assert!(!url_glob("/examples/*").unwrap().is_match(&u));
        assert!(!url_glob("**/#/completed").unwrap().is_match(&u));
        let foreign = url_for_match("https://example.com/a?b=1", &base);
        assert_eq!(foreign, "https://example.com/a?b=1");
        assert!(
            url_glob("https://example.com/*")
                .unwrap()
                .is_match(&foreign)
        );
        assert_eq!(
            url_for_match("http://127.0.0.1:8000/search?q=x", &base),
            "/search?q=x"
        );
    }
}
