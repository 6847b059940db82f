//! What an execution returns: the steps' results, why it stopped, and the evidence of a
//! failure; and how a step's result or failure is written down.

use std::time::Duration;

use windup_model::{Action, ActionResult, ActionStatus, FailureClass};

use crate::browser::BrowserError;

/// Why an execution stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// Whose fault it is (the app's, the plan's, the browser's…), which decides what happens
    /// next, such as a re-plan.
    pub class: FailureClass,
    /// The step that failed; none when the execution failed before its first step (opening
    /// the start URL).
    pub action_id: Option<String>,
    /// What went wrong, for a person.
    pub message: String,
}

/// What one execution of a plan did.
#[derive(Debug, Clone)]
pub struct Execution {
    /// None when every step passed.
    pub failure: Option<Failure>,
    /// One result per step of the plan, those that never ran included (as skipped); a `use`
    /// step's result comes after those of its fragment's steps.
    pub actions: Vec<ActionResult>,
    /// The page's URL when the execution ended, when the page could still say.
    pub final_url: Option<String>,
    /// Wall time of the whole execution, evidence capture included.
    pub duration: Duration,
    /// Structural signature of the start page.
    pub start_sig: Option<String>,
    /// What the page looked like at the failure; text not yet masked for credentials (the
    /// runner does that), the screenshot with credential fields covered.
    pub evidence: Option<Captured>,
    /// The viewport as PNG at the end of a passing execution (`Screenshots::On`), credential
    /// fields covered.
    pub screenshot: Option<Vec<u8>>,
    /// The trace's screenshots, when it records one (`Trace`): the steps' `trace` frames name
    /// no file until the runner stores these.
    pub frames: Vec<FrameShot>,
    /// What the page did in the background on a passing execution (its errors, the session's
    /// failed requests), as patterns not yet masked: a verified plan's baseline.
    pub baseline: Option<windup_model::Baseline>,
}

/// One trace frame's screenshot, before it is stored.
#[derive(Debug, Clone)]
pub struct FrameShot {
    /// The index in `Execution::actions` of the step whose frame it is.
    pub action: usize,
    /// A small JPEG of the viewport, credentials covered.
    pub jpeg: Vec<u8>,
}

/// Failure evidence as captured, before it is masked and stored.
#[derive(Debug, Clone, Default)]
pub struct Captured {
    /// The failing step, the URL, the page's snapshot and console, as read from the page.
    pub evidence: windup_model::Evidence,
    /// The viewport as PNG, fields typed from credentials covered.
    pub screenshot: Option<Vec<u8>>,
}

impl Execution {
    /// Whether every step passed.
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// The result of a step that never ran.
pub(super) fn skipped(action: &Action, fragment: Option<&str>) -> ActionResult {
    ActionResult {
        id: action.id.clone(),
        kind: action.kind,
        fragment: fragment.map(str::to_string),
        step: Some(action.summary()),
        status: ActionStatus::Skipped,
        started_ms: 0,
        duration_ms: 0,
        wait_ms: 0,
        act_ms: 0,
        verify_ms: 0,
        error: None,
        trace: None,
        download: None,
    }
}

pub(super) fn fail(
    class: FailureClass,
    action_id: Option<&str>,
    message: impl Into<String>,
) -> Failure {
    Failure {
        class,
        action_id: action_id.map(str::to_string),
        message: message.into(),
    }
}

/// A step stopped by the browser: a script error is the plan's fault, anything else the
/// browser's.
pub(super) fn browser_failure(e: BrowserError, id: &str) -> Failure {
    let class = match e {
        BrowserError::Script(_) => FailureClass::PlanInvalid,
        _ => FailureClass::BrowserCrashed,
    };
    fail(class, Some(id), e.to_string())
}
