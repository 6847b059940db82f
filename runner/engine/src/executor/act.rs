//! Acting on a step's target: find it and wait until it is actionable, with back-off, then
//! click, fill, press, check, select or hover with trusted input.

use std::time::Duration;

use tokio::time::Instant;
use windup_model::{Action, ActionType, FailureClass, keys::parse_chord};

use super::outcome::{Failure, browser_failure, fail};
use super::steps::{Executor, Timing};
use super::typing::Typing;
use crate::browser::{BrowserError, Realm, injected};
use crate::locator::{Located, Locator};

/// A target found and actionable: where to act, its checked state when it has one, and the
/// origins of its document (the frame's as Chromium tells it, None for the top document; its
/// window's own).
struct Acquired {
    x: f64,
    y: f64,
    checked: Option<serde_json::Value>,
    frame_origin: Option<String>,
    origin: String,
    /// For `fill`: what the field is.
    field: Option<Box<crate::secrets::FieldFacts>>,
    /// The realm it was found in, where a click's landing is asked.
    realm: Option<Realm>,
}

impl Executor<'_, '_> {
    /// The step's target as a locator, noted as the one a failure names; a selector that does
    /// not parse is the plan's fault.
    pub(super) fn target_locator(&mut self, action: &Action, id: &str) -> Result<Locator, Failure> {
        let selector = action
            .target
            .as_ref()
            .map(|t| t.selector.as_str())
            .unwrap_or_default();
        self.failed_target = Some(selector.to_string());
        Locator::parse(selector).map_err(|e| {
            fail(
                FailureClass::PlanInvalid,
                Some(id),
                format!("bad selector `{selector}`: {e}"),
            )
        })
    }

    /// A step on a target: click, hover, wait_for, fill, press, check, uncheck, select.
    pub(super) async fn perform_on_target(
        &mut self,
        action: &Action,
        id: &str,
        deadline: Instant,
        timing: &mut Timing,
    ) -> Result<(), Failure> {
        let locator = self.target_locator(action, id)?;
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
        let acquired = self
            .acquire(&locator, kind.as_str(), None, deadline, id)
            .await?;
        timing.0 = t.elapsed();
        let t = Instant::now();
        if matches!(
            kind,
            ActionType::Click | ActionType::Check | ActionType::Uncheck
        ) {
            self.click_until_it_lands(&locator, kind, acquired, deadline, id)
                .await?;
            timing.1 = t.elapsed();
            return Ok(());
        }
        let Acquired {
            x,
            y,
            frame_origin,
            origin,
            field,
            ..
        } = acquired;
        let browser = |e| browser_failure(e, id);
        match kind {
            ActionType::Hover => self.session.page().hover(x, y).await.map_err(browser)?,
            ActionType::WaitFor => {}
            ActionType::Fill => {
                let to = Typing {
                    locator: &locator,
                    frame_origin: frame_origin.as_deref(),
                    origin: &origin,
                    field: field.map(|f| *f).unwrap_or_default(),
                };
                self.fill(action, &to, id).await?;
            }
            ActionType::Press => {
                let chord = parse_chord(action.key.as_deref().unwrap_or_default())
                    .map_err(|e| fail(FailureClass::PlanInvalid, Some(id), e.to_string()))?;
                self.session.page().press(&chord).await.map_err(browser)?;
            }
            // Done above: click, check, uncheck and `select`; the rest by their own step
            // (`transfer.rs`…).
            ActionType::Click
            | ActionType::Check
            | ActionType::Uncheck
            | ActionType::Select
            | ActionType::Goto
            | ActionType::Use
            | ActionType::Upload
            | ActionType::Download => {}
        }
        timing.1 = t.elapsed();
        Ok(())
    }

