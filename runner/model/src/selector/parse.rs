//! Parsing a selector's text into its parts; every error says what to write instead.

use super::part::{FrameBy, NameMatch, Part, Selector, SelectorError};

const ENGINES: &str = "role=, text=, label=, placeholder=, testid=, css=, has-text=, nth=, frame=";

impl Selector {
    /// Parses a selector; the error says what is wrong and what to write instead.
    pub fn parse(source: &str) -> Result<Selector, SelectorError> {
        if source.trim().is_empty() {
            return Err(SelectorError("the selector is empty".into()));
        }
        let mut parts = Vec::new();
        for (i, raw) in split_chain(source)?.into_iter().enumerate() {
            let raw = raw.trim();
            if raw.is_empty() {
                return Err(SelectorError(format!(
                    "part {} of the chain is empty; write `a >> b` with a selector on each side",
                    i + 1
                )));
            }
            let part = parse_part(raw)?;
            if i == 0 && matches!(part, Part::HasText { .. } | Part::Nth { .. }) {
                return Err(SelectorError(format!(
                    "`{raw}` filters earlier matches, so it cannot come first; put a selector before it, e.g. `role=listitem >> {raw}`"
                )));
            }
            if let Some(Part::Frame { .. }) = parts.last()
                && matches!(part, Part::HasText { .. } | Part::Nth { .. })
            {
                return Err(SelectorError(format!(
                    "`{raw}` right after `frame=` has no matches to filter; pick the frame by its title, name or CSS (e.g. `frame=css=iframe.card:nth-of-type(2)`), then a selector inside it"
                )));
            }
            parts.push(part);
        }
        if let Some(Part::Frame { .. }) = parts.last() {
            return Err(SelectorError(
                "`frame=` needs a selector after it for the element inside the frame, e.g. `frame=title=\"Card\" >> label=\"Card number\"`".into(),
            ));
        }
        Ok(Selector {
            source: source.to_string(),
            parts,
        })
    }

    /// Whether the selector names its engine explicitly (planner-made plans must).
    pub fn has_engine_prefix(source: &str) -> bool {
        split_chain(source)
            .map(|parts| parts.iter().all(|p| engine_prefix(p.trim()).is_some()))
            .unwrap_or(false)
    }
}

/// Splits on ` >> ` outside quotes and brackets.
fn split_chain(source: &str) -> Result<Vec<&str>, SelectorError> {
    let bytes = source.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    let mut i = 0;
    let mut quote: Option<u8> = None;
    let mut depth = 0i32;
    while i < bytes.len() {
        let b = bytes[i];
        if let Some(q) = quote {
            if b == b'\\' {
                i += 2;
                continue;
            }
            if b == q {
                quote = None;
            }
        } else {
            match b {
                b'"' | b'\'' => quote = Some(b),
                b'[' | b'(' => depth += 1,
                b']' | b')' => depth -= 1,
                b'>' if depth == 0 && source[i..].starts_with(">>") => {
                    parts.push(&source[start..i]);
                    i += 2;
                    start = i;
                    continue;
                }
                _ => {}
            }
        }
        i += 1;
    }
    if quote.is_some() {
        return Err(SelectorError(
            "a quoted value is not closed; end it with `\"` (escape a quote inside as `\\\"`)"
                .into(),
        ));
    }
    if depth != 0 {
        return Err(SelectorError(
            "brackets or parentheses are not balanced".into(),
        ));
    }
    parts.push(&source[start..]);
    Ok(parts)
}

fn engine_prefix(raw: &str) -> Option<&str> {
    let eq = raw.find('=')?;
    let name = &raw[..eq];
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'-')).then_some(name)
}

