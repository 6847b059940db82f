//! The deterministic loop: go to the start URL, then per action: find the target, wait until it
//! is actionable, act with trusted input, verify the postconditions. LLM-free.

use std::time::Duration;

use tokio::time::Instant;
use windup_model::{
    Action, ActionResult, ActionStatus, ActionType, FailureClass, Plan, keys::parse_chord,
};

use crate::base_url::rebase;
use crate::browser::{BrowserError, NavError, Session};
use crate::events::{Event, EventSink};
use crate::fragments::Fragments;
use crate::locator::{Located, Locator};
use crate::secrets::SecretSource;
use crate::signature;
use crate::timeouts::Timeouts;
use crate::verifier::{Check, VerifyError};

/// Everything an execution needs besides the page.
pub struct ExecContext<'a> {
    pub scenario_id: &'a str,
    pub base_url: &'a url::Url,
    pub timeouts: Timeouts,
    /// The whole scenario's budget.
    pub scenario_timeout: Duration,
    pub fragments: &'a Fragments,
    pub secrets: &'a dyn SecretSource,
    pub events: &'a dyn EventSink,
    /// Which executions end with a screenshot of the page.
    pub screenshots: Screenshots,
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
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "off" => Ok(Screenshots::Off),
            "only-on-failure" => Ok(Screenshots::OnlyOnFailure),
            "on" => Ok(Screenshots::On),
            other => Err(format!(
                "`{other}` is not a screenshots setting: use off, only-on-failure or on"
            )),
        }
    }
}

/// Why an execution stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub class: FailureClass,
    pub action_id: Option<String>,
    pub message: String,
}

/// What one execution of a plan did.
#[derive(Debug, Clone)]
pub struct Execution {
    pub failure: Option<Failure>,
    pub actions: Vec<ActionResult>,
    pub final_url: Option<String>,
    pub duration: Duration,
    /// Structural signature of the start page.
    pub start_sig: Option<String>,
    /// What the page looked like at the failure; text not yet masked for credentials (the
    /// runner does that), the screenshot with credential fields covered.
    pub evidence: Option<Captured>,
    /// The viewport as PNG at the end of a passing execution (`Screenshots::On`), credential
    /// fields covered.
    pub screenshot: Option<Vec<u8>>,
}

/// Failure evidence as captured, before it is masked and stored.
#[derive(Debug, Clone, Default)]
pub struct Captured {
    pub evidence: windup_model::Evidence,
    /// The viewport as PNG, fields typed from credentials covered.
    pub screenshot: Option<Vec<u8>>,
}

impl Execution {
    pub fn passed(&self) -> bool {
        self.failure.is_none()
    }
}

/// Nested `use` deeper than this is a loop the fragment checks missed.
const MAX_FRAGMENT_DEPTH: usize = 8;

/// Back-off between attempts to find an actionable target, in milliseconds.
const RETRY_MS: [u64; 6] = [0, 10, 20, 50, 100, 100];

struct Runner<'s, 'c> {
    session: &'s mut Session,
    cx: &'c ExecContext<'c>,
    start: Instant,
    scenario_deadline: Instant,
    results: Vec<ActionResult>,
    dialogs_reported: usize,
    /// Fields typed from credentials, covered before a failure screenshot.
    secret_fields: Vec<serde_json::Value>,
    /// The failing step's target selector.
    failed_target: Option<String>,
}

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
    let mut runner = Runner {
        session,
        cx,
        start,
        scenario_deadline: start + cx.scenario_timeout,
        results: Vec::new(),
        dialogs_reported: 0,
        secret_fields: Vec::new(),
        failed_target: None,
    };
    let mut start_sig = None;
    let opened = if open {
        runner.open_start(&plan.start_url).await
    } else {
        Ok(None)
    };
    let failure = match opened {
        Err(f) => Some(f),
        Ok(sig) => {
            start_sig = sig;
            runner.run_actions(&plan.actions, None, 0).await.err()
        }
    };
    let final_url = runner.session.url().await.ok();
    let screenshot = match (&failure, cx.screenshots) {
        (None, Screenshots::On) => runner.covered_screenshot().await,
        _ => None,
    };
    let evidence = match &failure {
        Some(f) if runner.session.is_alive() => Some(runner.capture(f, final_url.clone()).await),
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
    }
}

/// Characters of accessibility snapshot kept as evidence.
const EVIDENCE_SNAPSHOT_CHARS: usize = 6_000;

