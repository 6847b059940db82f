//! The task's own words, checked against a plan with no LLM: every string the task quotes, every
//! number it states, every control it names and the few verbs that need a step of their own
//! (complete or tick → a checkbox step, upload, download) must show in the finished plan, in a
//! step's target, a postcondition or a typed value. A typed value counts only because every step
//! of a cached plan is proven by a check other than its own typing (`runner::planning::prove`).
//!
//! A control is named explicitly (a capitalised name after click, press, select… or before
//! button, link, tab…) or implicitly: a control some page showed while planning whose name is a
//! phrase of the task ("show only the active todos" names the link "Active").

use std::collections::BTreeSet;

use windup_model::{Action, ActionType, Expect};

pub use super::verbs::Need;
use super::verbs::{needs, ticked};

/// What a task says that its plan must show.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskWords {
    /// Strings in double quotes (`"Buy milk"`, “Buy milk”) with two letters or digits at least:
    /// a quoted glyph (`"x"`, `"+"`) names an icon, whose accessible name is another word.
    pub quotes: Vec<String>,
    /// Counts the task states: a number in digits, outside the quotes, before the word it
    /// counts (`0 items left`, `3 results`); not ordinals (`7th`), labels (`variant 2`) or
    /// values (`04/12/2016 as the date`).
    pub numbers: Vec<String>,
    /// Controls named with a capital after a verb or before a control noun (`press Submit`,
    /// `the Export button`).
    pub named: Vec<String>,
    /// Verbs that need a step of a kind.
    pub needs: Vec<Need>,
    /// The quotes right after a verb that ticks (`complete "Buy milk"`, `mark "Walk dog" as
    /// done`): the items to tick, where the task names others it does not tick.
    pub ticked: Vec<String>,
    /// The task in lower case with its quotes blanked, for implicit control names.
    plain: String,
    /// The whole task in lower case: a page's text that echoes it is not a control.
    lower: String,
}

/// A control a page showed while planning: its role and accessible name.
pub type Seen = (Option<String>, String);

const CLICK_VERBS: [&str; 9] = [
    "click", "press", "tap", "hit", "select", "choose", "open", "tick", "pick",
];
const CONTROL_NOUNS: [&str; 8] = [
    "button", "link", "tab", "checkbox", "menu", "option", "radio", "switch",
];
const KEYS: [&str; 16] = [
    "Enter",
    "Tab",
    "Escape",
    "Esc",
    "Space",
    "Backspace",
    "Delete",
    "Home",
    "End",
    "PageUp",
    "PageDown",
    "ArrowUp",
    "ArrowDown",
    "ArrowLeft",
    "ArrowRight",
    "Return",
];
/// Words that start sentences or are too common to be a control's name by themselves.
const NOT_NAMES: [&str; 10] = [
    "The", "A", "An", "It", "Then", "And", "Its", "This", "That", "Each",
];

impl TaskWords {
    /// Reads `task`.
    pub fn of(task: &str) -> TaskWords {
        let quotes: Vec<String> = crate::planner::facts::quoted(task)
            .into_iter()
            .filter(|q| q.chars().filter(|c| c.is_alphanumeric()).count() >= 2)
            .collect();
        let outside = blank_quotes(task);
        let mut words = TaskWords {
            quotes,
            numbers: numbers(&outside),
            named: named(&outside),
            needs: needs(&outside.to_lowercase()),
            ticked: Vec::new(),
            plain: outside.to_lowercase(),
            lower: task.to_lowercase(),
        };
        words
            .named
            .retain(|n| !words.quotes.iter().any(|q| q.eq_ignore_ascii_case(n)));
        words.ticked = ticked(task, &words.quotes);
        words
    }

    /// Whether the task says anything a plan can be held to.
    pub fn is_empty(&self) -> bool {
        self.quotes.is_empty()
            && self.numbers.is_empty()
            && self.named.is_empty()
            && self.needs.is_empty()
    }

