//! The planner's output is untrusted: grounded (every target is a ref of the observation the
//! model was shown, turned into that element's selector; every proof a listed fact), sanitized,
//! then validated (JSON Schema, the plan's semantic rules, the trust boundary every plan passes
//! (known credential names, the app's origins), then the planner's own: prefixed selectors,
//! existing fragments, used only on a page their start matches, upload files that are in
//! `e2e/files/`). A plan is data; nothing here ever runs it.

use std::collections::BTreeSet;

use serde_json::{Map, Value};
use windup_model::limits::PLAN_STEPS;
use windup_model::schema::Format;
use windup_model::validate::{plan_problems, schema_problems};
use windup_model::{Action, Plan, Selector};

use super::observation::Observation;
use super::targets::{
    credential_misfit, describe_item, fitting, misfit, next_fit, only_field, target_ref, verifies,
};
use crate::boundary::Boundary;
use crate::fragments::{Fragments, page_path};

/// What a planner's answer is checked against.
pub struct Rules<'a> {
    /// Where a plan may go and which credentials it may name: the boundary every plan passes,
    /// whichever road it comes in by.
    pub boundary: &'a Boundary,
    /// The project's fragments: a `use` step must name one of them.
    pub fragments: &'a Fragments,
    /// Ids already taken by the steps done so far.
    pub taken_ids: BTreeSet<String>,
    /// The page the model was shown: its refs are the only targets an answer may name.
    pub observation: &'a Observation,
    /// How many facts the prompt listed: proofs are numbers from 1 to this.
    pub facts: usize,
    /// The files in the project's `e2e/files/`: an upload's `files` must name only these.
    pub files: &'a [String],
}

/// The steps of one accepted answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// The new steps, in order, with ids the steps already done have not taken.
    pub actions: Vec<Action>,
    /// False when the task goes on past a page the planner has not seen yet.
    pub complete: bool,
    /// The numbers of the listed facts the answer says prove the steps before it.
    pub proofs: Vec<usize>,
}

/// Turns the model's text into a segment, or the problems to send back.
pub fn accept(text: &str, plan_stub: &Plan, rules: &Rules<'_>) -> Result<Segment, Vec<String>> {
    let value = extract_json(text).ok_or_else(|| {
        vec![format!(
            "the answer is not a JSON object (it starts with {:?})",
            text.chars().take(60).collect::<String>()
        )]
    })?;
    let (value, proofs) = ground(value, rules)?;
    let (actions, complete) = sanitize(value, rules)?;
    if actions.is_empty() {
        return Ok(Segment {
            actions: Vec::new(),
            complete,
            proofs,
        });
    }
    let mut plan = plan_stub.clone();
    let mut as_value = serde_json::to_value(&plan).expect("a plan serializes");
    as_value["actions"] = Value::Array(actions);
    let problems = schema_problems("plan", Format::Plan, &as_value);
    if !problems.is_empty() {
        return Err(problems.iter().map(describe).collect());
    }
    plan = serde_json::from_value(as_value).map_err(|e| vec![format!("{e}")])?;
    // Postconditions are chosen from facts after the steps run, not written here.
    let mut problems: Vec<String> = plan_problems("plan", &plan, false)
        .iter()
        .chain(rules.fragments.check_uses("plan", "", &plan).iter())
        .map(describe)
        .collect();
    for (i, a) in plan.actions.iter().enumerate() {
        problems.extend(own_rules(i, a, rules));
    }
    problems.extend(
        rules
            .fragments
            .start_problems(&plan.actions, &page_path(&rules.observation.url)),
    );
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
            proofs,
        })
    } else {
        Err(problems)
    }
}

