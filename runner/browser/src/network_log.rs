//! What happened in a session besides our own actions ([`SessionLog`]): dialogs, a crash, and
//! the failed requests of a failure's evidence, read from the page's Network events and kept
//! bounded for a chatty page.

use std::collections::{BTreeSet, HashMap};
use std::sync::Mutex;

use super::cdp::network::{LoadingFailed, LoadingFinished, RequestWillBeSent, ResponseReceived};

/// What happened in a session besides our own actions.
#[derive(Debug, Clone, Default)]
pub struct SessionLog {
    /// JavaScript dialogs, accepted automatically: `(type, message)`.
    pub dialogs: Vec<(String, String)>,
    /// The page's renderer crashed.
    pub crashed: bool,
    /// Requests that failed, oldest first, at most [`MAX_FAILED_REQUESTS`]: `STATUS URL` for an
    /// HTTP 4xx/5xx answer, `ERROR URL` for one that got none (refused, aborted, blocked), as
    /// Chromium reported them. Not masked for credentials: the runner does that.
    pub failed_requests: Vec<String>,
    /// Requests of the page still waiting for an answer (bounded like the ones followed):
    /// none means the network is quiet. An answered request whose body is still coming is not
    /// one, nor an `EventSource` stream, which never ends.
    pub in_flight: usize,
    /// Requests the page's scripts made (`fetch`, `XMLHttpRequest`) not finished yet, answered
    /// or not (the body of an answered one may still be coming): none means every answer a
    /// script asked for is in its hands.
    pub fetches_unfinished: usize,
    /// When a request of the page's scripts last ended, answered or failed.
    pub fetch_ended_at: Option<std::time::Instant>,
    /// When a request of the page last started or ended: how long the network has been quiet.
    pub network_changed_at: Option<std::time::Instant>,
}

/// Failed requests kept per session: enough to see what broke, bounded for a chatty page.
pub const MAX_FAILED_REQUESTS: usize = 50;

/// Characters of a failed request's URL kept (a data: URL or a long query string).
const MAX_REQUEST_URL_CHARS: usize = 300;

impl SessionLog {
    fn note_failed_request(&mut self, line: String) {
        if self.failed_requests.len() < MAX_FAILED_REQUESTS {
            self.failed_requests.push(line);
        }
    }
}

/// Requests still in flight of one page, by request id, so a `Network.loadingFailed` (which has
/// no URL) can name its request. Bounded: a page that never finishes its requests cannot grow it.
#[derive(Default)]
pub(super) struct InFlight {
    urls: HashMap<String, Followed>,
}

/// One request followed until it finishes.
struct Followed {
    url: String,
    /// The document load it belongs to.
    loader: Option<String>,
    /// Its answer's headers arrived. A body the page never reads may never be reported
    /// finished, so an answered request no longer counts as waiting.
    answered: bool,
    /// A script made it (`fetch`, `XMLHttpRequest`).
    fetch: bool,
}

const MAX_IN_FLIGHT: usize = 1_000;

impl InFlight {
    /// A request starts; a document's origin joins those a reset clears.
    pub(super) fn on_request(
        &mut self,
        event: RequestWillBeSent,
        origins: &Mutex<BTreeSet<String>>,
        log: &Mutex<SessionLog>,
    ) {
        let url = &event.request.url;
        let stream = event.kind.as_deref() == Some("EventSource");
        if self.urls.len() < MAX_IN_FLIGHT && !url.starts_with("data:") && !stream {
            let followed = Followed {
                url: url.clone(),
                loader: event.loader_id.clone(),
                answered: false,
                fetch: matches!(event.kind.as_deref(), Some("XHR" | "Fetch")),
            };
            self.urls.insert(event.request_id, followed);
            self.count(log);
        }
        if event.kind.as_deref() == Some("Document")
            && let Some(origin) = web_origin(url)
        {
            origins.lock().expect("origins lock").insert(origin);
        }
    }

    /// An answer arrived: a 4xx or 5xx one is a failed request.
    pub(super) fn on_response(&mut self, event: ResponseReceived, log: &Mutex<SessionLog>) {
        if let Some(followed) = self.urls.get_mut(&event.request_id) {
            followed.answered = true;
            self.count(log);
        }
        let response = event.response;
        if response.status >= 400
            && let Some(url) = response.url
        {
            log.lock().expect("log lock").note_failed_request(format!(
                "{} {}",
                response.status,
                short_url(&url)
            ));
        }
    }

    /// A new document committed in the main frame under `loader`: the requests of the one it
    /// replaced (and of its frames) end with it, most without an event saying so.
    pub(super) fn on_main_commit(&mut self, loader: Option<&str>, log: &Mutex<SessionLog>) {
        let before = self.urls.len();
        self.urls.retain(|_, f| f.loader.as_deref() == loader);
        if self.urls.len() != before {
            self.count(log);
        }
    }

    pub(super) fn on_finished(&mut self, event: LoadingFinished, log: &Mutex<SessionLog>) {
        if let Some(ended) = self.urls.remove(&event.request_id) {
            self.note(log, ended.fetch);
        }
    }

    fn count(&self, log: &Mutex<SessionLog>) {
        self.note(log, false);
    }

    /// The counts now, in one pass and under one lock; `fetch_ended` when a script's request
    /// just ended.
    fn note(&self, log: &Mutex<SessionLog>, fetch_ended: bool) {
        let (mut waiting, mut fetches) = (0, 0);
        for f in self.urls.values() {
            waiting += usize::from(!f.answered);
            fetches += usize::from(f.fetch);
        }
        let now = std::time::Instant::now();
        let mut log = log.lock().expect("log lock");
        log.in_flight = waiting;
        log.fetches_unfinished = fetches;
        log.network_changed_at = Some(now);
        if fetch_ended {
            log.fetch_ended_at = Some(now);
        }
    }

    /// A request got no answer: noted with why, when its URL is known.
    pub(super) fn on_failed(&mut self, event: LoadingFailed, log: &Mutex<SessionLog>) {
        let Some(followed) = self.urls.remove(&event.request_id) else {
            return;
        };
        self.note(log, followed.fetch);
        let url = followed.url;
        let error = event.error_text.filter(|e| !e.is_empty());
        let why = match (event.canceled, event.blocked_reason, error) {
            (Some(true), _, Some(e)) => format!("canceled ({e})"),
            (Some(true), _, None) => "canceled".to_string(),
            (_, Some(reason), _) => format!("blocked ({reason})"),
            (_, None, Some(e)) => e,
            (_, None, None) => "failed".to_string(),
        };
        log.lock()
            .expect("log lock")
            .note_failed_request(format!("{why} {}", short_url(&url)));
    }
}

/// `scheme://host[:port]` of an http(s) URL.
fn web_origin(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    matches!(u.scheme(), "http" | "https").then(|| u.origin().ascii_serialization())
}

fn short_url(url: &str) -> String {
    if url.chars().count() <= MAX_REQUEST_URL_CHARS {
        return url.to_string();
    }
    let mut s: String = url.chars().take(MAX_REQUEST_URL_CHARS).collect();
    s.push('…');
    s
}