fn parse_part(raw: &str) -> Result<Part, SelectorError> {
    let Some(engine) = engine_prefix(raw) else {
        return css(raw);
    };
    let body = raw[engine.len() + 1..].trim();
    match engine {
        "css" => css(body),
        "role" => parse_role(body),
        "text" => {
            let (value, exact) = text_value(body, "text")?;
            Ok(Part::Text { value, exact })
        }
        "label" => {
            let (value, exact) = text_value(body, "label")?;
            Ok(Part::Label { value, exact })
        }
        "placeholder" => {
            let (value, exact) = text_value(body, "placeholder")?;
            Ok(Part::Placeholder { value, exact })
        }
        "testid" => {
            let (value, _) = text_value(body, "testid")?;
            Ok(Part::Testid { value })
        }
        "has-text" => {
            let (value, _) = text_value(body, "has-text")?;
            Ok(Part::HasText { value })
        }
        "nth" => body
            .parse::<u32>()
            .map(|index| Part::Nth { index })
            .map_err(|_| {
                SelectorError(format!(
                    "`nth={body}` needs a whole number from 0, e.g. `nth=0` for the first visible match"
                ))
            }),
        "frame" => parse_frame(body),
        other => Err(SelectorError(format!(
            "unknown selector engine `{other}=`; use one of {ENGINES} (a bare selector is CSS)"
        ))),
    }
}

/// `title="…"`, `name="…"` (quoted: exact) or `css=…`.
fn parse_frame(body: &str) -> Result<Part, SelectorError> {
    let hint = "`frame=` takes `title=\"…\"`, `name=\"…\"` or `css=…`, e.g. `frame=title=\"Card\"`";
    let (by, rest) = if let Some(rest) = body.strip_prefix("title=") {
        (FrameBy::Title, rest)
    } else if let Some(rest) = body.strip_prefix("name=") {
        (FrameBy::Name, rest)
    } else if let Some(rest) = body.strip_prefix("css=") {
        (FrameBy::Css, rest)
    } else {
        return Err(SelectorError(format!("`frame={body}`: {hint}")));
    };
    let rest = rest.trim();
    if by == FrameBy::Css {
        if rest.is_empty() {
            return Err(SelectorError(
                "`frame=css=` needs a CSS selector after it, e.g. `frame=css=iframe.card`".into(),
            ));
        }
        return Ok(Part::Frame {
            by,
            value: rest.to_string(),
        });
    }
    if !rest.starts_with('"') {
        return Err(SelectorError(format!(
            "quote the frame's {} with double quotes: `frame={}={}`",
            if by == FrameBy::Title {
                "title"
            } else {
                "name"
            },
            if by == FrameBy::Title {
                "title"
            } else {
                "name"
            },
            serde_json::to_string(rest).unwrap_or_default()
        )));
    }
    let (value, _) = text_value(rest, "frame")?;
    Ok(Part::Frame { by, value })
}

fn css(body: &str) -> Result<Part, SelectorError> {
    if body.is_empty() {
        return Err(SelectorError("`css=` needs a CSS selector after it".into()));
    }
    Ok(Part::Css {
        value: body.to_string(),
    })
}

/// A quoted value is exact; a bare one is a case-insensitive substring.
fn text_value(body: &str, engine: &str) -> Result<(String, bool), SelectorError> {
    if body.starts_with('"') {
        let (value, rest) = quoted(body)?;
        if !rest.trim().is_empty() {
            return Err(SelectorError(format!(
                "unexpected `{}` after the quoted value of `{engine}=`",
                rest.trim()
            )));
        }
        Ok((value, true))
    } else if body.is_empty() {
        Err(SelectorError(format!(
            "`{engine}=` needs a value, e.g. `{engine}=\"Save\"`"
        )))
    } else {
        Ok((body.to_string(), false))
    }
}

