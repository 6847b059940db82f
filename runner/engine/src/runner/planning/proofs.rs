//! The steps a planning has run, each with the facts it changed, and how each gets its
//! postcondition: a fact the model picked by number, one showing the task's own words
//! (`planner::words`), else the engine's own pick among the step's facts. A step whose page
//! did not change gets none: the proving runs decide whether it is needed. A download is
//! checked on its file: named as the one planning saw, any number in the name free to change
//! (a date, an id), and not empty.

use std::collections::BTreeSet;

use windup_model::{Action, ActionResult, ActionType, DownloadExpect, Downloaded, Expect};

use crate::planner::facts::{self, Fact, FactKind, StepFacts};
use crate::planner::words::{Seen, TaskWords, checks_show, expect_shows, ticks};

/// One step of the plan being made.
#[derive(Debug, Clone)]
pub(in crate::runner) struct Planned {
    pub action: Action,
    /// What it changed on the page, holding right after it (empty for kept steps).
    pub facts: Vec<Fact>,
    /// Indices into `facts` chosen as its postconditions.
    pub picked: Vec<usize>,
    /// The engine chose its postcondition, not the model or the task: a verifying run that
    /// fails only on it may drop it.
    pub engine_chosen: bool,
}

impl Planned {
    pub(super) fn kept(action: Action) -> Planned {
        Planned {
            action,
            facts: Vec::new(),
            picked: Vec::new(),
            engine_chosen: false,
        }
    }
}

/// The facts of `steps[pending]`, as the prompt lists them.
pub(super) fn listed(steps: &[Planned], pending: &[usize]) -> Vec<StepFacts> {
    pending
        .iter()
        .map(|&i| StepFacts {
            step: steps[i].action.id.clone(),
            facts: steps[i].facts.clone(),
        })
        .collect()
}

/// Marks the facts numbered `numbers` (from 1, across `pending` in order) as picked.
pub(super) fn pick_numbers(steps: &mut [Planned], pending: &[usize], numbers: &[usize]) {
    let mut n = 0;
    for &i in pending {
        for k in 0..steps[i].facts.len() {
            n += 1;
            if numbers.contains(&n) && !steps[i].picked.contains(&k) {
                steps[i].picked.push(k);
            }
        }
    }
}

/// The appeared facts of `pending` steps that show a string the task quotes, as (step, fact)
/// indices, with the quotes.
fn quoted_facts(
    steps: &[Planned],
    pending: &[usize],
    task: &str,
) -> (Vec<String>, Vec<(usize, usize)>) {
    let quotes = facts::quoted(task);
    let mut found = Vec::new();
    for &i in pending {
        for (k, f) in steps[i].facts.iter().enumerate() {
            if f.kind == FactKind::Appeared && quotes.contains(&f.about) {
                found.push((i, k));
            }
        }
    }
    (quotes, found)
}

/// Whether the task quotes strings and every one appeared after one of `pending`.
pub(super) fn quotes_shown(steps: &[Planned], pending: &[usize], task: &str) -> bool {
    let (quotes, found) = quoted_facts(steps, pending, task);
    !quotes.is_empty()
        && quotes
            .iter()
            .all(|q| found.iter().any(|&(i, k)| steps[i].facts[k].about == *q))
}

/// Every step's `expect` from its picked facts; a step with facts but no pick gets the
/// engine's. A step that changed nothing gets no postcondition: a check of what already held
/// (its own target, a heading) proves nothing, and the proving runs (`prove`) decide whether
/// the step is needed at all.
pub(super) fn finish(steps: &mut [Planned]) -> Vec<Action> {
    let mut out = Vec::with_capacity(steps.len());
    for s in steps.iter_mut() {
        if s.picked.is_empty()
            && !s.facts.is_empty()
            && let Some(k) = facts::engine_pick(&s.action, &s.facts)
        {
            s.picked.push(k);
            s.engine_chosen = true;
        }
        let mut action = s.action.clone();
        if !s.picked.is_empty() {
            let mut expect = action.expect.take().unwrap_or_default();
            for &k in &s.picked {
                facts::merge(&mut expect, &s.facts[k]);
            }
            action.expect = Some(expect);
        }
        out.push(action);
    }
    out
}

