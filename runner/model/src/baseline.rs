//! What an app's pages normally do in the background, recorded with a plan by the run that
//! verified it ([`Baseline`]): the page errors and failed requests that are its usual noise (a
//! `learn.json` that answers 404 on every load, a rejection the app leaves unhandled in normal
//! use). Triage discounts a failure's evidence that the baseline already holds: only what is new
//! decides. Pure rules, so every reader keys evidence the same way.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Entries kept per kind: enough for an app's usual noise, bounded for a chatty one.
pub const MAX_BASELINE_ENTRIES: usize = 20;

/// Characters kept of one entry.
pub const MAX_BASELINE_ENTRY_CHARS: usize = 200;

/// The background evidence of a verified run, as patterns: no bodies, no origins, no query
/// strings, numbers and ids generalised, credentials masked by the writer.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Baseline {
    /// Page errors and `console.error` messages ([`Baseline::error_key`]), at most
    /// [`MAX_BASELINE_ENTRIES`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub console_errors: Vec<String>,
    /// Failed requests as `STATUS /path` patterns ([`Baseline::request_key`]), at most
    /// [`MAX_BASELINE_ENTRIES`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_requests: Vec<String>,
}

impl Baseline {
    /// The baseline of a run that saw `console_errors` and `failed_requests` (evidence lines,
    /// `STATUS URL` or `ERROR URL`): each keyed, once, bounded (the first seen),
    /// then sorted.
    pub fn record<'a>(
        console_errors: impl IntoIterator<Item = &'a str>,
        failed_requests: impl IntoIterator<Item = &'a str>,
    ) -> Baseline {
        Baseline {
            console_errors: bounded(console_errors.into_iter().map(Baseline::error_key)),
            failed_requests: bounded(
                failed_requests
                    .into_iter()
                    .filter_map(Baseline::request_key),
            ),
        }
    }

    /// Whether a failure's page error was also seen when the plan was verified.
    pub fn has_error(&self, message: &str) -> bool {
        self.console_errors.contains(&Baseline::error_key(message))
    }

    /// Whether a failure's failed request (an evidence line) was also seen when the plan was
    /// verified: the same status (or network error) on the same path pattern.
    pub fn has_request(&self, line: &str) -> bool {
        Baseline::request_key(line).is_some_and(|k| self.failed_requests.contains(&k))
    }

    /// A page error as a pattern: every run of digits as `#` (line and column numbers, ids,
    /// counts), URLs cut to their path, whitespace collapsed, bounded.
    pub fn error_key(message: &str) -> String {
        let words: Vec<String> = message.split_whitespace().map(word_key).collect();
        clip(&digits_as_hash(&words.join(" ")))
    }

    /// A failed request's evidence line (`404 http://host/learn.json?x=1`) as
    /// `404 /learn.json`: the status or error, then the path with its id-like segments (numbers,
    /// UUIDs, long hex) as `:id`; the origin, query and fragment left out. None for a line that
    /// is not one.
    pub fn request_key(line: &str) -> Option<String> {
        let (status, url) = line.split_once(' ')?;
        let path = path_of(url.trim());
        let segments: Vec<&str> = path
            .split('/')
            .map(|s| if id_like(s) { ":id" } else { s })
            .collect();
        Some(clip(&format!("{status} {}", segments.join("/"))))
    }
}

fn bounded(keys: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for k in keys {
        if out.len() == MAX_BASELINE_ENTRIES {
            break;
        }
        if !out.contains(&k) {
            out.push(k);
        }
    }
    // Sorted: requests finish in whatever order the network gives, and a committed cache entry
    // must not change with it.
    out.sort();
    out
}

/// A URL's path (a word of a message that is one keeps only its path); anything else as it is.
fn word_key(word: &str) -> String {
    if word.contains("://") {
        path_of(word).to_string()
    } else {
        word.to_string()
    }
}

/// The path of an absolute URL, without query or fragment; a relative one's up to `?` or `#`.
fn path_of(url: &str) -> &str {
    let rest = match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("/", |i| &rest[i..]),
        None => url,
    };
    rest.split(['?', '#']).next().unwrap_or(rest)
}

fn id_like(segment: &str) -> bool {
    let hex = segment.len() >= 16 && segment.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    (!segment.is_empty() && segment.chars().all(|c| c.is_ascii_digit())) || hex
}

fn digits_as_hash(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_digits = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

fn clip(text: &str) -> String {
    text.chars().take(MAX_BASELINE_ENTRY_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_noise_on_another_load_or_another_host_is_the_same_entry() {
        let verified = Baseline::record(
            [
                "Uncaught TypeError: Cannot read properties of undefined (reading 'id') at http://127.0.0.1:4100/app.js:12:7",
            ],
            [
                "404 http://127.0.0.1:4100/learn.json",
                "404 http://127.0.0.1:4100/learn.json",
            ],
        );
        assert_eq!(verified.failed_requests, ["404 /learn.json"]);
        assert!(verified.has_request("404 http://localhost:5000/learn.json?v=2"));
        assert!(verified.has_error(
            "Uncaught TypeError: Cannot read properties of undefined (reading 'id') at http://localhost:5000/app.js:48:19"
        ));
        assert!(!verified.has_request("404 http://h/api/items/17"));
    }

    #[test]
    fn a_new_status_path_or_message_is_not_in_the_baseline() {
        let verified = Baseline::record(
            ["console.error: slow network"],
            ["404 http://h/learn.json", "500 http://h/api/items/17"],
        );
        assert!(verified.has_request("500 http://h/api/items/9"));
        assert!(!verified.has_request("503 http://h/api/items/9"));
        assert!(!verified.has_request("404 http://h/learn2.json"));
        assert!(!verified.has_request("net::ERR_FAILED http://h/learn.json"));
        assert!(!verified.has_error("Uncaught Error: boom"));
        assert!(!verified.has_request("not a request line"));
    }

    #[test]
    fn a_chatty_page_is_bounded_in_entries_and_characters() {
        let lines: Vec<String> = (0..100).map(|i| format!("404 http://h/p{i}x.js")).collect();
        let long = "e".repeat(5_000);
        let b = Baseline::record([long.as_str()], lines.iter().map(String::as_str));
        assert_eq!(b.failed_requests.len(), MAX_BASELINE_ENTRIES);
        assert_eq!(
            b.console_errors[0].chars().count(),
            MAX_BASELINE_ENTRY_CHARS
        );
    }
}