/// Reads a JSON-style quoted string at the start of `s`; returns it and the rest.
fn quoted(s: &str) -> Result<(String, &str), SelectorError> {
    let bytes = s.as_bytes();
    let mut i = 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => {
                let literal = &s[..=i];
                let value: String = serde_json::from_str(literal).map_err(|e| {
                    SelectorError(format!(
                        "bad escape in {literal}: {e}; escape `\"` as `\\\"` and `\\` as `\\\\`"
                    ))
                })?;
                return Ok((value, &s[i + 1..]));
            }
            _ => i += 1,
        }
    }
    Err(SelectorError(
        "a quoted value is not closed; end it with `\"` (escape a quote inside as `\\\"`)".into(),
    ))
}

fn parse_role(body: &str) -> Result<Part, SelectorError> {
    let role_end = body.find('[').unwrap_or(body.len());
    let role = body[..role_end].trim();
    if role.is_empty() || !role.bytes().all(|b| b.is_ascii_lowercase()) {
        return Err(SelectorError(format!(
            "`role={body}` needs an ARIA role in lowercase, e.g. `role=button[name=\"Save\"]`"
        )));
    }
    let mut name = None;
    let mut checked = None;
    let mut level = None;
    let mut states = RoleStates::default();
    let mut rest = &body[role_end..];
    while !rest.trim().is_empty() {
        let r = rest.trim_start();
        let Some(inner) = r.strip_prefix('[') else {
            return Err(SelectorError(format!(
                "unexpected `{r}` in role selector; attributes look like `[name=\"Save\"]`"
            )));
        };
        let op_at = inner.find(['=', '*']).ok_or_else(|| {
            SelectorError(format!("role attribute `[{inner}` needs `=` and a value"))
        })?;
        let attr = inner[..op_at].trim();
        let (exact, after_op) = if inner[op_at..].starts_with("*=") {
            (false, &inner[op_at + 2..])
        } else if inner[op_at..].starts_with('=') {
            (true, &inner[op_at + 1..])
        } else {
            return Err(SelectorError(format!(
                "role attribute `{attr}` needs `=` or `*=`"
            )));
        };
        let after_op = after_op.trim_start();
        let (value, quoted_value, after_value) = if after_op.starts_with('"') {
            let (v, rest) = quoted(after_op)?;
            (v, true, rest)
        } else {
            let end = after_op.find(']').ok_or_else(|| {
                SelectorError(format!(
                    "role attribute `{attr}` is missing its closing `]`"
                ))
            })?;
            (after_op[..end].trim().to_string(), false, &after_op[end..])
        };
        let Some(after) = after_value.trim_start().strip_prefix(']') else {
            return Err(SelectorError(format!(
                "role attribute `{attr}` is missing its closing `]`"
            )));
        };
        rest = after;
        match attr {
            "name" => {
                if !quoted_value {
                    // `[name='Save']`: single quotes are not a quote here; the name is `Save`.
                    let bare = value
                        .strip_prefix('\'')
                        .and_then(|v| v.strip_suffix('\''))
                        .unwrap_or(&value);
                    let quoted = serde_json::to_string(bare).unwrap_or_default();
                    return Err(SelectorError(format!(
                        "quote the accessible name with double quotes: `[name={quoted}]`"
                    )));
                }
                name = Some(NameMatch { value, exact });
            }
            "checked" | "pressed" | "expanded" | "selected" | "disabled" | "include-hidden"
                if exact =>
            {
                let b = match value.as_str() {
                    "true" => true,
                    "false" => false,
                    _ => {
                        return Err(SelectorError(format!(
                            "`[{attr}={value}]` takes true or false"
                        )));
                    }
                };
                match attr {
                    "checked" => checked = Some(b),
                    "pressed" => states.pressed = Some(b),
                    "expanded" => states.expanded = Some(b),
                    "selected" => states.selected = Some(b),
                    "disabled" => states.disabled = Some(b),
                    _ => states.include_hidden = b,
                }
            }
            "level" if exact => {
                level = Some(value.parse::<u32>().map_err(|_| {
                    SelectorError(format!(
                        "`[level={value}]` takes a number, e.g. `[level=2]`"
                    ))
                })?)
            }
            other => {
                return Err(SelectorError(format!(
                    "unknown role attribute `{other}`; use [name=\"…\"], [name*=\"…\"], [level=N], [checked=…], [pressed=…], [expanded=…], [selected=…], [disabled=…] (true or false) or [include-hidden=true]"
                )));
            }
        }
    }
    for (attr, given, roles) in [
        ("checked", checked.is_some(), CHECKED_ROLES),
        ("pressed", states.pressed.is_some(), PRESSED_ROLES),
        ("expanded", states.expanded.is_some(), EXPANDED_ROLES),
        ("selected", states.selected.is_some(), SELECTED_ROLES),
        ("level", level.is_some(), LEVEL_ROLES),
    ] {
        if given && !roles.contains(&role) {
            return Err(SelectorError(format!(
                "`role={role}` has no `[{attr}=…]` state; it applies to the roles {}",
                roles.join(", ")
            )));
        }
    }
    Ok(Part::Role {
        role: role.to_string(),
        name,
        checked,
        level,
        pressed: states.pressed,
        expanded: states.expanded,
        selected: states.selected,
        disabled: states.disabled,
        include_hidden: states.include_hidden,
    })
}

