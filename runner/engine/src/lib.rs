//! Windup's engine: the browser boundary, locators, the deterministic executor and verifier,
//! the plan cache and signatures. It never links a web server or a database.

#![warn(missing_docs)]

pub mod authoring;
pub mod base_url;
pub mod boundary;
pub mod browser;
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
mod http;
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
