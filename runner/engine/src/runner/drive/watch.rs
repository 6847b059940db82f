//! What the agent may look at besides the elements (`screenshot`, `console`, `network`): the
//! viewport as a PNG with every credential the page shows covered, and the console messages and
//! requests since the last observation, masked and inside the untrusted-data block. None of
//! them is a step: nothing is recorded, and the mark they read from stays where it is.

use std::fmt::Write as _;

use super::state::{Drive, DriveError};
use crate::browser::{BrowserError, Realm, Session, TrafficSince, injected};
use crate::planner::prompt::untrusted_text;
use crate::secrets::ProjectSecrets;

/// The most text searched for credentials before a screenshot.
const MAX_TEXT_CHARS: usize = 2_000_000;

impl Drive {
    /// The console messages and requests seen since the last observation start from here: the
    /// start of a call that shows the agent the page.
    pub(super) fn mark_traffic(&mut self) {
        if let Some(session) = &self.session {
            self.traffic_mark = session.traffic_mark();
        }
    }

    /// The console messages (and uncaught exceptions) since the last observation, masked.
    pub fn console(&mut self) -> Result<String, DriveError> {
        let since = self.traffic("console")?;
        let mut body = String::new();
        for m in &since.console {
            let _ = writeln!(body, "[{}] {}", m.level, m.text);
        }
        let text = self.traffic_answer(
            "CONSOLE",
            "console message",
            &since,
            since.console.len(),
            body,
        );
        self.log.write(
            "console",
            &format!("{} message(s)", since.console.len()),
            None,
        );
        Ok(text)
    }

    /// The requests since the last observation: method, URL, status (or why none came) and
    /// resource type, masked.
    pub fn network(&mut self) -> Result<String, DriveError> {
        let since = self.traffic("network")?;
        let mut body = String::new();
        for q in &since.requests {
            let status = match (&q.status, &q.failed) {
                (Some(s), _) => s.to_string(),
                (None, Some(why)) => format!("failed ({why})"),
                (None, None) => "pending".to_string(),
            };
            let _ = writeln!(body, "{} {} -> {} [{}]", q.method, q.url, status, q.kind);
        }
        let text = self.traffic_answer("NETWORK", "request", &since, since.requests.len(), body);
        self.log.write(
            "network",
            &format!("{} request(s)", since.requests.len()),
            None,
        );
        Ok(text)
    }

    /// The viewport as a PNG, with every text and field value on the page (in every frame it
    /// can read) that shows a credential covered while it is taken; refused when one cannot be.
    pub async fn screenshot(&mut self) -> Result<Vec<u8>, DriveError> {
        let Some(session) = self.session.as_ref() else {
            let why = "no page is open yet";
            self.log.write("screenshot", "-", Some(why));
            return Err(DriveError(format!("{why} (fix: call browser_open first)")));
        };
        let shot = covered_screenshot(session, &self.runner.secrets).await;
        let url = session.url().await.unwrap_or_default();
        let url = self.runner.secrets.redact(&url);
        match shot {
            Ok(png) => {
                self.log.write("screenshot", &url, None);
                Ok(png)
            }
            Err(why) => {
                self.log.write("screenshot", &url, Some(&why));
                Err(DriveError(format!("no screenshot was taken: {why}")))
            }
        }
    }

    fn traffic(&self, tool: &str) -> Result<TrafficSince, DriveError> {
        match &self.session {
            Some(session) => Ok(session.traffic_since(self.traffic_mark)),
            None => {
                let why = "no page is open yet";
                self.log.write(tool, "-", Some(why));
                Err(DriveError(format!("{why} (fix: call browser_open first)")))
            }
        }
    }

    /// The answer: a count outside the block, the page's own text inside it, all masked.
    fn traffic_answer(
        &self,
        heading: &str,
        noun: &str,
        since: &TrafficSince,
        count: usize,
        body: String,
    ) -> String {
        let mut text = format!("{count} {noun}(s) since the last observation");
        if since.dropped {
            text.push_str(" (older ones were dropped: only the newest are kept)");
        }
        text.push_str(".\n");
        text.push_str(&untrusted_text(heading, &body));
        self.runner.secrets.redact(&text)
    }
}

/// The screenshot, with the runs of text showing a credential covered in each realm; or why
/// it could not be taken (never a value).
async fn covered_screenshot(
    session: &Session,
    secrets: &ProjectSecrets,
) -> Result<Vec<u8>, String> {
    if secrets.masks().is_empty() {
        return session.page().screenshot().await.map_err(|e| e.to_string());
    }
    let realms = session
        .frames()
        .realms()
        .await
        .map_err(|e| format!("the page's frames could not be listed ({e})"))?;
    let covered = cover(session, secrets, &realms).await;
    let shot = match covered {
        Ok(()) => session.page().screenshot().await.map_err(|e| e.to_string()),
        Err(why) => Err(why),
    };
    for realm in &realms {
        let _ = injected::unmask(session.page(), realm).await;
    }
    shot
}

/// Covers, in every realm, each run of text or field value that shows a credential.
async fn cover(
    session: &Session,
    secrets: &ProjectSecrets,
    realms: &[Realm],
) -> Result<(), String> {
    let unreadable =
        |e: BrowserError| format!("the page could not be searched for credentials ({e})");
    for realm in realms {
        let text = injected::text_runs(session.page(), realm, MAX_TEXT_CHARS)
            .await
            .map_err(unreadable)?;
        if !text.complete {
            return Err(format!(
                "the page shows more than {MAX_TEXT_CHARS} characters, more than is searched for credentials"
            ));
        }
        let runs: Vec<usize> = (0..text.runs.len())
            .filter(|&i| secrets.reveals(&text.runs[i].text))
            .collect();
        // A value split across elements shows in no run alone: it cannot be covered exactly.
        let joined: String = text.runs.iter().map(|r| r.text.as_str()).collect();
        if runs.is_empty() && secrets.reveals(&joined) {
            return Err(
                "a credential is shown split across elements, so it cannot be covered".into(),
            );
        }
        if runs.is_empty() {
            continue;
        }
        let masked = injected::mask(session.page(), realm, &[], &runs)
            .await
            .map_err(unreadable)?;
        if !masked.missing.is_empty() || masked.lost > 0 || masked.uncovered > 0 {
            return Err("a credential the page shows could not be covered".into());
        }
    }
    Ok(())
}
