//! The deterministic loop: go to the start URL, then per action: find the target, wait until it
//! is actionable, act with trusted input, verify the postconditions. LLM-free.

mod act;
mod context;
mod cover;
mod evidence;
mod fragment;
mod navigate;
mod outcome;
mod steps;
mod trace;
mod transfer;
mod typing;

pub use context::{ExecContext, Screenshots, Trace, Transfers, UnknownSetting};
pub use outcome::{Captured, Execution, Failure, FrameShot};
pub use steps::{execute, execute_steps};
pub(crate) use trace::trace_width;
pub use trace::{
    FRAME_QUALITY, FRAME_WIDTH, MAX_FRAME_BYTES, MAX_FRAME_WIDTH, MAX_FRAMES, MAX_TRACE_BYTES,
    MIN_FRAME_WIDTH, TraceBounds,
};
pub use transfer::{
    MAX_UPLOAD_FILES, missing_upload_files, refused_upload_files, upload_file_names,
};
pub(crate) use typing::value_form;
