//! An answer's steps tidied as they run while planning, LLM-free. A small model loops: it
//! answers the same click twelve times, or two links in turn, and a later call copies the
//! loop from the steps done. And it types two values the task quotes into the same field one
//! after the other, so the first is replaced before anything took it in. So:
//! - a step the same as the last one planned here, which changed nothing, is left out (one
//!   that changed the page, such as "next page" twice, runs again);
//! - a step that makes the answer repeat its last two steps (A B A B) is left out, and so is
//!   a step done twice that brought the page back to where it was (a toggle clicked on and off);
//! - before a value the task quotes is typed over another value the task quotes still waiting
//!   in the same field, Enter is pressed in the field, as a step of the plan: like every step
//!   it must prove itself (what it changes), or proving drops it; and at the end of an
//!   answer that leaves such a value waiting with nothing on the page having taken it in (it
//!   typed the todo and stopped), Enter is pressed there once, the same way;
//! - a date typed as the task writes it (`10/11/2011`) into a date input is kept in the plan in
//!   the input's own form (`2011-10-11`), the one Playwright's fill takes, so an exported spec
//!   runs as the plan does.

use windup_model::{Action, ActionType, Target};

use super::proofs::Planned;
use crate::planner::Observation;
use crate::planner::words::TaskWords;

/// Why `action` is left out, if it is: it repeats (`repeat`) or toggles the page back again
/// (`toggles_back`). `tried` are the answers' steps before it in this planning, run or left
/// out, across every answer (a small model starts each answer with the loop the last one was
/// cut from), `next` the answer's step after it, `steps` those planned in this planning (not
/// kept from a broken replay), `befores` the page before each, by id, and `page` the page now.
pub(super) fn left_out(
    tried: &[Action],
    action: &Action,
    next: Option<&Action>,
    steps: &[Planned],
    befores: &std::collections::HashMap<String, Observation>,
    page: &Observation,
) -> Option<&'static str> {
    repeat(tried, action, next, steps.last()).or_else(|| {
        toggles_back(action, steps, befores, page)
            .then_some("the same step twice brought the page back to where it was")
    })
}

/// Why `action` is left out, when it repeats: `last` is the last step run here (planned in
/// this planning, not kept from a broken replay).
fn repeat(
    tried: &[Action],
    action: &Action,
    next: Option<&Action>,
    last: Option<&Planned>,
) -> Option<&'static str> {
    if let Some(last) = last
        && same(action, &last.action)
        && last.facts.is_empty()
    {
        return Some("the same step again, and the last one changed nothing");
    }
    // A B A B: left out from the second round on (the step after it, or the round before,
    // says whether the third A starts one).
    let k = tried.len();
    let a_b_a = k >= 2 && same(action, &tried[k - 2]) && !same(action, &tried[k - 1]);
    let round_before = k >= 3 && same(&tried[k - 1], &tried[k - 3]);
    if a_b_a && (next.is_some_and(|x| same(x, &tried[k - 1])) || round_before) {
        return Some("the answer repeats its last two steps");
    }
    None
}

/// Whether `action` is the same as the last two steps planned (`steps`), which changed the page
/// and then brought it back to `page` as it was before the first of them (`befores`, by step
/// id): a toggle clicked over and over, "Mark all as complete" ten times.
fn toggles_back(
    action: &Action,
    steps: &[Planned],
    befores: &std::collections::HashMap<String, Observation>,
    page: &Observation,
) -> bool {
    let [.., first, second] = steps else {
        return false;
    };
    same(action, &first.action)
        && same(action, &second.action)
        && !first.facts.is_empty()
        && befores.get(&first.action.id) == Some(page)
}

