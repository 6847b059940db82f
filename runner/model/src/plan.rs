//! The action plan: validated data, never code. `plan_version: "0.2"`; 0.2 added the `upload`
//! and `download` steps (`files`, `expect.download`), and a 0.1 plan is still read as it is.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The `plan_version` this windup writes.
pub const PLAN_VERSION: &str = "0.2";

/// Every `plan_version` this windup reads: a plan of an older version holds only the steps
/// that version had, and runs as it did.
pub const PLAN_VERSIONS_READ: [&str; 2] = ["0.1", PLAN_VERSION];

/// The `plan_version` that introduced a step type (`upload` and `download` came with 0.2).
pub fn since_version(kind: ActionType) -> &'static str {
    match kind {
        ActionType::Upload | ActionType::Download => "0.2",
        _ => "0.1",
    }
}

/// Where `upload` reads its files, relative to the project root (the engine's `Layout` names it
/// with this constant).
pub const FILES_DIR: &str = "e2e/files";

/// `generated_by` of a plan written by a person: protected, never replaced automatically (see
/// [`crate::CacheEntry::protected`]).
pub const BY_HUMAN: &str = "human";

/// Why `name` cannot name a file directly in the files folder: an upload reads nothing else.
pub fn file_name_problem(name: &str) -> Option<String> {
    if name.trim().is_empty() {
        return Some("the file name is empty".into());
    }
    if name.contains('/') || name.contains('\\') || name.contains(':') {
        return Some(format!(
            "`{name}` is a path; an upload takes only a file name in {FILES_DIR}/ (absolute paths and folders are refused)"
        ));
    }
    if name == "." || name == ".." || name.contains('\0') {
        return Some(format!("`{name}` is not a file name"));
    }
    None
}

/// A plan: the steps that carry out one scenario, as produced by the planner or written by hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Plan {
    /// The format's version, `"0.2"` (`"0.1"` is still read).
    pub plan_version: String,
    /// The `id` of the scenario the plan carries out.
    pub scenario_id: String,
    /// The scenario's task, as it was when the plan was made.
    pub task: String,
    /// A path on the base URL (`/`), or an absolute URL.
    pub start_url: String,
    /// Who made the plan: `human`, `mcp` for one crystallised from an agent's steps in
    /// `windup mcp`, or `provider/model` for a planned one.
    pub generated_by: String,
    /// The steps, run in order; at least one.
    #[schemars(length(min = 1))]
    pub actions: Vec<Action>,
}

/// The kinds of step a plan can take. Nothing else: no conditionals, loops or code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[expect(
    missing_docs,
    reason = "a doc comment on a variant makes schemars write the enum as `oneOf` consts, which \
              loses the `use one of: …` fix that the validator and the planner's corrections give; \
              the comments on the variants say what each step does"
)]
pub enum ActionType {
    Goto,     // loads `url`
    Click,    // clicks `target`
    Fill,     // replaces the text of `target` with `value` or `value_ref`
    Press,    // presses `key` in `target`, or in whatever has focus
    Select,   // picks the option of `target` (a `<select>`) whose value or label is `value`
    Check,    // makes sure `target` (a checkbox or radio) is checked
    Uncheck,  // makes sure `target` is unchecked
    Hover,    // moves the pointer over `target`
    WaitFor,  // waits until `target` has a visible match
    Use,      // runs the fragment named by `use` in place of the step
    Upload,   // sets `files` (from e2e/files/) on `target`, an `<input type=file>`
    Download, // clicks `target` and waits for the download it starts
}

impl ActionType {
    /// The name used in plans, such as `wait_for`.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionType::Goto => "goto",
            ActionType::Click => "click",
            ActionType::Fill => "fill",
            ActionType::Press => "press",
            ActionType::Select => "select",
            ActionType::Check => "check",
            ActionType::Uncheck => "uncheck",
            ActionType::Hover => "hover",
            ActionType::WaitFor => "wait_for",
            ActionType::Use => "use",
            ActionType::Upload => "upload",
            ActionType::Download => "download",
        }
    }

    /// Whether the step acts on an element and so needs `target.selector`.
    /// `press` may also go to whatever has focus, so its target is optional.
    pub fn needs_target(self) -> bool {
        matches!(
            self,
            ActionType::Click
                | ActionType::Fill
                | ActionType::Select
                | ActionType::Check
                | ActionType::Uncheck
                | ActionType::Hover
                | ActionType::WaitFor
                | ActionType::Upload
                | ActionType::Download
        )
    }
}

