//! What the planner (or an agent) is shown of a page: its visible controls and texts, each with
//! a ref (`e1`, `e2`, …) valid for this one observation, its role, name, state and nearest named
//! container. The model points at refs; the engine holds the selector behind each one, built by
//! the in-page engine so it resolves to that element alone, the way the executor resolves it.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde::{Deserialize, Serialize};

use crate::browser::injected::{self, ObserveOptions};
use windup_model::FrameBy;

use crate::browser::{BrowserError, Session};

pub use crate::browser::injected::Item;

/// At most this many items in one observation.
pub const MAX_ITEMS: usize = 150;

/// The page at one moment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// The current document's URL.
    pub url: String,
    /// The current document's title.
    pub title: String,
    /// What is shown, in document order; item `i` is ref `e{i+1}`.
    pub items: Vec<Item>,
    /// Visible elements per counted role (`listitem`, `checkbox[checked=true]`…).
    pub counts: BTreeMap<String, u32>,
    /// How many items the page had before the cap.
    pub total: usize,
}

/// A `frame=` step that picks the frame's element: by its title, else its name, else its id,
/// else its `src`; None for a frame element with none of them.
async fn frame_step(session: &Session, frame: &str) -> Result<Option<String>, BrowserError> {
    let attributes = match session.frames().frame_attributes(frame).await {
        Ok(a) => a,
        Err(BrowserError::Protocol(_) | BrowserError::ContextLost) => return Ok(None),
        Err(e) => return Err(e),
    };
    let get = |name: &str| {
        attributes
            .iter()
            .find(|(n, v)| n == name && !v.trim().is_empty())
            .map(|(_, v)| v.as_str())
    };
    let css_string = |v: &str| serde_json::to_string(v).expect("a string serialises");
    Ok(if let Some(title) = get("title") {
        Some(FrameBy::Title.step(title))
    } else if let Some(name) = get("name") {
        Some(FrameBy::Name.step(name))
    } else if let Some(id) = get("id") {
        Some(FrameBy::Css.step(&format!(":is(iframe, frame)[id={}]", css_string(id))))
    } else {
        get("src")
            .map(|src| FrameBy::Css.step(&format!(":is(iframe, frame)[src={}]", css_string(src))))
    })
}

impl Observation {
    /// Reads the page of `session`: at most `limit` items (never more than [`MAX_ITEMS`]), those
    /// in the viewport and those sharing the task's words kept first, then cut to fit
    /// `max_chars` when rendered. Links to origins other than `origins` are left out (they
    /// cannot be followed); with no origins every link stays.
    pub async fn capture(
        session: &Session,
        task: &str,
        origins: &[url::Origin],
        limit: usize,
        max_chars: usize,
    ) -> Result<Observation, BrowserError> {
        let words = words(task);
        let origins: Vec<String> = origins
            .iter()
            .map(url::Origin::ascii_serialization)
            .collect();
        let options = ObserveOptions {
            limit: limit.clamp(1, MAX_ITEMS),
            words: &words,
            origins: &origins,
        };
        let mut observation = Observation::default();
        for (i, realm) in session.frames().realms().await?.into_iter().enumerate() {
            let seen = match injected::observe(session.page(), &realm, &options).await {
                Ok(seen) => seen,
                // A frame that went away meanwhile has nothing to show.
                Err(BrowserError::ContextLost) if i > 0 => continue,
                Err(e) => return Err(e),
            };
            let mut items = seen.items;
            if let Some(frame) = &realm.frame_id {
                // Reachable as they are (every frame is searched after the top document), but
                // only a `frame=` step keeps them apart from a twin in the top document.
                let Some(step) = frame_step(session, frame).await? else {
                    continue;
                };
                for item in &mut items {
                    item.selector = format!("{step} >> {}", item.selector);
                }
            } else {
                observation.url = seen.url;
                observation.title = seen.title;
            }
            observation.items.extend(items);
            for (role, n) in seen.counts {
                *observation.counts.entry(role).or_default() += n;
            }
            observation.total += seen.total;
        }
        observation.keep_best(options.limit);
        observation.fit(max_chars);
        Ok(observation)
    }

