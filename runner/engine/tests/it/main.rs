//! Engine integration tests: real Chromium, real pages on loopback, LLM-hermetic (a local fake provider).

mod failures;
mod locators;
mod planning;
mod remote;
mod support;
mod thirdparty;
