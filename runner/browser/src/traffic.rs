//! A page's console messages and requests, recorded once a session is asked to
//! ([`super::Session::record_traffic`], for `windup mcp`'s console and network tools): a run
//! never pays for them. Each entry is numbered in one sequence, so a reader asks for what came
//! after a mark; both lists are bounded for a chatty page. Nothing here is masked for
//! credentials: the engine does that before anything is shown.

use std::collections::VecDeque;
use std::sync::Mutex;

use super::cdp::network::{LoadingFailed, RequestWillBeSent, ResponseReceived};
use super::cdp::runtime::{ConsoleApiCalled, ExceptionThrown, RemoteObject};

/// Entries kept of each kind: the newest.
pub const MAX_TRAFFIC: usize = 500;

/// Characters kept of a console message or a URL.
const MAX_CHARS: usize = 1_000;

/// A console message, or an uncaught exception (level `error`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleMessage {
    /// Its number in the session's sequence.
    pub seq: u64,
    /// `log`, `info`, `warning`, `error`, `debug`…
    pub level: String,
    /// Its arguments as text, joined by spaces.
    pub text: String,
}

/// A request the page made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// Its number in the session's sequence.
    pub seq: u64,
    /// `GET`, `POST`…
    pub method: String,
    /// Its URL (cut after 1,000 characters).
    pub url: String,
    /// Its resource type as Chromium names it: `Document`, `Fetch`, `XHR`, `Script`…
    pub kind: String,
    /// The HTTP status, once an answer came.
    pub status: Option<u16>,
    /// Why it got no answer (refused, aborted, blocked).
    pub failed: Option<String>,
}

/// What came after a mark.
#[derive(Debug, Clone, Default)]
pub struct TrafficSince {
    /// Console messages, oldest first.
    pub console: Vec<ConsoleMessage>,
    /// Requests, oldest first, with their answers so far.
    pub requests: Vec<Request>,
    /// Whether entries after the mark were dropped to keep the lists bounded.
    pub dropped: bool,
}

#[derive(Default)]
struct Recorded {
    on: bool,
    next: u64,
    console: VecDeque<ConsoleMessage>,
    /// With Chromium's request id, to find the request an answer is for.
    requests: VecDeque<(String, Request)>,
    /// The number of the newest entry dropped.
    dropped_up_to: Option<u64>,
}

/// The recording, shared by a session's pages.
#[derive(Default)]
pub(super) struct Traffic(Mutex<Recorded>);

impl Traffic {
    fn lock(&self) -> std::sync::MutexGuard<'_, Recorded> {
        self.0.lock().expect("traffic lock")
    }

    pub(super) fn is_on(&self) -> bool {
        self.lock().on
    }

    pub(super) fn turn_on(&self) {
        self.lock().on = true;
    }

    /// Forgets everything and stops recording (a reset tab).
    pub(super) fn clear(&self) {
        *self.lock() = Recorded::default();
    }

    /// The number the next entry will have.
    pub(super) fn mark(&self) -> u64 {
        self.lock().next
    }

    pub(super) fn since(&self, mark: u64) -> TrafficSince {
        let r = self.lock();
        TrafficSince {
            console: r
                .console
                .iter()
                .filter(|m| m.seq >= mark)
                .cloned()
                .collect(),
            requests: r
                .requests
                .iter()
                .map(|(_, q)| q)
                .filter(|q| q.seq >= mark)
                .cloned()
                .collect(),
            dropped: r.dropped_up_to.is_some_and(|d| d >= mark),
        }
    }

    pub(super) fn on_console(&self, event: ConsoleApiCalled) {
        let text = event
            .args
            .iter()
            .map(arg_text)
            .collect::<Vec<_>>()
            .join(" ");
        self.note_console(event.kind, &text);
    }

    pub(super) fn on_exception(&self, event: ExceptionThrown) {
        let text = format!("uncaught {}", event.exception_details.message());
        self.note_console("error".to_string(), &text);
    }

    fn note_console(&self, level: String, text: &str) {
        let mut r = self.lock();
        if !r.on {
            return;
        }
        let seq = r.take_number();
        r.console.push_back(ConsoleMessage {
            seq,
            level,
            text: cut(text),
        });
        if r.console.len() > MAX_TRAFFIC
            && let Some(old) = r.console.pop_front()
        {
            r.dropped_up_to = Some(r.dropped_up_to.unwrap_or(0).max(old.seq));
        }
    }

    pub(super) fn on_request(&self, event: &RequestWillBeSent) {
        if let Some(redirect) = &event.redirect_response
            && let Some(q) = self.last_of(&event.request_id).as_mut()
        {
            q.status = u16::try_from(redirect.status).ok();
        }
        let mut r = self.lock();
        if !r.on || event.request.url.starts_with("data:") {
            return;
        }
        let seq = r.take_number();
        let request = Request {
            seq,
            method: event.request.method.clone(),
            url: cut(&event.request.url),
            kind: event.kind.clone().unwrap_or_else(|| "Other".to_string()),
            status: None,
            failed: None,
        };
        r.requests.push_back((event.request_id.clone(), request));
        if r.requests.len() > MAX_TRAFFIC
            && let Some((_, old)) = r.requests.pop_front()
        {
            r.dropped_up_to = Some(r.dropped_up_to.unwrap_or(0).max(old.seq));
        }
    }

    pub(super) fn on_response(&self, event: &ResponseReceived) {
        let status = u16::try_from(event.response.status).ok();
        if let Some(q) = self.last_of(&event.request_id).as_mut() {
            q.status = status;
        }
    }

    pub(super) fn on_failed(&self, event: &LoadingFailed) {
        let why = event
            .error_text
            .clone()
            .filter(|e| !e.is_empty())
            .or_else(|| event.blocked_reason.clone())
            .unwrap_or_else(|| "failed".to_string());
        if let Some(q) = self.last_of(&event.request_id).as_mut() {
            q.failed = Some(why);
        }
    }

    /// The newest request with Chromium's id `id` (a redirect reuses the id).
    fn last_of(&self, id: &str) -> RequestSlot<'_> {
        let r = self.lock();
        let at = r.requests.iter().rposition(|(i, _)| i == id);
        RequestSlot { r, at }
    }
}

/// A request found by [`Traffic::last_of`], under the lock.
struct RequestSlot<'a> {
    r: std::sync::MutexGuard<'a, Recorded>,
    at: Option<usize>,
}

impl RequestSlot<'_> {
    fn as_mut(&mut self) -> Option<&mut Request> {
        let at = self.at?;
        self.r.requests.get_mut(at).map(|(_, q)| q)
    }
}

impl Recorded {
    fn take_number(&mut self) -> u64 {
        let n = self.next;
        self.next += 1;
        n
    }
}

/// A console argument as text: a string as it is, another value as JSON, an object by its
/// description.
fn arg_text(arg: &RemoteObject) -> String {
    match (&arg.value, &arg.description) {
        (Some(serde_json::Value::String(s)), _) => s.clone(),
        (Some(v), _) => v.to_string(),
        (None, Some(d)) => d.clone(),
        (None, None) => "undefined".to_string(),
    }
}

fn cut(text: &str) -> String {
    if text.chars().count() <= MAX_CHARS {
        return text.to_string();
    }
    let mut s: String = text.chars().take(MAX_CHARS).collect();
    s.push('…');
    s
}