    /// The controls of `seen` whose name is a phrase of the task (outside its quotes), as the
    /// task spells them.
    pub fn implicit<'a>(&self, seen: impl IntoIterator<Item = &'a Seen>) -> Vec<String> {
        let mut out = BTreeSet::new();
        for (_, name) in seen {
            let name = name.trim();
            let letters = name.chars().filter(|c| c.is_alphabetic()).count();
            if letters < 2 || name.chars().count() > 40 || name.split_whitespace().count() > 4 {
                continue;
            }
            let lower = name.to_lowercase();
            if let Some(at) = find_phrase(&self.plain, &lower) {
                out.insert(self.plain[at..at + lower.len()].to_string());
            }
        }
        out.into_iter()
            .filter(|n| !self.quotes.iter().any(|q| q.eq_ignore_ascii_case(n)))
            .filter(|n| !self.named.iter().any(|m| m.eq_ignore_ascii_case(n)))
            .collect()
    }

    /// What the plan `actions` leaves unproven of the task, one line each for people and the
    /// planner (the task's own spelling, never a page's text): empty when every word shows.
    /// `seen` are the controls the pages showed while planning.
    pub fn unproven(&self, actions: &[Action], seen: &BTreeSet<Seen>) -> Vec<String> {
        self.unproven_typed(actions, &[], seen)
    }

    /// [`TaskWords::unproven`], where `typed` are values steps typed that do not count (no
    /// check shows the app took them in): a quote among them is named as typed but not sent.
    pub fn unproven_typed(
        &self,
        actions: &[Action],
        typed: &[String],
        seen: &BTreeSet<Seen>,
    ) -> Vec<String> {
        let shown = Shown::of(actions);
        let mut out = Vec::new();
        let mut quotes: Vec<&String> = Vec::new();
        for q in &self.quotes {
            if !quotes.iter().any(|seen| seen.eq_ignore_ascii_case(q)) {
                quotes.push(q);
            }
        }
        for q in quotes {
            if shown.has(q) {
                continue;
            }
            let was_typed = typed
                .iter()
                .any(|t| find_phrase(&t.to_lowercase(), &q.to_lowercase()).is_some());
            out.push(if was_typed {
                format!(
                    "the task quotes \"{q}\": it was typed, but nothing the page shows took it in yet (submit it: press Enter in its field, or click the button that sends it)"
                )
            } else {
                format!(
                    "the task quotes \"{q}\", but no step's target, check or typed value shows it"
                )
            });
        }
        for n in &self.numbers {
            if !shown.shows(n) {
                out.push(format!(
                    "the task states {n}, but no check or typed value shows it"
                ));
            }
        }
        let seen_name = |name: &str| {
            seen.iter().any(|(_, s)| {
                let s = s.to_lowercase();
                let name = name.to_lowercase();
                s == name || find_phrase(&s, &name).is_some()
            })
        };
        for n in &self.named {
            if shown.names(n, &self.lower) {
                continue;
            }
            out.push(if seen_name(n) {
                format!("the task names {n}, but no step acts on it or checks it")
            } else {
                format!("the task names {n}, but no page showed a control by that name")
            });
        }
        for n in self.implicit(seen) {
            if !shown.names(&n, &self.lower) {
                out.push(format!(
                    "the task says \"{n}\", the name of a control the page showed, but no step acts on it or checks it"
                ));
            }
        }
        for need in &self.needs {
            let met = actions.iter().any(|a| match need {
                Need::Tick => ticks(a),
                Need::Untick => {
                    a.kind == ActionType::Uncheck
                        || (a.kind == ActionType::Click && targets_checkable(a))
                }
                Need::Upload => a.kind == ActionType::Upload,
                Need::Download => a.kind == ActionType::Download,
            });
            if !met {
                out.push(
                    match need {
                        Need::Tick => {
                            "the task says to complete or tick something, but no step checks a checkbox"
                        }
                        Need::Untick => {
                            "the task says to untick something, but no step unchecks a checkbox"
                        }
                        Need::Upload => "the task says to upload, but no step uploads a file",
                        Need::Download => {
                            "the task says to download, but no step downloads a file"
                        }
                    }
                    .to_string(),
                );
            }
        }
        out
    }

    /// Whether a step's target `selector` shows the control name `word` ([`names_control`]).
    pub fn names_target(&self, selector: &str, word: &str) -> bool {
        names_control(selector, word, &self.lower)
    }

    /// Every word a check can show: the quotes, the numbers, the named controls and those
    /// `seen` controls the task names by a phrase.
    pub fn checkable<'a>(&self, seen: impl IntoIterator<Item = &'a Seen>) -> Vec<String> {
        let mut out: Vec<String> = self
            .quotes
            .iter()
            .chain(&self.numbers)
            .chain(&self.named)
            .cloned()
            .collect();
        out.extend(self.implicit(seen));
        out.dedup();
        out
    }
}

