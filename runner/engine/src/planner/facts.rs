//! What a step changed on the page, as facts: the differences between the observations before
//! and after it, each already an `expect` clause, kept only when it holds on the page now. A
//! plan's postconditions are chosen from these (by the model, by number, or by the engine), so
//! a message the page never showed cannot be asserted.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use tokio::time::Instant;
use windup_model::plan::{CountExpect, ValueExpect};
use windup_model::{Action, ActionType, Expect};

use super::observation::{Item, Observation};
use crate::browser::Session;
use crate::verifier::{Check, url_for_match};

/// At most this many facts per step.
pub const MAX_FACTS: usize = 6;

/// One change, as the postcondition that proves it.
#[derive(Debug, Clone, PartialEq)]
pub struct Fact {
    /// The postcondition: exactly one field is set.
    pub expect: Expect,
    /// What kind of change it is, which orders the facts and the engine's own choice.
    pub kind: FactKind,
    /// The words it is about (a text, a control's name, a value), matched against the task's
    /// quoted strings.
    pub about: String,
    /// A number changed and nothing else (a counter, a timer): true now, but a weak proof.
    pub counter: bool,
}

/// Kinds of change, in the order facts are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum FactKind {
    /// The page's path, query or route changed.
    Url,
    /// A text appeared.
    Appeared,
    /// A control was checked or unchecked.
    Checked,
    /// A count of a role changed.
    Count,
    /// A field's value changed.
    Value,
    /// A control appeared.
    AppearedControl,
    /// A text or control disappeared.
    Disappeared,
}

impl Fact {
    /// The fact as the prompt lists it: `visible: text="Buy milk"`.
    pub fn line(&self) -> String {
        self.expect.clause_line()
    }
}

/// The facts one step changed, as a prompt lists them under the step.
#[derive(Debug, Clone, PartialEq)]
pub struct StepFacts {
    /// The step's id.
    pub step: String,
    /// What it changed, in listing order.
    pub facts: Vec<Fact>,
}

/// Adds `fact` to `expect`, unless `expect` already checks that field.
pub fn merge(expect: &mut Expect, fact: &Fact) {
    expect.absorb(&fact.expect);
}

type Key = (bool, Option<String>, String, Option<String>);

fn key(i: &Item) -> Key {
    (i.control, i.role.clone(), i.name.clone(), i.context.clone())
}

