//! The planner's output is untrusted: sanitized, then validated (JSON Schema, the plan's
//! semantic rules, the trust boundary every plan passes (known credential names, the app's
//! origins), then the planner's own: prefixed selectors, existing fragments). A plan is data; nothing here ever runs it.

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use windup_model::limits::PLAN_STEPS;
use windup_model::schema::Format;
use windup_model::validate::{plan_problems, schema_problems};
use windup_model::{Action, Plan, Selector};

use crate::boundary::Boundary;
use crate::fragments::Fragments;

/// What a planner's answer is checked against.
pub struct Rules<'a> {
    /// Where a plan may go and which credentials it may name: the boundary every plan passes,
    /// whichever road it comes in by.
    pub boundary: &'a Boundary,
    /// The project's fragments: a `use` step must name one of them.
    pub fragments: &'a Fragments,
    /// Ids already taken by the steps done so far.
    pub taken_ids: BTreeSet<String>,
}

/// The steps of one accepted answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// The new steps, in order, with ids the steps already done have not taken.
    pub actions: Vec<Action>,
    /// False when the task goes on past a page the planner has not seen yet.
    pub complete: bool,
}

/// Turns the model's text into a segment, or the problems to send back.
pub fn accept(text: &str, plan_stub: &Plan, rules: &Rules<'_>) -> Result<Segment, Vec<String>> {
    let value = extract_json(text).ok_or_else(|| {
        vec![format!(
            "the answer is not a JSON object (it starts with {:?})",
            text.chars().take(60).collect::<String>()
        )]
    })?;
    let (actions, complete) = sanitize(value, rules)?;
    let mut plan = plan_stub.clone();
    let mut as_value = serde_json::to_value(&plan).expect("a plan serializes");
    as_value["actions"] = Value::Array(actions);
    let problems = schema_problems("plan", Format::Plan, &as_value);
    if !problems.is_empty() {
        return Err(problems.iter().map(describe).collect());
    }
    plan = serde_json::from_value(as_value).map_err(|e| vec![format!("{e}")])?;
    let mut problems: Vec<String> = plan_problems("plan", &plan, complete)
        .iter()
        .chain(rules.fragments.check_uses("plan", "", &plan).iter())
        .map(describe)
        .collect();
    for (i, a) in plan.actions.iter().enumerate() {
        problems.extend(own_rules(i, a, rules));
    }
    // The segment's steps join those already done: the whole plan keeps to the step limit.
    let total = rules.taken_ids.len() + plan.actions.len();
    if total > PLAN_STEPS {
        problems.push(format!(
            "actions: with the {} steps already done the plan would have {total} steps, over the limit of {PLAN_STEPS} (fix: finish the task in fewer steps)",
            rules.taken_ids.len()
        ));
    }
    if problems.is_empty() {
        Ok(Segment {
            actions: plan.actions,
            complete,
        })
    } else {
        Err(problems)
    }
}

fn describe(e: &windup_model::InputError) -> String {
    format!("{}: {} (fix: {})", e.field, e.problem, e.fix)
}

/// The planner's own rules for one step.
fn own_rules(i: usize, a: &Action, rules: &Rules<'_>) -> Vec<String> {
    let mut out = Vec::new();
    let mut selectors: Vec<(String, &str)> = Vec::new();
    if let Some(t) = &a.target {
        selectors.push(("target.selector".into(), &t.selector));
    }
    if let Some(e) = &a.expect {
        for (field, s) in e.selectors() {
            selectors.push((format!("expect.{field}"), s));
        }
    }
    for (field, s) in selectors {
        if !Selector::has_engine_prefix(s) {
            out.push(format!(
                "actions[{i}].{field}: `{s}` does not start with an engine (fix: write role=…, text=…, label=…, placeholder=…, testid=… or css=… in every part of the chain)"
            ));
        }
    }
    out.extend(
        rules
            .boundary
            .step_problems("plan", &format!("actions[{i}]"), a)
            .iter()
            .map(describe),
    );
    out
}

