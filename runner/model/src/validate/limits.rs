//! The size limits of [`crate::limits`] as problems: a whole file refused before it is parsed,
//! a plan with too many steps, a selector too long or chained too far. Messages say the limit
//! but never echo the oversized text.

use super::error::{Checked, InputError, WHOLE_FILE};
use crate::limits::{InputFile, PLAN_STEPS, SELECTOR_BYTES, SELECTOR_PARTS, bytes};

/// The problem of a file over its kind's size limit, for readers that stop reading at the limit.
pub fn too_large(file: &str, kind: InputFile) -> InputError {
    let fix = match kind {
        InputFile::Scenario => {
            "shorten it: a scenario is a short task in plain words; split a long flow into several scenarios"
        }
        InputFile::Plan => {
            "split the flow into several scenarios, or move repeated steps into fragments (e2e/fragments/)"
        }
        InputFile::Fragment => "split it into smaller fragments",
        InputFile::CacheEntry => "delete the entry; the next run plans the scenario again",
        InputFile::SiteMap => "delete the file; the next runs and `windup scan` build it again",
        InputFile::Proposal => {
            "delete the file; the next run that re-plans the scenario proposes again"
        }
    };
    InputError::new(
        file,
        WHOLE_FILE,
        format!(
            "the file is larger than {}, the limit for {}",
            bytes(kind.max_bytes()),
            kind.noun()
        ),
        fix,
    )
}

/// Refuses `text` when it is over its kind's size limit (before anything parses it).
pub(super) fn within_limit(file: &str, kind: InputFile, text: &str) -> Checked<()> {
    if text.len() > kind.max_bytes() {
        Err(too_large(file, kind).into())
    } else {
        Ok(())
    }
}

/// The problem and fix of a list of more than [`PLAN_STEPS`] actions.
pub(super) fn too_many_steps(count: usize) -> Option<(String, String)> {
    (count > PLAN_STEPS).then(|| {
        (
            format!("{count} steps, over the limit of {PLAN_STEPS}"),
            "split the flow into several scenarios, or move repeated steps into fragments".into(),
        )
    })
}

/// The problem and fix of a selector longer than [`SELECTOR_BYTES`].
pub(super) fn selector_too_long(selector: &str) -> Option<(String, String)> {
    (selector.len() > SELECTOR_BYTES).then(|| {
        (
            format!(
                "the selector is {} bytes, over the limit of {}",
                selector.len(),
                bytes(SELECTOR_BYTES)
            ),
            "select by role and name (role=button[name=\"Save\"]), label or test id instead of a long path".into(),
        )
    })
}

/// The problem and fix of a selector chaining more than [`SELECTOR_PARTS`] parts.
pub(super) fn chain_too_long(parts: usize) -> Option<(String, String)> {
    (parts > SELECTOR_PARTS).then(|| {
        (
            format!(
                "the selector chains {parts} parts with `>>`, over the limit of {SELECTOR_PARTS}"
            ),
            "chain fewer parts: select the element itself by role and name, label or test id"
                .into(),
        )
    })
}