/// `press Enter` in the field `action` fills, when the field still holds another value the
/// task quotes, typed by an earlier step: typing over it would lose it. `taken` says whether
/// a step id is used.
pub(super) fn submit_first(
    action: &Action,
    steps: &[Planned],
    page: &Observation,
    words: &TaskWords,
    taken: &dyn Fn(&str) -> bool,
) -> Option<Action> {
    if action.kind != ActionType::Fill {
        return None;
    }
    let target = action.target.as_ref()?;
    let typing = action.value.as_deref()?;
    quote_of(words, typing)?;
    let earlier = steps.iter().rev().find(|s| {
        s.action.kind == ActionType::Fill
            && s.action
                .target
                .as_ref()
                .is_some_and(|t| t.selector == target.selector)
    })?;
    let waiting = earlier.action.value.as_deref()?;
    if waiting == typing || quote_of(words, waiting).is_none() || !holds(page, target, waiting) {
        return None;
    }
    press_enter(&earlier.action.id, &target.selector, taken)
}

/// The tick the last prompt's hint gave as a step (`proofs::tick_step`), when the answer to that
/// prompt has no step that ticks anything: run before the answer's steps, with an id before
/// its first (`a12-tick`) that `taken` says is free. A small model answers "to tick "Buy
/// milk": check e4" with the filters it was not asked about.
pub(super) fn ignored_tick(
    hinted: Option<Action>,
    answer: &[Action],
    taken: &dyn Fn(&str) -> bool,
) -> Option<Action> {
    let tick = hinted?;
    if answer.iter().any(crate::planner::words::ticks) {
        return None;
    }
    let id = free_id(
        &format!("{}-tick", answer.first().map_or("a1", |a| a.id.as_str())),
        taken,
    )?;
    Some(Action { id, ..tick })
}

/// `press Enter` in `selector`, with an id after the fill's (`a3-enter`) that `taken` says is
/// free.
fn press_enter(fill_id: &str, selector: &str, taken: &dyn Fn(&str) -> bool) -> Option<Action> {
    let id = free_id(&format!("{fill_id}-enter"), taken)?;
    Some(Action {
        key: Some("Enter".into()),
        ..Action::on(id, ActionType::Press, Some(selector))
    })
}

/// `press Enter` in the field the last step planned here (from `kept` on) filled, when the
/// value the task quotes it typed still waits there with nothing on the page having taken it in
/// (as the plan's proof rule reads it): an answer that typed the todo and stopped.
pub(super) fn submit_waiting(
    steps: &[Planned],
    kept: usize,
    page: &Observation,
    words: &TaskWords,
    seen: &std::collections::BTreeSet<crate::planner::words::Seen>,
    taken: &dyn Fn(&str) -> bool,
) -> Option<Action> {
    let fill = steps[kept..]
        .iter()
        .rev()
        .find(|s| s.action.kind == ActionType::Fill)?;
    let target = fill.action.target.as_ref()?;
    let typed = fill.action.value.as_deref()?;
    let quote = quote_of(words, typed)?;
    // Whether nothing took it in is the proof rule's reading, the dearer test: only when the
    // field still holds it.
    let waits = holds(page, target, typed)
        && super::proofs::unproven(steps, words, seen)
            .iter()
            .any(|m| m.starts_with(&format!("the task quotes \"{quote}\": it was typed")));
    waits.then(|| press_enter(&fill.action.id, &target.selector, taken))?
}

/// The quote of the task `value` is (trimmed, any case), if it is one.
fn quote_of<'w>(words: &'w TaskWords, value: &str) -> Option<&'w String> {
    let v = value.trim();
    (!v.is_empty())
        .then(|| {
            words
                .quotes
                .iter()
                .find(|q| q.trim().eq_ignore_ascii_case(v))
        })
        .flatten()
}

/// Whether `page` lists the field `target` holding `value`.
fn holds(page: &Observation, target: &Target, value: &str) -> bool {
    page.items
        .iter()
        .any(|i| i.selector == target.selector && i.value.as_deref() == Some(value))
}

