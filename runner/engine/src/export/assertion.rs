//! A step's postconditions as Playwright assertions, each checking what Windup's verifier
//! checks: `visible` → `toBeVisible` on the first visible match, `hidden` → `toBeHidden` on it
//! (so no visible match), `url` → `toHaveURL` with the glob's regular expression, `value` →
//! `toHaveValue` on a form control and `toHaveText` elsewhere, `count` → `toHaveCount` on the
//! visible matches; each on the plain locator where `resolve` knows that is the same.
//!
//! The URL glob is the verifier's own (`verifier::url_glob`: globset, `*` within a path
//! segment, `**/` across them), and its regular expression is the one globset compiles, so the
//! two cannot drift. Windup matches the glob against path, query and fragment of a URL on the
//! app's origin and against the whole URL elsewhere; `toHaveURL` sees the whole URL, so the
//! expression accepts either: any origin followed by a match, or a whole-URL match. (Windup
//! holds a run to the app's origins, so the origin it would compare is the app's.)

use windup_model::{Expect, Part, Selector};

use super::resolve::Sites;
use super::ts;

/// A check (or a download's name) that cannot be written as Playwright: a selector or glob
/// that does not parse, or an expression globset compiled that has no JavaScript reading.
/// Each cause is in the message, so none is also a source.
#[derive(Debug, thiserror::Error)]
pub(super) enum Untranslatable {
    /// A postcondition's selector does not parse.
    #[error("bad selector `{selector}`: {cause}")]
    Selector {
        selector: String,
        cause: windup_model::SelectorError,
    },
    /// A `url` postcondition's glob does not parse.
    #[error("bad URL glob `{glob}`: {cause}")]
    UrlGlob { glob: String, cause: globset::Error },
    /// An `expect.download.name` glob does not parse.
    #[error("bad file name glob `{glob}`: {cause}")]
    FileNameGlob { glob: String, cause: globset::Error },
    /// globset's expression is not in the form `(?-u)^…$`.
    #[error("unexpected glob expression `{expression}`")]
    Expression { expression: String },
    /// globset's expression ends in a `\`.
    #[error("dangling escape in `{expression}`")]
    DanglingEscape { expression: String },
    /// globset's expression has a group other than `(?:…)`.
    #[error("unexpected group in glob expression `{expression}`")]
    Group { expression: String },
}

/// Which Playwright assertion reads a `value` postcondition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ValueCheck {
    /// The target is an input or textarea whatever the page does: `toHaveValue`.
    Control,
    /// Known only in the page: the spec's `expectValue` helper picks by the element's tag.
    ByTag,
}

/// How `value` is checked for a selector: `placeholder=` only ever matches inputs and
/// textareas; anything else may match a control or not, decided in the page.
pub(super) fn value_check(selector: &Selector) -> ValueCheck {
    let last = selector
        .parts
        .iter()
        .rev()
        .find(|p| !matches!(p, Part::HasText { .. } | Part::Nth { .. }));
    match last {
        Some(Part::Placeholder { .. }) => ValueCheck::Control,
        _ => ValueCheck::ByTag,
    }
}

/// A step's postconditions as statements, and whether they call the spec's `expectValue`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Written {
    /// One awaited assertion per line, in the verifier's order.
    pub lines: Vec<String>,
    /// A `value` check is decided by the element's tag in the page (`expectValue`).
    pub value_helper: bool,
}

