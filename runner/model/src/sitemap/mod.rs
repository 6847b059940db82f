//! The site map, `map_version: "0.1"`, at `e2e/.windup/sitemap.json`: the app's pages keyed by
//! route pattern, each with its title, structural signature and a short inventory of controls,
//! the edges between them (from a page, the step that led on, to a page), and notes people and
//! agents recorded about the app.
//!
//! Invariants of the file:
//! - every fact carries its source, and a fact of a higher source is never replaced by one of a
//!   lower: `execution` (a run saw it) > `static` (`windup scan` read it in the source) > `llm`;
//! - pages are sorted by route, edges by (from, to, via), controls by (role, name): the same
//!   facts always serialise to the same bytes, so a run that learns nothing leaves the file
//!   byte-identical;
//! - bounded: at most [`MAX_PAGES`] pages and [`MAX_BYTES`] bytes; the least recently seen
//!   pages (lowest `seen`, see [`SiteMap::generation`]) are dropped first, with their edges;
//!   `generation` stops at [`MAX_GENERATION`], never wrapping;
//! - every route (a page's, an edge's ends) is a path pattern by [`route_problem`], and notes
//!   stay within [`MAX_NOTES`] and [`MAX_NOTE_CHARS`] (`check`, at every road a map comes in by).
//!
//! Knowledge is cache, not truth: anything here can be stale, and the runner degrades to what
//! it sees on the page. Pure data and rules: reading and writing the file is the engine's.

mod check;
mod map;
mod merge;
mod route;

pub use check::MapProblem;
pub use map::{
    Control, Edge, MAP_VERSION, MAX_BYTES, MAX_CONTROLS, MAX_GENERATION, MAX_NOTE_CHARS, MAX_NOTES,
    MAX_PAGES, Note, NoteSource, Page, ScanInfo, SiteMap, Source,
};
pub use route::{
    MAX_ROUTE_CHARS, ROUTE_PATTERN, generalize_path, is_param_value, pattern_segments,
    route_matches, route_problem, segments, step_via,
};
