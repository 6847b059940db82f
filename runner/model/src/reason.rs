//! A failed scenario's reason, as nextest and Playwright give one: a single line with the
//! failure class, the step and one sentence, then the evidence, the triage's verdict with the
//! one fact that decided it, and advice that follows from that verdict. The terminal, the
//! Action's `::error` and the Markdown pages all start a failure with this line, so it reads the
//! same everywhere and the message is never repeated under it.

use crate::report::{ScenarioResult, ScenarioStatus};
use crate::triage::Verdict;

/// Characters of the one sentence kept; the report holds the whole message.
const MAX_SENTENCE_CHARS: usize = 300;

/// A failed scenario's reason (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason {
    /// `CLASS at STEP` (`at STEP` only when a step failed).
    pub head: String,
    /// The message's first sentence.
    pub sentence: String,
    /// What the failure left: the page, the target, console errors, failed requests, the
    /// screenshot; each `what: value`.
    pub evidence: Vec<String>,
    /// `VERDICT: DECIDING FACT`, when the failure was triaged.
    pub triage: Option<String>,
    /// What to do, following from the verdict.
    pub advice: Option<String>,
}

impl Reason {
    /// The one line: `CLASS at STEP: SENTENCE`.
    pub fn line(&self) -> String {
        format!("{}: {}", self.head, self.sentence)
    }
}

/// The reason of a failed scenario; none for one that did not fail.
pub fn reason(s: &ScenarioResult) -> Option<Reason> {
    if s.status != ScenarioStatus::Failed {
        return None;
    }
    let class = s.failure_class.map(|c| c.as_str()).unwrap_or("failed");
    let at = s
        .failed_action_id
        .as_deref()
        .map(|a| format!(" at {a}"))
        .unwrap_or_default();
    let (sentence, note) = s.message.as_deref().map(first_sentence).unwrap_or_default();
    let sentence = if sentence.is_empty() {
        "it failed, and no message says why".to_string()
    } else {
        sentence
    };
    let mut evidence = Vec::new();
    if let Some(note) = note {
        evidence.push(format!("note: {note}"));
    }
    if let Some(e) = &s.evidence {
        if let Some(url) = &e.url {
            evidence.push(format!("page: {url}"));
        }
        // The target's diagnosis is often the message itself: shown once.
        if let Some(target) = &e.target
            && !repeats(target, &sentence)
        {
            evidence.push(format!("target: {}", first_line(target)));
        }
        if let Some(first) = e.console_errors.first() {
            evidence.push(format!(
                "console: {}{}",
                first_line(first),
                more(e.console_errors.len())
            ));
        }
        if let Some(first) = e.failed_requests.first() {
            evidence.push(format!(
                "requests: {first}{}",
                more(e.failed_requests.len())
            ));
        }
        if let Some(shot) = &e.screenshot {
            evidence.push(format!("screenshot: {shot}"));
        }
    }
    let triage = s.triage.as_ref().map(|t| match t.facts.first() {
        Some(fact) => format!("{}: {}", t.verdict.as_str(), first_line(fact)),
        None => t.verdict.as_str().to_string(),
    });
    let advice = s
        .triage
        .as_ref()
        .map(|t| advice(t.verdict, &s.scenario_id, s.proposal.is_some()));
    Some(Reason {
        head: format!("{class}{at}"),
        sentence,
        evidence,
        triage,
        advice,
    })
}

/// What to do about a failure of this verdict.
fn advice(verdict: Verdict, id: &str, proposed: bool) -> String {
    match verdict {
        Verdict::AppChanged if proposed => format!(
            "if the change is intended, `windup accept {id}` adopts the plan proposed for it; if not, fix the app"
        ),
        Verdict::AppChanged => format!(
            "if the change is intended, `windup run {id}` with planning on re-plans it (for a plan a person wrote, as a proposal for `windup accept {id}`); if not, fix the app"
        ),
        Verdict::AppBroken => {
            "the app failed, not the test: fix the app (the evidence names the failing request or page error); the plan is kept".to_string()
        }
        Verdict::TestOutdated => format!(
            "the steps still work but what the scenario checks no longer holds: if the app's new text or URL is right, update e2e/scenarios/{id}.yaml's task, else fix the app"
        ),
        Verdict::Environment => {
            "not the app: check that it is up at the base URL, and the browser and the network, then run again".to_string()
        }
        Verdict::Unknown => format!(
            "read the evidence and the screenshot; `windup run {id} -v` shows every step"
        ),
    }
}

/// The message's first sentence: up to its first line break, or a full stop followed by a
/// space and a capital letter (a URL's or a selector's dots do not end it); a parenthesis that
/// closes it is its note, given apart; cut when long.
pub fn first_sentence(message: &str) -> (String, Option<String>) {
    let line = first_line(message);
    let mut end = line.len();
    let bytes = line.as_bytes();
    for (i, _) in line.match_indices(". ") {
        if bytes.get(i + 2).is_some_and(|b| b.is_ascii_uppercase()) {
            end = i + 1;
            break;
        }
    }
    let mut sentence = line[..end].trim();
    let mut note = None;
    if let Some(open) = closing_parenthesis(sentence) {
        note = Some(cut(&sentence[open + 2..sentence.len() - 1]));
        sentence = sentence[..open].trim_end();
    }
    (cut(sentence), note)
}

/// Where ` (` opens the parenthesis that closes `text`, when one does.
fn closing_parenthesis(text: &str) -> Option<usize> {
    let body = text.strip_suffix(')')?;
    let mut depth = 0usize;
    for (i, c) in body.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth == 0 => {
                return (i > 0 && body[..i].ends_with(' ')).then(|| i - 1);
            }
            '(' => depth -= 1,
            _ => {}
        }
    }
    None
}

fn cut(text: &str) -> String {
    if text.chars().count() <= MAX_SENTENCE_CHARS {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(MAX_SENTENCE_CHARS).collect();
    cut.push('…');
    cut
}

/// Whether the target's diagnosis (`SELECTOR: what was found`) says what the sentence says.
fn repeats(target: &str, sentence: &str) -> bool {
    let sentence = sentence.trim_end_matches('…');
    let found = target.split_once(": ").map_or(target, |(_, found)| found);
    target.contains(sentence) || sentence.contains(found)
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default().trim()
}

/// ` (and 2 more)` when there are `n` > 1.
fn more(n: usize) -> String {
    if n > 1 {
        format!(" (and {} more)", n - 1)
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_sentence_ends_at_a_full_stop_before_a_capital_not_at_a_dot_in_a_url() {
        let one = |m: &str| first_sentence(m).0;
        assert_eq!(
            one("no visible match for text=\"v1.2\" on http://a.test/x. The page changed.\nmore"),
            "no visible match for text=\"v1.2\" on http://a.test/x."
        );
        assert_eq!(one("one line; no stop"), "one line; no stop");
        assert_eq!(one("first\nsecond"), "first");
        let long = "x".repeat(400);
        assert_eq!(one(&long).chars().count(), MAX_SENTENCE_CHARS + 1);
    }

    #[test]
    fn a_closing_parenthesis_is_the_sentence_s_note() {
        assert_eq!(
            first_sentence(
                "`role=button`: 0 matches (the plan is kept (a person's); not re-planned)"
            ),
            (
                "`role=button`: 0 matches".to_string(),
                Some("the plan is kept (a person's); not re-planned".to_string())
            )
        );
        assert_eq!(
            first_sentence("waited for text=\"(x)\" on /a"),
            ("waited for text=\"(x)\" on /a".to_string(), None)
        );
        assert_eq!(first_sentence("f(x)").1, None);
    }
}
