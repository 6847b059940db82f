//! The step loop: runs a plan's steps in order, times each, reports it as an event, and stops
//! at the first failure, listing the steps that never ran. A step's own work is done by type:
//! `goto` (`navigate.rs`), `use` (`fragment.rs`), `upload` and `download` (`transfer.rs`), the
//! rest on a target (`act.rs`); then its postconditions are verified.

use std::time::Duration;

use tokio::time::Instant;
use windup_model::{
    Action, ActionResult, ActionStatus, ActionType, FailureClass, Plan, keys::parse_chord,
};

use super::context::{ExecContext, Screenshots};
use super::outcome::{Captured, Execution, Failure, FrameShot, browser_failure, fail, skipped};
use crate::browser::Session;
use crate::events::Event;
use crate::verifier::{Check, VerifyError};

/// A field typed from a credential, and the document it was typed in (`cover.rs` covers it
/// before a screenshot).
pub(super) struct SecretField {
    pub parts: Vec<windup_model::Part>,
    /// `None` when the document could not be told: the field is then looked for on every page.
    pub document: Option<String>,
}

/// One execution in progress.
pub(super) struct Executor<'s, 'c> {
    pub session: &'s mut Session,
    pub cx: &'c ExecContext<'c>,
    start: Instant,
    pub scenario_deadline: Instant,
    pub results: Vec<ActionResult>,
    dialogs_reported: usize,
    /// Fields typed from credentials, covered before a screenshot.
    pub secret_fields: Vec<SecretField>,
    /// The project's credential values: any text showing one is covered before a
    /// screenshot. Never reported.
    pub secret_values: Vec<String>,
    /// The failing step's target selector.
    pub failed_target: Option<String>,
    /// The URL of the last page reported with `PageSeen`.
    pub last_url: Option<String>,
    /// The last step that acted on the page: the one a page reached during a later `wait_for`
    /// was led to by.
    pub last_act: Option<String>,
    /// The current step's target box, as found when it became actionable (for its trace frame).
    pub target_box: Option<windup_model::Rect>,
    /// The trace's pictures so far, and their bytes (`trace.rs`).
    pub frames: Vec<FrameShot>,
    pub trace_bytes: usize,
    /// The file the running `download` step saved, for its result.
    pub last_download: Option<windup_model::Downloaded>,
}

/// Time a step spent (wait, act, verify).
pub(super) type Timing = (Duration, Duration, Duration);

/// Runs `plan` in `session`: opens its start URL, then its steps.
pub async fn execute(session: &mut Session, plan: &Plan, cx: &ExecContext<'_>) -> Execution {
    run(session, plan, cx, true).await
}

/// Runs `plan`'s steps on the page as it is, without opening the start URL first (for harnesses
/// that prepare the page themselves, such as seeding a MiniWoB episode).
pub async fn execute_steps(session: &mut Session, plan: &Plan, cx: &ExecContext<'_>) -> Execution {
    run(session, plan, cx, false).await
}

async fn run(session: &mut Session, plan: &Plan, cx: &ExecContext<'_>, open: bool) -> Execution {
    let start = Instant::now();
    let mut runner = Executor {
        session,
        cx,
        start,
        scenario_deadline: start + cx.scenario_timeout,
        results: Vec::new(),
        dialogs_reported: 0,
        secret_fields: Vec::new(),
        // Every declared credential, typed here or not (a setup signed in, the page shows the
        // account's email): text showing one is covered before a screenshot.
        secret_values: cx
            .boundary
            .credential_names()
            .filter_map(|name| cx.secrets.resolve(name))
            .filter(|v| !v.trim().is_empty())
            .collect(),
        failed_target: None,
        last_url: None,
        last_act: None,
        target_box: None,
        frames: Vec::new(),
        trace_bytes: 0,
        last_download: None,
    };
    let mut start_sig = None;
    // Every top-level document of the run is held to the app's origins, whatever the plan says.
    let held = runner
        .session
        .hold_to(cx.boundary.app_origins().to_vec())
        .await
        .map_err(|e| browser_failure(e, "start"));
    let opened = match held {
        Err(mut f) => {
            f.action_id = None;
            Err(f)
        }
        Ok(()) if open => runner.open_start(&plan.start_url).await,
        Ok(()) => Ok(None),
    };
    let failure = match opened {
        Err(f) => Some(runner.left_app(None).unwrap_or(f)),
        Ok(sig) => {
            start_sig = sig;
            runner.run_actions(&plan.actions, None, 0).await.err()
        }
    };
    // A navigation the page started after its last step counts too.
    let failure = failure.or_else(|| runner.left_app(None));
    let final_url = runner.session.url().await.ok();
    let screenshot = match (&failure, cx.screenshots) {
        (None, Screenshots::On) => runner.covered_screenshot().await,
        _ => None,
    };
    let baseline = match &failure {
        None if cx.baseline && runner.session.is_alive() => Some(runner.background().await),
        _ => None,
    };
    let evidence = match &failure {
        Some(f) if runner.session.is_alive() => {
            let t = std::time::Instant::now();
            let captured = runner.capture(f, final_url.clone()).await;
            tracing::debug!("the failure's evidence captured in {:?}", t.elapsed());
            Some(captured)
        }
        Some(f) => Some(Captured {
            evidence: windup_model::Evidence {
                action_id: f.action_id.clone(),
                url: final_url.clone(),
                target: runner
                    .failed_target
                    .clone()
                    .map(|t| format!("{t}: {}", f.message)),
                ..Default::default()
            },
            screenshot: None,
        }),
        None => None,
    };
    let frames = std::mem::take(&mut runner.frames);
    let mut results = runner.results;
    // Steps that never ran are listed as skipped, so a report shows the whole plan.
    if failure.is_some() {
        for a in plan
            .actions
            .iter()
            .skip(results.iter().filter(|r| r.fragment.is_none()).count())
        {
            results.push(skipped(a, None));
        }
    }
    Execution {
        failure,
        actions: results,
        final_url,
        duration: start.elapsed(),
        start_sig,
        evidence,
        screenshot,
        frames,
        baseline,
    }
}

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