impl Runner<'_, '_> {
    /// Evidence at the failing step: URL, target diagnosis, accessibility snapshot, page errors,
    /// failed requests and a screenshot with every credential-typed field covered. Best effort:
    /// a page that cannot give a part leaves it out.
    async fn capture(&mut self, failure: &Failure, url: Option<String>) -> Captured {
        let mut evidence = windup_model::Evidence {
            action_id: failure.action_id.clone(),
            url,
            target: self
                .failed_target
                .clone()
                .map(|t| format!("{t}: {}", failure.message)),
            ..Default::default()
        };
        evidence.snapshot = self
            .session
            .call::<String>("snapshot", &[serde_json::json!(EVIDENCE_SNAPSHOT_CHARS)])
            .await
            .ok();
        #[derive(serde::Deserialize)]
        struct PageFailures {
            console: Vec<String>,
        }
        if let Ok(f) = self.session.call::<PageFailures>("failures", &[]).await {
            evidence.console_errors = f.console;
        }
        // From the Network events of the whole session (every page and tab it went through):
        // HTTP errors, and requests that got no answer at all, which the page cannot see.
        evidence.failed_requests = self.session.log().failed_requests;
        let screenshot = if self.cx.screenshots == Screenshots::Off {
            None
        } else {
            self.covered_screenshot().await
        };
        Captured {
            evidence,
            screenshot,
        }
    }

    /// The viewport with every credential-typed field covered; none when they cannot be covered,
    /// so no screenshot ever shows a credential.
    async fn covered_screenshot(&mut self) -> Option<Vec<u8>> {
        let covered = if self.secret_fields.is_empty() {
            true
        } else {
            self.session
                .call::<u32>(
                    "mask",
                    &[serde_json::Value::Array(self.secret_fields.clone())],
                )
                .await
                .is_ok()
        };
        let screenshot = if covered {
            self.session.screenshot().await.ok()
        } else {
            None
        };
        if !self.secret_fields.is_empty() {
            let _ = self.session.call::<bool>("unmask", &[]).await;
        }
        screenshot
    }
}

fn skipped(action: &Action, fragment: Option<&str>) -> ActionResult {
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
    }
}

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

fn fail(class: FailureClass, action_id: Option<&str>, message: impl Into<String>) -> Failure {
    Failure {
        class,
        action_id: action_id.map(str::to_string),
        message: message.into(),
    }
}

impl Runner<'_, '_> {
    fn emit(&self, event: Event) {
        self.cx.events.on_event(&event);
    }