/// `action` with its value in the form of the input it fills, when the page lists that input
/// as one that takes no keystrokes (a date) and the value has another form.
pub(super) fn in_field_form(action: &Action, page: &Observation) -> Option<Action> {
    if action.kind != ActionType::Fill {
        return None;
    }
    let selector = &action.target.as_ref()?.selector;
    let item = page.items.iter().find(|i| &i.selector == selector)?;
    let value = action.value.as_deref()?;
    let form = crate::executor::value_form(item.input_type.as_deref(), value)?.ok()?;
    (form != value).then(|| Action {
        value: Some(form),
        ..action.clone()
    })
}

/// `base`, or `base2`, `base3`…: the first id of a step the engine adds that `taken` says is
/// free.
fn free_id(base: &str, taken: &dyn Fn(&str) -> bool) -> Option<String> {
    std::iter::once(base.to_string())
        .chain((2..).map(|k| format!("{base}{k}")))
        .find(|id| !taken(id))
}

/// Whether a step id is used by a step planned so far or one of the answer's.
pub(super) fn ids_taken<'a>(
    steps: &'a [Planned],
    answer: &'a [Action],
) -> impl Fn(&str) -> bool + 'a {
    move |id| steps.iter().any(|s| s.action.id == id) || answer.iter().any(|a| a.id == id)
}

