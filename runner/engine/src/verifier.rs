//! Postconditions, all LLM-free: visible, hidden, url, value, count. Polled until they hold or
//! the step's time runs out.

use globset::{GlobBuilder, GlobMatcher};
use tokio::time::Instant;
use windup_model::{Expect, Part};

use crate::browser::injected::{
    self, CheckSpec, CountObserved, CountSpec, Observed, ValueObserved, ValueSpec,
};
use crate::browser::{BrowserError, Realm, Session};
use crate::locator::{Locator, scopes};

/// A compiled `expect`.
#[derive(Debug, Clone)]
pub struct Check {
    spec: CheckSpec,
    url: Option<(String, GlobMatcher)>,
}

/// Compiles a URL glob: `*` stays within a path segment, `**/` crosses segments.
pub fn url_glob(pattern: &str) -> Result<GlobMatcher, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
}

/// A postcondition that cannot be checked: the selector or glob it names does not parse.
#[derive(Debug, thiserror::Error)]
pub enum CompileError {
    /// A selector of the check.
    #[error("bad selector `{selector}`: {reason}")]
    Selector {
        /// The selector as written.
        selector: String,
        /// Why it does not parse.
        reason: windup_model::SelectorError,
    },
    /// The URL glob.
    #[error("bad URL glob `{pattern}`: {reason}")]
    Glob {
        /// The glob as written.
        pattern: String,
        /// Why it does not compile.
        reason: globset::Error,
    },
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

/// Observes `spec` once in every realm its selectors search (`locator::scopes`): the URL and
/// whether the document is being left come from the top document; `visible` holds when any
/// realm has a visible match, `hidden` when none has; `value` reads the first realm with a
/// visible match; `count` adds the realms' visible matches up.
async fn observe(session: &Session, spec: &CheckSpec) -> Result<Observed, BrowserError> {
    let mut asks: Vec<(Realm, CheckSpec)> = vec![(Realm::top(), CheckSpec::default())];
    fn ask(asks: &mut Vec<(Realm, CheckSpec)>, realm: Realm) -> &mut CheckSpec {
        let at = match asks.iter().position(|(r, _)| *r == realm) {
            Some(i) => i,
            None => {
                asks.push((realm, CheckSpec::default()));
                asks.len() - 1
            }
        };
        &mut asks[at].1
    }
    if let Some(parts) = &spec.visible {
        for (realm, parts) in scopes(session, parts).await? {
            ask(&mut asks, realm).visible = Some(parts);
        }
    }
    if let Some(parts) = &spec.hidden {
        for (realm, parts) in scopes(session, parts).await? {
            ask(&mut asks, realm).hidden = Some(parts);
        }
    }
    if let Some(v) = &spec.value {
        for (realm, parts) in scopes(session, &v.parts).await? {
            ask(&mut asks, realm).value = Some(ValueSpec {
                parts,
                equals: v.equals.clone(),
            });
        }
    }
    if let Some(c) = &spec.count {
        for (realm, parts) in scopes(session, &c.parts).await? {
            ask(&mut asks, realm).count = Some(CountSpec {
                parts,
                equals: c.equals,
            });
        }
    }
    let mut all: Option<Observed> = None;
    for (realm, one) in &asks {
        let obs = injected::check(session.page(), realm, one).await?;
        let Some(total) = all.as_mut() else {
            // The top document's answer: the URL and navigation state are its own.
            all = Some(Observed {
                visible: spec.visible.as_ref().map(|_| obs.visible == Some(true)),
                hidden: spec.hidden.as_ref().map(|_| obs.hidden != Some(false)),
                value: spec.value.as_ref().map(|_| {
                    obs.value.unwrap_or(ValueObserved {
                        ok: false,
                        actual: None,
                    })
                }),
                count: spec.count.as_ref().map(|c| {
                    let actual = obs.count.map(|n| n.actual).unwrap_or(0);
                    CountObserved {
                        ok: actual == c.equals,
                        actual,
                    }
                }),
                ..obs
            });
            continue;
        };
        if obs.visible == Some(true) {
            total.visible = Some(true);
        }
        if obs.hidden == Some(false) {
            total.hidden = Some(false);
        }
        if let (Some(v), Some(seen)) = (total.value.as_mut(), obs.value)
            && v.actual.is_none()
        {
            *v = seen;
        }
        if let (Some(c), Some(seen), Some(want)) = (total.count.as_mut(), obs.count, &spec.count) {
            c.actual += seen.actual;
            c.ok = c.actual == want.equals;
        }
    }
    Ok(all.expect("the top document is always asked"))
}

impl Check {
    /// Parses every selector and the URL glob of `expect` once, before polling; the error
    /// names the bad selector or glob.
    pub fn compile(expect: &Expect) -> Result<Check, CompileError> {
        let parts = |s: &str| -> Result<Vec<Part>, CompileError> {
            Locator::parse(s)
                .map(|l| l.parts().to_vec())
                .map_err(|reason| CompileError::Selector {
                    selector: s.to_string(),
                    reason,
                })
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
            Some(p) => Some((
                p.clone(),
                url_glob(p).map_err(|reason| CompileError::Glob {
                    pattern: p.clone(),
                    reason,
                })?,
            )),
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
        let mut attempt = 0;
        let mut last: Option<Observed> = None;
        loop {
            match observe(session, &self.spec).await {
                Ok(obs) => {
                    if !obs.navigating && self.failures(&obs, base, expect).is_empty() {
                        return Ok(());
                    }
                    last = Some(obs);
                }
                Err(BrowserError::ContextLost) => {}
                Err(e) => return Err(VerifyError::Browser(e)),
            }
            let pause = crate::timeouts::poll_pause(attempt);
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

    /// Whether every postcondition holds now, read once (after a document being replaced has
    /// settled, for at most a second): a plan's check that already holds before its step runs
    /// proves nothing.
    pub async fn holds_now(
        &self,
        session: &Session,
        base: &url::Url,
        expect: &Expect,
    ) -> Result<bool, BrowserError> {
        let settle = Instant::now() + std::time::Duration::from_secs(1);
        let mut attempt = 0;
        loop {
            match observe(session, &self.spec).await {
                Ok(obs) if !obs.navigating || Instant::now() >= settle => {
                    return Ok(!obs.navigating && self.failures(&obs, base, expect).is_empty());
                }
                Ok(_) | Err(BrowserError::ContextLost) => {}
                Err(e) => return Err(e),
            }
            if Instant::now() >= settle {
                return Ok(false);
            }
            tokio::time::sleep(crate::timeouts::poll_pause(attempt)).await;
            attempt += 1;
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