impl std::fmt::Display for ActionType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One step. Unknown fields are rejected: a misspelt `expect` must not silently drop a check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Action {
    /// Unique within the plan (`a1`, `a2`, …); failures name it.
    #[schemars(length(min = 1, max = 64))]
    pub id: String,
    // What the step does.
    #[expect(
        missing_docs,
        reason = "a doc comment here enters the answer schema of every planning prompt; the prompt changes only with a planning evaluation (bench/real-model.sh)"
    )]
    #[serde(rename = "type")]
    pub kind: ActionType,
    // The element acted on: required by the types that act on one, optional for `press`,
    // absent otherwise.
    #[expect(
        missing_docs,
        reason = "a doc comment here enters the answer schema of every planning prompt; the prompt changes only with a planning evaluation (bench/real-model.sh)"
    )]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Target>,
    /// Literal text for `fill`, or the option's value or label for `select`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    /// The ENV name whose value `fill` types; resolved only at the input boundary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^[A-Z][A-Z0-9_]*$"))]
    pub value_ref: Option<String>,
    /// For `goto`: a path on the base URL, or an absolute URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// For `press`: a key such as `Enter`, `Tab`, `Escape`, or a chord such as `Control+A`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// For `use`: the id of a fragment in `e2e/fragments/`.
    #[serde(default, rename = "use", skip_serializing_if = "Option::is_none")]
    pub use_fragment: Option<String>,
    /// For `upload`: file names in the project's `e2e/files/` folder (no folders, no `..`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 32))]
    pub files: Option<Vec<String>>,
    /// Postconditions that must all hold after the step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<Expect>,
    /// How long the step may wait for its target and its postconditions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 1, max = 600000))]
    pub timeout_ms: Option<u64>,
}

impl Action {
    /// A step of `kind` on the element `selector` names (None for a step with no target), with
    /// nothing else set: no value, key or postcondition.
    pub fn on(id: impl Into<String>, kind: ActionType, selector: Option<&str>) -> Action {
        Action {
            id: id.into(),
            kind,
            target: selector.map(|s| Target {
                selector: s.to_string(),
                description: None,
            }),
            value: None,
            value_ref: None,
            url: None,
            key: None,
            use_fragment: None,
            files: None,
            expect: None,
            timeout_ms: None,
        }
    }

    /// The step as one readable line, such as `click role=button[name="Save"]` or
    /// `fill label="Password" value_ref=ADMIN_PASSWORD`: for reports, prompts and people.
    pub fn summary(&self) -> String {
        use std::fmt::Write;
        let mut line = self.kind.as_str().to_string();
        if let Some(t) = &self.target {
            let _ = write!(line, " {}", t.selector);
        }
        if let Some(u) = &self.url {
            let _ = write!(line, " {u}");
        }
        if let Some(r) = &self.value_ref {
            let _ = write!(line, " value_ref={r}");
        } else if let Some(v) = &self.value {
            let _ = write!(line, " value={v:?}");
        }
        if let Some(k) = &self.key {
            let _ = write!(line, " key={k}");
        }
        if let Some(u) = &self.use_fragment {
            let _ = write!(line, " use={u}");
        }
        if let Some(files) = &self.files {
            let _ = write!(line, " files={}", files.join(","));
        }
        line
    }
}

/// The element a step acts on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// A selector in Windup's syntax, such as `role=button[name="Save"]`.
    #[schemars(length(min = 1))]
    pub selector: String,
    /// What the element is, for people reading the plan and for failure messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// Postconditions checked after a step, all LLM-free. Every given field must hold.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// A selector that must have a visible match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visible: Option<String>,
    /// A selector that must have no visible match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<String>,
    /// A glob matched against path+query+fragment for same-origin URLs, the full URL otherwise.
    /// `*` stays within one path segment, `**` crosses them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The first visible match's value (inputs) or text must equal `equals`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<ValueExpect>,
    /// The number of visible matches must equal `equals`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<CountExpect>,
    /// For a `download` step: the downloaded file's name and size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download: Option<DownloadExpect>,
}

impl Expect {
    /// Whether no postcondition is given.
    pub fn is_empty(&self) -> bool {
        self.visible.is_none()
            && self.hidden.is_none()
            && self.url.is_none()
            && self.value.is_none()
            && self.count.is_none()
            && self.download.is_none()
    }

    /// Whether a postcondition is checked on the page (all but `download`, which is checked
    /// on the downloaded file).
    pub fn has_page_checks(&self) -> bool {
        Expect {
            download: None,
            ..self.clone()
        } != Expect::default()
    }

    /// Each page postcondition on its own (one field set each), in field order: `visible`,
    /// `hidden`, `url`, `value`, `count`. `download` is checked on the file, not the page, and
    /// is left out.
    pub fn clauses(&self) -> Vec<Expect> {
        let mut out = Vec::new();
        if let Some(s) = &self.visible {
            out.push(Expect {
                visible: Some(s.clone()),
                ..Expect::default()
            });
        }
        if let Some(s) = &self.hidden {
            out.push(Expect {
                hidden: Some(s.clone()),
                ..Expect::default()
            });
        }
        if let Some(u) = &self.url {
            out.push(Expect {
                url: Some(u.clone()),
                ..Expect::default()
            });
        }
        if let Some(v) = &self.value {
            out.push(Expect {
                value: Some(v.clone()),
                ..Expect::default()
            });
        }
        if let Some(c) = &self.count {
            out.push(Expect {
                count: Some(c.clone()),
                ..Expect::default()
            });
        }
        out
    }