    /// At most `limit` items, the most relevant, in their order.
    fn keep_best(&mut self, limit: usize) {
        if self.items.len() <= limit {
            return;
        }
        let mut order: Vec<usize> = (0..self.items.len()).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(self.items[i].score), i));
        let mut keep = vec![false; self.items.len()];
        for &i in order.iter().take(limit) {
            keep[i] = true;
        }
        let mut k = 0;
        self.items.retain(|_| {
            k += 1;
            keep[k - 1]
        });
    }

    /// Drops the least relevant items (lowest score, later first) until the rendering fits.
    fn fit(&mut self, max_chars: usize) {
        let lens: Vec<usize> = self.items.iter().map(|i| line(i, 0).len() + 1).collect();
        let mut total: usize = lens.iter().sum();
        if total <= max_chars {
            return;
        }
        let mut order: Vec<usize> = (0..self.items.len()).collect();
        order.sort_by_key(|&i| (self.items[i].score, std::cmp::Reverse(i)));
        let mut dropped = vec![false; self.items.len()];
        for i in order {
            if total <= max_chars {
                break;
            }
            dropped[i] = true;
            total -= lens[i];
        }
        let mut k = 0;
        self.items.retain(|_| {
            k += 1;
            !dropped[k - 1]
        });
    }

    /// The refs of this observation, in order.
    pub fn refs(&self) -> Vec<String> {
        (1..=self.items.len()).map(|i| format!("e{i}")).collect()
    }

    /// The item a ref points at, if it is one of this observation's.
    pub fn item(&self, r: &str) -> Option<&Item> {
        let n: usize = r.trim().strip_prefix('e')?.parse().ok()?;
        self.items.get(n.checked_sub(1)?)
    }

    /// The items as the prompt lists them, one per line, grouped under their container.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let mut context: Option<&str> = None;
        for (i, item) in self.items.iter().enumerate() {
            let here = item.context.as_deref();
            if here != context {
                if let Some(c) = here {
                    let _ = writeln!(out, "{c}:");
                }
                context = here;
            }
            out.push_str(&line(item, i + 1));
            out.push('\n');
        }
        if self.total > self.items.len() {
            let _ = writeln!(
                out,
                "({} more items on the page are not shown)",
                self.total - self.items.len()
            );
        }
        out
    }

    /// Whether `url` shows another page than this one: a different origin, path, query, or
    /// hash route (`#/…`, as single-page apps route). A plain anchor (`#top`) is the same page.
    pub fn is_other_page(&self, url: &str) -> bool {
        let (Ok(a), Ok(b)) = (url::Url::parse(&self.url), url::Url::parse(url)) else {
            return self.url != url;
        };
        let route = |u: &url::Url| {
            u.fragment()
                .filter(|f| f.starts_with('/') || f.starts_with("!/"))
                .map(str::to_string)
        };
        a.origin() != b.origin()
            || a.path() != b.path()
            || a.query() != b.query()
            || route(&a) != route(&b)
    }

    /// Whether `later` shows a control this observation does not have (by role, name and
    /// context): something new to act on.
    pub fn offers_new_controls(&self, later: &Observation) -> bool {
        let key = |i: &Item| (i.role.clone(), i.name.clone(), i.context.clone());
        let before: std::collections::HashSet<_> =
            self.items.iter().filter(|i| i.control).map(key).collect();
        later
            .items
            .iter()
            .any(|i| i.control && !before.contains(&key(i)))
    }
}

