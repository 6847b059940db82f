//! Answers that point at what the prompt showed, as a model does: a scripted answer names
//! elements and facts by what they are, and the fake turns them into the refs and numbers of
//! the prompt it was sent. Nothing is canned: if the prompt does not show the element, the
//! answer keeps the unresolved text and the engine rejects it.
//!
//! In a template, a string `"@textbox \"New todo\""` becomes the ref of the first ELEMENTS line
//! whose text after the ref starts with `textbox "New todo"`; `"@listitem \"Buy milk\" > checkbox"`
//! the first line starting `checkbox` under the container line `listitem "Buy milk":`; and
//! `"#text=\"Buy milk\""` the number of the first WHAT CHANGED line containing `text="Buy milk"`.

use serde_json::Value;

/// Every string of `prompt`'s JSON body (messages, parts), one after another.
pub fn prompt_text(body: &str) -> String {
    fn collect(v: &Value, out: &mut String) {
        match v {
            Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            Value::Array(a) => a.iter().for_each(|v| collect(v, out)),
            Value::Object(o) => o.values().for_each(|v| collect(v, out)),
            _ => {}
        }
    }
    let mut out = String::new();
    if let Ok(v) = serde_json::from_str::<Value>(body) {
        collect(&v, &mut out);
    }
    out
}

/// `template` with its `@…` and `#…` strings resolved against `prompt`.
pub fn resolve(template: &Value, prompt: &str) -> Value {
    match template {
        Value::String(s) => {
            if let Some(what) = s.strip_prefix('@') {
                ref_of(what, prompt).map_or_else(|| template.clone(), Value::String)
            } else if let Some(fact) = s.strip_prefix('#') {
                fact_number(fact, prompt).map_or_else(|| template.clone(), Value::from)
            } else {
                template.clone()
            }
        }
        Value::Array(a) => Value::Array(a.iter().map(|v| resolve(v, prompt)).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (k.clone(), resolve(v, prompt)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The ref of the element `what` describes (`role "name"`, optionally `container > role …`).
pub fn ref_of(what: &str, prompt: &str) -> Option<String> {
    let (container, item) = match what.split_once(" > ") {
        Some((c, i)) => (Some(format!("{}:", c.trim())), i.trim()),
        None => (None, what.trim()),
    };
    let mut inside = container.is_none();
    for line in prompt.lines() {
        if let Some(c) = &container
            && !line.starts_with(' ')
        {
            inside = line.trim() == c;
            continue;
        }
        if !inside {
            continue;
        }
        let Some((r, rest)) = line.trim().split_once(' ') else {
            continue;
        };
        let is_ref =
            r.len() > 1 && r.starts_with('e') && r[1..].chars().all(|c| c.is_ascii_digit());
        if is_ref && rest.starts_with(item) {
            return Some(r.to_string());
        }
    }
    None
}

/// The number of the first listed fact containing `fact`.
pub fn fact_number(fact: &str, prompt: &str) -> Option<u64> {
    prompt.lines().find_map(|line| {
        let (n, rest) = line.split_once(". ")?;
        let n: u64 = n.trim().parse().ok()?;
        rest.contains(fact).then_some(n)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const PROMPT: &str = "TASK: t\nWHAT CHANGED:\nafter a2 press \"Enter\":\n1. visible: text=\"Buy milk\"\n2. count: role=listitem = 1\nELEMENTS:\ne1 textbox \"New todo\"\nlistitem \"Buy milk\":\n e2 checkbox unchecked\n e3 text \"Buy milk\"\ne4 checkbox \"Toggle all\"\n";

    #[test]
    fn names_and_facts_become_the_prompts_refs_and_numbers() {
        let answer = resolve(
            &json!({"proofs": ["#count: role=listitem"], "actions": [
                {"type": "check", "target": {"ref": "@listitem \"Buy milk\" > checkbox"}},
                {"type": "click", "target": {"ref": "@checkbox \"Toggle all\""}},
                {"type": "click", "target": {"ref": "@button \"Add\""}}
            ]}),
            PROMPT,
        );
        assert_eq!(answer["proofs"], json!([2]));
        assert_eq!(answer["actions"][0]["target"]["ref"], "e2");
        assert_eq!(answer["actions"][1]["target"]["ref"], "e4");
        // Not on the page: left as written, for the engine to reject.
        assert_eq!(answer["actions"][2]["target"]["ref"], "@button \"Add\"");
    }
}
