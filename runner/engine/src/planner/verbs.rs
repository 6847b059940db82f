//! The verbs of a task that need a step of their own kind (complete or tick → a checkbox step,
//! untick, upload, download), and the quoted items it says to tick.

use std::collections::BTreeSet;

/// Verbs that a click-only plan cannot satisfy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Need {
    /// "complete", "tick", "mark … done", "check "X"": a checkbox or radio is set.
    Tick,
    /// "untick", "uncheck": a checkbox is cleared.
    Untick,
    /// "upload", "attach": a file is set on a file input.
    Upload,
    /// "download": a download is saved.
    Download,
}

/// The quotes of `task` whose word before them ticks: `complete`, `tick`, `mark`, `check`.
pub(super) fn ticked(task: &str, quotes: &[String]) -> Vec<String> {
    quotes
        .iter()
        .filter(|q| {
            ["\"", "\u{201c}"].iter().any(|open| {
                task.match_indices(&format!("{open}{q}")).any(|(at, _)| {
                    let before = task[..at].to_lowercase();
                    let word = before
                        .trim_end()
                        .rsplit(|c: char| !c.is_alphanumeric())
                        .next()
                        .unwrap_or("");
                    matches!(
                        word,
                        "complete" | "completes" | "tick" | "ticks" | "mark" | "marks" | "check"
                    )
                })
            })
        })
        .fold(Vec::new(), |mut out, q| {
            if !out.contains(q) {
                out.push(q.clone());
            }
            out
        })
}

/// Verbs whose step a plan must hold.
pub(super) fn needs(lower: &str) -> Vec<Need> {
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = BTreeSet::new();
    for (i, w) in words.iter().enumerate() {
        let next = words.get(i + 1).copied().unwrap_or("");
        match *w {
            "complete" | "completes" | "tick" | "ticks" | "toggle" => {
                // "complete the form" or "the sign-up" is no tick; "complete it", "complete
                // <a quoted thing>" (blanked here) and "complete the todo" are.
                let object = if matches!(next, "the" | "a" | "an" | "your" | "this" | "both") {
                    words.get(i + 2).copied()
                } else {
                    None
                };
                let ticks = match object {
                    Some(noun) => matches!(
                        noun,
                        "todo" | "todos" | "item" | "items" | "task" | "tasks" | "first" | "last"
                    ),
                    None => true,
                };
                if *w != "complete" && *w != "completes" || ticks {
                    out.insert(Need::Tick);
                }
            }
            "mark" | "marks" => {
                let rest = &words[i + 1..words.len().min(i + 6)];
                if rest
                    .iter()
                    .any(|r| matches!(*r, "done" | "complete" | "completed" | "finished"))
                {
                    out.insert(Need::Tick);
                }
            }
            "untick" | "uncheck" => {
                out.insert(Need::Untick);
            }
            "check" => {
                let rest = &words[i + 1..words.len().min(i + 5)];
                if rest
                    .iter()
                    .any(|r| matches!(*r, "checkbox" | "box" | "checkboxes"))
                {
                    out.insert(Need::Tick);
                }
            }
            "upload" | "uploads" | "attach" | "attaches" => {
                out.insert(Need::Upload);
            }
            "download" | "downloads" => {
                out.insert(Need::Download);
            }
            _ => {}
        }
    }
    out.into_iter().collect()
}
