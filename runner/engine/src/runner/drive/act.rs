//! Opening the flow's start page, and one step on a ref (click … upload, download): grounded and
//! checked as a planned step is, run, and the page read again; what the step changed becomes its
//! numbered facts, a download its check.

use std::collections::BTreeSet;

use serde_json::{Map, Value, json};
use windup_model::{Plan, plan::PLAN_VERSION};

use super::super::ScenarioRun;
use super::super::planning::{Planned, check_download};
use super::super::shared::{RunShared, Storages};
use super::super::site::Site;
use super::state::{Drive, DriveError, Seen, origin_of};
use crate::browser::NavError;
use crate::events::NoEvents;
use crate::planner::check::{self, Rules};
use crate::planner::facts::{self, StepFacts};

/// What a step does; the same step types a planned step may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// Go to a URL of the app.
    Goto,
    /// Click the target.
    Click,
    /// Move the pointer over the target.
    Hover,
    /// Tick a checkbox or radio.
    Check,
    /// Untick a checkbox.
    Uncheck,
    /// Type into a field (its value replaced).
    Fill,
    /// Choose an option of a list box.
    Select,
    /// Press a key, on the target when there is one.
    Press,
    /// Set files from `e2e/files/` on a file input.
    Upload,
    /// Click a link or button that downloads a file; the file is saved under the run and
    /// becomes the step's check (its name, any number in it free, and not empty).
    Download,
}

impl StepKind {
    /// The step's name, as the log and the tools spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Goto => "goto",
            StepKind::Click => "click",
            StepKind::Hover => "hover",
            StepKind::Check => "check",
            StepKind::Uncheck => "uncheck",
            StepKind::Fill => "fill",
            StepKind::Select => "select",
            StepKind::Press => "press",
            StepKind::Upload => "upload",
            StepKind::Download => "download",
        }
    }
}

/// One step the agent asks for: a ref of the page it was last shown, and what the step needs.
#[derive(Debug, Clone)]
pub struct Step {
    /// What to do.
    pub kind: StepKind,
    /// The ref (`e3`) of the element to act on.
    pub target: Option<String>,
    /// The text to type or the option to choose.
    pub value: Option<String>,
    /// A credential's ENV name from `e2e/manifest.yaml`, typed in place of `value`.
    pub value_ref: Option<String>,
    /// The key to press.
    pub key: Option<String>,
    /// Where `goto` goes.
    pub url: Option<String>,
    /// The names of the files in `e2e/files/` an upload sets.
    pub files: Vec<String>,
}

impl Step {
    /// The step as a planner's answer writes it, for the same grounding and checks.
    fn answer(&self) -> Value {
        let mut step = Map::new();
        step.insert("type".into(), self.kind.as_str().into());
        if let Some(r) = &self.target {
            step.insert("target".into(), json!({ "ref": r }));
        }
        for (field, v) in [
            ("value", &self.value),
            ("value_ref", &self.value_ref),
            ("key", &self.key),
            ("url", &self.url),
        ] {
            if let Some(v) = v {
                step.insert(field.into(), v.clone().into());
            }
        }
        if !self.files.is_empty() {
            step.insert("files".into(), json!(self.files));
        }
        json!({ "actions": [step], "complete": false })
    }
}

/// A step that ran and was recorded.
#[derive(Debug, Clone)]
pub struct Acted {
    /// Its id in the flow (`a3`).
    pub step_id: String,
    /// The step as it will be saved: its type, selector and value.
    pub summary: String,
    /// The page after it, with what it changed numbered (the numbers `expect` takes).
    pub seen: Seen,
    /// How many facts it changed.
    pub facts: usize,
}

impl Drive {
    /// Whether a flow is being recorded: a start page is open.
    pub fn is_recording(&self) -> bool {
        self.start_url.is_some()
    }

    /// Starts a flow afresh on `url` (a path on the base URL, or a URL on its origin), in a new
    /// context held to the app's origins; the steps recorded so far are dropped.
    pub async fn start(&mut self, url: &str) -> Result<Seen, DriveError> {
        let boundary = self.runner.boundary();
        let dest = boundary
            .destination(url)
            .map_err(|(problem, fix)| DriveError(format!("{problem} (fix: {fix})")))?;
        let base = boundary.base_url().clone();
        if dest.origin() != base.origin() {
            return Err(DriveError(format!(
                "a flow starts on the base URL's origin ({}), and {url} is on {} (fix: open a page of {} first; browser_open {url} afterwards goes there as a step)",
                base.origin().ascii_serialization(),
                dest.origin().ascii_serialization(),
                base.origin().ascii_serialization(),
            )));
        }
        let origins = boundary.app_origins().to_vec();
        if let Some(old) = self.session.take() {
            old.close().await;
        }
        self.steps.clear();
        self.controls.clear();
        self.page = None;
        self.start_url = None;
        let session = self
            .runner
            .browser
            .acquire_session()
            .await
            .map_err(|e| DriveError(format!("the browser failed: {e}")))?;
        if let Err(e) = session.hold_to(origins).await {
            session.close().await;
            return Err(DriveError(format!("the browser failed: {e}")));
        }
        // For the console and network tools, from the first request on.
        if let Err(e) = session.record_traffic().await {
            session.close().await;
            return Err(DriveError(format!("the browser failed: {e}")));
        }
        self.traffic_mark = 0;
        let navigation = self.runner.config.timeouts.navigation;
        if let Err(e) = session.goto(dest.as_str(), navigation).await {
            let why = match session.left_origins() {
                Some(left) => format!(
                    "it went to {}, outside the app's origins",
                    origin_of(&left.url)
                ),
                None => match e {
                    NavError::Failed(why) => why,
                    NavError::Timeout => format!(
                        "it did not finish loading within {} ms",
                        navigation.as_millis()
                    ),
                    NavError::Crashed(why) => format!("the browser failed: {why}"),
                },
            };
            session.close().await;
            self.log.write("browser_open", dest.as_str(), Some(&why));
            return Err(DriveError(format!("{dest} did not open: {why}")));
        }
        self.session = Some(session);
        self.start_url = Some(crate::base_url::path_of(&dest));
        let page = self.read("").await?;
        self.log.write("browser_open", dest.as_str(), None);
        Ok(self.show(&page, &[]))
    }