// The roles each state applies to, as Playwright's getByRole accepts them (it refuses the
// state on any other role, and so does the parser).
const CHECKED_ROLES: &[&str] = &[
    "checkbox",
    "menuitemcheckbox",
    "option",
    "radio",
    "switch",
    "menuitemradio",
    "treeitem",
];
const PRESSED_ROLES: &[&str] = &["button"];
const EXPANDED_ROLES: &[&str] = &[
    "application",
    "button",
    "checkbox",
    "combobox",
    "gridcell",
    "link",
    "listbox",
    "menuitem",
    "row",
    "rowheader",
    "tab",
    "treeitem",
    "columnheader",
    "menuitemcheckbox",
    "menuitemradio",
    "switch",
];
const SELECTED_ROLES: &[&str] = &[
    "gridcell",
    "option",
    "row",
    "tab",
    "rowheader",
    "columnheader",
    "treeitem",
];
const LEVEL_ROLES: &[&str] = &["heading", "listitem", "row", "treeitem"];

/// The boolean state attributes of a role selector besides `checked`.
#[derive(Default)]
struct RoleStates {
    pressed: Option<bool>,
    expanded: Option<bool>,
    selected: Option<bool>,
    disabled: Option<bool>,
    include_hidden: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &str) -> Vec<Part> {
        Selector::parse(s).unwrap().parts
    }

    #[test]
    fn role_with_name_and_states() {
        assert_eq!(
            parts(r#"role=button[name="Save \"draft\""]"#),
            vec![Part::Role {
                role: "button".into(),
                name: Some(NameMatch {
                    value: "Save \"draft\"".into(),
                    exact: true
                }),
                checked: None,
                level: None,
                pressed: None,
                expanded: None,
                selected: None,
                disabled: None,
                include_hidden: false,
            }]
        );
        assert_eq!(
            parts(r#"role=heading[name*="todo"][level=1]"#),
            vec![Part::Role {
                role: "heading".into(),
                name: Some(NameMatch {
                    value: "todo".into(),
                    exact: false
                }),
                checked: None,
                level: Some(1),
                pressed: None,
                expanded: None,
                selected: None,
                disabled: None,
                include_hidden: false,
            }]
        );
        assert!(matches!(
            &parts("role=checkbox[checked=true]")[0],
            Part::Role {
                checked: Some(true),
                ..
            }
        ));
        assert!(matches!(
            &parts("role=button[pressed=true][disabled=false][include-hidden=true]")[0],
            Part::Role {
                pressed: Some(true),
                disabled: Some(false),
                include_hidden: true,
                ..
            }
        ));
        assert!(matches!(
            &parts("role=tab[selected=true][expanded=false]")[0],
            Part::Role {
                selected: Some(true),
                expanded: Some(false),
                ..
            }
        ));
    }

    #[test]
    fn chains_and_filters() {
        let p = parts(r#"role=listitem >> has-text="Buy milk" >> role=checkbox"#);
        assert_eq!(p.len(), 3);
        assert_eq!(
            p[1],
            Part::HasText {
                value: "Buy milk".into()
            }
        );
        assert_eq!(parts("css=li >> nth=2")[1], Part::Nth { index: 2 });
        // `>>` inside quotes is text, not a chain.
        assert_eq!(
            parts(r#"text="a >> b""#),
            vec![Part::Text {
                value: "a >> b".into(),
                exact: true
            }]
        );
    }

    #[test]
    fn bare_is_css_and_text_forms() {
        assert_eq!(
            parts("input[name=q]"),
            vec![Part::Css {
                value: "input[name=q]".into()
            }]
        );
        assert_eq!(
            parts("text=milk"),
            vec![Part::Text {
                value: "milk".into(),
                exact: false
            }]
        );
        assert_eq!(
            parts(r#"testid="submit-btn""#),
            vec![Part::Testid {
                value: "submit-btn".into()
            }]
        );
        assert!(Selector::has_engine_prefix(
            r#"role=list >> text="x" >> nth=0"#
        ));
        assert!(!Selector::has_engine_prefix("ul > li"));
        assert!(!Selector::has_engine_prefix("role=list >> li"));
    }

    #[test]
    fn frame_steps() {
        assert_eq!(
            parts(r#"frame=title="Card" >> label="Card number""#),
            vec![
                Part::Frame {
                    by: FrameBy::Title,
                    value: "Card".into()
                },
                Part::Label {
                    value: "Card number".into(),
                    exact: true
                }
            ]
        );
        assert_eq!(
            parts(r#"css=main >> frame=css=iframe[src*="pay"] >> frame=name="inner" >> text=ok"#)
                [1..3],
            [
                Part::Frame {
                    by: FrameBy::Css,
                    value: r#"iframe[src*="pay"]"#.into()
                },
                Part::Frame {
                    by: FrameBy::Name,
                    value: "inner".into()
                }
            ]
        );
        assert!(Selector::has_engine_prefix(
            r#"frame=css=iframe >> role=button"#
        ));
        // What the in-page engine receives.
        assert_eq!(
            serde_json::to_value(&parts(r#"frame=name="pay" >> css=input"#)[0]).unwrap(),
            serde_json::json!({"kind": "frame", "by": "name", "value": "pay"})
        );
    }

    #[test]
    fn broken_selectors_say_how_to_fix() {
        for (s, needle) in [
            (r#"role=button[name="Save"#, "not closed"),
            ("xpath=//a", "unknown selector engine `xpath=`"),
            ("nth=0", "cannot come first"),
            ("css=li >> nth=x", "whole number"),
            ("role=button[name=Save]", "quote the accessible name"),
            // Single quotes are named and dropped, not kept inside the suggested double ones.
            ("role=button[name='Save']", "`[name=\"Save\"]`"),
            ("role=button[foo=\"x\"]", "unknown role attribute"),
            ("role=group[expanded=true]", "no `[expanded=…]` state"),
            ("role=button[checked=true]", "applies to the roles checkbox"),
            ("role=button[pressed=maybe]", "takes true or false"),
            ("a >>  >> b", "empty"),
            ("", "empty"),
            ("role=", "ARIA role"),
            ("frame=title=\"Card\"", "needs a selector after it"),
            ("frame=title=Card >> label=\"x\"", "quote the frame's title"),
            ("frame=src=\"x\" >> label=\"x\"", "`frame=` takes"),
            ("frame=css= >> label=\"x\"", "needs a CSS selector"),
            ("frame=name=\"pay\" >> nth=0", "right after `frame=`"),
        ] {
            let err = Selector::parse(s).unwrap_err().0;
            assert!(err.contains(needle), "{s:?}: {err}");
        }
    }
}
