//! The `Drive`: a runner, the one session the agent works in, the page as last observed, and
//! the steps recorded since the flow's start page.

use std::path::PathBuf;

use windup_model::{Problems, Scenario};

use super::super::Runner;
use super::super::planning::{Phases, Planned, Stop};
use super::log::ActionLog;
use crate::browser::Session;
use crate::cache::PlanCache;
use crate::fragments::Fragments;
use crate::planner::Observation;
use crate::planner::facts::StepFacts;
use crate::planner::prompt::untrusted_page;
use crate::project::Layout;

/// Why a tool call did nothing, in words the agent can act on.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct DriveError(pub String);

impl DriveError {
    pub(super) fn new(message: impl Into<String>) -> DriveError {
        DriveError(message.into())
    }
}

/// What the agent is shown of a page: the observation with its refs, and what the last step
/// changed, numbered (the numbers `expect` takes), all inside the untrusted-data block.
#[derive(Debug, Clone)]
pub struct Seen {
    /// The page's URL.
    pub url: String,
    /// The text shown to the agent.
    pub text: String,
}

/// An agent's session on the app (see the module docs).
pub struct Drive {
    pub(super) runner: Runner,
    pub(super) fragments: Fragments,
    pub(super) cache: PlanCache,
    pub(super) session: Option<Session>,
    /// The recorded flow's start page, a path on the base URL.
    pub(super) start_url: Option<String>,
    pub(super) page: Option<Observation>,
    /// The steps since the start page, with the facts each changed and those picked as proofs.
    pub(super) steps: Vec<Planned>,
    /// The controls the pages showed since the start page: a task naming one must use it.
    pub(super) controls: std::collections::BTreeSet<crate::planner::words::Seen>,
    pub(super) log: ActionLog,
    /// Where the console messages and requests since the last observation start (`watch`).
    pub(super) traffic_mark: u64,
}

impl Drive {
    /// A drive over `runner`'s project; nothing is opened yet. Needs a base URL.
    pub fn new(runner: Runner) -> Result<Drive, Problems> {
        runner.config.require_base_url()?;
        let root = runner.config.root.clone();
        let fragments = Fragments::load(&root.join(Layout::FRAGMENTS_DIR))?;
        Ok(Drive {
            fragments,
            cache: PlanCache::new(&root),
            session: None,
            start_url: None,
            page: None,
            steps: Vec::new(),
            controls: Default::default(),
            log: ActionLog::new(&root),
            traffic_mark: 0,
            runner,
        })
    }

    /// Starts the browser, or attaches to the one `--cdp-url` names (its preflight first), so a
    /// wrong address is named before the agent's first call.
    pub async fn start_browser(&self) -> Result<(), crate::browser::BrowserError> {
        self.runner.browser.ensure_started().await
    }

    /// Where every action is logged (see [`super::LOG_FILE`]).
    pub fn log_path(&self) -> PathBuf {
        self.log.path().to_path_buf()
    }

    /// The app's base URL.
    pub fn base_url(&self) -> &url::Url {
        self.runner.boundary().base_url()
    }

    /// Reads the page again, its most relevant items to `focus` first.
    pub async fn observe(&mut self, focus: &str) -> Result<Seen, DriveError> {
        self.mark_traffic();
        let page = self.read(focus).await?;
        self.log.write("observe", &page.url, None);
        Ok(self.show(&page, &[]))
    }

    /// The page as the agent is shown it, with `facts` numbered.
    pub(super) fn show(&self, page: &Observation, facts: &[StepFacts]) -> Seen {
        Seen {
            url: self.runner.secrets.redact(&page.url),
            text: self.runner.secrets.redact(&untrusted_page(page, facts)),
        }
    }

    /// The session, or the error that says to open a page first.
    pub(super) fn session(&mut self) -> Result<&mut Session, DriveError> {
        self.session
            .as_mut()
            .ok_or_else(|| DriveError::new("no page is open yet (fix: call browser_open first)"))
    }

    /// Observes the page once it has settled, and keeps it as the page refs point into.
    pub(super) async fn read(&mut self, focus: &str) -> Result<Observation, DriveError> {
        let mut phases = Phases::default();
        let session = self
            .session
            .as_ref()
            .ok_or_else(|| DriveError::new("no page is open yet (fix: call browser_open first)"))?;
        let page = self
            .runner
            .observe(session, focus, &mut phases)
            .await
            .map_err(|stop| match stop {
                Stop::Browser(e) => DriveError(format!("the browser failed: {e}")),
                Stop::Outside(url) => DriveError(format!(
                    "the page went to {}, outside the app's origins, so it is not read (fix: browser_open a page of the app; list the origin in windup.toml [planner] allowed_origins if the app really goes there)",
                    origin_of(&url)
                )),
            })?;
        self.controls.extend(
            page.items
                .iter()
                .filter(|i| i.control && !i.name.trim().is_empty())
                .map(|i| (i.role.clone(), i.name.clone())),
        );
        self.page = Some(page.clone());
        Ok(page)
    }

    /// The page as it is this moment, not waiting for it to settle (what changed since the
    /// agent looked, before a step).
    pub(super) async fn peek(&self) -> Result<Observation, DriveError> {
        let session = self
            .session
            .as_ref()
            .ok_or_else(|| DriveError::new("no page is open yet (fix: call browser_open first)"))?;
        let s = &self.runner.config.planner;
        let origins = self.runner.boundary().app_origins();
        Observation::capture(session, "", origins, s.max_elements, s.page_chars)
            .await
            .map_err(|e| DriveError(format!("the browser failed: {e}")))
    }

    /// A scenario standing for the flow while it is recorded (steps run under its id).
    pub(super) fn draft(&self) -> Scenario {
        Scenario {
            id: "mcp-session".into(),
            task: "steps an agent takes in windup mcp".into(),
            start_url: self.start_url.clone().unwrap_or_else(|| "/".into()),
            hints: Vec::new(),
            tags: Vec::new(),
            timeout_ms: None,
            setup: false,
            needs: Vec::new(),
        }
    }

    /// A handle on the drive's browser (the same Chromium), so the door that serves the drive
    /// can close it however the server ends (`run_to_end`).
    pub fn browser(&self) -> crate::browser::Browser {
        self.runner.browser.clone()
    }

    /// Closes the session and the browser (or detaches from one Windup did not start).
    pub async fn close(&mut self) {
        if let Some(session) = self.session.take() {
            session.close().await;
        }
        self.runner.close().await;
    }
}

/// A URL's origin, as errors name it.
pub(super) fn origin_of(url: &str) -> String {
    url::Url::parse(url)
        .map(|u| u.origin().ascii_serialization())
        .unwrap_or_else(|_| "a page without an http(s) origin".into())
}
