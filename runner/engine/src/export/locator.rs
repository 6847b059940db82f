//! Windup selectors as Playwright locators that resolve what Windup resolves.
//!
//! Windup's parts map one to one onto Playwright's locator methods (`role=` → `getByRole`,
//! `text=` → `getByText`, `label=` → `getByLabel`, `placeholder=` → `getByPlaceholder`,
//! `testid=` → `getByTestId`, `css=` → `locator`, `>>` → chaining, `has-text=` →
//! `filter({ hasText })`, `frame=` → the first visible frame element's `contentFrame()`). Quoted values match exactly (`exact: true`), bare ones as a
//! case-insensitive substring, which is Playwright's default for strings; `name*=` becomes a
//! case-insensitive regular expression, since `getByRole` matches a string name exactly or not
//! at all by `exact`.
//!
//! The difference that matters is visibility. Windup acts on the first *visible* match and
//! counts visible matches only, and `nth=N` is the N-th visible match; Playwright locators are
//! strict, see hidden elements and count them. So a locator that resolves as Windup's does on
//! any page ends in `.filter({ visible: true })` (then `.first()` where Windup takes the first),
//! and `nth=` is `.filter({ visible: true }).nth(N)`; [`every_match`] is the plain locator, which
//! `resolve` writes where Playwright found it unique. Playwright's visibility is the definition
//! the in-page engine copies.

use windup_model::selector::{FrameBy, NameMatch};
use windup_model::{Part, Selector};

use super::ts;

/// What a step does with a selector's matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resolve {
    /// The first visible match: what a step acts on, and what `visible`, `hidden` and `value`
    /// read.
    First,
    /// Every visible match: what `count` counts.
    AllVisible,
}

/// The locator expression, on the page variable `page`, for `selector`.
pub(super) fn locator(page: &str, selector: &Selector, resolve: Resolve) -> String {
    let mut out = page.to_string();
    for part in &selector.parts {
        out.push_str(&part_call(part));
    }
    // `nth=` already picked one visible match.
    if !matches!(selector.parts.last(), Some(Part::Nth { .. })) {
        out.push_str(VISIBLE);
        if resolve == Resolve::First {
            out.push_str(".first()");
        }
    }
    out
}

/// The locator for every element `selector` matches, visible or hidden, on the page variable
/// `page`: the locator a spec acts on, without the visibility filter and `.first()` it ends in
/// (an `nth=` part keeps its own). The locator conformance set compares its match list with the
/// in-page engine's, which proves this mapping and the engine together against Playwright.
pub fn every_match(page: &str, selector: &Selector) -> String {
    let mut out = page.to_string();
    for part in &selector.parts {
        out.push_str(&part_call(part));
    }
    out
}

/// The locator of the element a spec's step acts on, on the page variable `page`: the first
/// visible match, as a Windup step's target. The conformance set checks it picks the element
/// the in-page engine picks.
pub fn acted_on(page: &str, selector: &Selector) -> String {
    locator(page, selector, Resolve::First)
}

const VISIBLE: &str = ".filter({ visible: true })";

