//! The Input domain: trusted mouse and keyboard input, as if from the user.

use serde::Serialize;

use super::{Command, Ignored};

/// A mouse event at viewport coordinates. The button fields are left out for moves.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DispatchMouseEvent {
    /// `mouseMoved`, `mousePressed` or `mouseReleased`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub x: f64,
    pub y: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub button: Option<&'static str>,
    /// Buttons held, as a bit mask (left = 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buttons: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click_count: Option<u32>,
}

impl DispatchMouseEvent {
    /// The pointer moved to (x, y), no button held.
    pub(crate) fn moved(x: f64, y: f64) -> Self {
        DispatchMouseEvent {
            kind: "mouseMoved",
            x,
            y,
            button: None,
            buttons: None,
            click_count: None,
        }
    }

    /// The left button pressed or released (`kind`) at (x, y), as one click.
    pub(crate) fn left_button(kind: &'static str, x: f64, y: f64) -> Self {
        DispatchMouseEvent {
            kind,
            x,
            y,
            button: Some("left"),
            buttons: Some(1),
            click_count: Some(1),
        }
    }
}

impl Command for DispatchMouseEvent {
    const METHOD: &'static str = "Input.dispatchMouseEvent";
    type Response = Ignored;
}

/// A key event on the focused element.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DispatchKeyEvent {
    /// `keyDown` (types `text`), `rawKeyDown`, `keyUp` or `char`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub key: String,
    pub code: String,
    pub windows_virtual_key_code: u32,
    pub native_virtual_key_code: u32,
    /// Alt=1, Control=2, Meta=4, Shift=8.
    pub modifiers: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmodified_text: Option<String>,
}

impl Command for DispatchKeyEvent {
    const METHOD: &'static str = "Input.dispatchKeyEvent";
    type Response = Ignored;
}

/// Inserts text into the focused element as one trusted insertion (like an IME commit).
#[derive(Debug, Serialize)]
pub(crate) struct InsertText {
    pub text: String,
}

impl Command for InsertText {
    const METHOD: &'static str = "Input.insertText";
    type Response = Ignored;
}