/// How an item reads: `e3 checkbox "Toggle" unchecked`; `n` 0 leaves the ref out (for sizing).
fn line(item: &Item, n: usize) -> String {
    let mut out = String::new();
    if item.context.is_some() {
        out.push(' ');
    }
    if n > 0 {
        let _ = write!(out, "e{n} ");
    }
    let role = item
        .role
        .as_deref()
        .filter(|r| !r.is_empty() && *r != "generic");
    match (item.control, role) {
        (_, Some(r)) => out.push_str(r),
        (true, None) => out.push_str(&item.tag),
        (false, None) => out.push_str("text"),
    }
    if !item.name.is_empty() {
        let _ = write!(out, " {}", quote(&item.name));
    } else if let Some(near) = &item.near {
        let _ = write!(out, " near {}", quote(near));
    }
    if let Some(t) = item
        .input_type
        .as_deref()
        .filter(|t| !matches!(*t, "text" | "checkbox" | "radio" | "submit" | "button"))
    {
        let _ = write!(out, " type={t}");
    }
    if let Some(v) = &item.value {
        let _ = write!(out, " value={}", quote(v));
    }
    match &item.checked {
        Some(serde_json::Value::Bool(true)) => out.push_str(" checked"),
        Some(serde_json::Value::Bool(false)) => out.push_str(" unchecked"),
        Some(serde_json::Value::String(s)) => {
            let _ = write!(out, " checked={s}");
        }
        _ => {}
    }
    if item.disabled == Some(true) {
        out.push_str(" disabled");
    }
    if item.covered == Some(true) {
        out.push_str(" covered");
    }
    match item.expanded {
        Some(true) => out.push_str(" expanded"),
        Some(false) => out.push_str(" collapsed"),
        None => {}
    }
    if item.selected == Some(true) {
        out.push_str(" selected");
    }
    out
}

/// A name as a JSON string: quotes and control characters inside cannot break the line.
fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// The task's words that can pick out an element (three letters or more, lower-case).
fn words(task: &str) -> Vec<String> {
    let mut out: Vec<String> = task
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() > 2)
        .map(str::to_lowercase)
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(role: &str, name: &str, control: bool, context: Option<&str>, score: u32) -> Item {
        Item {
            selector: format!("role={role}[name={name:?}]"),
            role: Some(role.into()),
            name: name.into(),
            tag: "x".into(),
            control,
            score,
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

    #[test]
    fn items_render_with_refs_under_their_container() {
        let mut check = item("checkbox", "", true, Some("listitem \"Buy milk\""), 1);
        check.checked = Some(serde_json::Value::Bool(false));
        let o = Observation {
            items: vec![
                item("heading", "todos", false, None, 1),
                check,
                item("button", "Say \"hi\"", true, None, 1),
            ],
            total: 4,
            ..Observation::default()
        };
        assert_eq!(
            o.render(),
            "e1 heading \"todos\"\nlistitem \"Buy milk\":\n e2 checkbox unchecked\ne3 button \"Say \\\"hi\\\"\"\n(1 more items on the page are not shown)\n"
        );
        assert_eq!(o.item("e2").unwrap().role.as_deref(), Some("checkbox"));
        assert!(o.item("e4").is_none() && o.item("e0").is_none() && o.item("x").is_none());
    }

    #[test]
    fn fitting_drops_the_least_relevant_items_first() {
        let mut o = Observation {
            items: vec![
                item("link", "About us", true, None, 0),
                item("textbox", "Search", true, None, 9),
                item("link", "Careers", true, None, 0),
            ],
            ..Observation::default()
        };
        o.fit(40);
        let names: Vec<&str> = o.items.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["About us", "Search"]);
    }

    #[test]
    fn a_new_control_is_something_new_to_act_on() {
        let before = Observation {
            items: vec![item("textbox", "New todo", true, None, 0)],
            ..Observation::default()
        };
        let mut after = before.clone();
        after
            .items
            .push(item("heading", "1 item left", false, None, 0));
        assert!(!before.offers_new_controls(&after));
        after
            .items
            .push(item("checkbox", "", true, Some("listitem \"Buy milk\""), 0));
        assert!(before.offers_new_controls(&after));
    }
}
