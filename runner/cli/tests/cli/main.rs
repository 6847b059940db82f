//! The `windup` binary end to end: exit codes, messages, files on disk. Real Chromium, the
//! bundled example app served on loopback, a local fake LLM provider for planning.
//!
//! One test binary (`cli`); each module holds the tests of one concern, `support` their helpers.

mod attach;
mod costs;
mod credentials;
mod dashboard;
mod django;
mod export;
mod fragments;
mod heal;
mod hooks;
mod input;
mod install;
mod jupyterlab;
mod limits;
mod mcp;
mod mcp_steps;
mod mcp_watch;
mod new;
mod prove;
mod real_dashboard;
mod replay;
mod selection;
mod stop;
mod support;
mod trace;
mod transfers;
mod triage;
mod usage;