/// A rejected answer without its steps that fit no target (a `fill` on a checkbox, a `check` on
/// a heading): what a small model's last answer still holds after its retries. Returns the
/// segment and the steps left out, one line each; the problems when nothing was left out, when
/// something else is wrong, or when no step is left.
pub fn salvage(
    text: &str,
    plan_stub: &Plan,
    rules: &Rules<'_>,
) -> Result<(Segment, Vec<String>), Vec<String>> {
    let mut value = extract_json(text).ok_or_else(|| vec!["not a JSON object".to_string()])?;
    let mut dropped = Vec::new();
    if let Some(Value::Array(actions)) = value.get_mut("actions") {
        actions.retain(|a| {
            let kind = a.get("type").and_then(Value::as_str).unwrap_or_default();
            let Some(r) = a.get("target").and_then(target_ref) else {
                return true;
            };
            match rules.observation.item(r) {
                Some(item)
                    if misfit(kind, item).is_some()
                        && next_fit(kind, r, rules.observation).is_none() =>
                {
                    dropped.push(format!("`{kind}` on {r} ({})", describe_item(item)));
                    false
                }
                _ => true,
            }
        });
    }
    if dropped.is_empty() {
        return Err(vec!["no step to leave out".into()]);
    }
    let segment = accept(&value.to_string(), plan_stub, rules)?;
    if segment.actions.is_empty() {
        return Err(vec!["no step is left".into()]);
    }
    Ok((segment, dropped))
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
    if a.kind == windup_model::ActionType::Upload {
        for (k, name) in a.files.iter().flatten().enumerate() {
            if !rules.files.contains(name) {
                out.push(format!(
                    "actions[{i}].files[{k}]: `{name}` is not in {}/ (fix: name only files listed in FILES{})",
                    windup_model::plan::FILES_DIR,
                    if rules.files.is_empty() {
                        ", which is empty: there is nothing to upload".to_string()
                    } else {
                        format!(": {}", rules.files.join(", "))
                    }
                ));
            }
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

/// Turns every ref into its element's selector and reads the proofs. A target that is not one
/// of the observed refs (or a selector written instead of a ref) is a problem; so is a proof
/// that is not a listed fact's number. Postconditions written into the answer are dropped:
/// they can only come from the facts the page showed.
fn ground(value: Value, rules: &Rules<'_>) -> Result<(Value, Vec<usize>), Vec<String>> {
    let mut value = match value {
        Value::Array(a) => serde_json::json!({"actions": a, "complete": true}),
        v => v,
    };
    let Value::Object(o) = &mut value else {
        return Ok((value, Vec::new()));
    };
    o.remove("final_expect");
    let (proofs, mut problems) = read_proofs(o.remove("proofs"), rules.facts);
    if let Some(Value::Array(actions)) = o.get_mut("actions") {
        // A check on what cannot be ticked is the task's "check that …" read as a step: the
        // outcome is verified from what changed, so the step goes.
        actions.retain(|a| !verifies(a, rules.observation));
        for (i, a) in actions.iter_mut().enumerate() {
            let Value::Object(a) = a else { continue };
            a.remove("expect");
            a.remove("id");
            let Some(target) = a.remove("target") else {
                continue;
            };
            if target.is_null() {
                continue;
            }
            let Some(r) = target_ref(&target).map(str::to_string) else {
                problems.push(format!(
                    "actions[{i}].target: {target} names no ref; selectors are not accepted (fix: write {{\"ref\": \"e3\"}} with a ref from ELEMENTS)"
                ));
                continue;
            };
            let kind = a.get("type").and_then(Value::as_str).unwrap_or_default();
            // A fill or select on a field's caption (a label the page does not tie to its
            // field) means the field right after it.
            let r = match rules.observation.item(&r) {
                Some(item) if misfit(kind, item).is_some() => next_fit(kind, &r, rules.observation)
                    .or_else(|| only_field(kind, rules.observation))
                    .unwrap_or(r),
                _ => r,
            };
            match rules.observation.item(&r) {
                Some(item) if let Some(why) = misfit(kind, item) => problems.push(format!(
                    "actions[{i}]: `{kind}` on {r} ({}): {why}; {}",
                    describe_item(item),
                    fitting(kind, rules.observation)
                )),
                Some(item) if let Some(why) = credential_misfit(a, item, rules.boundary) => problems
                    .push(format!(
                        "actions[{i}]: `fill` on {r} ({}): {why}",
                        describe_item(item)
                    )),
                Some(item) => {
                    a.insert(
                        "target".into(),
                        serde_json::json!({"selector": item.selector, "description": describe_item(item)}),
                    );
                }
                None => problems.push(format!(
                    "actions[{i}].target.ref: `{r}` is not one of the refs on this page (fix: use a ref listed in ELEMENTS, e1 to e{})",
                    rules.observation.items.len()
                )),
            }
        }
    }
    if problems.is_empty() {
        Ok((value, proofs))
    } else {
        Err(problems)
    }
}

/// A closing answer's proofs: numbers of the `facts` listed facts; at least one.
pub fn proofs(text: &str, facts: usize) -> Result<Vec<usize>, Vec<String>> {
    let value = extract_json(text).ok_or_else(|| {
        vec![format!(
            "the answer is not a JSON object (it starts with {:?})",
            text.chars().take(60).collect::<String>()
        )]
    })?;
    let list = match value {
        Value::Object(mut o) => o.remove("proofs"),
        list => Some(list),
    };
    let (picked, mut problems) = read_proofs(list, facts);
    if picked.is_empty() && problems.is_empty() {
        problems
            .push("proofs: none given (fix: give at least one number from WHAT CHANGED)".into());
    }
    if problems.is_empty() {
        Ok(picked)
    } else {
        Err(problems)
    }
}

/// The fact numbers in `list` (numbers or digit strings), and what is wrong with the others.
fn read_proofs(list: Option<Value>, facts: usize) -> (Vec<usize>, Vec<String>) {
    let mut picked = Vec::new();
    let mut problems = Vec::new();
    match list {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) => {
            for (i, p) in list.iter().enumerate() {
                let n = p
                    .as_u64()
                    .or_else(|| p.as_str().and_then(|s| s.trim().parse().ok()));
                match n {
                    Some(n) if n >= 1 && n as usize <= facts => {
                        if !picked.contains(&(n as usize)) {
                            picked.push(n as usize);
                        }
                    }
                    _ => problems.push(format!(
                        "proofs[{i}]: {p} is not the number of a listed fact (fix: give numbers from WHAT CHANGED{})",
                        if facts == 0 {
                            ", which is empty: leave proofs out".to_string()
                        } else {
                            format!(", 1 to {facts}")
                        }
                    )),
                }
            }
        }
        Some(other) => problems.push(format!(
            "proofs: {other} is not a list of numbers (fix: \"proofs\": [1, 2])"
        )),
    }
    (picked, problems)
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
                Some(Value::Array(a)) => (a, complete),
                None | Some(Value::Null) if complete => (Vec::new(), complete),
                _ => return Err(vec!["`actions` is missing or not a list (fix: answer {\"actions\": [...], \"complete\": true})".into()]),
            }
        }
        _ => unreachable!("extract_json returns objects and arrays"),
    };
    if actions.is_empty() && !complete {
        return Err(vec![
            "`actions` is empty but the task is not complete (fix: give the next steps, or set \"complete\": true)".into(),
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
            "files" => kind == "upload",
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
    use crate::planner::observation::Item;
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
            // The field named like the credential: ADMIN_PASSWORD is a secret, ADMIN_EMAIL not.
            for c in credentials {
                account
                    .fields
                    .insert(c.to_lowercase(), c.to_string().into());
            }
            manifest.accounts.insert("admin".into(), account);
        }
        Boundary::new(
            &url::Url::parse("http://127.0.0.1:9/").unwrap(),
            &[],
            &manifest,
        )
    }

    /// A login page: e1 the password field, e2 the Go button.
    fn page() -> Observation {
        let item = |selector: &str, role: &str, name: &str| Item {
            selector: selector.into(),
            role: Some(role.into()),
            name: name.into(),
            tag: "x".into(),
            control: true,
            score: 0,
            context: None,
            input_type: None,
            value: None,
            checked: None,
            disabled: None,
            covered: None,
            near: None,
            expanded: None,
            selected: None,
            href: None,
        };
        let password = Item {
            tag: "input".into(),
            input_type: Some("password".into()),
            ..item("label=\"Password\"", "textbox", "Password")
        };
        Observation {
            items: vec![password, item("role=button[name=\"Go\"]", "button", "Go")],
            ..Observation::default()
        }
    }

    fn check(answer: Value) -> Result<Segment, Vec<String>> {
        check_text(&answer.to_string(), 2)
    }

    /// Checks an answer as the model wrote it, with ADMIN_PASSWORD as the one credential.
    fn check_text(text: &str, facts: usize) -> Result<Segment, Vec<String>> {
        let boundary = boundary(&["ADMIN_PASSWORD"]);
        let page = page();
        let rules = Rules {
            boundary: &boundary,
            fragments: &Fragments::default(),
            taken_ids: BTreeSet::new(),
            observation: &page,
            facts,
            files: &[],
        };
        accept(text, &stub(), &rules)
    }

    #[test]
    fn refs_become_the_observed_elements_selectors() {
        let seg = check(json!({"proofs": [2], "actions": [
            {"type": "fill", "target": {"ref": "e1"}, "value_ref": "ADMIN_PASSWORD"},
            {"type": "click", "target": "e2"}
        ], "complete": true}))
        .unwrap();
        let t = |i: usize| seg.actions[i].target.clone().unwrap();
        assert_eq!(t(0).selector, "label=\"Password\"");
        assert_eq!(t(1).selector, "role=button[name=\"Go\"]");
        assert_eq!(t(1).description.as_deref(), Some("button \"Go\""));
        assert_eq!(
            (seg.actions[0].id.as_str(), seg.actions[1].id.as_str()),
            ("a1", "a2")
        );
        assert_eq!(seg.proofs, [2]);
    }

    #[test]
    fn a_credential_aimed_at_a_field_it_does_not_fit_is_rejected_by_the_shared_rule() {
        let boundary = boundary(&["ADMIN_PASSWORD"]);
        let mut page = page();
        page.items[0].input_type = Some("search".into());
        let rules = Rules {
            boundary: &boundary,
            fragments: &Fragments::default(),
            taken_ids: BTreeSet::new(),
            observation: &page,
            facts: 2,
            files: &[],
        };
        // Written as a value_ref, or as a value naming the credential.
        for step in [
            json!({"type": "fill", "target": {"ref": "e1"}, "value_ref": "ADMIN_PASSWORD"}),
            json!({"type": "fill", "target": {"ref": "e1"}, "value": "ADMIN_PASSWORD"}),
        ] {
            let answer = json!({"proofs": [1], "actions": [step], "complete": true});
            let err = accept(&answer.to_string(), &stub(), &rules).unwrap_err();
            assert!(
                err[0].contains("the credential ADMIN_PASSWORD goes only into a password field")
                    && err[0].contains("a search box"),
                "{err:?}"
            );
        }
    }

    #[test]
    fn an_unobserved_ref_a_selector_or_an_unlisted_fact_is_rejected() {
        let err = check(json!({"proofs": [3], "actions": [
            {"type": "click", "target": {"ref": "e9"}},
            {"type": "click", "target": {"selector": "role=button[name=\"Add\"]"}}
        ], "complete": true}))
        .unwrap_err()
        .join("\n");
        assert!(
            err.contains("`e9` is not one of the refs on this page"),
            "{err}"
        );
        assert!(err.contains("selectors are not accepted"), "{err}");
        assert!(
            err.contains("proofs[0]: 3 is not the number of a listed fact"),
            "{err}"
        );
    }

    #[test]
    fn a_step_whose_type_does_not_fit_its_target_is_rejected_or_mended() {
        // A fill on the button of a page with one field can only have meant the field.
        let seg = check(json!({"actions": [
            {"type": "fill", "target": {"ref": "e2"}, "value": "x"}
        ], "complete": true}))
        .unwrap();
        assert_eq!(
            seg.actions[0].target.as_ref().unwrap().selector,
            "label=\"Password\""
        );
        let err = check(json!({"actions": [
            {"type": "select", "target": {"ref": "e1"}, "value": "x"}
        ], "complete": true}))
        .unwrap_err()
        .join("\n");
        // The rejection names the elements that would fit (a small model told only "target
        // a list box" answers the same ref again), or that none does.
        assert!(
            err.contains("actions[0]: `select` on e1 (textbox \"Password\"): select chooses an option of a list box (fix: target a list box); no element in ELEMENTS takes `select`: use another step type"),
            "{err}"
        );
        // "Check that it is saved" read as a step: a check on what cannot be ticked goes.
        let seg = check(json!({"actions": [
            {"type": "click", "target": {"ref": "e2"}},
            {"type": "check", "target": {"ref": "e1"}}
        ], "complete": true}))
        .unwrap();
        assert_eq!(seg.actions.len(), 1);
        // A fill on a caption the page does not tie to its field types into that field.
        let mut page = page();
        let caption = Item {
            control: false,
            role: None,
            name: "Password".into(),
            selector: "text=\"Password\"".into(),
            ..page.items[0].clone()
        };
        page.items.insert(0, caption);
        let boundary = boundary(&[]);
        let rules = Rules {
            boundary: &boundary,
            fragments: &Fragments::default(),
            taken_ids: BTreeSet::new(),
            observation: &page,
            facts: 0,
            files: &[],
        };
        let answer = json!({"actions": [{"type": "fill", "target": {"ref": "e1"}, "value": "x"}], "complete": true});
        let seg = accept(&answer.to_string(), &stub(), &rules).unwrap();
        assert_eq!(
            seg.actions[0].target.as_ref().unwrap().selector,
            "label=\"Password\""
        );
    }

    #[test]
    fn a_last_rejected_answer_is_salvaged_without_the_steps_that_fit_no_target() {
        let boundary = boundary(&["ADMIN_PASSWORD"]);
        let page = page();
        let rules = Rules {
            boundary: &boundary,
            fragments: &Fragments::default(),
            taken_ids: BTreeSet::new(),
            observation: &page,
            facts: 0,
            files: &[],
        };
        // `select` fits nothing here: that step goes, the click stays.
        let answer = json!({"actions": [
            {"type": "select", "target": {"ref": "e1"}, "value": "x"},
            {"type": "click", "target": {"ref": "e2"}}
        ], "complete": true})
        .to_string();
        assert!(accept(&answer, &stub(), &rules).is_err());
        let (seg, dropped) = salvage(&answer, &stub(), &rules).unwrap();
        assert_eq!(seg.actions.len(), 1);
        assert_eq!(seg.actions[0].kind, windup_model::ActionType::Click);
        assert_eq!(dropped, ["`select` on e1 (textbox \"Password\")"]);
        // Nothing else is forgiven: an unobserved ref is no salvage, nor is an answer left empty.
        let unknown = json!({"actions": [
            {"type": "select", "target": {"ref": "e1"}, "value": "x"},
            {"type": "click", "target": {"ref": "e9"}}
        ], "complete": true})
        .to_string();
        assert!(salvage(&unknown, &stub(), &rules).is_err());
        let only = json!({"actions": [{"type": "select", "target": {"ref": "e1"}, "value": "x"}], "complete": true}).to_string();
        assert!(salvage(&only, &stub(), &rules).is_err());
    }

    #[test]
    fn written_postconditions_are_dropped_they_come_from_facts() {
        let seg = check(json!({"actions": [
            {"type": "click", "target": {"ref": "e2"}, "expect": {"visible": "text=\"Saved\""}}
        ], "final_expect": {"visible": "text=\"Saved\""}, "complete": true}))
        .unwrap();
        assert_eq!(seg.actions[0].expect, None);
    }

    #[test]
    fn strict_mode_nulls_and_fences_are_accepted() {
        let text = "```json\n{\"proofs\":null,\"actions\":[{\"type\":\"fill\",\"target\":{\"ref\":\"e1\"},\"value\":\"ADMIN_PASSWORD\",\"value_ref\":null,\"url\":null,\"key\":null,\"use\":null}],\"complete\":true}\n```";
        let seg = check_text(text, 0).unwrap();
        assert_eq!(seg.actions[0].value_ref.as_deref(), Some("ADMIN_PASSWORD"));
        assert_eq!(seg.actions[0].value, None);
    }

    #[test]
    fn fields_a_step_does_not_take_are_dropped_then_the_rest_checked() {
        // What grammar-constrained small models write when shown every field.
        let seg = check(json!({"actions": [{
            "type": "click", "target": {"ref": "e2"},
            "value": "Go", "value_ref": "X_Y", "url": "/x", "key": "Enter", "use": "f",
            "timeout_ms": 6_000_000_000_000_000u64
        }], "complete": true}))
        .unwrap();
        let a = &seg.actions[0];
        assert_eq!(
            (a.value.as_deref(), a.url.as_deref(), a.key.as_deref()),
            (None, None, None)
        );
        assert_eq!((a.use_fragment.as_deref(), a.timeout_ms), (None, None));
    }

    #[test]
    fn foreign_goto_and_unknown_credential_are_rejected() {
        let err = check(json!({"actions": [
            {"type": "goto", "url": "http://evil.example/x"},
            {"type": "fill", "target": {"ref": "e1"}, "value_ref": "ROOT_TOKEN"}
        ], "complete": true}))
        .unwrap_err();
        let all = err.join("\n");
        assert!(all.contains("leaves the application's origin"), "{all}");
        assert!(all.contains("`ROOT_TOKEN` is not a credential"), "{all}");
    }

    #[test]
    fn schema_breaking_answers_are_named() {
        let err = check(json!({"actions": [{"type": "teleport"}]})).unwrap_err();
        assert!(err.join("\n").contains("actions[0].type"), "{err:?}");
        let err = check(json!({"steps": [], "complete": false})).unwrap_err();
        assert!(err[0].contains("`actions` is missing"), "{err:?}");
        let err = check(json!({"actions": [], "complete": false})).unwrap_err();
        assert!(err[0].contains("`actions` is empty"), "{err:?}");
        // Done already: no steps, only proofs.
        let seg = check(json!({"proofs": [1], "actions": [], "complete": true})).unwrap();
        assert!(seg.actions.is_empty() && seg.complete);
        assert!(check_text("I cannot help", 0).unwrap_err()[0].contains("not a JSON object"));
    }

    #[test]
    fn ids_continue_and_steps_done_count_towards_the_limit() {
        let boundary = boundary(&[]);
        let page = page();
        let rules = Rules {
            boundary: &boundary,
            fragments: &Fragments::default(),
            taken_ids: ["a1".to_string(), "a2".to_string()].into(),
            observation: &page,
            facts: 0,
            files: &[],
        };
        let next =
            json!({"actions": [{"type": "click", "target": {"ref": "e2"}}], "complete": false})
                .to_string();
        let seg = accept(&next, &stub(), &rules).unwrap();
        assert_eq!(seg.actions[0].id, "a3");
        assert!(!seg.complete);
        let done = Rules {
            taken_ids: (0..PLAN_STEPS).map(|i| format!("d{i}")).collect(),
            ..rules
        };
        let err = accept(&next, &stub(), &done).unwrap_err();
        assert!(
            err.join("\n")
                .contains("would have 501 steps, over the limit of 500"),
            "{err:?}"
        );
    }

    #[test]
    fn uploads_name_listed_files_on_file_inputs_and_downloads_click_links() {
        let mut page = page();
        page.items.push(Item {
            selector: "label=\"Invoice\"".into(),
            role: Some("button".into()),
            name: "Invoice".into(),
            tag: "input".into(),
            input_type: Some("file".into()),
            ..page.items[1].clone()
        });
        page.items.push(Item {
            selector: "role=link[name=\"Report\"]".into(),
            role: Some("link".into()),
            name: "Report".into(),
            tag: "a".into(),
            ..page.items[1].clone()
        });
        let boundary = boundary(&[]);
        let files = ["invoice.txt".to_string()];
        let rules = Rules {
            boundary: &boundary,
            fragments: &Fragments::default(),
            taken_ids: BTreeSet::new(),
            observation: &page,
            facts: 0,
            files: &files,
        };
        let answer = |a: Value| json!({"actions": a, "complete": true}).to_string();
        let seg = accept(
            &answer(json!([
                {"type": "upload", "target": {"ref": "e3"}, "files": ["invoice.txt"], "value": "x"},
                {"type": "download", "target": {"ref": "e4"}, "files": ["invoice.txt"]}
            ])),
            &stub(),
            &rules,
        )
        .unwrap();
        assert_eq!(seg.actions[0].files, Some(vec!["invoice.txt".to_string()]));
        assert_eq!(seg.actions[0].value, None);
        assert_eq!(seg.actions[1].files, None);
        assert_eq!(
            seg.actions[0].target.as_ref().unwrap().selector,
            "label=\"Invoice\""
        );
        let err = accept(
            &answer(json!([
                {"type": "upload", "target": {"ref": "e3"}, "files": ["invoice.txt", "secret.pdf"]}
            ])),
            &stub(),
            &rules,
        )
        .unwrap_err()
        .join("\n");
        assert!(
            err.contains("actions[0].files[1]: `secret.pdf` is not in e2e/files/ (fix: name only files listed in FILES: invoice.txt)"),
            "{err}"
        );
        let err = accept(
            &answer(json!([
                {"type": "upload", "target": {"ref": "e3"}, "files": ["invoice.txt"]},
                {"type": "upload", "target": {"ref": "e2"}, "files": ["invoice.txt"]},
                {"type": "download", "target": {"ref": "e1"}},
                {"type": "download", "target": {"ref": "e3"}}
            ])),
            &stub(),
            &rules,
        )
        .unwrap_err()
        .join("\n");
        assert!(
            err.contains(
                "actions[1]: `upload` on e2 (button \"Go\"): upload sets files on a file input"
            ),
            "{err}"
        );
        assert!(err.contains("actions[2]: `download` on e1"), "{err}");
        assert!(err.contains("actions[3]: `download` on e3"), "{err}");
    }
}
