//! `windup scan`: the app's routes and controls read from its source, for the site map as
//! `static` facts. Layer 1 of the spec's scan (routes by convention) and layer 2 (controls by
//! JSX parsing, with `oxc_parser`); the LLM-assisted layer 3 is not built.
//!
//! `project` finds the app roots (a monorepo's `apps/*` included) and each root's framework;
//! `next` reads Next.js's app and pages routers from file names; `parse` reads one module (its
//! imports, route objects, `<Route>` elements and controls) and `react_router` composes
//! react-router's nested routes across modules; `result` turns what was found into site-map
//! pages and edges, and `update` writes them into the project's site map.

mod next;
mod parse;
mod project;
mod react_router;
mod result;
mod update;

pub use project::{ScanError, scan};
pub use result::{ScanResult, ScannedRoute};
pub use update::{ScanReport, update_site_map};
