//! The JSON Schema a planning call asks the model to answer in, built for the one observation
//! it is shown: a step's target can only be one of the refs just observed, a proof only one of
//! the facts listed, a `value_ref` only a credential the plan may use, a `use` only an existing
//! fragment that starts on this page, an upload's `files` only names in the project's
//! `e2e/files/` (and no `upload` at all when it holds none). Providers that enforce the schema (OpenAI strict, Gemini, llama.cpp's grammar)
//! cannot write anything else; the answer is still checked in full (`check`).

use serde_json::{Value, json};

/// At most this many steps in one answer: a longer one is a model looping on itself.
pub(super) const MAX_STEPS: usize = 12;

/// The step types an answer may use. `wait_for` is left to postconditions, which wait.
pub(super) const STEP_TYPES: &[&str] = &[
    "goto", "click", "hover", "check", "uncheck", "fill", "select", "press", "use", "upload",
    "download",
];

/// What one call may name.
pub(super) struct Choices<'a> {
    /// The refs of the observation shown.
    pub(super) refs: &'a [String],
    /// How many facts are listed (numbered from 1).
    pub(super) facts: usize,
    /// The credentials' ENV names.
    pub(super) credentials: &'a [String],
    /// The fragments' ids.
    pub(super) fragments: &'a [String],
    /// The names of the files in the project's `e2e/files/` an upload may set.
    pub(super) files: &'a [String],
}

/// The schema of a planning answer: `proofs` (when facts are listed), `actions`, `complete`.
pub(super) fn plan_schema(c: &Choices<'_>) -> Value {
    let mut step = serde_json::Map::new();
    let types: Vec<&str> = STEP_TYPES
        .iter()
        .copied()
        .filter(|t| *t != "use" || !c.fragments.is_empty())
        .filter(|t| *t != "upload" || !c.files.is_empty())
        .filter(|t| !needs_target(t) || !c.refs.is_empty())
        .collect();
    step.insert("type".into(), json!({"type": "string", "enum": types}));
    if !c.refs.is_empty() {
        step.insert(
            "target".into(),
            json!({
                "type": "object",
                "properties": {"ref": {"type": "string", "enum": c.refs}},
                "required": ["ref"],
                "additionalProperties": false
            }),
        );
    }
    step.insert("value".into(), json!({"type": "string"}));
    if !c.credentials.is_empty() {
        step.insert(
            "value_ref".into(),
            json!({"type": "string", "enum": c.credentials}),
        );
    }
    step.insert("key".into(), json!({"type": "string"}));
    step.insert("url".into(), json!({"type": "string"}));
    if !c.fragments.is_empty() {
        step.insert("use".into(), json!({"type": "string", "enum": c.fragments}));
    }
    if !c.files.is_empty() {
        step.insert(
            "files".into(),
            json!({
                "type": "array",
                "minItems": 1,
                "maxItems": c.files.len(),
                "items": {"type": "string", "enum": c.files}
            }),
        );
    }
    let mut properties = serde_json::Map::new();
    let mut required = vec!["actions", "complete"];
    if c.facts > 0 {
        properties.insert("proofs".into(), proofs(c.facts));
        required.insert(0, "proofs");
    }
    properties.insert(
        "actions".into(),
        json!({
            "type": "array",
            "maxItems": MAX_STEPS,
            "items": {
                "type": "object",
                "properties": step,
                "required": ["type"],
                "additionalProperties": false
            }
        }),
    );
    properties.insert("complete".into(), json!({"type": "boolean"}));
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
}

/// The schema of a closing answer: the numbers of the facts that prove the task.
pub(super) fn proof_schema(facts: usize) -> Value {
    json!({
        "type": "object",
        "properties": {"proofs": proofs(facts)},
        "required": ["proofs"],
        "additionalProperties": false
    })
}

fn proofs(facts: usize) -> Value {
    let numbers: Vec<usize> = (1..=facts).collect();
    json!({
        "type": "array",
        "maxItems": facts,
        "items": {"type": "integer", "enum": numbers}
    })
}

