//! Windup's browser crate, the single browser boundary: Chromium driven over the Chrome
//! DevTools Protocol by a small client of our own.
//!
//! Chromium is started with `--remote-debugging-pipe` (`launch`), or one someone else started
//! is attached to over its debugging WebSocket after a preflight (`attach`, `--cdp-url`);
//! whole messages travel over the pipe or the WebSocket (`transport`), and one connection
//! (`connection`) hands each answer to its command by id and each event to its session's
//! subscribers by session id (flat sessions). Every command and event is a typed struct
//! (`cdp`). A page is set up with only what [`Session`] uses (`page_events`), and the in-page
//! engine is reached only through typed functions on a session's [`Page`] (`injected`), in the
//! top document or in a frame of another origin ([`Frames`]).
//!
//! One lazily started Chromium per process (`chromium`, `instance`); a fresh, isolated browser
//! context per scenario, or a reset tab an earlier one left (`pool`); each concern of a
//! session's page in its own file, whose type owns that concern's state, and the session
//! (`session`) holding them; trusted input through the Input domain (`input`); navigation that waits for the document that finally commits
//! (`navigation`); failed requests for the evidence (`network_log`); every top-level document
//! held to the app's origins (`guard`); files set on a file input and downloads saved
//! and followed (`transfer`). Everything CDP-specific stays in this crate: the protocol
//! (`cdp`) is private, and what the rest of Windup uses is this crate's public API. Raw CDP,
//! page JavaScript and init scripts on a [`Session`] exist only with the `test-access` feature,
//! for tests that read a page by their own means; no shipped binary turns it on.
//!
//! Windup never closes a browser it did not start: an attached one keeps its tabs, cookies
//! and cache; scenarios run in contexts (or tabs) Windup made, removed when it detaches.

#![warn(missing_docs)]

mod answers;
mod attach;
mod cdp;
mod child_env;
mod chromium;
mod connection;
mod cookies;
mod debug;
mod error;
mod evaluate;
mod frames;
mod guard;
pub mod http;
pub mod injected;
mod input;
mod instance;
mod launch;
mod navigation;
mod network_log;
mod page;
mod page_events;
mod pool;
mod popup_hold;
mod profile;
mod remote_frames;
mod session;
mod settled;
#[cfg(feature = "test-access")]
mod test_access;
mod traffic;
mod transfer;
mod transport;

pub use answers::FieldFacts;
pub use attach::{MIN_CHROMIUM_MAJOR, parse_cdp_url};
pub use child_env::ChildEnv;
pub use chromium::Browser;
pub use cookies::Cookie;
pub use debug::{DebugBrowser, DebugError, DebugOptions};
pub use error::{BrowserError, NavError};
pub use frames::{Frames, Realm};
pub use guard::Left;
pub use launch::{BrowserOptions, RunAs, find_chromium, kill_pid};
pub use network_log::{MAX_FAILED_REQUESTS, SessionLog};
pub use page::{Frame, Page};
pub use session::Session;
pub use settled::{DOCUMENT_STILL, NETWORK_QUIET, Settling};
pub use traffic::{ConsoleMessage, MAX_TRAFFIC, Request, TrafficSince};
pub use transfer::{Download, DownloadError, Downloads};
