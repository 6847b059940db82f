//! A trace, like Playwright's: after each step, the page's URL, the target's box and a small
//! JPEG of the viewport with every credential covered, exactly as in any other screenshot
//! (`cover.rs`); a picture that cannot be covered is not taken.
//!
//! Bounded: a frame is at most [`FRAME_WIDTH`] pixels wide (or the width asked, up to
//! [`MAX_FRAME_WIDTH`]) at JPEG quality [`FRAME_QUALITY`]; a picture over its bound of bytes,
//! or past [`MAX_FRAMES`] pictures or the execution's bound of bytes ([`TraceBounds`]), is
//! dropped and its frame keeps only a note saying so (with the URL, the box and the step's
//! timings). Which executions keep their frames is the runner's call.

use windup_model::{InputError, Rect, TraceFrame};

use super::outcome::FrameShot;
use super::steps::Executor;

/// The widest a frame's picture is by default, in pixels (a wider viewport is scaled down).
pub const FRAME_WIDTH: u32 = 320;
/// The narrowest width a trace may ask for.
pub const MIN_FRAME_WIDTH: u32 = 160;
/// The widest a trace may ask for (`[browser] trace_width`): a full-HD viewport unscaled.
pub const MAX_FRAME_WIDTH: u32 = 1920;
/// The JPEG quality of a frame's picture.
pub const FRAME_QUALITY: u8 = 50;
/// A picture of the default width bigger than this is dropped.
pub const MAX_FRAME_BYTES: usize = 64 * 1024;
/// The most pictures one execution keeps.
pub const MAX_FRAMES: usize = 60;
/// The most bytes of pictures of the default width one execution keeps.
pub const MAX_TRACE_BYTES: usize = 1024 * 1024;

/// The bounds of bytes for frames `width` pixels wide: the default width's, grown with the
/// picture's area (a frame twice as wide holds four times the pixels), so a wider trace keeps
/// as many frames; at the widest, 2.25 MiB a frame and 36 MiB an execution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceBounds {
    /// A picture bigger than this is dropped.
    pub frame_bytes: usize,
    /// The most bytes of pictures one execution keeps.
    pub trace_bytes: usize,
}

impl TraceBounds {
    /// The bounds for frames at most `width` pixels wide.
    pub fn for_width(width: u32) -> TraceBounds {
        let w = u64::from(width.clamp(MIN_FRAME_WIDTH, MAX_FRAME_WIDTH));
        let base = u64::from(FRAME_WIDTH);
        // The area's ratio to the default's, rounded up, never below 1.
        let scale = (w * w).div_ceil(base * base).max(1) as usize;
        TraceBounds {
            frame_bytes: MAX_FRAME_BYTES * scale,
            trace_bytes: MAX_TRACE_BYTES * scale,
        }
    }
}

/// `[browser] trace_width` of `config_file`, within its bounds, else the default.
pub(crate) fn trace_width(config_file: &str, given: Option<u32>) -> Result<u32, InputError> {
    match given {
        None => Ok(FRAME_WIDTH),
        Some(w) if (MIN_FRAME_WIDTH..=MAX_FRAME_WIDTH).contains(&w) => Ok(w),
        Some(w) => Err(InputError::new(
            config_file,
            "browser.trace_width",
            format!("{w} pixels is outside {MIN_FRAME_WIDTH} to {MAX_FRAME_WIDTH}"),
            format!(
                "set a width from {MIN_FRAME_WIDTH} to {MAX_FRAME_WIDTH} (the viewport's, 1280 by default, shows pages at their own size), or remove it for {FRAME_WIDTH}"
            ),
        )),
    }
}

impl Executor<'_, '_> {
    /// Records the frame of the step whose result is `self.results[index]`.
    pub(super) async fn trace_frame(&mut self, index: usize) {
        let target_box = self.target_box.take();
        if !self.session.is_alive() {
            self.results[index].trace = Some(TraceFrame {
                note: Some("no screenshot: the page is gone".into()),
                target_box,
                ..TraceFrame::default()
            });
            return;
        }
        let url = self.session.url().await.ok();
        let width = self.cx.trace_width;
        let bounds = TraceBounds::for_width(width);
        let (picture, note) = if self.frames.len() >= MAX_FRAMES {
            (
                None,
                Some(format!(
                    "screenshot dropped: a trace keeps at most {MAX_FRAMES} per scenario"
                )),
            )
        } else {
            match self
                .covered(|s| Box::pin(s.page().frame(width, FRAME_QUALITY)))
                .await
            {
                Ok(Ok(f)) if f.jpeg.len() > bounds.frame_bytes => (
                    None,
                    Some(format!(
                        "screenshot dropped: {} KiB, over the bound of {} KiB a frame",
                        f.jpeg.len().div_ceil(1024),
                        bounds.frame_bytes / 1024
                    )),
                ),
                Ok(Ok(f)) if self.trace_bytes + f.jpeg.len() > bounds.trace_bytes => (
                    None,
                    Some(format!(
                        "screenshot dropped: a trace keeps at most {} KiB of screenshots per scenario",
                        bounds.trace_bytes / 1024
                    )),
                ),
                Ok(Ok(f)) => (Some(f), None),
                Ok(Err(e)) => (None, Some(format!("no screenshot: {e}"))),
                Err(why) => (None, Some(format!("no screenshot: {why}"))),
            }
        };
        let viewport = picture.as_ref().map(|f| Rect {
            x: 0,
            y: 0,
            width: f.width,
            height: f.height,
        });
        if let Some(f) = picture {
            self.trace_bytes += f.jpeg.len();
            self.frames.push(FrameShot {
                action: index,
                jpeg: f.jpeg,
            });
        }
        self.results[index].trace = Some(TraceFrame {
            url,
            screenshot: None,
            note,
            viewport,
            target_box,
        });
    }
}