/// Whether `clause` only restates what `action` did to its own target: the value it typed or
/// selected, the checked state it set. Such a check holds on any page that takes the input,
/// whatever the app makes of it, so it proves the typing, never the task.
pub(in crate::runner) fn own_state(action: &Action, clause: &Expect) -> bool {
    let Some(target) = action.target.as_ref().map(|t| t.selector.as_str()) else {
        return false;
    };
    match action.kind {
        ActionType::Fill | ActionType::Select => {
            clause.value.as_ref().is_some_and(|v| v.selector == target)
        }
        // Its box's ticked state, and how many boxes are ticked: the browser sets both by
        // itself, whatever the app makes of the click.
        ActionType::Check | ActionType::Uncheck | ActionType::Click => {
            clause
                .visible
                .as_deref()
                .and_then(|v| v.strip_prefix(target))
                .is_some_and(|rest| rest.starts_with("[checked="))
                || clause.count.as_ref().is_some_and(|c| {
                    let last = c.selector.rsplit(" >> ").next().unwrap_or_default();
                    last.contains("[checked=")
                        && (last.starts_with("role=checkbox") || last.starts_with("role=radio"))
                })
        }
        _ => false,
    }
}

/// For each of the task's words no target or check of the plan shows yet (a typed value does
/// not count here), picks a fact that shows it (never a restatement of a step's own input), the
/// latest step's first, where that step has room for it. Returns whether any was picked.
pub(super) fn pick_words(steps: &mut [Planned], words: &TaskWords, seen: &BTreeSet<Seen>) -> bool {
    let mut any = false;
    for word in words.checkable(seen) {
        let actions = current(steps);
        if checks_show(&actions, &word) {
            continue;
        }
        let found = (0..steps.len()).rev().find_map(|i| {
            let room = actions[i].expect.clone().unwrap_or_default();
            steps[i]
                .facts
                .iter()
                .position(|f| {
                    expect_shows(&f.expect, &word)
                        && !own_state(&steps[i].action, &f.expect)
                        && room.has_room_for(&f.expect)
                })
                .map(|k| (i, k))
        });
        if let Some((i, k)) = found {
            steps[i].picked.push(k);
            any = true;
        }
    }
    any
}

/// Where on the page `now` the unproven part of the task can be done, by ref, in the task's
/// own words (a page's text never appears here: a name is quoted only when it is the task's):
/// the checkbox of an item the task quotes, the control a task word names, the field a typed
/// value waits in. For a small model, which finds the step far more easily with its ref.
pub(super) fn hints(
    steps: &[Planned],
    words: &TaskWords,
    seen: &BTreeSet<Seen>,
    now: &crate::planner::Observation,
    missing: &[String],
) -> Vec<String> {
    let actions = current(steps);
    let mut out = Vec::new();
    let refs = |pick: &dyn Fn(&crate::planner::observation::Item) -> bool| -> Vec<String> {
        now.items
            .iter()
            .enumerate()
            .filter(|(_, i)| pick(i))
            .map(|(n, _)| format!("e{}", n + 1))
            .take(3)
            .collect()
    };
    let lower = |s: &str| s.to_lowercase();
    if words.needs.contains(&crate::planner::words::Need::Tick) && !actions.iter().any(ticks) {
        let quoted = tick_targets(words, now);
        if quoted.is_empty() && words.quotes.is_empty() {
            let all = refs(&|i| checkable(i));
            if !all.is_empty() {
                out.push(format!("to tick: check {}", all.join(" or ")));
            }
        } else {
            for (n, q) in quoted {
                let r = format!("e{}", n + 1);
                out.push(format!("to tick \"{q}\": {}", step_with_ref("check", &r)));
            }
        }
    }
    for word in words
        .named
        .iter()
        .cloned()
        .chain(words.implicit(seen))
        .chain(words.quotes.iter().cloned())
    {
        if actions.iter().any(|a| {
            a.target
                .as_ref()
                .is_some_and(|t| words.names_target(&t.selector, &word))
        }) || actions
            .iter()
            .any(|a| a.expect.as_ref().is_some_and(|e| expect_shows(e, &word)))
        {
            continue;
        }
        let named = |i: &crate::planner::observation::Item| {
            i.control && lower(i.name.trim()) == lower(&word)
        };
        let found = refs(&named);
        if !found.is_empty() {
            // One control, of a kind clicked: the step itself, as the answer writes it.
            let clicked = now.items.iter().filter(|i| named(i)).all(|i| {
                matches!(
                    i.role.as_deref(),
                    Some("button" | "link" | "tab" | "menuitem" | "option" | "treeitem")
                )
            });
            let step = match found.as_slice() {
                [r] if clicked => format!(": {}", step_with_ref("click", r)),
                _ => String::new(),
            };
            out.push(format!(
                "\"{word}\" is {} on this page{step}",
                found.join(" or ")
            ));
        }
    }
    // A typed value nothing took in yet: the field it waits in.
    if missing.iter().any(|m| m.contains("it was typed"))
        && let Some(last) = actions.iter().rev().find(|a| a.kind == ActionType::Fill)
        && let Some(target) = &last.target
    {
        let field = refs(&|i| i.selector == target.selector);
        if let Some(r) = field.first() {
            out.push(format!(
                "the value typed last waits in {r}: press Enter in {r}, or click the button that sends it"
            ));
        }
    }
    out.dedup();
    out
}