    /// Clicks the target (for check and uncheck, only when it is not already in the state
    /// wanted), and clicks it again where it now is while the click lands on something else:
    /// the page moved between finding the target and the click (a list re-rendered after a
    /// route change, an element replaced), and the in-page engine stopped that click's events
    /// before the page saw them (`injected/intercept.js`). As Playwright's retry, until the
    /// step's deadline.
    async fn click_until_it_lands(
        &mut self,
        locator: &Locator,
        kind: ActionType,
        mut acquired: Acquired,
        deadline: Instant,
        id: &str,
    ) -> Result<(), Failure> {
        let want = (kind != ActionType::Click).then_some(kind == ActionType::Check);
        let mut attempt = 0;
        loop {
            let needed =
                want.is_none_or(|w| acquired.checked.as_ref().and_then(|c| c.as_bool()) != Some(w));
            if needed {
                self.session
                    .page()
                    .click(acquired.x, acquired.y)
                    .await
                    .map_err(|e| browser_failure(e, id))?;
            }
            // Asked even with no click, which ends the watch `locate` armed.
            let landed_on = match &acquired.realm {
                Some(realm) => match injected::hit_result(self.session.page(), realm).await {
                    Ok(on) => on,
                    // The click took the page to another document: it landed.
                    Err(BrowserError::ContextLost | BrowserError::Script(_)) => None,
                    Err(e) => return Err(browser_failure(e, id)),
                },
                None => None,
            };
            let Some(on) = landed_on else {
                if let (Some(w), true) = (want, needed) {
                    self.wait_checked(locator, w, deadline, id).await?;
                }
                return Ok(());
            };
            tracing::debug!(
                "the click on `{}` landed on {on} (the target moved); clicking again",
                locator.source
            );
            let pause = crate::timeouts::poll_pause(attempt);
            attempt += 1;
            if Instant::now() + pause >= deadline {
                return Err(fail(
                    self.timeout_class(FailureClass::NotActionable, deadline),
                    Some(id),
                    format!(
                        "`{}`: the click landed on {on} each time (the page moves the target under the pointer)",
                        locator.source
                    ),
                ));
            }
            tokio::time::sleep(pause).await;
            acquired = self
                .acquire(locator, kind.as_str(), None, deadline, id)
                .await?;
        }
    }

    /// A credential is typed only into a document on one of its origins (the app's, or a
    /// sign-on page its account lists), and only when the manifest declares it. The document is
    /// the target's own, in whatever frame it is: the frame's origin as Chromium tells it (the
    /// top document's URL for the top one) and the origin its window reports (a frame of the
    /// same origin inherits it, a sandboxed one is opaque) must both be credential origins.
    pub(super) async fn may_type(
        &self,
        name: &str,
        frame_origin: Option<&str>,
        window_origin: &str,
        id: &str,
    ) -> Result<(), Failure> {
        let frame = match frame_origin {
            Some(o) => o.to_string(),
            None => self
                .session
                .url()
                .await
                .map_err(|e| browser_failure(e, id))?,
        };
        for seen in [frame.as_str(), window_origin] {
            self.may_type_on(name, seen, id)?;
        }
        Ok(())
    }