/// The differences from `before` to `after`, in listing order, at most [`MAX_FACTS`]. `base`
/// makes URLs relative, as the verifier matches them.
pub fn changes(before: &Observation, after: &Observation, base: &url::Url) -> Vec<Fact> {
    let mut out = Vec::new();
    let (was, now) = (
        url_for_match(&before.url, base),
        url_for_match(&after.url, base),
    );
    if was != now {
        out.push(Fact {
            expect: Expect {
                url: Some(escape_glob(&now)),
                ..Expect::default()
            },
            kind: FactKind::Url,
            about: now,
            counter: false,
        });
    }
    let index = |o: &Observation| -> BTreeMap<Key, Item> {
        let mut m = BTreeMap::new();
        for i in &o.items {
            m.entry(key(i)).or_insert_with(|| i.clone());
        }
        m
    };
    let (old, new) = (index(before), index(after));
    let appeared: Vec<&Item> = new
        .iter()
        .filter(|(k, _)| !old.contains_key(*k))
        .map(|(_, i)| i)
        .collect();
    let gone: Vec<&Item> = old
        .iter()
        .filter(|(k, _)| !new.contains_key(*k))
        .map(|(_, i)| i)
        .collect();
    let digits = |s: &str| {
        s.chars()
            .filter(|c| !c.is_ascii_digit())
            .collect::<String>()
    };
    let gone_shapes: BTreeSet<String> = gone
        .iter()
        .filter(|i| !i.control)
        .map(|i| digits(&i.name))
        .collect();
    let new_shapes: BTreeSet<String> = appeared
        .iter()
        .filter(|i| !i.control)
        .map(|i| digits(&i.name))
        .collect();
    // Texts first: they are what a person reads as the outcome.
    let mut appeared = appeared;
    appeared.sort_by_key(|i| (i.control, position(after, i)));
    for i in appeared {
        let counter = !i.control && (gone_shapes.contains(&digits(&i.name)) || numeric(&i.name));
        out.push(Fact {
            expect: Expect {
                visible: Some(selector_of(i)),
                ..Expect::default()
            },
            kind: if i.control {
                FactKind::AppearedControl
            } else {
                FactKind::Appeared
            },
            about: i.name.clone(),
            counter,
        });
    }
    for (k, i) in &new {
        let Some(was) = old.get(k) else { continue };
        if i.checked != was.checked
            && let Some(serde_json::Value::Bool(c)) = i.checked
            && let Some(selector) = with_checked(&i.selector, c)
        {
            out.push(Fact {
                expect: Expect {
                    visible: Some(selector),
                    ..Expect::default()
                },
                kind: FactKind::Checked,
                about: i.name.clone(),
                counter: false,
            });
        }
        if i.value != was.value
            && let Some(v) = &i.value
        {
            out.push(Fact {
                expect: Expect {
                    value: Some(ValueExpect {
                        selector: i.selector.clone(),
                        equals: v.clone(),
                    }),
                    ..Expect::default()
                },
                kind: FactKind::Value,
                about: v.clone(),
                counter: false,
            });
        }
    }
    let roles: BTreeSet<&String> = before.counts.keys().chain(after.counts.keys()).collect();
    for role in roles {
        let (a, b) = (
            before.counts.get(role).copied().unwrap_or(0),
            after.counts.get(role).copied().unwrap_or(0),
        );
        if a != b {
            out.push(Fact {
                expect: Expect {
                    count: Some(CountExpect {
                        selector: format!("role={role}"),
                        equals: b,
                    }),
                    ..Expect::default()
                },
                kind: FactKind::Count,
                about: role.clone(),
                counter: false,
            });
        }
    }
    for i in gone {
        let counter = !i.control && (new_shapes.contains(&digits(&i.name)) || numeric(&i.name));
        out.push(Fact {
            expect: Expect {
                hidden: Some(selector_of(i)),
                ..Expect::default()
            },
            kind: FactKind::Disappeared,
            about: i.name.clone(),
            counter,
        });
    }
    // Within a kind, weak proofs (counters, bare numbers) come last.
    out.sort_by_key(|f| (f.kind, f.counter));
    out.truncate(MAX_FACTS);
    out
}

fn position(o: &Observation, item: &Item) -> usize {
    o.items.iter().position(|i| i == item).unwrap_or(usize::MAX)
}

/// A text's own words as a `text=` selector when they are whole and short; else the selector
/// the in-page engine built for it.
fn selector_of(i: &Item) -> String {
    if !i.control && !i.name.is_empty() && i.name.chars().count() <= 80 && !i.name.ends_with('…')
    {
        format!("text={}", quote(&i.name))
    } else {
        i.selector.clone()
    }
}

/// `role=listitem >> has-text="a" >> role=checkbox` with `[checked=true]` on its last part, when
/// that part is a role without a checked state or an index.
fn with_checked(selector: &str, checked: bool) -> Option<String> {
    let last = selector.rsplit(" >> ").next()?;
    (last.starts_with("role=") && !last.contains("[checked") && !selector.contains("nth="))
        .then(|| format!("{selector}[checked={checked}]"))
}

