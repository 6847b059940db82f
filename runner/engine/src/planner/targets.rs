//! Which observed element a planned step fits: a `fill` a field, a `check` a box, an upload a
//! file input, a credential a field of its kind; and, for a step aimed amiss, the element it
//! can only have meant, or the ones a rejection names.

use serde_json::Value;

use super::observation::{Item, Observation};
use crate::boundary::Boundary;

/// Whether `action` is a `check` or `uncheck` on an observed item that cannot be ticked.
pub(super) fn verifies(action: &Value, observation: &Observation) -> bool {
    let kind = action
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    matches!(kind, "check" | "uncheck")
        && action
            .get("target")
            .and_then(target_ref)
            .and_then(|r| observation.item(r))
            .is_some_and(|item| misfit(kind, item).is_some())
}

/// The ref of the item right after `r` when it is a text and that next item is a control the
/// step fits (a caption, then its field).
pub(super) fn next_fit(kind: &str, r: &str, observation: &Observation) -> Option<String> {
    let n: usize = r.trim().strip_prefix('e')?.parse().ok()?;
    let here = observation.item(r)?;
    let next = observation.items.get(n)?;
    (!here.control && next.control && next.context == here.context && misfit(kind, next).is_none())
        .then(|| format!("e{}", n + 1))
}

/// For a `fill` or `select` aimed at something that takes no text, the page's one field it fits,
/// when there is exactly one: the step can only have meant it.
pub(super) fn only_field(kind: &str, observation: &Observation) -> Option<String> {
    if !matches!(kind, "fill" | "select") {
        return None;
    }
    let mut fit = observation
        .items
        .iter()
        .enumerate()
        .filter(|(_, item)| item.control && misfit(kind, item).is_none());
    match (fit.next(), fit.next()) {
        (Some((n, _)), None) => Some(format!("e{}", n + 1)),
        _ => None,
    }
}

/// The refs a step of type `kind` could act on, for a rejection to name: a small model told
/// only "target a field" tends to answer the same ref again.
pub(super) fn fitting(kind: &str, observation: &Observation) -> String {
    const SHOWN: usize = 5;
    let fit: Vec<String> = observation
        .items
        .iter()
        .enumerate()
        .filter(|(_, item)| item.control && misfit(kind, item).is_none())
        .map(|(n, item)| format!("e{} ({})", n + 1, describe_item(item)))
        .collect();
    match fit.len() {
        0 => format!("no element in ELEMENTS takes `{kind}`: use another step type"),
        n if n > SHOWN => format!(
            "`{kind}` fits {}, and {} more in ELEMENTS",
            fit[..SHOWN].join(", "),
            n - SHOWN
        ),
        _ => format!("`{kind}` fits {}", fit.join(", ")),
    }
}

/// Why a `fill` of a credential (its `value_ref`, or a `value` naming one) cannot go into
/// `item`, by the one rule of which fields a credential fits (`secrets::fit`).
pub(super) fn credential_misfit(
    action: &serde_json::Map<String, Value>,
    item: &Item,
    boundary: &Boundary,
) -> Option<String> {
    if action.get("type").and_then(Value::as_str) != Some("fill") {
        return None;
    }
    let name = ["value_ref", "value"]
        .iter()
        .filter_map(|k| action.get(*k).and_then(Value::as_str))
        .find(|v| boundary.credential_names().any(|n| n == *v))?;
    let facts = crate::secrets::FieldFacts {
        tag: item.tag.clone(),
        input_type: (item.tag == "input")
            .then(|| item.input_type.clone().unwrap_or_else(|| "text".into())),
        autocomplete: None,
        role: item.role.clone(),
    };
    boundary
        .fits_field(name, &facts)
        .err()
        .map(|m| m.to_string())
}

/// Why a step of type `kind` cannot act on `item`, when it cannot: a `check` on a text (a
/// model reading "check that it appears" as a step), a `fill` on a button.
pub(super) fn misfit(kind: &str, item: &Item) -> Option<&'static str> {
    let role = item.role.as_deref().unwrap_or_default();
    let input = item.input_type.as_deref().unwrap_or_default();
    let checkable = matches!(
        role,
        "checkbox" | "radio" | "switch" | "menuitemcheckbox" | "menuitemradio"
    ) || matches!(input, "checkbox" | "radio");
    let field = item.control
        && (matches!(role, "textbox" | "searchbox" | "combobox" | "spinbutton")
            || matches!(item.tag.as_str(), "input" | "textarea")
                && !checkable
                && !matches!(input, "button" | "submit" | "reset" | "image" | "file"));
    let list = matches!(role, "combobox" | "listbox") || item.tag == "select";
    let file = item.tag == "input" && input == "file";
    // What starts a download: a link, or a button-like control that is not a file input.
    let clickable = item.control
        && !file
        && (matches!(role, "link" | "button" | "menuitem")
            || matches!(item.tag.as_str(), "a" | "button")
            || item.tag == "input" && matches!(input, "button" | "submit" | "image"));
    match kind {
        "check" | "uncheck" if !checkable => Some(
            "check and uncheck tick a checkbox or radio; they never verify (fix: leave the outcome to WHAT CHANGED, or target a checkbox)",
        ),
        "fill" if !field => Some("fill types into a text field (fix: target a field)"),
        "select" if !list => {
            Some("select chooses an option of a list box (fix: target a list box)")
        }
        "upload" if !file => {
            Some("upload sets files on a file input (fix: target an element listed with type=file)")
        }
        "download" if !clickable => Some(
            "download clicks the link or button that starts a download (fix: target that link or button)",
        ),
        _ => None,
    }
}

/// An element as a plan's `description` names it: `button "Save"`.
pub(super) fn describe_item(item: &Item) -> String {
    let role = item.role.as_deref().unwrap_or(&item.tag);
    if item.name.is_empty() {
        match &item.context {
            Some(c) => format!("{role} in {c}"),
            None => role.to_string(),
        }
    } else {
        format!(
            "{role} {}",
            serde_json::to_string(&item.name).unwrap_or_default()
        )
    }
}

/// The ref a step's `target` names: `{"ref": "e3"}`, or `"e3"` as loose models write it.
pub(super) fn target_ref(target: &Value) -> Option<&str> {
    match target {
        Value::String(r) => Some(r),
        Value::Object(t) => t.get("ref").and_then(Value::as_str),
        _ => None,
    }
}
