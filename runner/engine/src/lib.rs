//! Windup's engine: locators, the deterministic executor and verifier,
//! the plan cache and signatures. It never links a web server or a database.

#![warn(missing_docs)]

/// The browser crate (`windup-browser`), the engine's one way to Chromium: its public API is
/// the contract; its CDP protocol is private to it.
pub use windup_browser as browser;

pub mod authoring;
pub mod base_url;
pub mod boundary;
pub mod cache;
pub mod ci;
pub mod config;
pub mod costs;
pub mod dashboard_client;
pub mod env;
pub mod events;
pub mod executor;
pub mod export;
pub mod fragments;
pub mod fsutil;
pub mod hooks;
pub mod llm;
pub mod locator;
pub mod metrics;
pub mod planner;
pub mod project;
pub mod reporters;
pub mod retry;
pub mod runner;
#[cfg(feature = "scan")]
pub mod scan;
pub mod secrets;
pub mod signature;
pub mod sitemap;
pub mod timeouts;
pub mod triage;
pub mod verifier;
