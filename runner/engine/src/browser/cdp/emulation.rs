//! The Emulation domain: the viewport a page is laid out in.

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
