//! `windup mcp`: an MCP server over stdio for coding agents (Claude Code, Cursor, Codex,
//! Copilot). Its tools are grounded: the agent reads the page as an observation with refs
//! (`e1`, `e2`…) and acts on refs, never on free-form descriptions, so the selector that drove
//! a step is the one saved, and `save_scenario` leaves a scenario whose verified plan replays
//! with no LLM call. A thin frontend: every tool is one call on the engine's
//! [`windup_engine::runner::Drive`]; this crate only names the tools, their JSON-schema'd
//! arguments and how their answers read.

#![warn(missing_docs)]

mod args;
mod server;

pub use server::{ServeError, WindupMcp, serve_stdio};
