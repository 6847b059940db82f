//! The tools' arguments, JSON-schema'd for the agent.

use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct OpenArgs {
    /// A path on the app (`/login`) or a URL on one of its origins.
    pub url: String,
    /// Start a new flow here even when one is being recorded (its steps are dropped). Without
    /// it, opening a page mid-flow is recorded as a `goto` step.
    #[serde(default)]
    pub fresh: bool,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct ObserveArgs {
    /// Words to list the most relevant elements for first (a long page is cut).
    #[serde(default)]
    pub focus: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct RefArgs {
    /// The element's ref from the last observation (`e3`).
    #[serde(rename = "ref")]
    pub target: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct FillArgs {
    /// The field's ref from the last observation (`e3`).
    #[serde(rename = "ref")]
    pub target: String,
    /// The text to type (never a password or key: use value_ref).
    #[serde(default)]
    pub value: Option<String>,
    /// A credential's ENV name from e2e/manifest.yaml, typed in place of value; its value is
    /// never shown or saved.
    #[serde(default)]
    pub value_ref: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SelectArgs {
    /// The list box's ref from the last observation (`e3`).
    #[serde(rename = "ref")]
    pub target: String,
    /// The option to choose, by its text or value.
    pub option: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct UploadArgs {
    /// The file input's ref from the last observation (`e3`).
    #[serde(rename = "ref")]
    pub target: String,
    /// Names of files in the project's `e2e/files/` folder (`invoice.pdf`), at least one.
    pub files: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct PressArgs {
    /// The key: `Enter`, `Tab`, `Escape`, `ArrowDown`, a character…
    pub key: String,
    /// The ref of the element to press it on; the focused element when absent.
    #[serde(default, rename = "ref")]
    pub target: Option<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct ExpectArgs {
    /// Numbers of the facts listed after the last step (WHAT CHANGED) that prove it.
    #[serde(default)]
    pub facts: Vec<usize>,
    /// An element that must be visible after the last step: a ref, or a selector such as
    /// `text="Saved"`.
    #[serde(default)]
    pub visible: Option<String>,
    /// An element that must be gone after the last step: a ref, or a selector.
    #[serde(default)]
    pub hidden: Option<String>,
}

#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(crate) struct RecallArgs {
    /// What to recall: words such as `login admin`; empty for every note.
    #[serde(default)]
    pub topic: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct RecordArgs {
    /// One short fact about the app, for later sessions (never a secret).
    pub text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct SaveArgs {
    /// The scenario's id: lower-case letters, digits, `.`, `_`, `-` (`archive-project`).
    pub id: String,
    /// What the flow does and how it is seen to work, in plain language.
    pub task: String,
    /// Replace an existing scenario of that id (and its cached plan).
    #[serde(default)]
    pub overwrite: bool,
}
