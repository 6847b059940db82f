//! A scenario's trace as a filmstrip for the HTML report: one frame per step that left one, with
//! its picture inlined as a `data:` URI (the page stays self-contained and opens offline), the
//! target's box drawn over it, the URL and the step's timings.

use std::path::Path;

use windup_model::{ActionResult, ActionStatus, Rect, ScenarioResult};

use super::duration;

const JPEG_SIGNATURE: &[u8] = b"\xff\xd8\xff";

/// One frame as the page shows it.
pub(super) struct FrameView<'a> {
    pub id: &'a str,
    pub step: String,
    pub status: &'static str,
    pub url: Option<&'a str>,
    /// `wait 10 ms · act 5 ms · verify 40 ms`.
    pub timings: String,
    pub duration: String,
    /// A `data:image/jpeg;base64,` URI.
    pub image: Option<String>,
    /// Why there is no picture.
    pub note: Option<String>,
    /// The target's box over the picture, as CSS percentages of the viewport.
    pub target: Option<String>,
}

/// The frames of `s`'s steps, in the order the steps finished.
pub(super) fn frames<'a>(s: &'a ScenarioResult, root: &Path) -> Vec<FrameView<'a>> {
    s.actions
        .iter()
        .filter_map(|a| Some((a, a.trace.as_ref()?)))
        .map(|(a, t)| {
            let (image, failed) = match t.screenshot.as_deref() {
                Some(rel) => {
                    match super::inline::inline_image(root, rel, "image/jpeg", JPEG_SIGNATURE) {
                        Ok(uri) => (Some(uri), None),
                        Err(why) => (None, Some(why.to_string())),
                    }
                }
                None => (None, None),
            };
            FrameView {
                id: &a.id,
                step: a
                    .step
                    .clone()
                    .unwrap_or_else(|| a.kind.as_str().to_string()),
                status: status(a),
                url: t.url.as_deref(),
                timings: format!(
                    "wait {} · act {} · verify {}",
                    duration(a.wait_ms),
                    duration(a.act_ms),
                    duration(a.verify_ms)
                ),
                duration: duration(a.duration_ms),
                target: image
                    .as_ref()
                    .and(t.target_box.zip(t.viewport))
                    .map(|(b, v)| box_style(b, v)),
                image,
                note: failed.or_else(|| t.note.clone()),
            }
        })
        .collect()
}

fn status(a: &ActionResult) -> &'static str {
    match a.status {
        ActionStatus::Passed => "passed",
        ActionStatus::Failed => "failed",
        ActionStatus::Skipped => "skipped",
    }
}

/// `b` as `left/top/width/height` percentages of the viewport `v`, clamped to it.
fn box_style(b: Rect, v: Rect) -> String {
    let pct = |part: i64, whole: u32| {
        let whole = i64::from(whole.max(1));
        (part.clamp(0, whole) * 1000 / whole) as f64 / 10.0
    };
    let (left, top) = (i64::from(b.x), i64::from(b.y));
    let (right, bottom) = (left + i64::from(b.width), top + i64::from(b.height));
    let (l, t) = (pct(left, v.width), pct(top, v.height));
    format!(
        "left:{l}%;top:{t}%;width:{}%;height:{}%",
        pct(right, v.width) - l,
        pct(bottom, v.height) - t
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_box_is_drawn_in_percent_of_the_viewport_and_clamped_to_it() {
        let v = Rect {
            x: 0,
            y: 0,
            width: 1000,
            height: 500,
        };
        let b = Rect {
            x: 100,
            y: 50,
            width: 200,
            height: 100,
        };
        assert_eq!(box_style(b, v), "left:10%;top:10%;width:20%;height:20%");
        let off = Rect {
            x: -50,
            y: 450,
            width: 100,
            height: 100,
        };
        assert_eq!(box_style(off, v), "left:0%;top:90%;width:5%;height:10%");
    }
}