/// The checkboxes (as indexes of `now`'s items, with the quote) in an item the task quotes, or
/// named by it; of the items it says to tick, when it says which (at most 3). A "Mark all" box
/// is not an item's.
fn tick_targets(words: &TaskWords, now: &crate::planner::Observation) -> Vec<(usize, String)> {
    let lower = |s: &str| s.to_lowercase();
    let quote_in = |text: &str| {
        words
            .quotes
            .iter()
            .find(|q| crate::planner::words::find_phrase(&lower(text), &lower(q)).is_some())
            .cloned()
    };
    let ticked = |q: &String| words.ticked.is_empty() || words.ticked.contains(q);
    now.items
        .iter()
        .enumerate()
        .filter(|(_, i)| checkable(i))
        .filter_map(|(n, i)| {
            let q = i
                .context
                .as_deref()
                .and_then(quote_in)
                .or_else(|| quote_in(&i.name))
                .filter(ticked)?;
            Some((n, q))
        })
        .take(3)
        .collect()
}

fn checkable(i: &crate::planner::observation::Item) -> bool {
    i.control && matches!(i.role.as_deref(), Some("checkbox" | "radio" | "switch"))
}

/// The one step that ticks what the task says to, on `now`, when no step planned so far ticks
/// anything and exactly one checkbox is the item's: what the tick hint tells the model, for the
/// engine to take when the answer to that hint ignores it.
pub(super) fn tick_step(
    steps: &[Planned],
    words: &TaskWords,
    now: &crate::planner::Observation,
) -> Option<Action> {
    if !words.needs.contains(&crate::planner::words::Need::Tick) || current(steps).iter().any(ticks)
    {
        return None;
    }
    let [(n, _)] = tick_targets(words, now)[..] else {
        return None;
    };
    let item = &now.items[n];
    Some(Action::on("", ActionType::Check, Some(&item.selector)))
}

/// A step on a ref as an answer writes it: a small model copies it where it misses a ref named
/// in prose.
fn step_with_ref(kind: &str, r: &str) -> String {
    format!(r#"{{"type": "{kind}", "target": {{"ref": "{r}"}}}}"#)
}

/// The steps with the facts picked so far as their postconditions.
fn current(steps: &[Planned]) -> Vec<Action> {
    steps
        .iter()
        .map(|s| {
            let mut a = s.action.clone();
            if !s.picked.is_empty() {
                let mut e = a.expect.take().unwrap_or_default();
                for &k in &s.picked {
                    facts::merge(&mut e, &s.facts[k]);
                }
                a.expect = Some(e);
            }
            a
        })
        .collect()
}

/// What the steps leave unproven of the task, with the facts picked so far, held to the rule the
/// finished plan is held to as nearly as planning can tell: a check restating a step's own input
/// shows nothing, and a typed value shows nothing unless the page changed after it (a later
/// step changed something besides its own target: something took the value in).
pub(super) fn unproven(steps: &[Planned], words: &TaskWords, seen: &BTreeSet<Seen>) -> Vec<String> {
    let mut actions = current(steps);
    let mut typed = Vec::new();
    let changed_after = |i: usize| {
        steps[i + 1..]
            .iter()
            .any(|s| s.facts.iter().any(|f| !own_state(&s.action, &f.expect)))
    };
    for (i, a) in actions.iter_mut().enumerate() {
        let own: Vec<Expect> = a
            .expect
            .iter()
            .flat_map(Expect::clauses)
            .filter(|c| own_state(a, c))
            .collect();
        if let Some(e) = a.expect.as_mut() {
            for c in &own {
                e.remove_clause(c);
            }
        }
        if matches!(a.kind, ActionType::Fill | ActionType::Select)
            && !changed_after(i)
            && let Some(v) = a.value.take()
        {
            typed.push(v);
        }
    }
    words.unproven_typed(&actions, &typed, seen)
}

/// Makes what `action` downloaded, when its run `ran` saved a file, the step's check on every
/// later run (planning's steps and an agent's alike); returns that file.
pub(in crate::runner) fn check_download<'a>(
    action: &mut Action,
    ran: &'a [ActionResult],
) -> Option<&'a Downloaded> {
    let d = ran.iter().rev().find_map(|r| r.download.as_ref())?;
    action.expect.get_or_insert_with(Default::default).download =
        Some(download_expect(&d.name, d.size));
    Some(d)
}