/// Whether the postconditions `expect` show `word` (a count shows its number).
pub fn expect_shows(expect: &Expect, word: &str) -> bool {
    let mut shown = Shown::default();
    shown.add_expect(expect);
    shown.shows(word)
}

/// Whether the plan `actions` shows `word` in a target or a postcondition (a typed value is not
/// looked at: a check of what the app made of it is what planning looks for first).
pub fn checks_show(actions: &[Action], word: &str) -> bool {
    let without_values: Vec<Action> = actions
        .iter()
        .map(|a| Action {
            value: None,
            ..a.clone()
        })
        .collect();
    let shown = Shown::of(&without_values);
    shown.shows(word)
}

/// Whether a step ticks a box: a check, or a click on a checkbox, radio or switch.
pub fn ticks(a: &Action) -> bool {
    a.kind == ActionType::Check || (a.kind == ActionType::Click && targets_checkable(a))
}

/// A click on a checkbox, radio or switch (by its selector's role).
fn targets_checkable(a: &Action) -> bool {
    a.target.as_ref().is_some_and(|t| {
        let s = t.selector.rsplit(" >> ").next().unwrap_or_default();
        ["role=checkbox", "role=radio", "role=switch"]
            .iter()
            .any(|r| s.starts_with(r))
            || s.contains("type=checkbox")
            || s.contains("type=radio")
    })
}

/// The strings a plan shows: targets, postconditions, typed and selected values.
#[derive(Debug, Default)]
struct Shown {
    texts: Vec<String>,
    /// The texts of `hidden` checks: they show a quote or a name (a todo deleted), never a
    /// number the task states ("0 items left" hidden is not 0 items left).
    hidden: Vec<String>,
    counts: BTreeSet<String>,
}

impl Shown {
    fn of(actions: &[Action]) -> Shown {
        let mut s = Shown::default();
        for a in actions {
            if let Some(t) = &a.target {
                s.texts.push(t.selector.to_lowercase());
            }
            if matches!(a.kind, ActionType::Fill | ActionType::Select)
                && let Some(v) = &a.value
            {
                s.texts.push(v.to_lowercase());
            }
            if let Some(e) = &a.expect {
                s.add_expect(e);
            }
        }
        s
    }

    fn add_expect(&mut self, e: &Expect) {
        for (kind, sel) in e.selectors() {
            let to = if kind == "hidden" {
                &mut self.hidden
            } else {
                &mut self.texts
            };
            to.push(sel.to_lowercase());
        }
        if let Some(v) = &e.value {
            self.texts.push(v.equals.to_lowercase());
        }
        if let Some(u) = &e.url {
            self.texts.push(u.to_lowercase());
        }
        if let Some(c) = &e.count {
            self.counts.insert(c.equals.to_string());
        }
    }

    fn has(&self, word: &str) -> bool {
        let w = word.to_lowercase();
        self.texts
            .iter()
            .chain(&self.hidden)
            .any(|t| find_phrase(t, &w).is_some())
    }

    /// Whether a quote, a name or a number of the task shows; a number (all digits) only in a
    /// check that it is there (visible, a value, a count, a URL), never in a `hidden` one.
    fn shows(&self, word: &str) -> bool {
        if !word.is_empty() && word.chars().all(|c| c.is_ascii_digit()) {
            let w = word.to_lowercase();
            return self.counts.contains(word)
                || self.texts.iter().any(|t| find_phrase(t, &w).is_some());
        }
        self.has(word) || self.counts.contains(word)
    }

    /// Whether a control's name the task says shows: as [`Shown::has`], but not by a text
    /// that echoes the task (a click on the sentence "Click on Tab #1." a page shows is no
    /// click on the tab "Tab #1").
    fn names(&self, word: &str, task: &str) -> bool {
        self.texts
            .iter()
            .chain(&self.hidden)
            .any(|t| names_control(t, word, task))
    }
}

