//! What an execution is given besides the page: the scenario, its trust boundary and time budgets,
//! fragments, secrets, where events go, and when to take a screenshot or record a trace.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::boundary::Boundary;
use crate::events::EventSink;
use crate::fragments::Fragments;
use crate::secrets::SecretSource;
use crate::timeouts::Timeouts;

/// Everything an execution needs besides the page.
pub struct ExecContext<'a> {
    /// The scenario being run, named in every event.
    pub scenario_id: &'a str,
    /// Where the plan may go and what it may type: its base URL (what the plan's paths are
    /// joined onto, so one plan runs against any environment), the app's origins every
    /// top-level document is held to, and the origins of each credential.
    pub boundary: &'a Boundary,
    /// The per-step and per-navigation limits (its `scenario` limit is not read here: the
    /// budget in force, the scenario's own or that default, is `scenario_timeout`).
    pub timeouts: Timeouts,
    /// The whole scenario's budget.
    pub scenario_timeout: Duration,
    /// The project's fragments, for `use` steps.
    pub fragments: &'a Fragments,
    /// Where a `fill` step's `value_ref` is resolved; the value itself is never recorded.
    pub secrets: &'a dyn SecretSource,
    /// Receives each step's start and end, and the page's dialogs, as they happen.
    pub events: &'a dyn EventSink,
    /// Which executions end with a screenshot of the page.
    pub screenshots: Screenshots,
    /// Whether each step leaves a trace frame (`--trace`): the executor records one unless
    /// this is `Off`; which are kept is the runner's call.
    pub trace: Trace,
    /// The widest a trace frame's picture is, in pixels ([`super::FRAME_WIDTH`] unless
    /// `[browser] trace_width` asks for more; a narrower viewport is never scaled up).
    pub trace_width: u32,
    /// Where `upload` reads files and `download` saves them.
    pub transfers: Transfers,
    /// A replay the runner heals: a target missing from a page that has settled (no request
    /// waiting, the document unchanged for [`crate::timeouts::STILL`], or the target gone for
    /// [`crate::timeouts::SETTLED`]) fails at once when the page shows the same one element it
    /// may have become twice, so healing starts without waiting out the step's time. A page
    /// with nothing in its place is waited for as usual.
    pub early_heal: bool,
    /// A run that verifies a plan: a passing one reads what the pages did in the background
    /// (`Execution::baseline`). Other runs skip that call.
    pub baseline: bool,
}

/// Where files come from and go: `upload` reads `<root>/e2e/files/<name>`; `download` saves
/// under `<root>/e2e/.windup/runs/<run_id>/downloads/<scenario>/`.
#[derive(Debug, Clone)]
pub struct Transfers {
    /// The project root.
    pub root: PathBuf,
    /// The run the downloads belong to.
    pub run_id: String,
}

impl Transfers {
    /// The files folder an upload reads, absolute.
    pub fn files_dir(&self) -> PathBuf {
        self.root.join(crate::project::Layout::FILES_DIR)
    }

    /// A scenario's downloads folder, relative to the root (as a report names it).
    pub fn downloads_dir(&self, scenario_id: &str) -> String {
        format!(
            "{}/{}/downloads/{scenario_id}",
            crate::project::Layout::RUNS_DIR,
            self.run_id
        )
    }

    /// `rel` under the root.
    pub fn absolute(&self, rel: &str) -> PathBuf {
        self.root.join(Path::new(rel))
    }
}

/// When an execution ends with a screenshot (`[browser] screenshots`, `--screenshots`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Screenshots {
    /// Never.
    Off,
    /// A failed execution's evidence has one (the default).
    #[default]
    OnlyOnFailure,
    /// Every execution: a passing one ends with one too.
    On,
}

impl std::str::FromStr for Screenshots {
    type Err = UnknownSetting;

    fn from_str(s: &str) -> Result<Self, UnknownSetting> {
        match s {
            "off" => Ok(Screenshots::Off),
            "only-on-failure" => Ok(Screenshots::OnlyOnFailure),
            "on" => Ok(Screenshots::On),
            other => Err(UnknownSetting {
                setting: "screenshots",
                value: other.to_string(),
                choices: "off, only-on-failure or on",
            }),
        }
    }
}

/// A value that is none of a setting's choices (`--screenshots`, `--trace`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{value}` is not a {setting} setting: use {choices}")]
pub struct UnknownSetting {
    /// The setting: `screenshots` or `trace`.
    pub setting: &'static str,
    /// The value given.
    pub value: String,
    /// The values it takes, in words (`off, on-failure or on`).
    pub choices: &'static str,
}

/// When a scenario keeps a trace, a small screenshot with the URL and target box after each
/// step (`[browser] trace`, `--trace`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trace {
    /// Never (the default).
    #[default]
    Off,
    /// Recorded for every scenario, kept only for one that failed.
    OnFailure,
    /// Recorded and kept for every scenario.
    On,
}

impl Trace {
    /// Whether an execution records frames.
    pub fn records(self) -> bool {
        self != Trace::Off
    }

    /// Whether the frames of an execution that `failed` (or not) are kept.
    pub fn keeps(self, failed: bool) -> bool {
        match self {
            Trace::Off => false,
            Trace::OnFailure => failed,
            Trace::On => true,
        }
    }
}

impl std::str::FromStr for Trace {
    type Err = UnknownSetting;

    fn from_str(s: &str) -> Result<Self, UnknownSetting> {
        match s {
            "off" => Ok(Trace::Off),
            "on-failure" => Ok(Trace::OnFailure),
            "on" => Ok(Trace::On),
            other => Err(UnknownSetting {
                setting: "trace",
                value: other.to_string(),
                choices: "off, on-failure or on",
            }),
        }
    }
}