/// The same step: what it does and on what, whatever its id and checks.
fn same(a: &Action, b: &Action) -> bool {
    a.kind == b.kind
        && a.target.as_ref().map(|t| &t.selector) == b.target.as_ref().map(|t| &t.selector)
        && a.value == b.value
        && a.value_ref == b.value_ref
        && a.key == b.key
        && a.url == b.url
        && a.use_fragment == b.use_fragment
        && a.files == b.files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(json: &str) -> Action {
        serde_json::from_str(json).expect("an action")
    }

    fn planned(json: &str, changed: bool) -> Planned {
        let mut p = Planned::kept(step(json));
        if changed {
            p.facts.push(crate::planner::facts::Fact {
                expect: windup_model::Expect {
                    visible: Some("text=\"x\"".into()),
                    ..Default::default()
                },
                kind: crate::planner::facts::FactKind::Appeared,
                about: "x".into(),
                counter: false,
            });
        }
        p
    }

    const BOX: &str = r#"{"id":"a1","type":"click","target":{"selector":"role=textbox"}}"#;
    const LINK_A: &str =
        r#"{"id":"a2","type":"click","target":{"selector":"role=link[name=\"Active\"]"}}"#;
    const LINK_C: &str =
        r#"{"id":"a3","type":"click","target":{"selector":"role=link[name=\"Completed\"]"}}"#;

    #[test]
    fn a_repeat_is_left_out_only_when_the_last_one_changed_nothing() {
        let tried = vec![step(BOX)];
        assert!(repeat(&tried, &step(BOX), None, Some(&planned(BOX, false))).is_some());
        assert_eq!(
            repeat(&tried, &step(BOX), None, Some(&planned(BOX, true))),
            None
        );
        assert_eq!(repeat(&[], &step(BOX), None, None), None);
    }

    #[test]
    fn a_pair_repeated_is_left_out_from_its_second_round_within_an_answer_and_across_answers() {
        let all: Vec<Action> = [LINK_A, LINK_C, LINK_A, LINK_C, LINK_A]
            .iter()
            .map(|s| step(s))
            .collect();
        let last = planned(LINK_C, true);
        let at = |n: usize| repeat(&all[..n], &all[n], all.get(n + 1), Some(&last));
        assert_eq!(at(1), None);
        for n in 2..5 {
            assert!(at(n).is_some(), "step {n}");
        }
        let back: Vec<Action> = [LINK_A, LINK_C, LINK_A].iter().map(|s| step(s)).collect();
        assert_eq!(
            repeat(&back[..2], &back[2], None, Some(&last)),
            None,
            "A B A goes back once, no loop"
        );
        // The next answer starts the loop again, A B: its A and its B are both left out.
        let tried: Vec<Action> = [BOX, LINK_A, LINK_C].iter().map(|s| step(s)).collect();
        let (a, c) = (step(LINK_A), step(LINK_C));
        assert!(repeat(&tried, &a, Some(&c), Some(&last)).is_some());
        let mut tried = tried;
        tried.push(a.clone());
        assert!(repeat(&tried, &c, None, Some(&last)).is_some());
    }

    #[test]
    fn a_date_typed_as_the_task_writes_it_is_kept_in_the_date_inputs_form() {
        let page: Observation = serde_json::from_value(serde_json::json!({
            "url": "/", "title": "", "counts": {}, "total": 2,
            "items": [
                {"selector": "css=#tt", "role": "textbox", "name": "", "tag": "input", "control": true, "type": "date"},
                {"selector": "css=#note", "role": "textbox", "name": "", "tag": "input", "control": true, "type": "text"}
            ]
        }))
        .unwrap();
        let fill = |target: &str, value: &str| {
            step(&format!(
                r#"{{"id":"a1","type":"fill","target":{{"selector":"{target}"}},"value":"{value}"}}"#
            ))
        };
        let kept = in_field_form(&fill("css=#tt", "10/11/2011"), &page).expect("rewritten");
        assert_eq!(kept.value.as_deref(), Some("2011-10-11"));
        assert_eq!(in_field_form(&fill("css=#tt", "2011-10-11"), &page), None);
        assert_eq!(in_field_form(&fill("css=#note", "10/11/2011"), &page), None);
    }

    #[test]
    fn a_toggle_done_twice_that_brought_the_page_back_is_not_done_again() {
        let page = |text: &str| -> Observation {
            serde_json::from_value(serde_json::json!({
                "url": "/", "title": "", "counts": {}, "total": 1,
                "items": [{"selector": format!("text=\"{text}\""), "name": text, "tag": "span", "control": false}]
            }))
            .unwrap()
        };
        const TOGGLE: &str =
            r#"{"id":"a1","type":"click","target":{"selector":"label=\"Mark all as complete\""}}"#;
        let mut first = planned(TOGGLE, true);
        first.action.id = "a1".into();
        let mut second = planned(TOGGLE, true);
        second.action.id = "a2".into();
        let befores = std::collections::HashMap::from([
            ("a1".to_string(), page("1 item left")),
            ("a2".to_string(), page("0 items left")),
        ]);
        let steps = [first, second];
        let again = step(TOGGLE);
        assert!(toggles_back(&again, &steps, &befores, &page("1 item left")));
        assert!(!toggles_back(
            &again,
            &steps,
            &befores,
            &page("2 items left")
        ));
        assert!(!toggles_back(
            &again,
            &steps[1..],
            &befores,
            &page("1 item left")
        ));
        assert!(!toggles_back(
            &step(BOX),
            &steps,
            &befores,
            &page("1 item left")
        ));
    }

    #[test]
    fn the_hinted_tick_runs_only_for_an_answer_that_ticks_nothing() {
        let tick = step(
            r#"{"id":"","type":"check","target":{"selector":"role=listitem >> has-text=\"Buy milk\" >> role=checkbox"}}"#,
        );
        let free = |_: &str| false;
        let filters = [step(LINK_A), step(LINK_C)];
        let run = ignored_tick(Some(tick.clone()), &filters, &free).expect("ticks nothing");
        assert_eq!((run.id.as_str(), run.kind), ("a2-tick", ActionType::Check));
        let ticking = [step(
            r#"{"id":"a5","type":"click","target":{"selector":"role=listitem >> has-text=\"Walk dog\" >> role=checkbox"}}"#,
        )];
        assert_eq!(ignored_tick(Some(tick), &ticking, &free), None);
        assert_eq!(ignored_tick(None, &filters, &free), None);
    }
}
