//! Crystallising verified plans into plain Playwright: `windup export --format playwright`.
//!
//! Each scenario's verified plan becomes one `@playwright/test` TypeScript spec with no Windup
//! dependency, which resolves what Windup resolves: `locator` maps selectors (the first
//! *visible* match, visible matches counted), `resolve` decides from Playwright's own verdicts
//! in a probing run (`--check`) which locators are unique and can be written plain,
//! `assertion` maps postconditions (the URL glob through the verifier's own regular
//! expression), `spec` writes the steps with fragments in place and setups' storage,
//! `transfer` the upload and download steps, `runtime` the TypeScript a spec may carry (the tab
//! follower and dialog handler, the probe, helpers), `config` writes `playwright.config.ts` from
//! windup.toml, `write` picks the plans and writes the files, `check` runs them with the local
//! `@playwright/test`. Exporting never calls an LLM
//! and never reads a credential's value: a `value_ref` stays an environment variable's name (a
//! TOTP secret's name becomes the spec's `totp(...)` of it, the code worked out when it runs).

mod assertion;
mod check;
mod config;
mod locator;
mod resolve;
mod runtime;
mod spec;
mod transfer;
mod ts;
mod write;

pub use check::{CheckError, Checked, SpecOutcome, check};
pub use config::ConfigInput;
pub use locator::{acted_on, every_match};
pub use resolve::{Evidence, PROBE_ENV, Resolution};
pub use write::{Exported, Request, playwright};
