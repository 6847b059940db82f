//! JSON Schemas generated from the types; published under `schemas/` in the repository.

use schemars::JsonSchema;
use serde_json::Value;

use crate::cache::CacheEntry;
use crate::fragment::Fragment;
use crate::ledger::LedgerRecord;
use crate::plan::Plan;
use crate::report::RunReport;
use crate::scenario::Scenario;
use crate::sitemap::SiteMap;

/// The formats that have a published schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// [`Scenario`], `e2e/scenarios/<id>.yaml`.
    Scenario,
    /// [`Plan`], a plan file or a planner's answer.
    Plan,
    /// [`Fragment`], `e2e/fragments/<id>.json`.
    Fragment,
    /// [`CacheEntry`], `e2e/.windup/cache/<scenario_id>.json`.
    CacheEntry,
    /// [`RunReport`], the JSON report of a run.
    RunReport,
    /// [`LedgerRecord`], one line of `e2e/.windup/ledger.jsonl`.
    LedgerRecord,
    /// [`SiteMap`], `e2e/.windup/sitemap.json`.
    SiteMap,
}

impl Format {
    /// Every format, each once.
    pub const ALL: [Format; 7] = [
        Format::Scenario,
        Format::Plan,
        Format::Fragment,
        Format::CacheEntry,
        Format::RunReport,
        Format::LedgerRecord,
        Format::SiteMap,
    ];

    /// The schema's file name under `schemas/`.
    pub fn file_name(self) -> &'static str {
        match self {
            Format::Scenario => "scenario.schema.json",
            Format::Plan => "plan.schema.json",
            Format::Fragment => "fragment.schema.json",
            Format::CacheEntry => "cache-entry.schema.json",
            Format::RunReport => "run-report.schema.json",
            Format::LedgerRecord => "ledger-record.schema.json",
            Format::SiteMap => "sitemap.schema.json",
        }
    }
}

fn generate<T: JsonSchema>() -> Value {
    serde_json::to_value(schemars::schema_for!(T)).expect("a schema serialises")
}

/// The JSON Schema of a format.
pub fn schema_value(format: Format) -> Value {
    match format {
        Format::Scenario => generate::<Scenario>(),
        Format::Plan => generate::<Plan>(),
        Format::Fragment => generate::<Fragment>(),
        Format::CacheEntry => generate::<CacheEntry>(),
        Format::RunReport => generate::<RunReport>(),
        Format::LedgerRecord => generate::<LedgerRecord>(),
        Format::SiteMap => generate::<SiteMap>(),
    }
}

/// The schema as published: pretty JSON with a trailing newline.
pub fn schema_text(format: Format) -> String {
    let mut text = serde_json::to_string_pretty(&schema_value(format)).expect("serialises");
    text.push('\n');
    text
}