/// The first JSON object in `text`: models wrap answers in code fences or prose.
fn extract_json(text: &str) -> Option<Value> {
    let text = text.trim().trim_start_matches('\u{feff}');
    if let Ok(v) = serde_json::from_str::<Value>(text)
        && (v.is_object() || v.is_array())
    {
        return Some(v);
    }
    let start = text.find('{')?;
    let mut stream = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    match stream.next() {
        Some(Ok(v)) if v.is_object() => Some(v),
        _ => None,
    }
}

/// Normalises what strict structured output and loose local models produce: nulls for absent
/// optional fields, blank strings, a bare list of actions, an ENV name typed as `value`, missing
/// or clashing ids.
fn sanitize(value: Value, rules: &Rules<'_>) -> Result<(Vec<Value>, bool), Vec<String>> {
    let (actions, complete) = match value {
        Value::Array(a) => (a, true),
        Value::Object(mut o) => {
            let complete = o.get("complete").and_then(Value::as_bool).unwrap_or(true);
            match o.remove("actions") {
                Some(Value::Array(mut a)) => {
                    if let (Some(Value::Object(last)), Some(Value::Object(finally))) =
                        (a.last_mut(), o.remove("final_expect"))
                    {
                        merge_final_expect(last, finally);
                    }
                    (a, complete)
                }
                _ => return Err(vec!["`actions` is missing or not a list (fix: answer {\"actions\": [...], \"complete\": true})".into()]),
            }
        }
        _ => unreachable!("extract_json returns objects and arrays"),
    };
    if actions.is_empty() {
        return Err(vec![
            "`actions` is empty (fix: give at least one step)".into(),
        ]);
    }
    let mut taken = rules.taken_ids.clone();
    let mut next = taken.len() + 1;
    let mut out = Vec::with_capacity(actions.len());
    for action in actions {
        let Value::Object(mut a) = action else {
            out.push(action);
            continue;
        };
        strip(&mut a);
        for key in ["target", "expect"] {
            if let Some(Value::Object(inner)) = a.get_mut(key) {
                strip(inner);
                for nested in ["value", "count"] {
                    if let Some(Value::Object(n)) = inner.get_mut(nested) {
                        strip(n);
                    }
                }
            }
            if a.get(key)
                .is_some_and(|v| v.as_object().is_some_and(Map::is_empty))
            {
                a.remove(key);
            }
        }
        // Fields the step type does not take carry no meaning: grammar-constrained models
        // fill every field they are shown. What remains is validated and verified as usual.
        let kind = a
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let takes = |field: &str| match field {
            "url" => kind == "goto",
            "key" => kind == "press",
            "use" => kind == "use",
            "value" => kind == "fill" || kind == "select",
            "value_ref" => kind == "fill",
            "target" => !matches!(kind.as_str(), "goto" | "use"),
            _ => true,
        };
        a.retain(|k, _| takes(k));
        if a.get("timeout_ms")
            .and_then(Value::as_u64)
            .is_some_and(|t| t == 0 || t > 600_000)
        {
            a.remove("timeout_ms");
        }
        if let Some(Value::Object(e)) = a.get_mut("expect") {
            // `"visible": "true"` is a model answering a yes/no question, not a selector.
            e.retain(|_, v| !matches!(v.as_str(), Some("true" | "false" | "null" | "none")));
            if e.is_empty() {
                a.remove("expect");
            }
        }
        let is_fill = kind == "fill";
        if is_fill
            && !a.contains_key("value_ref")
            && let Some(Value::String(v)) = a.get("value")
            && rules.boundary.credential_names().any(|n| n == v)
        {
            let name = v.clone();
            a.remove("value");
            a.insert("value_ref".into(), Value::String(name));
        }
        let id_ok = a
            .get("id")
            .and_then(Value::as_str)
            .is_some_and(|id| !id.is_empty() && !taken.contains(id));
        if !id_ok {
            while taken.contains(&format!("a{next}")) {
                next += 1;
            }
            a.insert("id".into(), Value::String(format!("a{next}")));
        }
        if let Some(id) = a.get("id").and_then(Value::as_str) {
            taken.insert(id.to_string());
        }
        out.push(Value::Object(a));
    }
    Ok((out, complete))
}

