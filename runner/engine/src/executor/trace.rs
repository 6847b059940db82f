//! A trace, like Playwright's: after each step, the page's URL, the target's box and a small
//! JPEG of the viewport with every credential covered, exactly as in any other screenshot
//! (`cover.rs`); a picture that cannot be covered is not taken.
//!
//! Bounded: a frame is at most [`FRAME_WIDTH`] pixels wide at JPEG quality [`FRAME_QUALITY`];
//! a picture over [`MAX_FRAME_BYTES`], or past [`MAX_FRAMES`] pictures or [`MAX_TRACE_BYTES`]
//! in one execution, is dropped and its frame keeps only a note saying so (with the URL, the
//! box and the step's timings). Which executions keep their frames is the runner's call.

use windup_model::{Rect, TraceFrame};

use super::outcome::FrameShot;
use super::steps::Executor;

/// The widest a frame's picture is, in pixels (a wider viewport is scaled down).
pub const FRAME_WIDTH: u32 = 320;
/// The JPEG quality of a frame's picture.
pub const FRAME_QUALITY: u8 = 50;
/// A picture bigger than this is dropped.
pub const MAX_FRAME_BYTES: usize = 64 * 1024;
/// The most pictures one execution keeps.
pub const MAX_FRAMES: usize = 60;
/// The most bytes of pictures one execution keeps.
pub const MAX_TRACE_BYTES: usize = 1024 * 1024;

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
        let (picture, note) = if self.frames.len() >= MAX_FRAMES {
            (
                None,
                Some(format!(
                    "screenshot dropped: a trace keeps at most {MAX_FRAMES} per scenario"
                )),
            )
        } else {
            match self
                .covered(|s| Box::pin(s.page().frame(FRAME_WIDTH, FRAME_QUALITY)))
                .await
            {
                Ok(Ok(f)) if f.jpeg.len() > MAX_FRAME_BYTES => (
                    None,
                    Some(format!(
                        "screenshot dropped: {} KiB, over the bound of {} KiB a frame",
                        f.jpeg.len().div_ceil(1024),
                        MAX_FRAME_BYTES / 1024
                    )),
                ),
                Ok(Ok(f)) if self.trace_bytes + f.jpeg.len() > MAX_TRACE_BYTES => (
                    None,
                    Some(format!(
                        "screenshot dropped: a trace keeps at most {} KiB of screenshots per scenario",
                        MAX_TRACE_BYTES / 1024
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
