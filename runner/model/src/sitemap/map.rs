//! The site map's types.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `map_version` this windup writes and reads.
pub const MAP_VERSION: &str = "0.1";
/// At most this many pages are kept; the least recently seen go first.
pub const MAX_PAGES: usize = 2000;
/// At most this many bytes of JSON; the least recently seen pages go first.
pub const MAX_BYTES: usize = 512 * 1024;
/// At most this many controls per page and source.
pub const MAX_CONTROLS: usize = 40;
/// The largest `generation` (and `seen`): 2^53 - 1, the largest integer every JSON reader holds
/// exactly. A runner stops counting there rather than wrap to 0, and the dashboard refuses more.
pub const MAX_GENERATION: u64 = (1 << 53) - 1;

/// The app's known pages and the ways between them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SiteMap {
    /// The format's version, `"0.1"`.
    pub map_version: String,
    /// Bumped by every write that changes a fact; the pages and edges a run saw get it as their
    /// `seen`. A run that changes nothing writes nothing, so recency costs no churn in git.
    #[serde(default)]
    #[schemars(range(max = 9_007_199_254_740_991u64))]
    pub generation: u64,
    /// The last `windup scan` whose routes are in the map.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scan: Option<ScanInfo>,
    /// Pages, sorted by route.
    #[serde(default)]
    pub pages: Vec<Page>,
    /// Edges, sorted by (from, to, via).
    #[serde(default)]
    pub edges: Vec<Edge>,
    /// What people and agents recorded about the app (`windup mcp`'s `record_fact`), in the
    /// order recorded, each once; at most [`MAX_NOTES`], the oldest dropped first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 200))]
    pub notes: Vec<Note>,
}

/// At most this many notes are kept.
pub const MAX_NOTES: usize = 200;
/// At most this many characters per note.
pub const MAX_NOTE_CHARS: usize = 500;

/// One thing recorded about the app ("the admin's projects are under Settings > Projects").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Note {
    /// The note, at most [`MAX_NOTE_CHARS`] characters.
    #[schemars(length(min = 1, max = 500))]
    pub text: String,
    /// The day it was recorded, `YYYY-MM-DD`.
    pub recorded: String,
    /// Who wrote it: what reads a note (a planner, a coding agent) is told, so a note from the
    /// team's dashboard is not taken for the project's own. Absent on notes recorded before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<NoteSource>,
}

/// Where a note comes from: `agent` a coding agent's `record_fact` (`windup mcp`); `dashboard`
/// a note restored from the team's dashboard (whatever the upload said it was); `execution` a
/// run's and `static` a scan's own observation.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[expect(
    missing_docs,
    reason = "a doc comment on a variant makes schemars write the enum as `oneOf` consts; the \
              variants are described above"
)]
pub enum NoteSource {
    Execution,
    Static,
    Agent,
    Dashboard,
}

impl NoteSource {
    /// The name as written in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            NoteSource::Execution => "execution",
            NoteSource::Static => "static",
            NoteSource::Agent => "agent",
            NoteSource::Dashboard => "dashboard",
        }
    }
}

/// Where a fact comes from, lowest precedence first: `llm` < `static` < `execution`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
#[expect(
    missing_docs,
    reason = "a doc comment on a variant makes schemars write the enum as `oneOf` consts; the \
              variants are described above"
)]
pub enum Source {
    Llm,
    Static,
    Execution,
}

impl Source {
    /// The name as written in the file.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Llm => "llm",
            Source::Static => "static",
            Source::Execution => "execution",
        }
    }
}

/// What the last scan found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ScanInfo {
    /// SHA-256 of the sorted route set the scan found.
    pub sha: String,
    /// How many routes it found.
    pub routes: u64,
}

/// One page, keyed by its route pattern.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Page {
    /// The route pattern: `/settings/billing`, `/projects/:id`; `*name` matches one or more
    /// segments and `*name?` zero or more (see `route_problem`).
    #[schemars(length(min = 1, max = 512), regex(pattern = super::route::ROUTE_PATTERN))]
    pub route: String,
    /// The highest source that asserted the page exists; its title and signature come from it.
    pub source: Source,
    /// Set when the last scan found this route in the source.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub scanned: bool,
    /// The document's title, as last seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The structural signature (see the engine's `signature`), as last seen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// The source file of the route's component, for `static` pages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// A short inventory, sorted; each source's list is replaced whole by its newer one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub controls: Vec<Control>,
    /// The map's `generation` when the page was last seen.
    #[serde(default)]
    #[schemars(range(max = 9_007_199_254_740_991u64))]
    pub seen: u64,
}

/// A control a page offers, by what a selector can name it by.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
pub struct Control {
    /// Its ARIA role (`button`, `link`, `textbox`, `form`…).
    pub role: String,
    /// Its accessible name (a field's label); empty when it has none.
    #[serde(default)]
    pub name: String,
    /// A field's placeholder, when the source says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placeholder: Option<String>,
    /// Its `data-testid`, when the source says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub testid: Option<String>,
    /// Where the fact comes from.
    pub source: Source,
}

/// A way from one page to another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Edge {
    /// The route it starts on.
    #[schemars(length(min = 1, max = 512), regex(pattern = super::route::ROUTE_PATTERN))]
    pub from: String,
    /// The route it leads to.
    #[schemars(length(min = 1, max = 512), regex(pattern = super::route::ROUTE_PATTERN))]
    pub to: String,
    /// The step that led there, as a plan writes it (`click role=link[name="Billing"]`), or
    /// `link` for an `href` the scan found.
    pub via: String,
    /// Where the fact comes from.
    pub source: Source,
    /// The map's `generation` when it was last seen.
    #[serde(default)]
    #[schemars(range(max = 9_007_199_254_740_991u64))]
    pub seen: u64,
}

impl Default for SiteMap {
    /// An empty map of this version.
    fn default() -> SiteMap {
        SiteMap {
            map_version: MAP_VERSION.to_string(),
            generation: 0,
            scan: None,
            pages: Vec::new(),
            edges: Vec::new(),
            notes: Vec::new(),
        }
    }
}

impl SiteMap {
    /// An empty map of this version.
    pub fn new() -> SiteMap {
        SiteMap::default()
    }

    /// The page whose route pattern matches a concrete path, preferring a literal route.
    pub fn page_for(&self, path: &str) -> Option<&Page> {
        let path = path.split(['?', '#']).next().unwrap_or(path);
        self.pages.iter().find(|p| p.route == path).or_else(|| {
            self.pages
                .iter()
                .find(|p| super::route_matches(&p.route, path))
        })
    }
}