/// The answer's `final_expect` (the facts that hold after the last step) joins the last step's
/// own `expect`; a field the step already checks keeps the step's version.
fn merge_final_expect(last: &mut Map<String, Value>, mut finally: Map<String, Value>) {
    strip(&mut finally);
    if finally.is_empty() {
        return;
    }
    match last.get_mut("expect") {
        Some(Value::Object(own)) => {
            for (k, v) in finally {
                let missing = own.get(&k).is_none_or(Value::is_null);
                if missing {
                    own.insert(k, v);
                }
            }
        }
        _ => {
            last.insert("expect".into(), Value::Object(finally));
        }
    }
}

/// Drops nulls and blank optional strings, trims the rest. `value` may legitimately be "".
fn strip(o: &mut Map<String, Value>) {
    o.retain(|k, v| match v {
        Value::Null => false,
        Value::String(s) => k == "value" || k == "equals" || !s.trim().is_empty(),
        _ => true,
    });
    for (k, v) in o.iter_mut() {
        if let Value::String(s) = v
            && k != "value"
            && k != "equals"
        {
            let t = s.trim();
            if t.len() != s.len() {
                *s = t.to_string();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn stub() -> Plan {
        Plan {
            plan_version: windup_model::plan::PLAN_VERSION.into(),
            scenario_id: "s".into(),
            task: "t".into(),
            start_url: "/".into(),
            generated_by: "test/model".into(),
            actions: Vec::new(),
        }
    }

    /// The boundary of a project on http://127.0.0.1:9/ whose one account has `credentials`.
    fn boundary(credentials: &[&str]) -> Boundary {
        let mut manifest = crate::secrets::Manifest::default();
        if !credentials.is_empty() {
            let mut account = crate::secrets::Account::default();
            for (i, c) in credentials.iter().enumerate() {
                account.fields.insert(format!("f{i}"), c.to_string());
            }
            manifest.accounts.insert("admin".into(), account);
        }
        Boundary::new(
            &url::Url::parse("http://127.0.0.1:9/").unwrap(),
            &[],
            &manifest,
        )
    }

    fn check(answer: Value) -> Result<Segment, Vec<String>> {
        check_text(&answer.to_string())
    }

    /// Checks an answer as the model wrote it, with ADMIN_PASSWORD as the one credential.
    fn check_text(text: &str) -> Result<Segment, Vec<String>> {
        let boundary = boundary(&["ADMIN_PASSWORD"]);
        let rules = Rules {
            boundary: &boundary,
            fragments: &Fragments::default(),
            taken_ids: BTreeSet::new(),
        };
        accept(text, &stub(), &rules)
    }

    #[test]
    fn strict_mode_nulls_and_fences_are_accepted() {
        let text = "```json\n{\"actions\":[{\"id\":\"a1\",\"type\":\"fill\",\"target\":{\"selector\":\"label=\\\"Password\\\"\",\"description\":null},\"value\":\"ADMIN_PASSWORD\",\"value_ref\":null,\"url\":null,\"key\":null,\"use\":null,\"expect\":{\"visible\":null,\"hidden\":null,\"url\":\"/home\",\"value\":null,\"count\":null},\"timeout_ms\":null}],\"complete\":true}\n```";
        let seg = check_text(text).unwrap();
        assert_eq!(seg.actions[0].value_ref.as_deref(), Some("ADMIN_PASSWORD"));
        assert_eq!(seg.actions[0].value, None);
    }

    #[test]
    fn fields_a_step_does_not_take_are_dropped_then_the_rest_checked() {
        // What grammar-constrained small models write when shown every field.
        let seg = check(json!({"actions": [{
            "id": "a1", "type": "click", "target": {"selector": "text=\"Go\""},
            "value": "Go", "value_ref": "X_Y", "url": "/x", "key": "Enter", "use": "f",
            "timeout_ms": 6_000_000_000_000_000u64,
            "expect": {"visible": "true", "hidden": "false", "url": "/done"}
        }], "complete": true}))
        .unwrap();
        let a = &seg.actions[0];
        assert_eq!(
            (a.value.as_deref(), a.url.as_deref(), a.key.as_deref()),
            (None, None, None)
        );
        assert_eq!((a.use_fragment.as_deref(), a.timeout_ms), (None, None));
        let e = a.expect.as_ref().unwrap();
        assert_eq!(
            (e.visible.as_deref(), e.url.as_deref()),
            (None, Some("/done"))
        );
    }

    #[test]
    fn foreign_goto_unknown_ref_and_bare_selector_are_rejected() {
        let err = check(json!({"actions": [
            {"id": "a1", "type": "goto", "url": "http://evil.example/x"},
            {"id": "a2", "type": "fill", "target": {"selector": "#pw"}, "value_ref": "ROOT_TOKEN"},
            {"id": "a3", "type": "click", "target": {"selector": "text=\"Go\""}, "expect": {"visible": "h1"}}
        ], "complete": true}))
        .unwrap_err();
        let all = err.join("\n");
        assert!(all.contains("leaves the application's origin"), "{all}");
        assert!(all.contains("`ROOT_TOKEN` is not a credential"), "{all}");
        assert!(all.contains("`#pw` does not start with an engine"), "{all}");
        assert!(all.contains("expect.visible: `h1`"), "{all}");
    }

    #[test]
    fn final_expect_joins_the_last_steps_own_checks() {
        let seg = check(json!({"actions": [
            {"id": "a1", "type": "fill", "target": {"selector": "label=\"Name\""}, "value": "x"},
            {"id": "a2", "type": "click", "target": {"selector": "text=\"Go\""}, "expect": {"url": "/own"}}
        ], "final_expect": {"url": "/other", "visible": "text=\"Done\"", "hidden": null}, "complete": true}))
        .unwrap();
        assert_eq!(seg.actions[0].expect, None);
        let e = seg.actions[1].expect.as_ref().unwrap();
        assert_eq!(e.url.as_deref(), Some("/own"), "the step's own check wins");
        assert_eq!(e.visible.as_deref(), Some("text=\"Done\""));
        assert_eq!(e.hidden, None);
        // An empty final_expect adds nothing: the missing postcondition is still named.
        let err = check(json!({"actions": [{"id": "a1", "type": "click", "target": {"selector": "text=\"Go\""}}],
            "final_expect": {"visible": null, "url": " "}, "complete": true}))
        .unwrap_err();
        assert!(err.join("\n").contains("no postcondition"), "{err:?}");
    }

    #[test]
    fn schema_breaking_answers_are_named() {
        let err = check(json!({"actions": [{"id": "a1", "type": "teleport"}]})).unwrap_err();
        assert!(err.join("\n").contains("actions[0].type"), "{err:?}");
        let err = check(json!({"steps": []})).unwrap_err();
        assert!(err[0].contains("`actions` is missing"));
        assert!(
            accept(
                "I cannot help",
                &stub(),
                &Rules {
                    boundary: &boundary(&[]),
                    fragments: &Fragments::default(),
                    taken_ids: BTreeSet::new(),
                }
            )
            .unwrap_err()[0]
                .contains("not a JSON object")
        );
    }

    #[test]
    fn unfinished_segments_may_end_without_expect_and_ids_continue() {
        let boundary = boundary(&[]);
        let rules = Rules {
            boundary: &boundary,
            fragments: &Fragments::default(),
            taken_ids: ["a1".to_string(), "a2".to_string()].into(),
        };
        let seg = accept(
            &json!({"actions": [{"id": "a1", "type": "click", "target": {"selector": "text=\"Next\""}}], "complete": false}).to_string(),
            &stub(),
            &rules,
        )
        .unwrap();
        assert_eq!(seg.actions[0].id, "a3");
        assert!(!seg.complete);
        let err = check(json!({"actions": [{"id": "a1", "type": "click", "target": {"selector": "text=\"Next\""}}], "complete": true})).unwrap_err();
        assert!(err.join("\n").contains("no postcondition"), "{err:?}");
        // The steps already done count towards the plan's step limit.
        let done = Rules {
            taken_ids: (0..PLAN_STEPS).map(|i| format!("d{i}")).collect(),
            ..rules
        };
        let next = json!({"actions": [{"id": "a1", "type": "click", "target": {"selector": "text=\"Next\""}}], "complete": false}).to_string();
        let err = accept(&next, &stub(), &done).unwrap_err();
        assert!(
            err.join("\n")
                .contains("would have 501 steps, over the limit of 500"),
            "{err:?}"
        );
    }
}