/// The assertion statements for `expect`, in the verifier's order, each awaited; `timeout` is
/// the step's own limit when it sets one. Each check's locator is written as `sites` resolves
/// it, at the site `<site>.visible`, `<site>.hidden`, `<site>.value` or `<site>.count`.
/// Selectors were checked when the plan was read.
pub(super) fn assertions(
    page: &str,
    expect: &Expect,
    timeout: Option<u64>,
    sites: Sites<'_>,
    site: &str,
) -> Result<Written, Untranslatable> {
    let opt = |extra: &str| match timeout {
        Some(ms) if extra.is_empty() => format!("{{ timeout: {ms} }}"),
        Some(ms) => format!(", {{ timeout: {ms} }}"),
        None => String::new(),
    };
    let parse = |s: &str| {
        Selector::parse(s).map_err(|cause| Untranslatable::Selector {
            selector: s.to_string(),
            cause,
        })
    };
    let mut out = Written::default();
    if let Some(glob) = &expect.url {
        out.lines.push(format!(
            "await expect({page}).toHaveURL({}{});",
            ts::regexp(&url_regex(glob)?),
            opt(",")
        ));
    }
    if let Some(s) = &expect.visible {
        let check = format!("toBeVisible({})", opt(""));
        let at = format!("{site}.visible");
        out.lines.push(format!(
            "await {};",
            sites.expect(page, &at, &parse(s)?, &check)
        ));
    }
    if let Some(s) = &expect.hidden {
        let check = format!("toBeHidden({})", opt(""));
        let at = format!("{site}.hidden");
        out.lines.push(format!(
            "await {};",
            sites.expect(page, &at, &parse(s)?, &check)
        ));
    }
    if let Some(v) = &expect.value {
        let selector = parse(&v.selector)?;
        let at = format!("{site}.value");
        let equals = ts::string(&v.equals);
        let control = match value_check(&selector) {
            ValueCheck::Control => Some(true),
            ValueCheck::ByTag => sites.control(&at),
        };
        let line = match (control, sites) {
            (Some(true), _) => sites.expect(
                page,
                &at,
                &selector,
                &format!("toHaveValue({equals}{})", opt(",")),
            ),
            (Some(false), _) => sites.expect(
                page,
                &at,
                &selector,
                &format!("toHaveText({equals}{})", opt(",")),
            ),
            // The probe's helper notes which the element was.
            (None, Sites::Probe) => {
                out.value_helper = true;
                let options = match timeout {
                    Some(ms) => format!("{{ timeout: {ms} }}"),
                    None => "undefined".into(),
                };
                sites.with(page, &at, &selector, |l| {
                    format!("expectValue({l}, {equals}, {options}, {})", ts::string(&at))
                })
            }
            (None, _) => {
                out.value_helper = true;
                sites.with(page, &at, &selector, |l| {
                    format!("expectValue({l}, {equals}{})", opt(","))
                })
            }
        };
        out.lines.push(format!("await {line};"));
    }
    if let Some(c) = &expect.count {
        let at = format!("{site}.count");
        let args = format!("{}{}", c.equals, opt(","));
        out.lines.push(format!(
            "await {};",
            sites.count(page, &at, &parse(&c.selector)?, &args)
        ));
    }
    Ok(out)
}

/// The JavaScript pattern for a URL glob, from the regular expression globset compiles for the
/// verifier: `^(?:ORIGIN(?:G)|(?:G))$`, where `G` is the glob's expression and `ORIGIN` any
/// `scheme://host[:port]`.
pub(super) fn url_regex(glob: &str) -> Result<String, Untranslatable> {
    let matcher = crate::verifier::url_glob(glob).map_err(|cause| Untranslatable::UrlGlob {
        glob: glob.to_string(),
        cause,
    })?;
    let inner = js_pattern(matcher.glob().regex())?;
    Ok(format!(
        "^(?:[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]+(?:{inner})|(?:{inner}))$"
    ))
}

