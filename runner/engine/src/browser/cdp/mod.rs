//! Typed Chrome DevTools Protocol messages: every command the engine sends, with its answer,
//! and every event it reads, as serde structs grouped by domain (the shape of chromiumoxide's
//! protocol types, limited to what Windup uses). A new CDP method gets its struct here, never a
//! `json!` value at the call site.

mod protocol;

pub mod browser;
pub mod emulation;
pub mod input;
pub mod inspector;
pub mod network;
pub mod page;
pub mod runtime;
pub mod storage;
pub mod target;

pub use protocol::{Command, Event, Ignored};
