//! Planning end to end, LLM-hermetic: the runner plans against a local fake provider that speaks
//! the OpenAI and Gemini wire formats with scripted answers, executes in real Chromium, verifies,
//! caches, replays, repairs, and writes the ledger.
//!
//! Each module holds the tests of one concern; `support` holds their throwaway project and the
//! answers they script.

mod answers;
mod boundary;
mod calls;
mod debrief;
mod episode;
mod fragments;
mod grounding;
mod loops;
mod protect;
mod proving;
mod repair;
mod security;
mod settling;
mod setups;
mod suites;
pub(crate) mod support;
mod transfers;