/// Whether `selector` (or a postcondition's text, a typed value, a URL) shows the control name
/// `word` of the task `task` (lower case): where `word` is a phrase of it, except in a text
/// step (`text=`, `has-text=`) whose text is a longer phrase of the task itself.
pub fn names_control(selector: &str, word: &str, task: &str) -> bool {
    let w = word.trim().to_lowercase();
    selector.to_lowercase().split(" >> ").any(|part| {
        if find_phrase(part, &w).is_none() {
            return false;
        }
        let text = part
            .strip_prefix("text=")
            .or_else(|| part.strip_prefix("has-text="))
            .map(|t| {
                t.trim()
                    .trim_matches(['"', '\''])
                    .trim()
                    .trim_end_matches(['.', '!'])
            });
        match text {
            Some(t) => t == w || !task.contains(t),
            None => true,
        }
    })
}

/// Where `phrase` occurs in `text` as whole words: not inside a longer word, and a number not
/// inside a longer number (`1.00` is not in `-1.00` or `11.00`).
pub fn find_phrase(text: &str, phrase: &str) -> Option<usize> {
    if phrase.is_empty() {
        return None;
    }
    let numeric = phrase.starts_with(|c: char| c.is_ascii_digit());
    let joins = |c: char| {
        c.is_alphanumeric() || c == '_' || (numeric && matches!(c, '-' | '+' | '.' | ',' | '/'))
    };
    let mut from = 0;
    while let Some(i) = text[from..].find(phrase) {
        let at = from + i;
        let end = at + phrase.len();
        let before = text[..at].chars().next_back();
        let after = text[end..].chars().next();
        // A number followed by `.` ends a sentence (`… is 1.`) unless a digit follows.
        let after_ok = match after {
            None => true,
            Some(c) if numeric && matches!(c, '.' | ',') => !text[end + 1..]
                .chars()
                .next()
                .is_some_and(|d| d.is_ascii_digit()),
            Some(c) => !joins(c),
        };
        if before.is_none_or(|c| !joins(c)) && after_ok {
            return Some(at);
        }
        from = at + phrase.chars().next().map_or(1, char::len_utf8);
    }
    None
}

