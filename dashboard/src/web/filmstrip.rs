//! A scenario's trace (`windup run --trace`) as a filmstrip on the run page: each frame's picture
//! (uploaded with the run as a JPEG artifact) in an inline SVG with the target's box drawn over
//! it as a `<rect>` (attributes, not inline styles: the CSP allows no inline style), the step, its
//! URL and timings.

use super::step_view::{status_text, step_text};
use windup_model::ScenarioResult;

use super::artifacts::screenshot_url;

/// One frame as the page shows it.
pub(super) struct FrameView {
    pub id: String,
    pub step: String,
    pub status: String,
    pub url: String,
    pub duration_ms: u64,
    /// `wait 10 ms · act 5 ms · verify 40 ms`.
    pub timings: String,
    /// The picture's URL on this dashboard; empty when it was not uploaded.
    pub image: String,
    /// The viewport the picture shows, in CSS pixels: the SVG's coordinates.
    pub width: u32,
    pub height: u32,
    /// The target's box, in the same coordinates.
    pub target: Option<(i32, i32, u32, u32)>,
    /// Why there is no picture.
    pub note: String,
}

/// The frames of `s`'s steps that left one, in the order the steps finished.
pub(super) fn frames(
    slug: &str,
    run_id: &str,
    s: &ScenarioResult,
    uploaded: &[String],
) -> Vec<FrameView> {
    s.actions
        .iter()
        .filter_map(|a| Some((a, a.trace.as_ref()?)))
        .map(|(a, t)| {
            let image = screenshot_url(slug, run_id, t.screenshot.as_deref(), uploaded);
            let viewport = t.viewport.unwrap_or_default();
            let note = match (&t.note, image.is_empty(), t.screenshot.is_some()) {
                (Some(n), _, _) => n.clone(),
                (None, true, true) => "the screenshot was not uploaded".into(),
                _ => String::new(),
            };
            FrameView {
                id: a.id.clone(),
                step: step_text(a),
                status: status_text(a),
                url: t.url.clone().unwrap_or_default(),
                duration_ms: a.duration_ms,
                timings: format!(
                    "wait {} ms · act {} ms · verify {} ms",
                    a.wait_ms, a.act_ms, a.verify_ms
                ),
                target: t
                    .target_box
                    .filter(|_| !image.is_empty() && viewport.width > 0)
                    .map(|b| (b.x, b.y, b.width, b.height)),
                image,
                width: viewport.width.max(1),
                height: viewport.height.max(1),
                note,
            }
        })
        .collect()
}
