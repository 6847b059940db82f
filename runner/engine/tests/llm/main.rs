//! The `llm` module against the fake provider on loopback, for both wire formats: request shape,
//! usage, retries, time-outs, refusals, rejections, and the key kept out of sight.
//!
//! One test binary (`llm`); each module holds the tests of one concern, `support` their helpers.

mod config;
mod key;
mod rejections;
mod retries;
mod support;
mod wire;