impl Executor<'_, '_> {
    pub(super) fn emit(&self, event: Event) {
        self.cx.events.on_event(&event);
    }

    /// The failure of a step during which the page tried to leave the app's origins (the
    /// navigation was stopped before its request was sent).
    pub(super) fn left_app(&self, id: Option<&str>) -> Option<Failure> {
        let left = self.session.left_origins()?;
        let origin = url::Url::parse(&left.url)
            .map(|u| u.origin().ascii_serialization())
            .unwrap_or_else(|_| left.url.chars().take(60).collect());
        let app: Vec<String> = self
            .cx
            .boundary
            .app_origins()
            .iter()
            .map(url::Origin::ascii_serialization)
            .collect();
        let what = if left.stopped {
            format!(
                "the page (or a tab it opened) tried to load {origin} as its top-level document, outside the app's origins ({}); the navigation was stopped before it was sent",
                app.join(", ")
            )
        } else {
            format!(
                "the page (or a tab it opened) reached {origin}, outside the app's origins ({}); the scenario stops there",
                app.join(", ")
            )
        };
        Some(fail(
            FailureClass::NavigationFailed,
            id,
            format!(
                "{what} (list another origin in windup.toml [planner] allowed_origins if the app really goes there)"
            ),
        ))
    }

    /// A step's deadline: its own timeout, capped by the scenario's.
    pub(super) fn deadline(&self, action: &Action) -> Instant {
        let own = action
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.cx.timeouts.action);
        (Instant::now() + own).min(self.scenario_deadline)
    }

    /// Which class a timeout falls in: the scenario's budget when that was the deadline that
    /// ran out, else the step's own class.
    pub(super) fn timeout_class(&self, own: FailureClass, deadline: Instant) -> FailureClass {
        if deadline >= self.scenario_deadline {
            FailureClass::ScenarioTimeout
        } else {
            own
        }
    }

    pub(super) fn run_actions<'a>(
        &'a mut self,
        actions: &'a [Action],
        fragment: Option<&'a str>,
        depth: usize,
    ) -> futures::future::BoxFuture<'a, Result<(), Failure>> {
        Box::pin(async move {
            for (i, action) in actions.iter().enumerate() {
                if let Err(f) = self.run_one(action, fragment, depth).await {
                    if fragment.is_some() {
                        for rest in &actions[i + 1..] {
                            self.results.push(skipped(rest, fragment));
                        }
                    }
                    return Err(f);
                }
            }
            Ok(())
        })
    }

    async fn run_one(
        &mut self,
        action: &Action,
        fragment: Option<&str>,
        depth: usize,
    ) -> Result<(), Failure> {
        let id = match fragment {
            Some(f) => format!("{f}/{}", action.id),
            None => action.id.clone(),
        };
        self.failed_target = None;
        self.target_box = None;
        self.emit(Event::ActionStarted {
            scenario_id: self.cx.scenario_id.to_string(),
            action_id: id.clone(),
        });
        let started = Instant::now();
        let started_ms = ms(started - self.start);
        let mut timing = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
        let performed = self.perform(action, &id, depth, &mut timing).await;
        // Leaving the app outranks whatever else went wrong: it is why the rest failed.
        let outcome = match self.left_app(Some(&id)) {
            Some(left) => Err(left),
            None => performed,
        }
        .map_err(|mut f| {
            if f.action_id.is_none() {
                f.action_id = Some(id.clone());
            }
            f
        });
        let result = ActionResult {
            id: action.id.clone(),
            kind: action.kind,
            fragment: fragment.map(str::to_string),
            step: Some(action.summary()),
            status: if outcome.is_ok() {
                ActionStatus::Passed
            } else {
                ActionStatus::Failed
            },
            started_ms,
            duration_ms: ms(started.elapsed()),
            wait_ms: ms(timing.0),
            act_ms: ms(timing.1),
            verify_ms: ms(timing.2),
            error: outcome.as_ref().err().map(|f| f.message.clone()),
            trace: None,
            download: self.last_download.take(),
        };
        self.emit(Event::ActionFinished {
            scenario_id: self.cx.scenario_id.to_string(),
            result: result.clone(),
        });
        // A `use` step's own result goes after its fragment's steps, in the order they finished.
        self.results.push(result);
        if self.cx.trace.records() && action.kind != ActionType::Use {
            self.trace_frame(self.results.len() - 1).await;
        }
        if outcome.is_ok() && !matches!(action.kind, ActionType::Goto | ActionType::Use) {
            self.see_if_moved(action).await;
        }
        let dialogs = self.session.log().dialogs;
        for (kind, message) in dialogs.iter().skip(self.dialogs_reported) {
            self.emit(Event::Dialog {
                scenario_id: self.cx.scenario_id.to_string(),
                kind: kind.clone(),
                message: message.clone(),
            });
        }
        self.dialogs_reported = dialogs.len();
        outcome
    }

    /// Does the step; `timing` collects (wait, act, verify).
    async fn perform(
        &mut self,
        action: &Action,
        id: &str,
        depth: usize,
        timing: &mut Timing,
    ) -> Result<(), Failure> {
        let deadline = self.deadline(action);
        match action.kind {
            ActionType::Goto => self.goto_step(action, id, timing).await?,
            ActionType::Use => self.use_fragment(action, id, depth, timing).await?,
            ActionType::Upload => self.upload_step(action, id, deadline, timing).await?,
            ActionType::Download => self.download_step(action, id, deadline, timing).await?,
            ActionType::Press if action.target.is_none() => {
                let chord = parse_chord(action.key.as_deref().unwrap_or_default())
                    .map_err(|e| fail(FailureClass::PlanInvalid, Some(id), e.to_string()))?;
                let t = Instant::now();
                self.session
                    .page()
                    .press(&chord)
                    .await
                    .map_err(|e| browser_failure(e, id))?;
                timing.1 = t.elapsed();
            }
            _ => self.perform_on_target(action, id, deadline, timing).await?,
        }
        // `expect.download` was checked on the file by the step itself.
        if let Some(expect) = action.expect.as_ref().filter(|e| e.has_page_checks()) {
            let t = Instant::now();
            let d = self.deadline(action);
            self.verify(expect, d, id).await?;
            timing.2 = t.elapsed();
        }
        Ok(())
    }

    /// Waits until `expect` holds on the page (after moving into a tab the step opened).
    pub(super) async fn verify(
        &mut self,
        expect: &windup_model::Expect,
        deadline: Instant,
        id: &str,
    ) -> Result<(), Failure> {
        let check = Check::compile(expect)
            .map_err(|e| fail(FailureClass::PlanInvalid, Some(id), e.to_string()))?;
        let followed = self
            .session
            .follow_popup()
            .await
            .map_err(|e| browser_failure(e, id))?;
        // A new tab's first request may have gone out before it was held: its URL is checked.
        if followed {
            self.session
                .check_hold()
                .await
                .map_err(|e| browser_failure(e, id))?;
            if let Some(left) = self.left_app(Some(id)) {
                return Err(left);
            }
        }
        match check
            .wait(self.session, self.cx.boundary.base_url(), expect, deadline)
            .await
        {
            Ok(()) => Ok(()),
            Err(VerifyError::NotMet(m)) => Err(fail(
                self.timeout_class(FailureClass::PostconditionFailed, deadline),
                Some(id),
                m,
            )),
            Err(VerifyError::Browser(e)) => Err(browser_failure(e, id)),
        }
    }
}
