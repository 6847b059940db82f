//! The JSON Schema a planning call asks the model to answer in: steps, a final expectation and
//! whether the task is complete; selectors must start with an engine, and `value_ref` may only
//! name a credential the plan may use. The answer is still checked in full (`check`): the
//! schema only keeps a grammar-enforcing server on the rails.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::Deserialize;
use windup_model::Action;

/// The model's answer: steps, and whether the task ends on the page it saw.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[expect(
    dead_code,
    reason = "only its schema is used: answers are checked as JSON, then as a plan"
)]
struct Answer {
    /// The steps, in order.
    actions: Vec<Action>,
    /// What holds after the last step: it proves the task is done (or, when `complete` is
    /// false, that the next page was reached). Joins the last step's `expect`.
    final_expect: windup_model::Expect,
    /// False when the task continues on a page not seen yet.
    complete: bool,
}

/// Engines a planner-made selector starts with. Sent as a `pattern` so grammar-constrained
/// servers cannot write a bare CSS selector; the planner's checks still cover every part of
/// a chain.
const SELECTOR_PATTERN: &str = "^(role|text|label|placeholder|testid|css)=.+$";

/// The answer schema for one call: `value_ref` may only name one of `credentials` (and is left
/// out when there are none), so a grammar-enforcing server cannot invent a credential.
pub(super) fn with_credentials(
    schema: &serde_json::Value,
    credentials: &BTreeSet<String>,
) -> serde_json::Value {
    let mut schema = schema.clone();
    let props = schema
        .pointer_mut("/$defs/Action/properties")
        .and_then(serde_json::Value::as_object_mut)
        .expect("the plan schema has Action properties");
    if credentials.is_empty() {
        props.remove("value_ref");
    } else if let Some(serde_json::Value::Object(field)) = props.get_mut("value_ref") {
        let mut names: Vec<serde_json::Value> =
            credentials.iter().map(|c| c.as_str().into()).collect();
        names.push(serde_json::Value::Null);
        field.insert("enum".into(), serde_json::Value::Array(names));
    }
    schema
}

/// The answer's JSON Schema, with every selector field constrained to start with an engine.
pub(super) fn answer_schema() -> serde_json::Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(Answer)).expect("schema");
    for pointer in [
        "/$defs/Target/properties/selector",
        "/$defs/Expect/properties/visible",
        "/$defs/Expect/properties/hidden",
        "/$defs/CountExpect/properties/selector",
        "/$defs/ValueExpect/properties/selector",
    ] {
        let field = schema
            .pointer_mut(pointer)
            .and_then(serde_json::Value::as_object_mut)
            .unwrap_or_else(|| panic!("the plan schema has {pointer}"));
        field.insert("pattern".into(), SELECTOR_PATTERN.into());
    }
    schema
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_answer_schema_refuses_bare_selectors_and_asks_for_a_final_expect() {
        let schema = answer_schema();
        let validator = jsonschema::validator_for(&schema).expect("a valid schema");
        let answer = |selector: &str, visible: &str| {
            json!({
                "actions": [{"id": "a1", "type": "click", "target": {"selector": selector}}],
                "final_expect": {"visible": visible},
                "complete": true
            })
        };
        assert!(validator.is_valid(&answer("css=#save", "text=\"Saved\"")));
        assert!(validator.is_valid(&answer("role=button[name=\"Save\"]", "testid=done")));
        assert!(!validator.is_valid(&answer("#save", "text=\"Saved\"")));
        assert!(!validator.is_valid(&answer("css=#save", "[name='Saved']")));
        let mut no_final = answer("css=#save", "text=\"Saved\"");
        no_final.as_object_mut().unwrap().remove("final_expect");
        assert!(!validator.is_valid(&no_final));
        // value_ref names only the project's credentials, and is gone when there are none.
        let creds: BTreeSet<String> = ["ADMIN_PASSWORD".to_string()].into();
        let with = jsonschema::validator_for(&with_credentials(&schema, &creds)).unwrap();
        let fill = |value_ref: &str| {
            json!({
                "actions": [{"id": "a1", "type": "fill", "target": {"selector": "label=\"Password\""}, "value_ref": value_ref}],
                "final_expect": {"url": "/home"},
                "complete": true
            })
        };
        assert!(with.is_valid(&fill("ADMIN_PASSWORD")));
        assert!(!with.is_valid(&fill("TODO_NAME")));
        let without = with_credentials(&schema, &BTreeSet::new());
        assert!(
            without
                .pointer("/$defs/Action/properties/value_ref")
                .is_none()
        );
        assert!(
            !jsonschema::validator_for(&without)
                .unwrap()
                .is_valid(&fill("ADMIN_PASSWORD"))
        );
        // What a grammar-enforcing server is sent keeps both constraints.
        let sent = crate::llm::schema::loose(&schema);
        assert_eq!(
            sent.pointer(
                "/properties/actions/items/properties/target/anyOf/0/properties/selector/pattern"
            ),
            Some(&json!(crate::llm::schema::json_safe_pattern(
                SELECTOR_PATTERN
            )))
        );
        assert!(
            sent["required"]
                .as_array()
                .unwrap()
                .contains(&json!("final_expect"))
        );
    }
}
