//! Locators: a parsed selector evaluated by the in-page engine (`injected/*.js`).
//! The first VISIBLE match in document order is the target.
//!
//! A selector is evaluated in each realm of the page in turn (`browser::Realm`): the top
//! document with its same-origin frames, then each frame of another origin. After a `frame=`
//! step only the frame it picks is searched: the parts up to the step find the frame element
//! (in the realms as above), and the rest run in that frame's own realm.

use serde_json::Value;
use windup_model::{Part, Selector, SelectorError};

use crate::browser::{BrowserError, Realm, Session, injected};

pub use crate::browser::injected::{
    Counts, Diagnosis, Focus, HealCandidate, HealCandidates, HealRule, Located, SetValue,
};

/// The actions whose target must receive the pointer event at its point (Playwright's
/// *receives events*).
const POINTER_ACTIONS: [&str; 4] = ["click", "check", "uncheck", "hover"];

/// A selector ready to send to the page.
#[derive(Debug, Clone)]
pub struct Locator {
    /// The selector as written, for messages.
    pub source: String,
    parts: Vec<Part>,
}

impl Locator {
    /// Parses a selector (`role=button[name="Save"]`, `text=…`, CSS…); the error says which part
    /// is wrong.
    pub fn parse(selector: &str) -> Result<Locator, SelectorError> {
        let parsed = Selector::parse(selector)?;
        Ok(Locator {
            source: selector.to_string(),
            parts: parsed.parts,
        })
    }

    /// The parsed selector, as the in-page engine takes it.
    pub fn parts(&self) -> &[Part] {
        &self.parts
    }

    /// Finds the target and checks that it is actionable for `action`; for `fill` and `press`
    /// the element is focused (and for `fill` its content selected) when it is. The point is in
    /// the top-level viewport, wherever the target's frame is.
    pub async fn locate(&self, session: &Session, action: &str) -> Result<Located, BrowserError> {
        self.locate_in(session, action)
            .await
            .map(|(found, _)| found)
    }

    /// [`Locator::locate`], with the realm that answered (None when no realm found a match):
    /// where a click's landing is asked afterwards (`injected::hit_result`).
    pub(crate) async fn locate_in(
        &self,
        session: &Session,
        action: &str,
    ) -> Result<(Located, Option<Realm>), BrowserError> {
        let (found, realm) = self
            .first_found(session, |realm, parts| async move {
                injected::locate(session.page(), &realm, &parts, action).await
            })
            .await?;
        // The frame's engine hit-tested its own document; what covers the frame element in a
        // parent of another origin only the browser sees.
        if let (Located::Ok { x, y, .. }, Some(frame)) =
            (&found, realm.as_ref().and_then(|r| r.frame_id.as_ref()))
            && POINTER_ACTIONS.contains(&action)
            && !session
                .frames()
                .point_reaches_frame(frame, (*x, *y))
                .await?
        {
            let covered = Located::NotActionable {
                reason: "element is covered by something over its frame at the click point".into(),
            };
            return Ok((covered, realm));
        }
        Ok((found, realm))
    }

    /// How many visible and hidden matches the selector has now, in every realm it searches.
    pub async fn count(&self, session: &Session) -> Result<Counts, BrowserError> {
        let mut total = Counts {
            visible: 0,
            hidden: 0,
        };
        for (realm, parts) in scopes(session, &self.parts).await? {
            let c = injected::query(session.page(), &realm, &parts).await?;
            total.visible += c.visible;
            total.hidden += c.hidden;
        }
        Ok(total)
    }

    /// Chooses an option of the target `<select>` by value or label.
    pub async fn select(&self, session: &Session, value: &str) -> Result<Located, BrowserError> {
        self.first_found(session, |realm, parts| async move {
            injected::select(session.page(), &realm, &parts, value).await
        })
        .await
        .map(|(found, _)| found)
    }

    /// `true`, `false`, `"mixed"` or null when there is no visible match.
    pub async fn is_checked(&self, session: &Session) -> Result<Value, BrowserError> {
        for (realm, parts) in scopes(session, &self.parts).await? {
            let v = injected::is_checked(session.page(), &realm, &parts).await?;
            if !v.is_null() {
                return Ok(v);
            }
        }
        Ok(Value::Null)
    }