    /// The postconditions as one line each, as people read them: `visible: text="Saved"`.
    pub fn clause_line(&self) -> String {
        let quote = |s: &str| serde_json::to_string(s).unwrap_or_default();
        let mut parts = Vec::new();
        if let Some(s) = &self.visible {
            parts.push(format!("visible: {s}"));
        }
        if let Some(s) = &self.hidden {
            parts.push(format!("hidden: {s}"));
        }
        if let Some(u) = &self.url {
            parts.push(format!("url: {u}"));
        }
        if let Some(v) = &self.value {
            parts.push(format!("value: {} = {}", v.selector, quote(&v.equals)));
        }
        if let Some(c) = &self.count {
            parts.push(format!("count: {} = {}", c.selector, c.equals));
        }
        if let Some(d) = &self.download {
            parts.push(format!(
                "download: {}",
                d.name.as_deref().unwrap_or("a file")
            ));
        }
        parts.join("; ")
    }

    /// Whether `clause` (one field) can be added without replacing a postcondition already
    /// set.
    pub fn has_room_for(&self, clause: &Expect) -> bool {
        !((clause.visible.is_some() && self.visible.is_some())
            || (clause.hidden.is_some() && self.hidden.is_some())
            || (clause.url.is_some() && self.url.is_some())
            || (clause.value.is_some() && self.value.is_some())
            || (clause.count.is_some() && self.count.is_some())
            || (clause.download.is_some() && self.download.is_some()))
    }

    /// Removes each field `clause` sets, where this one sets it to the same.
    pub fn remove_clause(&mut self, clause: &Expect) {
        if clause.visible.is_some() && self.visible == clause.visible {
            self.visible = None;
        }
        if clause.hidden.is_some() && self.hidden == clause.hidden {
            self.hidden = None;
        }
        if clause.url.is_some() && self.url == clause.url {
            self.url = None;
        }
        if clause.value.is_some() && self.value == clause.value {
            self.value = None;
        }
        if clause.count.is_some() && self.count == clause.count {
            self.count = None;
        }
        if clause.download.is_some() && self.download == clause.download {
            self.download = None;
        }
    }

    /// Adds the fields of `other` that this one does not set.
    pub fn absorb(&mut self, other: &Expect) {
        if self.visible.is_none() {
            self.visible.clone_from(&other.visible);
        }
        if self.hidden.is_none() {
            self.hidden.clone_from(&other.hidden);
        }
        if self.url.is_none() {
            self.url.clone_from(&other.url);
        }
        if self.value.is_none() {
            self.value.clone_from(&other.value);
        }
        if self.count.is_none() {
            self.count.clone_from(&other.count);
        }
        if self.download.is_none() {
            self.download.clone_from(&other.download);
        }
    }

    /// Every selector the postconditions use, with the field that holds it.
    pub fn selectors(&self) -> Vec<(&'static str, &str)> {
        let mut out = Vec::new();
        if let Some(s) = &self.visible {
            out.push(("visible", s.as_str()));
        }
        if let Some(s) = &self.hidden {
            out.push(("hidden", s.as_str()));
        }
        if let Some(v) = &self.value {
            out.push(("value.selector", v.selector.as_str()));
        }
        if let Some(c) = &self.count {
            out.push(("count.selector", c.selector.as_str()));
        }
        out
    }
}

// The value or text of an element.
#[expect(
    missing_docs,
    reason = "a doc comment here enters the answer schema of every planning prompt; the prompt changes only with a planning evaluation (bench/real-model.sh)"
)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ValueExpect {
    // A selector in Windup's syntax; its first visible match is read.
    pub selector: String,
    // The exact value of an input, textarea or select, or the element's text with whitespace
    // collapsed.
    pub equals: String,
}

// How many elements are visible.
#[expect(
    missing_docs,
    reason = "a doc comment here enters the answer schema of every planning prompt; the prompt changes only with a planning evaluation (bench/real-model.sh)"
)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CountExpect {
    // A selector in Windup's syntax; its visible matches are counted.
    pub selector: String,
    // The exact number of visible matches (0 for none).
    #[schemars(range(min = 0))]
    pub equals: u32,
}

/// What a downloaded file must be. Sizes are in bytes; `size` is exact, `min_size` and
/// `max_size` bound it (both included).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DownloadExpect {
    /// The file's name as the site suggests it (`report.csv`), or a glob (`report-*.csv`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 255))]
    pub name: Option<String>,
    /// The exact size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The smallest size allowed, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_size: Option<u64>,
    /// The largest size allowed, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_size: Option<u64>,
}
