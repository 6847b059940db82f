//! The navigation guard: a session held to a set of origins. Every document request of the page
//! is paused before it is sent (the Fetch domain, documents only); a top-level one for another
//! origin (a click, a redirect, a form post, a script's `location`) is failed there, so nothing
//! the page would send with it leaves the browser, and the session remembers where it was
//! going. Frames may load from anywhere. A tab the page opens is held the same way by the
//! browser's own session (`popup_hold`), from its first request on, checked again as each of its
//! documents commits, and held like the page once it is followed.
//!
//! [`Guard`] owns the hold's state; the session sends the Fetch commands that make it so.

use std::sync::Mutex;

use url::{Origin, Url};

use super::cdp::fetch::{ContinueRequest, Enable, FailRequest, RequestPattern, RequestPaused};

/// A session's hold: where its pages may go, and where they were stopped from going. Its
/// page's listener and the browser-wide hold of the tabs it opens (`popup_hold`) decide by it.
#[derive(Debug, Default)]
pub(super) struct Guard {
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
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

impl Held {
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

impl Guard {
    fn lock(&self) -> std::sync::MutexGuard<'_, Held> {
        self.held.lock().expect("guard lock")
    }

    /// Holds to `origins` from now on, forgetting where the page went before.
    pub(super) fn hold(&self, origins: Vec<Origin>) {
        let mut held = self.lock();
        held.origins = Some(origins);
        held.left = None;
    }

    /// Whether the session is held to origins.
    pub(super) fn is_held(&self) -> bool {
        self.lock().origins.is_some()
    }

    /// Lets go of the hold and forgets where the page went (a tab reset for the next
    /// scenario); whether it was held.
    pub(super) fn release(&self) -> bool {
        std::mem::take(&mut *self.lock()).origins.is_some()
    }

    /// The first top-level URL outside the held origins the page tried to load, or that a tab
    /// it opened was found on.
    pub(super) fn left(&self) -> Option<Left> {
        self.lock().left.clone()
    }

    /// Decides a paused document request of the page whose main frame is `main_frame`: frames
    /// go on; a top-level document outside the held origins is failed and remembered.
    pub(super) fn decide(&self, main_frame: &str, paused: RequestPaused) -> Decision {
        let top_level = paused.frame_id == main_frame
            && paused
                .resource_type
                .as_deref()
                .is_none_or(|t| t == "Document");
        let mut held = self.lock();
        if !top_level || held.allows(&paused.request.url) {
            return Decision::Continue(ContinueRequest {
                request_id: paused.request_id,
            });
        }
        tracing::debug!("blocked a top-level navigation outside the app's origins");
        held.left.get_or_insert(Left {
            url: paused.request.url,
            stopped: true,
        });
        Decision::Fail(FailRequest {
            request_id: paused.request_id,
            error_reason: "BlockedByClient",
        })
    }

    /// Notes a top-level document that committed (the page's, or a tab's it opened): outside
    /// the held origins, the page has left, though its request was not held back (a tab's
    /// first one goes out before the tab can be held).
    pub(super) fn on_commit(&self, url: &str) {
        let mut held = self.lock();
        // The error page of a navigation the hold stopped commits too: it is already recorded.
        if !held.allows(url) && held.left.is_none() && !url.starts_with("chrome-error:") {
            tracing::debug!("a top-level document outside the app's origins committed");
            held.left = Some(Left {
                url: url.to_string(),
                stopped: false,
            });
        }
    }

    /// The page found on `url` (a tab it opened, whose first request may have gone out before
    /// it was followed): where it left the held origins, first or now; none when inside.
    pub(super) fn check(&self, url: String) -> Option<Left> {
        let mut held = self.lock();
        if held.allows(&url) {
            return held.left.clone();
        }
        Some(
            held.left
                .get_or_insert(Left {
                    url,
                    stopped: false,
                })
                .clone(),
        )
    }
}

/// The command that holds a page: every document request paused before it is sent.
pub(super) fn enable() -> Enable {
    Enable {
        patterns: vec![RequestPattern::documents()],
    }
}