/// A URL as a glob matching exactly it.
fn escape_glob(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// A text that is only a number (a score, a total, a badge): true now, but often a function of
/// time or data rather than proof of a step.
fn numeric(text: &str) -> bool {
    let t = text.trim();
    !t.is_empty()
        && t.chars().any(|c| c.is_ascii_digit())
        && t.chars().all(|c| {
            c.is_ascii_digit() || matches!(c, '.' | ',' | '-' | '+' | '%' | ' ' | '/' | ':')
        })
}

/// A text without its digits: the shape a counter or a timer keeps while its number changes.
fn shape(text: &str) -> String {
    text.chars().filter(|c| !c.is_ascii_digit()).collect()
}

/// The shapes of the texts that changed from `earlier` to `later` with no step in between (a
/// clock, a countdown, a ticker): facts about them would not hold on a replay.
pub fn drifted(earlier: &Observation, later: &Observation) -> BTreeSet<String> {
    let texts = |o: &Observation| -> BTreeSet<String> {
        o.items
            .iter()
            .filter(|i| !i.control)
            .map(|i| i.name.clone())
            .collect()
    };
    let (a, b) = (texts(earlier), texts(later));
    a.symmetric_difference(&b).map(|t| shape(t)).collect()
}

/// Whether `fact` is about a text of a shape that changes on its own.
pub fn is_drifting(fact: &Fact, drifting: &BTreeSet<String>) -> bool {
    matches!(fact.kind, FactKind::Appeared | FactKind::Disappeared)
        && drifting.contains(&shape(&fact.about))
}

/// The facts that hold on the page now (each checked once, with a short grace).
pub async fn holding(session: &Session, facts: Vec<Fact>, base: &url::Url) -> Vec<Fact> {
    let mut out = Vec::with_capacity(facts.len());
    for fact in facts {
        let Ok(check) = Check::compile(&fact.expect) else {
            continue;
        };
        let deadline = Instant::now() + Duration::from_millis(150);
        if check
            .wait(session, base, &fact.expect, deadline)
            .await
            .is_ok()
        {
            out.push(fact);
        }
    }
    out
}

/// The strings the task quotes (`"Buy milk"`, “Buy milk”), which the page should show.
pub fn quoted(task: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = task;
    loop {
        let Some(open) = rest.find(['"', '“']) else {
            return out;
        };
        let after = &rest[open + rest[open..].chars().next().map_or(1, char::len_utf8)..];
        let Some(close) = after.find(['"', '”']) else {
            return out;
        };
        let q = after[..close].trim();
        if !q.is_empty() {
            out.push(q.to_string());
        }
        rest = &after[close + after[close..].chars().next().map_or(1, char::len_utf8)..];
    }
}

/// The fact the engine picks for a step by itself: the one about the step's own target (the
/// value it typed, the state it set), else the first that is not a counter, in listing order.
pub fn engine_pick(action: &Action, facts: &[Fact]) -> Option<usize> {
    let target = action.target.as_ref().map(|t| t.selector.as_str());
    let own = facts.iter().position(|f| match action.kind {
        ActionType::Fill | ActionType::Select => f
            .expect
            .value
            .as_ref()
            .is_some_and(|v| Some(v.selector.as_str()) == target),
        ActionType::Check | ActionType::Uncheck => {
            f.kind == FactKind::Checked
                && target.is_some_and(|t| {
                    f.expect
                        .visible
                        .as_deref()
                        .is_some_and(|v| v.starts_with(t))
                })
        }
        _ => false,
    });
    own.or_else(|| facts.iter().position(|f| !f.counter))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(name: &str) -> Item {
        item(name, false, None)
    }

    fn item(name: &str, control: bool, context: Option<&str>) -> Item {
        Item {
            selector: format!("css=#{}", name.len()),
            role: None,
            name: name.into(),
            tag: "label".into(),
            control,
            score: 0,
            context: context.map(str::to_string),
            input_type: None,
            value: None,
            checked: None,
            disabled: None,
            covered: None,
            near: None,
            expanded: None,
            selected: None,
            href: None,
        }
    }

    fn obs(url: &str, items: Vec<Item>, counts: &[(&str, u32)]) -> Observation {
        Observation {
            url: url.into(),
            items,
            counts: counts.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ..Observation::default()
        }
    }

    #[test]
    fn a_step_that_adds_a_todo_shows_its_text_its_count_and_its_new_state() {
        let base = url::Url::parse("http://h/app/").unwrap();
        let mut field = item("New todo", true, None);
        field.selector = "placeholder=\"New todo\"".into();
        field.value = Some("Buy milk".into());
        let before = obs(
            "http://h/app/#/",
            vec![field.clone(), text("0 items left")],
            &[("listitem", 0)],
        );
        field.value = Some(String::new());
        let mut toggle = item("", true, Some("listitem \"Buy milk\""));
        toggle.role = Some("checkbox".into());
        toggle.selector = "role=listitem >> has-text=\"Buy milk\" >> role=checkbox".into();
        let after = obs(
            "http://h/app/#/active",
            vec![field, text("Buy milk"), toggle, text("1 items left")],
            &[("listitem", 1)],
        );
        let lines: Vec<String> = changes(&before, &after, &base)
            .iter()
            .map(Fact::line)
            .collect();
        assert_eq!(
            lines,
            [
                "url: /app/#/active",
                "visible: text=\"Buy milk\"",
                "visible: text=\"1 items left\"",
                "count: role=listitem = 1",
                "value: placeholder=\"New todo\" = \"\"",
                "visible: role=listitem >> has-text=\"Buy milk\" >> role=checkbox",
            ],
            "texts first, new controls after, at most {MAX_FACTS}"
        );
        let facts = changes(&before, &after, &base);
        // Only the number changed: a counter, which the engine does not pick by itself.
        assert!(facts[2].counter && !facts[1].counter);
    }

    #[test]
    fn checking_a_control_is_a_fact_on_its_own_selector() {
        let base = url::Url::parse("http://h/").unwrap();
        let mut toggle = item("", true, Some("listitem \"Buy milk\""));
        toggle.role = Some("checkbox".into());
        toggle.selector = "role=listitem >> has-text=\"Buy milk\" >> role=checkbox".into();
        toggle.checked = Some(serde_json::Value::Bool(false));
        let before = obs("http://h/", vec![toggle.clone()], &[]);
        toggle.checked = Some(serde_json::Value::Bool(true));
        let after = obs("http://h/", vec![toggle], &[]);
        let facts = changes(&before, &after, &base);
        assert_eq!(
            facts[0].line(),
            "visible: role=listitem >> has-text=\"Buy milk\" >> role=checkbox[checked=true]"
        );
        let check = Action {
            target: Some(windup_model::plan::Target {
                selector: "role=listitem >> has-text=\"Buy milk\" >> role=checkbox".into(),
                description: None,
            }),
            ..serde_json::from_value(serde_json::json!({"id": "a1", "type": "check"})).unwrap()
        };
        assert_eq!(engine_pick(&check, &facts), Some(0));
        assert!(windup_model::Selector::parse(facts[0].expect.visible.as_deref().unwrap()).is_ok());
    }

    #[test]
    fn a_text_that_changes_with_no_step_is_drifting_and_its_facts_are_dropped() {
        let base = url::Url::parse("http://h/").unwrap();
        let at_call = obs(
            "http://h/",
            vec![text("Time left: 59 s"), text("Saved")],
            &[],
        );
        let before_step = obs(
            "http://h/",
            vec![text("Time left: 48 s"), text("Saved")],
            &[],
        );
        let drifting = drifted(&at_call, &before_step);
        let after = obs(
            "http://h/",
            vec![text("Time left: 47 s"), text("Done")],
            &[],
        );
        let facts = changes(&before_step, &after, &base);
        let kept: Vec<String> = facts
            .iter()
            .filter(|f| !is_drifting(f, &drifting))
            .map(Fact::line)
            .collect();
        assert_eq!(kept, ["visible: text=\"Done\"", "hidden: text=\"Saved\""]);
    }

    #[test]
    fn bare_numbers_are_weak_proofs_listed_after_the_texts_that_say_something() {
        let base = url::Url::parse("http://h/").unwrap();
        let before = obs("http://h/", vec![text("-")], &[]);
        let after = obs("http://h/", vec![text("0.99"), text("Done")], &[]);
        let facts = changes(&before, &after, &base);
        let lines: Vec<String> = facts.iter().map(Fact::line).collect();
        assert_eq!(
            lines[..2],
            ["visible: text=\"Done\"", "visible: text=\"0.99\""]
        );
        assert!(facts[1].counter && !facts[0].counter);
    }

    #[test]
    fn url_facts_match_their_url_literally() {
        let glob = crate::verifier::url_glob(&escape_glob("/a/[id]/*?x=1")).unwrap();
        assert!(glob.is_match("/a/[id]/*?x=1"));
        assert!(!glob.is_match("/a/i/b?x=1"));
    }

    #[test]
    fn quoted_strings_are_found_in_both_quote_styles() {
        assert_eq!(
            quoted("Add \"Buy milk\" and “Walk dog”, then \"\""),
            ["Buy milk", "Walk dog"]
        );
        assert!(quoted("no quotes").is_empty());
    }
}
