//! The Emulation domain: the viewport a page is laid out in, and its focus.

use serde::Serialize;

use super::{Command, Ignored};

/// Fixes the page's viewport size and scale, whatever the window's.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SetDeviceMetricsOverride {
    pub width: u32,
    pub height: u32,
    pub device_scale_factor: f64,
    pub mobile: bool,
    pub screen_orientation: ScreenOrientation,
}

#[derive(Debug, Serialize)]
pub(crate) struct ScreenOrientation {
    /// `portraitPrimary`, `landscapePrimary`, …
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub angle: u32,
}

impl Command for SetDeviceMetricsOverride {
    const METHOD: &'static str = "Emulation.setDeviceMetricsOverride";
    type Response = Ignored;
}

/// Makes the page behave as the focused one, whatever window has the focus: a headless page
/// (or a tab behind another) otherwise tells `document.hasFocus()` false, and typing is bound to
/// a target in a focused document (`executor::typing`).
#[derive(Debug, Serialize)]
pub(crate) struct SetFocusEmulationEnabled {
    pub enabled: bool,
}

impl Command for SetFocusEmulationEnabled {
    const METHOD: &'static str = "Emulation.setFocusEmulationEnabled";
    type Response = Ignored;
}
