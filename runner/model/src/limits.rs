//! Size limits of the runner's inputs, each defined once here and checked at every road an input
//! comes in by (files, the planner's answers, the dashboard's restored plans, `replay`).
//!
//! A file over its limit is refused before it is parsed, and its reader never holds more than
//! the limit and one byte of it; a selector over its limit is refused before it is parsed.
//! Every refusal is bad input (exit 2) naming the file and the field. The user guide's "Limits"
//! section (docs/formats.md) lists them.

/// The largest scenario file: a scenario is a short description of one flow.
pub const SCENARIO_BYTES: usize = 64 * 1024;

/// The largest plan file, fragment file or cache entry (a plan with its key).
pub const PLAN_BYTES: usize = 1024 * 1024;

/// The most steps (actions) in one plan or fragment; a fragment's steps count in its own file.
pub const PLAN_STEPS: usize = 500;

/// The longest selector, in bytes.
pub const SELECTOR_BYTES: usize = 2 * 1024;

/// The most parts a selector may chain with `>>`.
pub const SELECTOR_PARTS: usize = 16;

/// The input files that have a size limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputFile {
    /// A scenario, `e2e/scenarios/<id>.yaml`.
    Scenario,
    /// A plan: a plan file for `replay`, or the plan a planner answered.
    Plan,
    /// A fragment, `e2e/fragments/<id>.json`.
    Fragment,
    /// A cache entry, committed or restored from the dashboard.
    CacheEntry,
    /// The site map, `e2e/.windup/sitemap.json` (written within 512 KiB; read up to 1 MiB).
    SiteMap,
    /// A proposal, `e2e/.windup/cache/proposals/<id>.json`: a cache entry holding two plans,
    /// the proposed one and the one it would replace.
    Proposal,
}

impl InputFile {
    /// The most bytes a file of this kind may hold.
    pub const fn max_bytes(self) -> usize {
        match self {
            InputFile::Scenario => SCENARIO_BYTES,
            InputFile::Plan | InputFile::Fragment | InputFile::CacheEntry | InputFile::SiteMap => {
                PLAN_BYTES
            }
            InputFile::Proposal => 2 * PLAN_BYTES,
        }
    }

    /// The kind as a message names it.
    pub const fn noun(self) -> &'static str {
        match self {
            InputFile::Scenario => "a scenario",
            InputFile::Plan => "a plan",
            InputFile::Fragment => "a fragment",
            InputFile::CacheEntry => "a cache entry",
            InputFile::SiteMap => "a site map",
            InputFile::Proposal => "a proposal",
        }
    }
}

/// A size as people write it: `64 KiB`, `1 MiB`, else bytes.
pub fn bytes(n: usize) -> String {
    const KIB: usize = 1024;
    const MIB: usize = 1024 * KIB;
    if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n / MIB)
    } else if n >= KIB && n.is_multiple_of(KIB) {
        format!("{} KiB", n / KIB)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(bytes(SCENARIO_BYTES), "64 KiB");
        assert_eq!(bytes(PLAN_BYTES), "1 MiB");
        assert_eq!(bytes(SELECTOR_BYTES), "2 KiB");
        assert_eq!(bytes(SCENARIO_BYTES + 1), "65537 bytes");
    }
}
