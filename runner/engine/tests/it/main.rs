//! Engine integration tests: real Chromium, real pages on loopback, LLM-hermetic (a local fake provider).

mod actionability;
mod attach;
mod conformance;
mod dashboard_client;
mod failures;
mod frames;
mod injected;
mod isolation;
mod launch;
mod locators;
mod planning;
mod report_runs;
#[cfg(feature = "scan")]
mod scan;
mod screenshots;
mod sitemap;
mod support;
mod thirdparty;
mod trace;
mod typing;
