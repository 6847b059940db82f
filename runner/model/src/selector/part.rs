//! The parsed form of a selector: its parts, as the in-page engine takes them.

use serde::Serialize;

/// One step of a selector. Serialised as the in-page engine expects it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Part {
    /// `css=` or no prefix: elements matching a CSS selector.
    Css {
        /// The CSS selector.
        value: String,
    },
    /// `role=`: elements with an ARIA role, explicit or implicit.
    Role {
        /// The role, in lowercase, such as `button`.
        role: String,
        /// `[name="…"]` or `[name*="…"]`: the accessible name must match.
        name: Option<NameMatch>,
        /// `[checked=true|false]`: the checked state must be this.
        checked: Option<bool>,
        /// `[level=N]`: the level must be this (a heading's, or `aria-level`).
        level: Option<u32>,
        /// `[pressed=true|false]`: a toggle button's `aria-pressed` must be this.
        pressed: Option<bool>,
        /// `[expanded=true|false]`: `aria-expanded` (a `<details>`' `open`) must be this.
        expanded: Option<bool>,
        /// `[selected=true|false]`: an option's, tab's, row's or cell's selection must be this.
        selected: Option<bool>,
        /// `[disabled=true|false]`: disabled natively or by `aria-disabled` (inherited) or not.
        disabled: Option<bool>,
        /// `[include-hidden=true]`: elements hidden for ARIA (display:none, visibility:hidden,
        /// aria-hidden) match too.
        include_hidden: bool,
    },
    /// `text=`: elements whose text matches.
    Text {
        /// The text to match, whitespace collapsed.
        value: String,
        /// Quoted: the whole text equals `value`. Bare: it contains `value`, ignoring case.
        exact: bool,
    },
    /// `label=`: elements whose label matches (Playwright's getByLabel): each element their
    /// `aria-labelledby` names, else their `aria-label`, else a form control's `<label>`s.
    Label {
        /// The label text to match.
        value: String,
        /// Quoted: the whole label equals `value`. Bare: it contains `value`, ignoring case.
        exact: bool,
    },
    /// `placeholder=`: elements whose `placeholder` attribute, as written, matches.
    Placeholder {
        /// The placeholder text to match.
        value: String,
        /// Quoted: the placeholder equals `value`. Bare: it contains `value`, ignoring case.
        exact: bool,
    },
    /// `testid=`: elements whose test id (`data-testid`, or the attribute `[browser]
    /// testid_attribute` names) equals the value.
    Testid {
        /// The test id.
        value: String,
    },
    /// Filter: keep the previous matches whose text contains the value.
    HasText {
        /// The text to find, ignoring case.
        value: String,
    },
    /// Filter: keep the N-th visible match (0-based).
    Nth {
        /// N: 0 is the first visible match.
        index: u32,
    },
    /// `frame=`: frame elements (`<iframe>`, `<frame>`); the next part searches the first
    /// visible one's document. Never last, never followed by a filter.
    Frame {
        /// What picks the frame element.
        by: FrameBy,
        /// The exact title or name, or the CSS selector.
        value: String,
    },
}

/// How a `frame=` part picks its frame element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FrameBy {
    /// `frame=title="…"`: the element's `title` attribute equals it.
    Title,
    /// `frame=name="…"`: the element's `name` attribute equals it.
    Name,
    /// `frame=css=…`: the element matches the CSS selector.
    Css,
}

/// The accessible-name condition of a `role=` part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NameMatch {
    /// The name to match, whitespace collapsed.
    pub value: String,
    /// `name=`: the whole name equals `value`. `name*=`: it contains `value`, ignoring case.
    pub exact: bool,
}

/// A parsed selector: the original text and its parts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Selector {
    /// The selector as written; not sent to the page.
    #[serde(skip)]
    pub source: String,
    /// The chain, in order: each part searches inside the previous part's matches, or filters
    /// them (`has-text=`, `nth=`).
    pub parts: Vec<Part>,
}

/// Why a selector does not parse; the message says what to write instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SelectorError(pub String);

impl FrameBy {
    /// The `frame=` step that picks a frame element by `value`: `frame=title="Card"`,
    /// `frame=name="pay"`, `frame=css=iframe#card`.
    pub fn step(self, value: &str) -> String {
        let quoted = || serde_json::to_string(value).expect("a string serialises");
        match self {
            FrameBy::Title => format!("frame=title={}", quoted()),
            FrameBy::Name => format!("frame=name={}", quoted()),
            FrameBy::Css => format!("frame=css={value}"),
        }
    }
}