/// One part as a method call on the locator (or page) before it.
fn part_call(part: &Part) -> String {
    match part {
        Part::Css { value } => format!(".locator({})", ts::string(&css(value))),
        Part::Role {
            role,
            name,
            checked,
            level,
            pressed,
            expanded,
            selected,
            disabled,
            include_hidden,
        } => {
            let mut options = Vec::new();
            match name {
                Some(NameMatch { value, exact: true }) => {
                    options.push(format!("name: {}", ts::string(&ts::norm(value))));
                    options.push("exact: true".to_string());
                }
                Some(NameMatch {
                    value,
                    exact: false,
                }) => options.push(format!(
                    "name: {}",
                    ts::contains_ignoring_case(&ts::norm(value))
                )),
                None => {}
            }
            if let Some(c) = checked {
                options.push(format!("checked: {c}"));
            }
            if let Some(l) = level {
                options.push(format!("level: {l}"));
            }
            for (key, state) in [
                ("pressed", pressed),
                ("expanded", expanded),
                ("selected", selected),
                ("disabled", disabled),
            ] {
                if let Some(b) = state {
                    options.push(format!("{key}: {b}"));
                }
            }
            if *include_hidden {
                options.push("includeHidden: true".to_string());
            }
            let role = ts::string(canonical_role(role));
            if options.is_empty() {
                format!(".getByRole({role})")
            } else {
                format!(".getByRole({role}, {{ {} }})", options.join(", "))
            }
        }
        Part::Text { value, exact } => text_call("getByText", value, *exact),
        Part::Label { value, exact } => text_call("getByLabel", value, *exact),
        Part::Placeholder { value, exact } => text_call("getByPlaceholder", value, *exact),
        Part::Testid { value } => format!(".getByTestId({})", ts::string(value)),
        Part::HasText { value } => {
            format!(".filter({{ hasText: {} }})", ts::string(&ts::norm(value)))
        }
        Part::Nth { index } => format!("{VISIBLE}.nth({index})"),
        Part::Frame { by, value } => {
            let css = match by {
                FrameBy::Title => format!(":is(iframe, frame)[title={}]", css_string(value)),
                FrameBy::Name => format!(":is(iframe, frame)[name={}]", css_string(value)),
                FrameBy::Css => css(value),
            };
            format!(
                ".locator({}){VISIBLE}.first().contentFrame()",
                ts::string(&css)
            )
        }
    }
}