/// The task with each quoted string replaced by spaces (so its words are not read twice).
fn blank_quotes(task: &str) -> String {
    let mut out = String::with_capacity(task.len());
    let mut inside = false;
    for c in task.chars() {
        match c {
            '"' | '“' | '”' => {
                inside = if c == '“' {
                    true
                } else if c == '”' {
                    false
                } else {
                    !inside
                };
                out.push(' ');
            }
            _ if inside => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

/// Words after a number that do not say what it counts.
const NOT_COUNTED: [&str; 24] = [
    "as", "and", "or", "to", "in", "on", "of", "at", "by", "for", "from", "into", "then", "the",
    "a", "an", "is", "are", "was", "were", "with", "than", "times", "x",
];

/// Counts: a whole number in digits followed by the word it counts (`0 items`, `3 todos`), not
/// part of a word (`a1`), not an ordinal (`7th`), not a date or a time.
fn numbers(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if !w.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let Some(next) = words.get(i + 1) else {
            continue;
        };
        let next = next
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        let counts = next.chars().next().is_some_and(char::is_alphabetic)
            && !NOT_COUNTED.contains(&next.as_str());
        if counts && !out.contains(&w.to_string()) {
            out.push(w.to_string());
        }
    }
    out
}

/// Capitalised names after a click verb, or before a control noun.
fn named(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let clean = |w: &str| -> String {
        w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-')
            .to_string()
    };
    let capital = |w: &str| {
        let w = clean(w);
        w.chars().next().is_some_and(char::is_uppercase) && !NOT_NAMES.contains(&w.as_str())
    };
    // A run of capitalised words from `i` on, stopping at punctuation.
    let run = |i: usize| -> Option<String> {
        let mut parts = Vec::new();
        let mut j = i;
        while j < words.len() && capital(words[j]) && parts.len() < 4 {
            parts.push(clean(words[j]));
            let ends = words[j].ends_with([',', '.', ';', ':', '!', '?']);
            j += 1;
            if ends {
                break;
            }
        }
        (!parts.is_empty()).then(|| parts.join(" "))
    };
    let mut out: Vec<String> = Vec::new();
    for (i, w) in words.iter().enumerate() {
        let verb = clean(w).to_lowercase();
        if CLICK_VERBS.contains(&verb.as_str()) && !w.ends_with([',', '.', ';']) {
            let mut j = i + 1;
            while j < words.len() && matches!(clean(words[j]).to_lowercase().as_str(), "on" | "the")
            {
                j += 1;
            }
            if let Some(name) = run(j)
                && !(verb == "press" && KEYS.contains(&name.as_str()))
                && !out.contains(&name)
            {
                out.push(name);
            }
        }
        if CONTROL_NOUNS.contains(&verb.trim_end_matches('s')) && i > 0 {
            // Walk back over the capitalised words just before the noun.
            let mut j = i;
            while j > 0 && capital(words[j - 1]) && !words[j - 1].ends_with([',', '.', ';']) {
                j -= 1;
            }
            // The first word of a sentence is capitalised anyway: only a run that starts after
            // another word counts, or one of two words or more.
            let starts_sentence = j == 0 || words[j - 1].ends_with(['.', '!', '?']);
            if j < i && (!starts_sentence || i - j > 1) {
                let name = words[j..i]
                    .iter()
                    .map(|w| clean(w))
                    .collect::<Vec<_>>()
                    .join(" ");
                if !out.contains(&name) {
                    out.push(name);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn action(v: serde_json::Value) -> Action {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_number_the_task_states_is_never_shown_by_a_hidden_check() {
        let w = TaskWords::of(
            "Add a todo named \"Buy milk\", complete it, and check that 0 items are left.",
        );
        assert_eq!(w.numbers, ["0"]);
        let plan = |expect: serde_json::Value| {
            vec![action(serde_json::json!({"id": "a1", "type": "check",
                "target": {"selector": "role=listitem >> has-text=\"Buy milk\" >> role=checkbox"},
                "expect": expect}))]
        };
        let hidden = plan(serde_json::json!({"hidden": "text=\"0 items left\""}));
        let e = hidden[0].expect.clone().unwrap();
        assert!(!expect_shows(&e, "0") && !checks_show(&hidden, "0"));
        assert!(
            expect_shows(&e, "0 items left"),
            "a quote or a name still shows hidden"
        );
        let visible = plan(serde_json::json!({"visible": "text=\"0 items left\""}));
        assert!(checks_show(&visible, "0"));
        assert!(checks_show(
            &plan(serde_json::json!({"count": {"selector": "role=listitem", "equals": 0}})),
            "0"
        ));
    }

    #[test]
    fn a_task_is_read_for_quotes_numbers_names_and_verbs() {
        let w = TaskWords::of(
            "Add two todos, \"Buy milk\" and \"Walk dog\", complete \"Buy milk\", and show only the active todos.",
        );
        assert_eq!(w.quotes, ["Buy milk", "Walk dog", "Buy milk"]);
        assert!(w.numbers.is_empty() && w.named.is_empty());
        assert_eq!(w.needs, [Need::Tick]);
        assert_eq!(w.ticked, ["Buy milk"], "the one it says to complete");
        let marked = TaskWords::of("Add \u{201c}Rent\u{201d}, then mark \"Walk dog\" as done.");
        assert_eq!(marked.ticked, ["Walk dog"]);
        let w = TaskWords::of(
            "Add a todo named \"Buy milk\", complete it, and check that 0 items are left.",
        );
        // A quoted glyph names an icon, not a word any element is named by.
        assert!(
            TaskWords::of("Close the dialog by clicking the \"x\".")
                .quotes
                .is_empty()
        );
        assert_eq!(w.numbers, ["0"]);
        assert_eq!(w.needs, [Need::Tick]);
        let w =
            TaskWords::of("Enter 04/12/2016 as the date, click the 7th result and press Submit.");
        assert!(
            w.numbers.is_empty(),
            "a date and an ordinal are no counts: {w:?}"
        );
        assert_eq!(w.named, ["Submit"]);
        assert!(
            TaskWords::of("Save variant 2, then 3 times")
                .numbers
                .is_empty()
        );
        assert_eq!(TaskWords::of("check that 3 results show").numbers, ["3"]);
        let w =
            TaskWords::of("Sign in, open the Export dialog and press Enter; the Save All button.");
        assert_eq!(w.named, ["Export", "Save All"]);
        // Verification words are not ticks; completing a form is not one either.
        let w = TaskWords::of("Complete the form and check that it says \"Thanks\".");
        assert!(w.needs.is_empty(), "{w:?}");
        assert!(
            TaskWords::of("Upload the invoice, then download the report")
                .needs
                .len()
                == 2
        );
    }

    #[test]
    fn a_control_the_page_showed_is_named_by_a_phrase_of_the_task() {
        let w = TaskWords::of("Add two todos and show only the active todos");
        let seen: BTreeSet<Seen> = [
            (Some("link".into()), "Active".into()),
            (Some("link".into()), "Completed".into()),
            (Some("button".into()), "Clear completed".into()),
            (Some("textbox".into()), "What needs to be done?".into()),
        ]
        .into();
        assert_eq!(w.implicit(&seen), ["active"]);
        let click_all = [action(serde_json::json!({"id": "a1", "type": "click",
            "target": {"selector": "role=link[name=\"All\"]"}}))];
        assert_eq!(w.unproven(&click_all, &seen).len(), 1);
        let click_active = [action(serde_json::json!({"id": "a1", "type": "click",
            "target": {"selector": "role=link[name=\"Active\"]"}}))];
        assert!(w.unproven(&click_active, &seen).is_empty());
    }

    #[test]
    fn a_click_on_a_sentence_holding_a_controls_name_is_no_click_on_the_control() {
        // MiniWoB's click-tab: the small model clicked the task's own sentence on the page.
        let w = TaskWords::of("Click on Tab #1.");
        let seen: BTreeSet<Seen> = [(Some("tab".into()), "Tab #1".into())].into();
        let click = |selector: &str| {
            [action(serde_json::json!({"id": "a1", "type": "click",
                "target": {"selector": selector}}))]
        };
        let missing = w.unproven(&click("text=\"Click on Tab #1.\""), &seen);
        assert!(
            missing.iter().any(|m| m.contains("\"tab #1\"")),
            "{missing:?}"
        );
        assert!(
            w.unproven(&click("role=tab[name=\"Tab #1\"]"), &seen)
                .is_empty()
        );
        assert!(names_control(
            "css=#tabs >> has-text=\"tab #1\"",
            "Tab #1",
            "click on tab #1."
        ));
        assert!(!names_control(
            "has-text=\"Tab #10\"",
            "Tab #1",
            "click on tab #1."
        ));
    }

    #[test]
    fn quotes_and_numbers_show_only_as_whole_words() {
        assert!(find_phrase("text=\"-1.00\"", "1.00").is_none());
        assert!(find_phrase("text=\"11.00\"", "1.00").is_none());
        assert!(find_phrase("text=\"1.00\"", "1.00").is_some());
        assert!(find_phrase("text=\"0 items left\"", "0").is_some());
        assert!(find_phrase("text=\"10 items left\"", "0").is_none());
        assert!(find_phrase("role=listitem >> has-text=\"buy milk\"", "buy milk").is_some());
        assert!(find_phrase("text=\"buy milky way\"", "buy milk").is_none());
        let w = TaskWords::of("Click \"ok\", then check that the last reward shown is \"1.00\".");
        let seen = BTreeSet::new();
        let wrong = [action(serde_json::json!({"id": "a1", "type": "click",
            "target": {"selector": "role=button[name=\"ok\"]"},
            "expect": {"visible": "text=\"-1.00\""}}))];
        assert_eq!(w.unproven(&wrong, &seen).len(), 1, "-1.00 is not 1.00");
        let right = [action(serde_json::json!({"id": "a1", "type": "click",
            "target": {"selector": "role=button[name=\"ok\"]"},
            "expect": {"visible": "text=\"1.00\""}}))];
        assert!(w.unproven(&right, &seen).is_empty());
    }

    #[test]
    fn a_tick_needs_a_checkbox_step_and_a_count_can_prove_a_number() {
        let w = TaskWords::of("Add a todo, complete it, and check that 0 items are left");
        let seen = BTreeSet::new();
        let no_tick = [action(serde_json::json!({"id": "a1", "type": "click",
            "target": {"selector": "role=link[name=\"Active\"]"},
            "expect": {"count": {"selector": "role=listitem", "equals": 0}}}))];
        let lines = w.unproven(&no_tick, &seen);
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("checks a checkbox"));
        let tick = [action(serde_json::json!({"id": "a1", "type": "click",
            "target": {"selector": "role=listitem >> has-text=\"Buy milk\" >> role=checkbox"},
            "expect": {"visible": "text=\"0\""}}))];
        assert!(w.unproven(&tick, &seen).is_empty());
    }
}
