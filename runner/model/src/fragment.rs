//! A fragment: a reusable, tested sub-trajectory, `e2e/fragments/<id>.json`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::plan::{Action, Expect};

/// The `fragment_version` this windup writes (0.2 added the `upload` and `download` steps, as
/// `plan_version` 0.2 did).
pub const FRAGMENT_VERSION: &str = "0.2";

/// Every `fragment_version` this windup reads.
pub const FRAGMENT_VERSIONS_READ: [&str; 2] = ["0.1", FRAGMENT_VERSION];

/// A named list of actions with its own postconditions. A plan runs it in place with `use: <id>`;
/// the cache stores the reference, so a fixed fragment fixes every plan that uses it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Fragment {
    /// The format's version, `"0.2"` (`"0.1"` is still read).
    pub fragment_version: String,
    /// What `use:` names; also the file name (`<id>.json`).
    #[schemars(regex(pattern = r"^[a-z0-9][a-z0-9._-]*$"))]
    pub id: String,
    /// What the fragment does, for planners and people.
    pub description: String,
    /// The route pattern of the page it starts on, such as `/login.html` or `/projects/:id`: a
    /// plan may `use` it only on a page this pattern matches. Absent: usable on any page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^/"))]
    pub start: Option<String>,
    /// The steps, run in order in place of the `use` step; at least one.
    #[schemars(length(min = 1))]
    pub actions: Vec<Action>,
    /// Checked after the last action; the fragment fails if any does not hold. It is what the
    /// fragment proves (the planner's catalogue shows it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
}