    /// A step's deadline: its own timeout, capped by the scenario's.
    fn deadline(&self, action: &Action) -> Instant {
        let own = action
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.cx.timeouts.action);
        (Instant::now() + own).min(self.scenario_deadline)
    }

    /// Which class a timeout falls in: the scenario's budget when that was the deadline that
    /// ran out, else the step's own class.
    fn timeout_class(&self, own: FailureClass, deadline: Instant) -> FailureClass {
        if deadline >= self.scenario_deadline {
            FailureClass::ScenarioTimeout
        } else {
            own
        }
    }

    async fn open_start(&mut self, start_url: &str) -> Result<Option<String>, Failure> {
        let url = rebase(self.cx.base_url, start_url)
            .map_err(|e| fail(FailureClass::PlanInvalid, None, e))?;
        let deadline = (Instant::now() + self.cx.timeouts.navigation).min(self.scenario_deadline);
        let t = Instant::now();
        self.navigate(url.as_str(), deadline, None).await?;
        tracing::debug!(url = %url, "start page loaded in {:?}", t.elapsed());
        Ok(self.see_page(&url).await)
    }

    /// Tells subscribers which page was reached and its structural signature.
    async fn see_page(&self, url: &url::Url) -> Option<String> {
        let signature = signature::of_page(self.session).await.ok();
        self.emit(Event::PageSeen {
            scenario_id: self.cx.scenario_id.to_string(),
            url: url.to_string(),
            signature: signature.clone(),
        });
        signature
    }

    async fn navigate(
        &mut self,
        url: &str,
        deadline: Instant,
        action_id: Option<&str>,
    ) -> Result<(), Failure> {
        let timeout = deadline.saturating_duration_since(Instant::now());
        match self.session.goto(url, timeout).await {
            Ok(()) => Ok(()),
            Err(NavError::Failed(reason)) => Err(fail(
                FailureClass::NavigationFailed,
                action_id,
                format!("{url} did not load: {reason}"),
            )),
            Err(NavError::Timeout) => Err(fail(
                self.timeout_class(FailureClass::NavigationFailed, deadline),
                action_id,
                format!(
                    "{url} did not finish loading within {} ms",
                    timeout.as_millis()
                ),
            )),
            Err(NavError::Crashed(m)) => Err(fail(FailureClass::BrowserCrashed, action_id, m)),
        }
    }

    fn run_actions<'a>(
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
        self.emit(Event::ActionStarted {
            scenario_id: self.cx.scenario_id.to_string(),
            action_id: id.clone(),
        });
        let started = Instant::now();
        let started_ms = ms(started - self.start);
        let mut timing = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
        let outcome = self
            .perform(action, &id, depth, &mut timing)
            .await
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
        };
        self.emit(Event::ActionFinished {
            scenario_id: self.cx.scenario_id.to_string(),
            result: result.clone(),
        });
        // A `use` step's own result goes after its fragment's steps, in the order they finished.
        self.results.push(result);
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
        timing: &mut (Duration, Duration, Duration),
    ) -> Result<(), Failure> {
        let deadline = self.deadline(action);
        match action.kind {
            ActionType::Goto => {
                let raw = action.url.as_deref().unwrap_or("/");
                let url = rebase(self.cx.base_url, raw)
                    .map_err(|e| fail(FailureClass::PlanInvalid, Some(id), e))?;
                let t = Instant::now();
                let nav_deadline =
                    (Instant::now() + self.cx.timeouts.navigation).min(self.scenario_deadline);
                self.navigate(url.as_str(), nav_deadline, Some(id)).await?;
                timing.1 = t.elapsed();
                self.see_page(&url).await;
            }
            ActionType::Use => {
                let fid = action.use_fragment.as_deref().unwrap_or_default();
                let fragment = self.cx.fragments.get(fid).ok_or_else(|| {
                    fail(
                        FailureClass::PlanInvalid,
                        Some(id),
                        format!("no fragment `{fid}` in e2e/fragments/"),
                    )
                })?;
                if depth >= MAX_FRAGMENT_DEPTH {
                    return Err(fail(
                        FailureClass::PlanInvalid,
                        Some(id),
                        format!("fragments nest deeper than {MAX_FRAGMENT_DEPTH}"),
                    ));
                }
                let t = Instant::now();
                let label = format!("{}:{fid}", action.id);
                let actions = fragment.actions.clone();
                let own_expect = fragment.expect.clone();
                self.run_actions(&actions, Some(&label), depth + 1).await?;
                timing.1 = t.elapsed();
                if let Some(expect) = own_expect {
                    let t = Instant::now();
                    let d = self.deadline(action);
                    self.verify(&expect, d, id).await?;
                    timing.2 = t.elapsed();
                }
            }
            ActionType::Press if action.target.is_none() => {
                let chord = parse_chord(action.key.as_deref().unwrap_or_default())
                    .map_err(|e| fail(FailureClass::PlanInvalid, Some(id), e))?;
                let t = Instant::now();
                self.session
                    .press(&chord)
                    .await
                    .map_err(|e| browser_failure(e, id))?;
                timing.1 = t.elapsed();
            }
            _ => self.perform_on_target(action, id, deadline, timing).await?,
        }
        if let Some(expect) = action.expect.as_ref().filter(|e| !e.is_empty()) {
            let t = Instant::now();
            let d = self.deadline(action);
            self.verify(expect, d, id).await?;
            timing.2 = t.elapsed();
        }
        Ok(())
    }

    async fn perform_on_target(
        &mut self,
        action: &Action,
        id: &str,
        deadline: Instant,
        timing: &mut (Duration, Duration, Duration),
    ) -> Result<(), Failure> {
        let selector = action
            .target
            .as_ref()
            .map(|t| t.selector.as_str())
            .unwrap_or_default();
        self.failed_target = Some(selector.to_string());
        let locator = Locator::parse(selector).map_err(|e| {
            fail(
                FailureClass::PlanInvalid,
                Some(id),
                format!("bad selector `{selector}`: {e}"),
            )
        })?;
        let kind = action.kind;
        let t = Instant::now();
        // `select` is chosen in the page: it finds, checks and selects in one call.
        if kind == ActionType::Select {
            let value = action.value.clone().unwrap_or_default();
            self.acquire(&locator, "select", Some(&value), deadline, id)
                .await?;
            timing.0 = t.elapsed();
            return Ok(());
        }
        let Acquired { x, y, checked } = self
            .acquire(&locator, kind.as_str(), None, deadline, id)
            .await?;
        timing.0 = t.elapsed();
        let t = Instant::now();
        let browser = |e| browser_failure(e, id);
        match kind {
            ActionType::Click => self.session.click(x, y).await.map_err(browser)?,
            ActionType::Hover => self.session.hover(x, y).await.map_err(browser)?,
            ActionType::WaitFor => {}
            ActionType::Fill => {
                let text = match (&action.value, &action.value_ref) {
                    (Some(v), _) => v.clone(),
                    (None, Some(name)) => self.cx.secrets.resolve(name).ok_or_else(|| {
                        fail(
                            FailureClass::PlanInvalid,
                            Some(id),
                            format!(
                                "no value for `{name}`: set it in the environment or in .env.local"
                            ),
                        )
                    })?,
                    (None, None) => String::new(),
                };
                if action.value_ref.is_some() {
                    self.secret_fields.push(locator.parts().clone());
                }
                // The engine focused the field and selected its content: typing replaces it.
                if text.is_empty() {
                    let delete = parse_chord("Delete").expect("Delete is a key");
                    self.session.press(&delete).await.map_err(browser)?;
                } else {
                    self.session.insert_text(&text).await.map_err(browser)?;
                }
            }
            ActionType::Press => {
                let chord = parse_chord(action.key.as_deref().unwrap_or_default())
                    .map_err(|e| fail(FailureClass::PlanInvalid, Some(id), e))?;
                self.session.press(&chord).await.map_err(browser)?;
            }
            ActionType::Check | ActionType::Uncheck => {
                let want = kind == ActionType::Check;
                if checked.as_ref().and_then(|c| c.as_bool()) != Some(want) {
                    self.session.click(x, y).await.map_err(browser)?;
                    self.wait_checked(&locator, want, deadline, id).await?;
                }
            }
            ActionType::Select | ActionType::Goto | ActionType::Use => {}
        }
        timing.1 = t.elapsed();
        Ok(())
    }

    /// Retries until the target is found and actionable, or the deadline passes.
    async fn acquire(
        &mut self,
        locator: &Locator,
        action: &str,
        select_value: Option<&str>,
        deadline: Instant,
        id: &str,
    ) -> Result<Acquired, Failure> {
        let mut attempt = 0;
        let mut last: Option<Located> = None;
        loop {
            self.session
                .follow_popup()
                .await
                .map_err(|e| browser_failure(e, id))?;
            self.session.wait_document_ready(deadline).await;
            let found = match select_value {
                Some(v) => locator.select(self.session, v).await,
                None => locator.locate(self.session, action).await,
            };
            match found {
                Ok(Located::Ok { x, y, checked, .. }) => return Ok(Acquired { x, y, checked }),
                Ok(Located::Navigating) | Err(BrowserError::ContextLost) => {}
                Ok(other) => last = Some(other),
                Err(BrowserError::Script(e)) => {
                    return Err(fail(
                        FailureClass::PlanInvalid,
                        Some(id),
                        format!("selector `{}` cannot be evaluated: {e}", locator.source),
                    ));
                }
                Err(e) => return Err(browser_failure(e, id)),
            }
            let pause = Duration::from_millis(RETRY_MS[attempt.min(RETRY_MS.len() - 1)]);
            attempt += 1;
            if Instant::now() + pause >= deadline {
                return Err(self.not_acquired(locator, last, id, deadline).await);
            }
            tokio::time::sleep(pause).await;
        }
    }

    async fn not_acquired(
        &self,
        locator: &Locator,
        last: Option<Located>,
        id: &str,
        deadline: Instant,
    ) -> Failure {
        match last {
            Some(Located::NotActionable { reason }) => fail(
                self.timeout_class(FailureClass::NotActionable, deadline),
                Some(id),
                format!(
                    "`{}` matched but never became actionable: {reason}",
                    locator.source
                ),
            ),
            _ => {
                let found = locator
                    .diagnose(self.session)
                    .await
                    .map(|d| d.describe())
                    .unwrap_or_else(|_| "no visible match".into());
                fail(
                    self.timeout_class(FailureClass::SelectorNotFound, deadline),
                    Some(id),
                    format!("`{}`: {found}", locator.source),
                )
            }
        }
    }

    async fn wait_checked(
        &mut self,
        locator: &Locator,
        want: bool,
        deadline: Instant,
        id: &str,
    ) -> Result<(), Failure> {
        loop {
            match locator.is_checked(self.session).await {
                Ok(v) if v.as_bool() == Some(want) => return Ok(()),
                Ok(_) | Err(BrowserError::ContextLost) => {}
                Err(e) => return Err(browser_failure(e, id)),
            }
            if Instant::now() >= deadline {
                return Err(fail(
                    self.timeout_class(FailureClass::NotActionable, deadline),
                    Some(id),
                    format!(
                        "clicking `{}` did not {} it",
                        locator.source,
                        if want { "check" } else { "uncheck" }
                    ),
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    async fn verify(
        &mut self,
        expect: &windup_model::Expect,
        deadline: Instant,
        id: &str,
    ) -> Result<(), Failure> {
        let check =
            Check::compile(expect).map_err(|e| fail(FailureClass::PlanInvalid, Some(id), e))?;
        self.session
            .follow_popup()
            .await
            .map_err(|e| browser_failure(e, id))?;
        match check
            .wait(self.session, self.cx.base_url, expect, deadline)
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

/// A target found and actionable: where to act, and its checked state when it has one.
struct Acquired {
    x: f64,
    y: f64,
    checked: Option<serde_json::Value>,
}

fn browser_failure(e: BrowserError, id: &str) -> Failure {
    let class = match e {
        BrowserError::Script(_) => FailureClass::PlanInvalid,
        _ => FailureClass::BrowserCrashed,
    };
    fail(class, Some(id), e.to_string())
}