/// Whether a step of this type acts on a target.
pub(super) fn needs_target(kind: &str) -> bool {
    !matches!(kind, "goto" | "use" | "press")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn validator(schema: &Value) -> jsonschema::Validator {
        jsonschema::validator_for(schema).expect("a valid schema")
    }

    #[test]
    fn a_target_can_only_be_an_observed_ref() {
        let refs = ["e1".to_string(), "e2".to_string()];
        let schema = plan_schema(&Choices {
            refs: &refs,
            facts: 0,
            credentials: &[],
            fragments: &[],
            files: &[],
        });
        let v = validator(&schema);
        let answer = |target: Value| json!({"actions": [{"type": "click", "target": target}], "complete": true});
        assert!(v.is_valid(&answer(json!({"ref": "e2"}))));
        assert!(!v.is_valid(&answer(json!({"ref": "e3"}))));
        assert!(!v.is_valid(&answer(json!({"selector": "role=button[name=\"Add\"]"}))));
        assert!(
            !v.is_valid(&json!({"actions": [{"type": "use", "use": "sign-in"}], "complete": true}))
        );
        // No facts: no proofs asked.
        assert!(schema["properties"].get("proofs").is_none());
        let looping: Vec<Value> = (0..=MAX_STEPS)
            .map(|_| json!({"type": "click", "target": {"ref": "e1"}}))
            .collect();
        assert!(!v.is_valid(&json!({"actions": looping, "complete": true})));
    }

    #[test]
    fn proofs_are_numbers_of_listed_facts_and_credentials_are_declared_names() {
        let refs = ["e1".to_string()];
        let creds = ["ADMIN_PASSWORD".to_string()];
        let v = validator(&plan_schema(&Choices {
            refs: &refs,
            facts: 3,
            credentials: &creds,
            fragments: &[],
            files: &[],
        }));
        let fill = |proofs: Value, value_ref: &str| json!({"proofs": proofs, "actions": [{"type": "fill", "target": {"ref": "e1"}, "value_ref": value_ref}], "complete": false});
        assert!(v.is_valid(&fill(json!([1, 3]), "ADMIN_PASSWORD")));
        assert!(!v.is_valid(&fill(json!([4]), "ADMIN_PASSWORD")));
        assert!(!v.is_valid(&fill(json!([1]), "TODO_NAME")));
        let close = validator(&proof_schema(2));
        assert!(close.is_valid(&json!({"proofs": [2]})));
        assert!(!close.is_valid(&json!({"proofs": [0]})));
    }

    #[test]
    fn upload_is_offered_only_with_files_and_names_only_them() {
        let refs = ["e1".to_string()];
        let choices = |files| Choices {
            refs: &refs,
            facts: 0,
            credentials: &[],
            fragments: &[],
            files,
        };
        let upload = |files: Value| json!({"actions": [{"type": "upload", "target": {"ref": "e1"}, "files": files}], "complete": true});
        let download =
            json!({"actions": [{"type": "download", "target": {"ref": "e1"}}], "complete": true});
        let none = plan_schema(&choices(&[]));
        let types = &none["properties"]["actions"]["items"]["properties"]["type"]["enum"];
        assert!(
            !types.as_array().unwrap().contains(&json!("upload")),
            "{types}"
        );
        assert!(
            types.as_array().unwrap().contains(&json!("download")),
            "{types}"
        );
        let v = validator(&none);
        assert!(!v.is_valid(&upload(json!(["invoice.txt"]))));
        assert!(v.is_valid(&download));
        let files = ["invoice.txt".to_string(), "photo.png".to_string()];
        let v = validator(&plan_schema(&choices(&files)));
        assert!(v.is_valid(&upload(json!(["invoice.txt"]))));
        assert!(v.is_valid(&upload(json!(["invoice.txt", "photo.png"]))));
        assert!(!v.is_valid(&upload(json!(["secret.pdf"]))));
        assert!(!v.is_valid(&upload(json!(["../windup.toml"]))));
        assert!(!v.is_valid(&upload(json!([]))));
        assert!(v.is_valid(&download));
        // Without refs there is nothing to upload to or download from.
        let v = validator(&plan_schema(&Choices {
            refs: &[],
            ..choices(&files)
        }));
        assert!(!v.is_valid(&download));
    }
}