/// A download's check from the file planning downloaded: its name as a glob where each run of
/// digits is `*` (`report-2026-12-02.csv` → `report-*-*-*.csv`) and glob characters match any
/// one character, and at least one byte when it had any.
fn download_expect(name: &str, size: u64) -> DownloadExpect {
    let mut glob = String::new();
    for c in name.chars() {
        if c.is_ascii_digit() {
            if !glob.ends_with('*') {
                glob.push('*');
            }
        } else if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '!') {
            glob.push('?');
        } else {
            glob.push(c);
        }
    }
    DownloadExpect {
        name: (!glob.is_empty() && glob.len() <= 255).then_some(glob),
        min_size: (size > 0).then_some(1),
        ..DownloadExpect::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_download_is_expected_by_its_name_with_numbers_free_and_not_empty() {
        let e = download_expect("report-2026-12-02.csv", 8);
        assert_eq!(e.name.as_deref(), Some("report-*-*-*.csv"));
        assert_eq!((e.min_size, e.size, e.max_size), (Some(1), None, None));
        let glob = globset::Glob::new(e.name.as_deref().unwrap())
            .unwrap()
            .compile_matcher();
        assert!(glob.is_match("report-2027-01-15.csv"));
        assert!(!glob.is_match("invoice-2027-01-15.csv"));
        assert_eq!(download_expect("export.json", 0).min_size, None);
        assert_eq!(
            download_expect("a*[1].csv", 3).name.as_deref(),
            Some("a??*?.csv")
        );
        // A glob character matches itself too.
        let odd = globset::Glob::new("a??*?.csv").unwrap().compile_matcher();
        assert!(odd.is_match("a*[12].csv"));
    }

    #[test]
    fn after_a_click_on_the_tasks_own_sentence_the_hint_names_the_control() {
        // MiniWoB's click-tab: the small model clicked the page's copy of the task.
        let words = TaskWords::of("Click on Tab #1.");
        let page: crate::planner::Observation = serde_json::from_value(serde_json::json!({
            "url": "/", "title": "", "counts": {}, "total": 2,
            "items": [
                {"selector": "text=\"Click on Tab #1.\"", "name": "Click on Tab #1.", "tag": "div", "control": false},
                {"selector": "role=tab[name=\"Tab #1\"]", "role": "tab", "name": "Tab #1", "tag": "a", "control": true}
            ]
        }))
        .unwrap();
        let seen: BTreeSet<Seen> = [(Some("tab".into()), "Tab #1".into())].into();
        let clicked: Action = serde_json::from_value(serde_json::json!({"id": "a1",
            "type": "click", "target": {"selector": "text=\"Click on Tab #1.\""}}))
        .unwrap();
        let steps = [Planned::kept(clicked)];
        let missing = unproven(&steps, &words, &seen);
        let hints = hints(&steps, &words, &seen, &page, &missing);
        assert!(
            hints.contains(
                &r#""tab #1" is e2 on this page: {"type": "click", "target": {"ref": "e2"}}"#
                    .to_string()
            ),
            "{hints:?}"
        );
    }
    #[test]
    fn the_tick_hint_is_the_step_on_the_checkbox_of_the_item_the_task_ticks() {
        let words = TaskWords::of("Add \"Buy milk\" and \"Walk dog\", complete \"Buy milk\".");
        let page: crate::planner::Observation = serde_json::from_value(serde_json::json!({
            "url": "/", "title": "", "counts": {}, "total": 3,
            "items": [
                {"selector": "css=#toggle-all", "role": "checkbox", "name": "", "tag": "input", "control": true},
                {"selector": "role=listitem >> has-text=\"Walk dog\" >> role=checkbox", "role": "checkbox", "name": "", "tag": "input", "control": true, "context": "listitem \"Walk dog\""},
                {"selector": "role=listitem >> has-text=\"Buy milk\" >> role=checkbox", "role": "checkbox", "name": "", "tag": "input", "control": true, "context": "listitem \"Buy milk\""}
            ]
        }))
        .unwrap();
        let seen = BTreeSet::new();
        let hints = hints(&[], &words, &seen, &page, &[]);
        let tick: Vec<&String> = hints.iter().filter(|h| h.starts_with("to tick")).collect();
        assert_eq!(
            tick,
            [r#"to tick "Buy milk": {"type": "check", "target": {"ref": "e3"}}"#],
            "{hints:?}"
        );
    }
}