    /// Runs one step on the page the agent was last shown and records it; the page is read
    /// again and what the step changed is listed, numbered. A step that fails is not recorded.
    pub async fn act(&mut self, step: Step) -> Result<Acted, DriveError> {
        let Some(shown) = self.page.clone() else {
            return Err(DriveError::new(
                "no page is open yet (fix: call browser_open first)",
            ));
        };
        self.mark_traffic();
        let mut action = self.ground(&step, &shown)?;
        let mut summary = self.runner.secrets.redact(&action.summary());
        // What changed since the agent looked changed on its own: never a fact of this step.
        let before = self.peek().await?;
        let drifting = facts::drifted(&shown, &before);
        let scenario = self.draft();
        let root = self.runner.config.root.clone();
        let (storage, site) = (Storages::default(), Site::none(&root));
        let shared = RunShared {
            cache: &self.cache,
            fragments: &self.fragments,
            run_id: "mcp",
            events: &NoEvents,
            storage: &storage,
            site: &site,
        };
        let session = self
            .session
            .as_mut()
            .expect("a page was read, so a session is open");
        let execution = ScenarioRun::new(&self.runner, &scenario, shared)
            .run_steps(session, std::slice::from_ref(&action))
            .await;
        if let Some(f) = &execution.failure {
            let message = self.runner.secrets.redact(&f.message);
            self.log.write(step.kind.as_str(), &summary, Some(&message));
            let now = match self.read("").await {
                Ok(page) => self.show(&page, &[]).text,
                Err(e) => e.0,
            };
            return Err(DriveError(format!(
                "{summary} failed ({}): {message}\nIt was not recorded. The page now:\n{now}",
                f.class
            )));
        }
        if let Some(d) = check_download(&mut action, &execution.actions) {
            let check = action.expect.as_ref().and_then(|e| e.download.as_ref());
            summary.push_str(&self.runner.secrets.redact(&format!(
                "; saved {} ({} bytes), checked on replay as {}",
                d.path,
                d.size,
                serde_json::to_string(&check).expect("an expect serializes"),
            )));
        }
        let after = self.read("").await?;
        let base = self.runner.boundary().base_url().clone();
        let changed = facts::changes(&before, &after, &base)
            .into_iter()
            .filter(|f| {
                let line = f.line();
                self.runner.secrets.redact(&line) == line && !facts::is_drifting(f, &drifting)
            })
            .collect();
        let session = self.session.as_ref().expect("a session is open");
        let changed = facts::holding(session, changed, &base).await;
        let listed = [StepFacts {
            step: action.id.clone(),
            facts: changed.clone(),
        }];
        let seen = self.show(&after, &listed);
        self.log.write(step.kind.as_str(), &summary, None);
        let acted = Acted {
            step_id: action.id.clone(),
            summary,
            seen,
            facts: changed.len(),
        };
        self.steps.push(Planned {
            action,
            facts: changed,
            picked: Vec::new(),
            engine_chosen: false,
        });
        Ok(acted)
    }

    /// The step as a plan's action: its ref turned into the element's selector and checked as
    /// a planner's answer is (the trust boundary, the step's fit to its target).
    fn ground(
        &self,
        step: &Step,
        shown: &crate::planner::Observation,
    ) -> Result<windup_model::Action, DriveError> {
        // A credential is typed only by name: its value never enters a step.
        if let Some(v) = &step.value
            && self.runner.secrets.reveals(v)
        {
            return Err(DriveError::new(
                "that value is a credential's, and credentials never enter a plan (fix: pass value_ref with its ENV name from e2e/manifest.yaml instead)",
            ));
        }
        let scenario = self.draft();
        let stub = Plan {
            plan_version: PLAN_VERSION.to_string(),
            scenario_id: scenario.id,
            task: scenario.task,
            start_url: scenario.start_url,
            generated_by: "mcp".into(),
            actions: Vec::new(),
        };
        let rules = Rules {
            boundary: self.runner.boundary(),
            fragments: &self.fragments,
            taken_ids: self
                .steps
                .iter()
                .map(|s| s.action.id.clone())
                .collect::<BTreeSet<_>>(),
            observation: shown,
            facts: 0,
            files: &crate::executor::upload_file_names(&self.runner.config.root),
        };
        let segment = check::accept(&step.answer().to_string(), &stub, &rules)
            .map_err(|problems| DriveError(problems.join("\n")))?;
        segment.actions.into_iter().next().ok_or_else(|| {
            DriveError::new(
                "that target cannot be ticked, so there is nothing to check (fix: to verify what the page shows, call expect after the step that changed it)",
            )
        })
    }
}