/// globset's expression (Rust `regex` syntax, bytes mode) as a JavaScript pattern (no flags).
/// globset writes `(?-u)^…$` with literals escaped by `regex_syntax::escape` (identity escapes
/// such as `\#` and `\-`, valid in a JavaScript pattern without the `u` flag), non-ASCII bytes
/// as `\xHH`, and only the constructs `[^/]`, `.*`, `(?:…|…)`, classes and `[^\s\S]`. A URL as a
/// browser reports it is ASCII, so a byte escape matches it in neither language. Anything else
/// is refused rather than guessed at.
pub(super) fn js_pattern(rust: &str) -> Result<String, Untranslatable> {
    let expression = || rust.to_string();
    let body = rust
        .strip_prefix("(?-u)")
        .and_then(|r| r.strip_prefix('^'))
        .and_then(|r| r.strip_suffix('$'))
        .ok_or_else(|| Untranslatable::Expression {
            expression: expression(),
        })?;
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let next = chars.next().ok_or_else(|| Untranslatable::DanglingEscape {
                    expression: expression(),
                })?;
                out.push('\\');
                out.push(next);
            }
            '(' if chars.peek() == Some(&'?') => {
                chars.next();
                if chars.next() != Some(':') {
                    return Err(Untranslatable::Group {
                        expression: expression(),
                    });
                }
                out.push_str("(?:");
            }
            c => out.push(c),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use windup_model::{CountExpect, ValueExpect};

    #[test]
    fn visible_and_hidden_read_the_first_visible_match() {
        let e = Expect {
            visible: Some(r#"text="Walk dog""#.into()),
            hidden: Some(r#"text="Buy milk""#.into()),
            ..Expect::default()
        };
        assert_eq!(
            assertions("page", &e, None, Sites::Unknown, "a1")
                .unwrap()
                .lines,
            [
                r#"await expect(page.getByText("Walk dog", { exact: true }).filter({ visible: true }).first()).toBeVisible();"#,
                r#"await expect(page.getByText("Buy milk", { exact: true }).filter({ visible: true }).first()).toBeHidden();"#,
            ]
        );
    }

    #[test]
    fn count_counts_visible_matches() {
        let e = Expect {
            count: Some(CountExpect {
                selector: "css=#todo-list li".into(),
                equals: 1,
            }),
            ..Expect::default()
        };
        assert_eq!(
            assertions("page", &e, Some(800), Sites::Unknown, "a1")
                .unwrap()
                .lines,
            [
                r##"await expect(page.locator("#todo-list li").filter({ visible: true })).toHaveCount(1, { timeout: 800 });"##
            ]
        );
    }

    #[test]
    fn value_is_to_have_value_on_inputs_and_decided_by_tag_elsewhere() {
        let value = |selector: &str| Expect {
            value: Some(ValueExpect {
                selector: selector.into(),
                equals: "Delta".into(),
            }),
            ..Expect::default()
        };
        assert_eq!(
            assertions(
                "page",
                &value(r#"placeholder="Name""#),
                None,
                Sites::Unknown,
                "a1"
            )
            .unwrap()
            .lines,
            [
                r#"await expect(page.getByPlaceholder("Name", { exact: true }).filter({ visible: true }).first()).toHaveValue("Delta");"#
            ]
        );
        assert_eq!(
            assertions("page", &value("role=status"), None, Sites::Unknown, "a1")
                .unwrap()
                .lines,
            [
                r#"await expectValue(page.getByRole("status").filter({ visible: true }).first(), "Delta");"#
            ]
        );
    }

    #[test]
    fn url_is_to_have_url_with_the_globs_expression() {
        let e = Expect {
            url: Some("**/index.html#/active".into()),
            ..Expect::default()
        };
        assert_eq!(
            assertions("page", &e, None, Sites::Unknown, "a1")
                .unwrap()
                .lines,
            [
                r#"await expect(page).toHaveURL(new RegExp("^(?:[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]+(?:(?:/?|.*/)index\\.html\\#/active)|(?:(?:/?|.*/)index\\.html\\#/active))$"));"#
            ]
        );
    }

    /// The expression is checked against globset (the verifier itself) on URLs Windup would
    /// compare: a path form on the app's origin, matched by the regex after an origin.
    #[test]
    fn url_regex_agrees_with_the_verifier() {
        let base = url::Url::parse("http://127.0.0.1:8000/").unwrap();
        let globs = [
            "**/index.html#/active",
            "/projects.html",
            "/examples/*/index.html",
            "/a/**",
            "/a/**/b",
            "**",
            "/search?q=*",
            "/p?.html",
            "/[a-c]x",
            "/[!a]x",
            "/{one,two}/x",
            "/a\\*b",
            "/x-y~z&w#f",
            "https://example.com/*",
        ];
        let urls = [
            "http://127.0.0.1:8000/examples/vanillajs/index.html#/active",
            "http://127.0.0.1:8000/index.html#/active",
            "http://127.0.0.1:8000/projects.html",
            "http://127.0.0.1:8000/projects.html?x=1",
            "http://127.0.0.1:8000/examples/vue/index.html",
            "http://127.0.0.1:8000/examples/a/b/index.html",
            "http://127.0.0.1:8000/a/1/2",
            "http://127.0.0.1:8000/a/b",
            "http://127.0.0.1:8000/a/x/y/b",
            "http://127.0.0.1:8000/search?q=abc",
            "http://127.0.0.1:8000/search?q=a/b",
            "http://127.0.0.1:8000/p1.html",
            "http://127.0.0.1:8000/bx",
            "http://127.0.0.1:8000/ax",
            "http://127.0.0.1:8000/two/x",
            "http://127.0.0.1:8000/a*b",
            "http://127.0.0.1:8000/x-y~z&w#f",
            "http://127.0.0.1:8000/",
            "https://example.com/x",
        ];
        for glob in globs {
            let windup = crate::verifier::url_glob(glob).unwrap();
            // Rust's regex reads these constructs as JavaScript does; the acceptance test runs
            // the expressions in Playwright itself.
            let re = regex::Regex::new(&url_regex(glob).unwrap()).unwrap();
            for url in urls {
                let expected = windup.is_match(crate::verifier::url_for_match(url, &base));
                assert_eq!(re.is_match(url), expected, "glob {glob:?} on {url}");
            }
        }
    }
}
