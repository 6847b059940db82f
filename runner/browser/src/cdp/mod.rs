//! Typed Chrome DevTools Protocol messages: every command the engine sends, with its answer,
//! and every event it reads, as serde structs grouped by domain (the shape of chromiumoxide's
//! protocol types, limited to what Windup uses). A new CDP method gets its struct here, never a
//! `json!` value at the call site.

mod protocol;

pub(crate) mod browser;
pub(crate) mod dom;
pub(crate) mod emulation;
pub(crate) mod fetch;
pub(crate) mod input;
pub(crate) mod inspector;
pub(crate) mod network;
pub(crate) mod page;
pub(crate) mod runtime;
pub(crate) mod storage;
pub(crate) mod target;

pub(crate) use protocol::{Command, Event, Ignored};