/// A CSS string literal: double-quoted, with `"`, `\` and line breaks escaped as CSS escapes.
fn css_string(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' | '\u{c}' => out.push_str(&format!("\\{:x} ", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `getByText("…", { exact: true })` for a quoted value, `getByText("…")` (a case-insensitive
/// substring, as Windup's bare value) otherwise.
fn text_call(method: &str, value: &str, exact: bool) -> String {
    let value = ts::string(&ts::norm(value));
    if exact {
        format!(".{method}({value}, {{ exact: true }})")
    } else {
        format!(".{method}({value})")
    }
}

/// The in-page engine folds these synonyms into one spelling; Playwright knows the folded one.
fn canonical_role(role: &str) -> &str {
    match role {
        "image" => "img",
        "presentation" => "none",
        other => other,
    }
}

/// A CSS selector as `locator()` reads it: Playwright guesses the engine of a selector string,
/// so CSS that it would read as XPath, text or an `engine=` prefix is marked `css=`.
fn css(value: &str) -> String {
    let v = value.trim_start();
    let prefix_like = v
        .find('=')
        .map(|i| {
            let head = &v[..i];
            !head.is_empty()
                && head.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b':' | b'*')
                })
        })
        .unwrap_or(false);
    if v.starts_with("//")
        || v.starts_with("..")
        || v.starts_with('"')
        || v.starts_with('\'')
        || prefix_like
    {
        format!("css={value}")
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(s: &str) -> String {
        locator("page", &Selector::parse(s).unwrap(), Resolve::First)
    }

    fn all(s: &str) -> String {
        locator("page", &Selector::parse(s).unwrap(), Resolve::AllVisible)
    }

    #[test]
    fn frame_steps_are_the_first_visible_frame_elements_content_frame() {
        assert_eq!(
            first(r#"frame=title="Card \"A\"" >> label="Card number""#),
            r#"page.locator(":is(iframe, frame)[title=\"Card \\\"A\\\"\"]").filter({ visible: true }).first().contentFrame().getByLabel("Card number", { exact: true }).filter({ visible: true }).first()"#
        );
        assert_eq!(
            all(r#"css=main >> frame=name="pay" >> frame=css=iframe.inner >> role=button"#),
            r#"page.locator("main").locator(":is(iframe, frame)[name=\"pay\"]").filter({ visible: true }).first().contentFrame().locator("iframe.inner").filter({ visible: true }).first().contentFrame().getByRole("button").filter({ visible: true })"#
        );
    }

    #[test]
    fn role_with_an_exact_name_is_get_by_role_exact() {
        assert_eq!(
            first(r#"role=button[name="Sign in"]"#),
            r#"page.getByRole("button", { name: "Sign in", exact: true }).filter({ visible: true }).first()"#
        );
    }

    #[test]
    fn role_with_a_name_substring_is_a_case_insensitive_regex() {
        assert_eq!(
            first(r#"role=link[name*="read (more)"]"#),
            r#"page.getByRole("link", { name: /read \(more\)/i }).filter({ visible: true }).first()"#
        );
    }

    #[test]
    fn role_states_and_synonyms() {
        assert_eq!(
            all(r#"role=heading[name="Projects"][level=1]"#),
            r#"page.getByRole("heading", { name: "Projects", exact: true, level: 1 }).filter({ visible: true })"#
        );
        assert_eq!(
            all("role=checkbox[checked=true]"),
            r#"page.getByRole("checkbox", { checked: true }).filter({ visible: true })"#
        );
        assert_eq!(
            all("role=button[pressed=true][expanded=false][disabled=true][include-hidden=true]"),
            r#"page.getByRole("button", { pressed: true, expanded: false, disabled: true, includeHidden: true }).filter({ visible: true })"#
        );
        assert_eq!(
            all("role=tab[selected=true]"),
            r#"page.getByRole("tab", { selected: true }).filter({ visible: true })"#
        );
        assert_eq!(
            all("role=image"),
            r#"page.getByRole("img").filter({ visible: true })"#
        );
    }

    #[test]
    fn text_is_get_by_text_exact_when_quoted() {
        assert_eq!(
            first(r#"text="Buy  milk""#),
            r#"page.getByText("Buy milk", { exact: true }).filter({ visible: true }).first()"#
        );
        assert_eq!(
            first("text=milk"),
            r#"page.getByText("milk").filter({ visible: true }).first()"#
        );
    }

    #[test]
    fn label_is_get_by_label() {
        assert_eq!(
            first(r#"label="Email""#),
            r#"page.getByLabel("Email", { exact: true }).filter({ visible: true }).first()"#
        );
        assert_eq!(
            first("label=mail"),
            r#"page.getByLabel("mail").filter({ visible: true }).first()"#
        );
    }

    #[test]
    fn placeholder_is_get_by_placeholder() {
        assert_eq!(
            first(r#"placeholder="What needs to be done?""#),
            r#"page.getByPlaceholder("What needs to be done?", { exact: true }).filter({ visible: true }).first()"#
        );
    }

    #[test]
    fn testid_is_get_by_test_id() {
        assert_eq!(
            first(r#"testid="save \"it\"""#),
            r#"page.getByTestId("save \"it\"").filter({ visible: true }).first()"#
        );
    }

    #[test]
    fn css_is_locator_and_marked_when_playwright_would_misread_it() {
        assert_eq!(
            all("css=#todo-list li"),
            r##"page.locator("#todo-list li").filter({ visible: true })"##
        );
        assert_eq!(
            all("input[name=q]"),
            r#"page.locator("input[name=q]").filter({ visible: true })"#
        );
        assert_eq!(css("//a"), "css=//a");
        assert_eq!(css("xpath=x"), "css=xpath=x");
    }

    #[test]
    fn chains_are_locator_chains() {
        assert_eq!(
            first(r#"role=list[name="Active"] >> role=listitem >> role=button[name="Archive"]"#),
            r#"page.getByRole("list", { name: "Active", exact: true }).getByRole("listitem").getByRole("button", { name: "Archive", exact: true }).filter({ visible: true }).first()"#
        );
    }

    #[test]
    fn has_text_is_a_has_text_filter() {
        assert_eq!(
            first(r#"css=#todo-list li >> has-text="Buy milk" >> role=checkbox"#),
            r##"page.locator("#todo-list li").filter({ hasText: "Buy milk" }).getByRole("checkbox").filter({ visible: true }).first()"##
        );
    }

    #[test]
    fn nth_is_the_nth_visible_match() {
        assert_eq!(
            first("css=li >> nth=2"),
            r#"page.locator("li").filter({ visible: true }).nth(2)"#
        );
        assert_eq!(
            all("css=li >> nth=0 >> css=a"),
            r#"page.locator("li").filter({ visible: true }).nth(0).locator("a").filter({ visible: true })"#
        );
    }
}
