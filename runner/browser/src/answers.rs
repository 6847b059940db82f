//! What the in-page engine answers about a target (`browser::injected`): found or not and
//! where, what typing would reach, match counts, healing candidates. Plain data, read from JSON.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the in-page engine found for an action's target.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Located {
    /// The document is being replaced; try again on the new one.
    Navigating,
    /// No visible match.
    NotFound {
        /// How many matches there are that are hidden, which a failure message reports.
        #[serde(default)]
        hidden: u32,
    },
    /// A visible match that cannot take the action yet (moving, disabled, covered, outside the
    /// viewport…); the caller waits and asks again until its deadline.
    NotActionable {
        /// Why, as the in-page engine words it (`element is disabled`).
        reason: String,
    },
    /// The target is ready: where to send the trusted input.
    Ok {
        /// The point to click, in the top-level viewport's CSS pixels.
        x: f64,
        /// The point to click, in the top-level viewport's CSS pixels.
        y: f64,
        /// The element as a person would name it (`<button> "Save"`), for messages.
        #[serde(default)]
        describe: String,
        /// `true`, `false` or `"mixed"` for a checkable target.
        #[serde(default)]
        checked: Option<Value>,
        /// The target's border box in the top-level viewport's CSS pixels, for a trace.
        #[serde(default, rename = "box")]
        target_box: Option<windup_model::Rect>,
        /// The origin of the target's document as its window tells it (`null` for an opaque
        /// one; a frame of the page's own origin inherits it).
        #[serde(default)]
        origin: String,
        /// The origin of the frame the engine ran in, as Chromium tells it; None for the top
        /// document (set on our side, never by the page).
        #[serde(skip)]
        frame_origin: Option<String>,
        /// For `fill`: what the field is (tag, type, autocomplete, role), which decides the
        /// credentials it may take.
        #[serde(default)]
        field: Option<Box<FieldFacts>>,
    },
}

/// Whether keystrokes sent now land in a fill target.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Focus {
    /// They do.
    Ok,
    /// Something else would receive them: `took` names it (`a frame "Ads" of http://…`).
    Elsewhere {
        /// What has the focus.
        took: String,
    },
    /// No visible match.
    NotFound,
}

/// What setting a value on a fill target did.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum SetValue {
    /// The value is in the field, with input and change fired.
    Ok,
    /// The target is no longer the field that was approved; nothing was set.
    Changed {
        /// What the target is now.
        field: FieldFacts,
    },
    /// No visible match.
    NotFound,
    /// The field did not take the value as given (a date field given a text that is not a
    /// date): it holds `value` instead.
    Malformed {
        /// What the field holds after the value was set.
        value: String,
    },
}

/// Visible and hidden match counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub struct Counts {
    /// Matches that are rendered and visible: the first one is the target.
    pub visible: u32,
    /// Matches that exist but are not visible (`display: none`, `aria-hidden`, empty box…).
    pub hidden: u32,
}

/// What the engine can say about a selector that found nothing usable.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Diagnosis {
    /// Visible matches.
    pub visible: u32,
    /// Matches that are not visible.
    pub hidden: u32,
    /// Up to three names, labels or texts on the page closest to the one asked for, so a
    /// message can say what the page has instead.
    #[serde(default)]
    pub nearest: Vec<String>,
}

impl Diagnosis {
    /// `0 visible matches; 1 hidden match; nearest names: "Save changes"`.
    pub fn describe(&self) -> String {
        let plural =
            |n: u32, what: &str| format!("{n} {what} match{}", if n == 1 { "" } else { "es" });
        let mut text = format!(
            "{}; {}",
            plural(self.visible, "visible"),
            plural(self.hidden, "hidden")
        );
        if !self.nearest.is_empty() {
            let names: Vec<String> = self.nearest.iter().map(|n| format!("{n:?}")).collect();
            text.push_str(&format!("; nearest names: {}", names.join(", ")));
        }
        text
    }
}

/// Which healing rule found candidates for a target that is gone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HealRule {
    /// The target's role, under the same container, with a close name.
    Renamed,
    /// The same test id, label or placeholder, its container gone.
    Moved,
}

/// An element a target that is gone may have become.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HealCandidate {
    /// A selector that picks it out alone, built as planning builds one.
    pub selector: String,
    /// Its role, when it has one.
    pub role: Option<String>,
    /// Its accessible name.
    pub name: String,
    /// An `<input>`'s type.
    #[serde(rename = "type")]
    pub input_type: Option<String>,
}

/// What says whether the current document has settled.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct DocumentState {
    /// How long the document has been unchanged, in milliseconds: 0 on the first ask in a
    /// document (that call starts watching it).
    pub still_ms: u64,
    /// Shown elements marked `aria-busy="true"`: regions that say they are still loading.
    pub busy: u32,
    /// `document.readyState`: `loading`, `interactive` or `complete`.
    pub ready: String,
}

/// What the page has in place of a target that is gone (at most three candidates listed).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct HealCandidates {
    /// The rule that applied; none when the selector fits neither or still matches.
    pub rule: Option<HealRule>,
    /// How many candidates the rule found.
    pub total: u32,
    /// The first of them.
    pub candidates: Vec<HealCandidate>,
    /// How long the document has been unchanged, in milliseconds, when candidates were looked
    /// for: 0 the first time in a document (that call starts watching it).
    #[serde(default)]
    pub still_ms: u64,
}

/// What the page showed for a [`super::injected::CheckSpec`]: one field per postcondition asked.
#[derive(Debug, Deserialize)]
pub struct Observed {
    /// The page's URL when it was observed.
    pub url: String,
    /// The document is being replaced: nothing observed counts.
    #[serde(default)]
    pub navigating: bool,
    /// Whether the `visible` selector had a visible match.
    pub visible: Option<bool>,
    /// Whether the `hidden` selector had no visible match.
    pub hidden: Option<bool>,
    /// What the `value` postcondition found.
    pub value: Option<ValueObserved>,
    /// What the `count` postcondition found.
    pub count: Option<CountObserved>,
}

/// What a `value` postcondition found.
#[derive(Debug, Deserialize)]
pub struct ValueObserved {
    /// Whether the first visible match's value equals the one expected.
    pub ok: bool,
    /// None when there is no visible match.
    pub actual: Option<String>,
}

/// What a `count` postcondition found.
#[derive(Debug, Deserialize)]
pub struct CountObserved {
    /// Whether the count is the one expected.
    pub ok: bool,
    /// How many visible matches there were.
    pub actual: u32,
}

/// What a field is, as the page tells it just before a value is set: its tag, and for an
/// `<input>` its type (lowercase, `text` when absent or unknown to the browser), its
/// `autocomplete` tokens and its role.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldFacts {
    /// The element's local name: `input`, `textarea`, `div`…
    pub tag: String,
    /// An input's type as the browser reads it (`el.type`).
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub input_type: Option<String>,
    /// The `autocomplete` attribute, lowercase.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub autocomplete: Option<String>,
    /// The explicit `role` attribute, lowercase (`searchbox`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
}
