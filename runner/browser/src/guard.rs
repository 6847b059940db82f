//! The navigation guard: a session held to a set of origins. Every document request of the page
//! is paused before it is sent (the Fetch domain, documents only); a top-level one for another
//! origin (a click, a redirect, a form post, a script's `location`) is failed there, so nothing
//! the page would send with it leaves the browser, and the session remembers where it was
//! going. Frames may load from anywhere. A tab the page opens is held the same way by the
//! browser's own session (`popup_hold`), from its first request on, checked again as each of its
//! documents commits, and held like the page once it is followed.

use url::{Origin, Url};

use super::cdp::fetch::{
    ContinueRequest, Disable, Enable, FailRequest, RequestPattern, RequestPaused,
};
use super::error::BrowserError;
use super::session::{Queued, Session, Shared};

/// Where the session may go, and where it was stopped from going.
#[derive(Debug, Default)]
pub(super) struct Guard {
    /// The origins a top-level document may have; none while the session is not held.
    origins: Option<Vec<Origin>>,
    /// The first top-level URL outside them the page tried to load (or a followed tab was on).
    left: Option<Left>,
}

/// Where a held page went outside its origins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Left {
    /// The URL it tried to load, or the URL of the tab it opened.
    pub url: String,
    /// Whether the request was stopped before it was sent (false for a document found as it
    /// committed, such as a tab the page opened, whose first request goes out before the tab
    /// can be held).
    pub stopped: bool,
}

impl Guard {
    /// Whether the session is held to origins.
    pub(super) fn is_held(&self) -> bool {
        self.origins.is_some()
    }

    fn allows(&self, url: &str) -> bool {
        let Some(origins) = &self.origins else {
            return true;
        };
        match Url::parse(url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => origins.contains(&u.origin()),
            // Documents without a network request (about:blank, a data: or blob: frame) never
            // pause; any other scheme of a top-level document is outside the app.
            Ok(u) => u.scheme() == "about",
            Err(_) => false,
        }
    }
}

/// What to do with a paused document request.
pub(super) enum Decision {
    Continue(ContinueRequest),
    Fail(FailRequest),
}

/// Decides a paused document request of the page whose main frame is `main_frame`: frames go
/// on; a top-level document outside the held origins is failed and remembered.
pub(super) fn decide(shared: &Shared, main_frame: &str, paused: RequestPaused) -> Decision {
    let top_level = paused.frame_id == main_frame
        && paused
            .resource_type
            .as_deref()
            .is_none_or(|t| t == "Document");
    let mut guard = shared.guard.lock().expect("guard lock");
    if !top_level || guard.allows(&paused.request.url) {
        return Decision::Continue(ContinueRequest {
            request_id: paused.request_id,
        });
    }
    tracing::debug!("blocked a top-level navigation outside the app's origins");
    guard.left.get_or_insert(Left {
        url: paused.request.url,
        stopped: true,
    });
    Decision::Fail(FailRequest {
        request_id: paused.request_id,
        error_reason: "BlockedByClient",
    })
}

/// Notes a top-level document that committed (the page's, or a tab's it opened): outside the
/// held origins, the page has left, though its request was not held back (a tab's first one
/// goes out before the tab can be held).
pub(super) fn on_commit(shared: &Shared, url: &str) {
    let mut guard = shared.guard.lock().expect("guard lock");
    // The error page of a navigation the hold stopped commits too: it is already recorded.
    if !guard.allows(url) && guard.left.is_none() && !url.starts_with("chrome-error:") {
        tracing::debug!("a top-level document outside the app's origins committed");
        guard.left = Some(Left {
            url: url.to_string(),
            stopped: false,
        });
    }
}

impl Session {
    /// Holds every top-level document of this page, and of the tabs it opens once followed, to
    /// `origins`: a document request elsewhere is failed before it is sent, and remembered
    /// ([`Session::left_origins`]). Replaces an earlier hold; a reset tab is released.
    pub async fn hold_to(&self, origins: Vec<Origin>) -> Result<(), BrowserError> {
        {
            let mut guard = self.shared.guard.lock().expect("guard lock");
            guard.origins = Some(origins);
            guard.left = None;
        }
        self.send(&enable()).await?;
        // The tabs it opens are held by the browser's own session, before their first request.
        self.instance
            .popup_hold
            .hold(&self.instance.conn, &self.target, &self.shared)
            .await
    }

    /// The first top-level URL outside the held origins the page tried to load, or that a tab
    /// it opened was found on; none when it stayed inside.
    pub fn left_origins(&self) -> Option<Left> {
        self.shared.guard.lock().expect("guard lock").left.clone()
    }

    /// Checks the current page's URL against the hold (for a tab the page opened, whose first
    /// request may have gone out before it was followed). Returns the URL when it is outside.
    pub async fn check_hold(&self) -> Result<Option<Left>, BrowserError> {
        if !self.shared.guard.lock().expect("guard lock").is_held() {
            return Ok(None);
        }
        // A navigation may be replacing the document right now: read the URL of the next one.
        let mut url = self.url().await;
        for _ in 0..20 {
            match url {
                Err(BrowserError::ContextLost) => {
                    tokio::time::sleep(std::time::Duration::from_millis(25)).await;
                    url = self.url().await;
                }
                _ => break,
            }
        }
        let url = match url {
            Ok(url) => url,
            Err(e) => return self.left_origins().map(Some).ok_or(e),
        };
        let mut guard = self.shared.guard.lock().expect("guard lock");
        if guard.allows(&url) {
            return Ok(guard.left.clone());
        }
        Ok(Some(
            guard
                .left
                .get_or_insert(Left {
                    url,
                    stopped: false,
                })
                .clone(),
        ))
    }

    /// The command that holds a newly attached page, when the session is held.
    pub(super) fn hold_command(&self) -> Option<Queued<'_>> {
        let held = self.shared.guard.lock().expect("guard lock").is_held();
        held.then(|| self.queued(enable()))
    }

    /// Releases the hold (a tab reset for the next scenario).
    pub(super) fn release_command(&self) -> Option<Queued<'_>> {
        let was = std::mem::take(&mut *self.shared.guard.lock().expect("guard lock"));
        was.is_held().then(|| self.queued(Disable {}))
    }
}

fn enable() -> Enable {
    Enable {
        patterns: vec![RequestPattern::documents()],
    }
}