    fn may_type_on(&self, name: &str, url: &str, id: &str) -> Result<(), Failure> {
        let origin = url::Url::parse(url).map(|u| u.origin());
        match origin {
            Ok(o) if o.is_tuple() && self.cx.boundary.may_type(name, &o) => Ok(()),
            Ok(o) if o.is_tuple() => Err(fail(
                FailureClass::PlanInvalid,
                Some(id),
                format!(
                    "`{name}` is not typed on {}: it is not a credential of this project, or its account does not list that origin (fix: declare it in e2e/manifest.yaml, with `origins:` for a sign-on page)",
                    o.ascii_serialization()
                ),
            )),
            _ => Err(fail(
                FailureClass::PlanInvalid,
                Some(id),
                format!(
                    "`{name}` is not typed into a document without an http(s) origin (`{url}`)"
                ),
            )),
        }
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
        let mut missing = Missing::default();
        loop {
            self.session
                .follow_popup()
                .await
                .map_err(|e| browser_failure(e, id))?;
            self.session.wait_document_ready(deadline).await;
            let found = match select_value {
                Some(v) => locator.select(self.session, v).await.map(|l| (l, None)),
                None => locator.locate_in(self.session, action).await,
            };
            match found {
                Ok((
                    Located::Ok {
                        x,
                        y,
                        checked,
                        target_box,
                        frame_origin,
                        origin,
                        field,
                        ..
                    },
                    realm,
                )) => {
                    self.target_box = target_box;
                    return Ok(Acquired {
                        x,
                        y,
                        checked,
                        frame_origin,
                        origin,
                        field,
                        realm,
                    });
                }
                Ok((Located::Navigating, _)) | Err(BrowserError::ContextLost) => missing.reset(),
                Ok((other, _)) => {
                    if matches!(other, Located::NotFound { hidden: 0 }) {
                        if self.cx.early_heal && select_value.is_none() && missing.due(self.session)
                        {
                            let (candidate, still) = self.heal_candidate(locator).await;
                            if missing.offered(candidate, still) {
                                // Stopped now, not timed out: the step's own class.
                                let now = Instant::now();
                                tracing::debug!(
                                    "{id}: the target is missing from a settled page that offers one element in its place; stopped after {:?}",
                                    missing
                                        .since
                                        .map(|s| now.duration_since(s))
                                        .unwrap_or_default()
                                );
                                return Err(self.not_acquired(locator, Some(other), id, now).await);
                            }
                        }
                    } else {
                        missing.reset();
                    }
                    last = Some(other);
                }
                Err(BrowserError::Script(e)) => {
                    return Err(fail(
                        FailureClass::PlanInvalid,
                        Some(id),
                        format!("selector `{}` cannot be evaluated: {e}", locator.source),
                    ));
                }
                Err(e) => return Err(browser_failure(e, id)),
            }
            let pause = crate::timeouts::poll_pause(attempt);
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
}

/// How long a target has been missing from a page, and what the page offered in its place, for
/// [`super::ExecContext::early_heal`].
#[derive(Default)]
struct Missing {
    /// Since when the target has been missing, the network quiet.
    since: Option<Instant>,
    /// When the page was last asked for a heal candidate, and the one it offered then.
    asked: Option<(Instant, Option<String>)>,
}

impl Missing {
    fn reset(&mut self) {
        self.since = None;
        self.asked = None;
    }

    /// Whether it is time to ask the page for a candidate: the target missing from a quiet
    /// page (no request waiting), and [`crate::timeouts::STILL`] since the last ask.
    fn due(&mut self, session: &crate::browser::Session) -> bool {
        let now = Instant::now();
        if !session.network_quiet() {
            self.reset();
            return false;
        }
        self.since.get_or_insert(now);
        self.asked
            .as_ref()
            .is_none_or(|(at, _)| now.duration_since(*at) >= crate::timeouts::STILL)
    }

    /// Notes what the page offered now; true when the page has stopped changing where the
    /// target was: the same single element as at the last ask, and the document unchanged
    /// since (for [`crate::timeouts::STILL`]), or the target missing for
    /// [`crate::timeouts::SETTLED`] while the rest of the page keeps moving.
    fn offered(&mut self, candidate: Option<String>, still: Duration) -> bool {
        let now = Instant::now();
        let same = candidate.is_some()
            && self
                .asked
                .as_ref()
                .is_some_and(|(_, before)| *before == candidate);
        let long = self
            .since
            .is_some_and(|since| now.duration_since(since) >= crate::timeouts::SETTLED);
        self.asked = Some((now, candidate));
        same && (still >= crate::timeouts::STILL || long)
    }
}

impl Executor<'_, '_> {
    /// The one element a missing target may have become, by the healing rules, as its
    /// selector (none when the page offers none or several), and how long the document has
    /// been unchanged.
    async fn heal_candidate(&self, locator: &Locator) -> (Option<String>, Duration) {
        let Ok(found) = locator.heal_candidates(self.session).await else {
            return (None, Duration::ZERO);
        };
        let still = Duration::from_millis(found.still_ms);
        match (found.rule, found.total, found.candidates.as_slice()) {
            (Some(_), 1, [one]) => (Some(one.selector.clone()), still),
            _ => (None, still),
        }
    }
}