    /// Makes the first visible match deaf to the page from now on: the events input on it
    /// fires never reach the page's listeners (`windup bench`'s mutants). Whether one was found.
    pub async fn mute(&self, session: &Session) -> Result<bool, BrowserError> {
        for (realm, parts) in scopes(session, &self.parts).await? {
            if injected::mute(session.page(), &realm, &parts).await? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether keystrokes sent now land in the fill target (`strict`: it has the focus; else its
    /// document still has it), asked in the first realm with a visible match.
    pub async fn focus_on(&self, session: &Session, strict: bool) -> Result<Focus, BrowserError> {
        for (realm, parts) in scopes(session, &self.parts).await? {
            match injected::focus_on(session.page(), &realm, &parts, strict).await? {
                Focus::NotFound => {}
                other => return Ok(other),
            }
        }
        Ok(Focus::NotFound)
    }

    /// Sets `text` on the fill target itself, in its own realm, with the events typing fires,
    /// when it is still the field `facts` describes: no keystroke goes to whatever has focus.
    pub async fn set_value(
        &self,
        session: &Session,
        text: &str,
        facts: &crate::secrets::FieldFacts,
    ) -> Result<SetValue, BrowserError> {
        for (realm, parts) in scopes(session, &self.parts).await? {
            match injected::set_value(session.page(), &realm, &parts, text, facts).await? {
                SetValue::NotFound => {}
                other => return Ok(other),
            }
        }
        Ok(SetValue::NotFound)
    }

    /// Match counts and the nearest names on the page, for the message of a selector that
    /// found nothing usable.
    pub async fn diagnose(&self, session: &Session) -> Result<Diagnosis, BrowserError> {
        let mut all = Diagnosis::default();
        for (realm, parts) in scopes(session, &self.parts).await? {
            let d = injected::diagnose(session.page(), &realm, &parts).await?;
            all.visible += d.visible;
            all.hidden += d.hidden;
            if all.nearest.is_empty() {
                all.nearest = d.nearest;
            }
        }
        Ok(all)
    }

    /// The first realm's answer that found a visible match, its point moved into the top
    /// viewport and its frame's origin set, with the realm that answered; else not found, with
    /// every realm's hidden matches.
    async fn first_found<F, Fut>(
        &self,
        session: &Session,
        ask: F,
    ) -> Result<(Located, Option<Realm>), BrowserError>
    where
        F: Fn(Realm, Vec<Part>) -> Fut,
        Fut: std::future::Future<Output = Result<Located, BrowserError>>,
    {
        let mut hidden = 0;
        for (realm, parts) in scopes(session, &self.parts).await? {
            match ask(realm.clone(), parts).await? {
                Located::NotFound { hidden: h } => hidden += h,
                Located::Ok {
                    x,
                    y,
                    describe,
                    checked,
                    origin,
                    target_box,
                    field,
                    ..
                } => {
                    let (dx, dy) = match &realm.frame_id {
                        Some(frame) => session.frames().frame_offset(frame).await?,
                        None => (0.0, 0.0),
                    };
                    let found = Located::Ok {
                        x: x + dx,
                        y: y + dy,
                        describe,
                        checked,
                        origin,
                        field,
                        frame_origin: realm.origin.clone(),
                        // The box, like the point, in the top viewport.
                        target_box: target_box.map(|b| windup_model::Rect {
                            x: b.x + dx.round() as i32,
                            y: b.y + dy.round() as i32,
                            ..b
                        }),
                    };
                    return Ok((found, Some(realm)));
                }
                other => return Ok((other, Some(realm))),
            }
        }
        Ok((Located::NotFound { hidden }, None))
    }

    /// What the page has in place of this selector's target, when it is gone.
    pub async fn heal_candidates(&self, session: &Session) -> Result<HealCandidates, BrowserError> {
        injected::heal(session.page(), &self.parts).await
    }
}

/// Where a selector's parts are evaluated, in order: every realm of the page with the whole
/// selector; or, after its `frame=` steps, the realm of the frame the last one picks with the
/// parts after it. Empty when a `frame=` step finds no visible frame element.
pub(crate) async fn scopes(
    session: &Session,
    parts: &[Part],
) -> Result<Vec<(Realm, Vec<Part>)>, BrowserError> {
    let mut realms = session.frames().realms().await?;
    let mut start = 0;
    for (i, part) in parts.iter().enumerate() {
        if !matches!(part, Part::Frame { .. }) {
            continue;
        }
        let mut frame = None;
        for realm in &realms {
            frame = injected::frame_owner(session.page(), realm, &parts[start..=i]).await?;
            if frame.is_some() {
                break;
            }
        }
        let Some(frame) = frame else {
            return Ok(Vec::new());
        };
        realms = vec![session.frames().frame_realm(&frame).await?];
        start = i + 1;
    }
    Ok(realms
        .into_iter()
        .map(|realm| (realm, parts[start..].to_vec()))
        .collect())
}
