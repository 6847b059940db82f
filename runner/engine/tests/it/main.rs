//! Engine integration tests: real Chromium, real pages on loopback, no LLM.

mod failures;
mod locators;
mod support;
mod thirdparty;
