//! JSON Schema violations as input errors: the published schemas, compiled once, with each
//! violation turned into a field path and a fix a person can act on.

use std::collections::HashSet;
use std::sync::LazyLock;

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use super::error::{InputError, WHOLE_FILE};
use crate::schema::{self, Format};

/// Every JSON Schema violation of `value`, as input errors.
pub fn schema_problems(file: &str, format: Format, value: &Value) -> Vec<InputError> {
    // Generated and compiled once per process: every file read goes through here.
    static VALIDATORS: LazyLock<Vec<(Format, Value, jsonschema::Validator)>> =
        LazyLock::new(|| {
            Format::ALL
                .iter()
                .map(|f| {
                    let schema = schema::schema_value(*f);
                    let validator = jsonschema::validator_for(&schema)
                        .unwrap_or_else(|e| panic!("the built-in {f:?} schema is invalid: {e}"));
                    (*f, schema, validator)
                })
                .collect()
        });
    let (_, root_schema, validator) = VALIDATORS
        .iter()
        .find(|(f, ..)| *f == format)
        .expect("every format has a validator");
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for error in validator.iter_errors(value) {
        let pointer = error.instance_path().as_str().to_string();
        let field = field_name(&pointer);
        let (field, problem, fix) = match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let allowed = allowed_fields(root_schema, &pointer).join(", ");
                let name = unexpected.join("`, `");
                let at = join_field(&field, unexpected.first().map(String::as_str).unwrap_or(""));
                (
                    at,
                    format!("unknown field `{name}`"),
                    format!("remove it or correct its spelling; allowed here: {allowed}"),
                )
            }
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default().to_string();
                (
                    join_field(&field, &name),
                    format!("required field `{name}` is missing"),
                    format!("add `{name}`"),
                )
            }
            ValidationErrorKind::Enum { options } => {
                let opts = options
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|v| v.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default();
                (
                    field,
                    format!("{} is not an accepted value", error.instance()),
                    format!("use one of: {opts}"),
                )
            }
            ValidationErrorKind::Type { .. } => (
                field,
                format!("wrong type: {error}"),
                "use the type the schema names".to_string(),
            ),
            ValidationErrorKind::Pattern { pattern } => (
                field,
                format!("{} does not match the required pattern", error.instance()),
                pattern_fix(pattern),
            ),
            _ => (
                field,
                error.to_string(),
                format!("see schemas/{}", format.file_name()),
            ),
        };
        // anyOf branches can repeat the same complaint; say it once.
        if seen.insert((field.clone(), problem.clone())) {
            out.push(InputError::new(file, field, problem, fix));
        }
    }
    out
}

fn pattern_fix(pattern: &str) -> String {
    match pattern {
        r"^/" => "use a path that starts with `/`, such as `/login`".into(),
        r"^[a-z0-9][a-z0-9._-]*$" => {
            "use lowercase letters, digits, `.`, `_` and `-`, starting with a letter or digit"
                .into()
        }
        r"^[A-Z][A-Z0-9_]*$" => {
            "use an ENV variable name in capitals, such as `ADMIN_PASSWORD`".into()
        }
        other => format!("match the pattern `{other}`"),
    }
}

/// `/actions/2/target` → `actions[2].target`.
pub fn field_name(pointer: &str) -> String {
    let mut out = String::new();
    for seg in pointer.split('/').skip(1) {
        let seg = seg.replace("~1", "/").replace("~0", "~");
        if seg.parse::<usize>().is_ok() {
            out.push_str(&format!("[{seg}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&seg);
        }
    }
    if out.is_empty() {
        WHOLE_FILE.to_string()
    } else {
        out
    }
}

fn join_field(parent: &str, child: &str) -> String {
    if parent == WHOLE_FILE || parent.is_empty() {
        child.to_string()
    } else {
        format!("{parent}.{child}")
    }
}

/// The property names the schema allows at a JSON pointer, for "allowed here" hints.
fn allowed_fields(root: &Value, pointer: &str) -> Vec<String> {
    let mut node = resolve(root, root);
    for seg in pointer.split('/').skip(1) {
        let next = if seg.parse::<usize>().is_ok() {
            node.get("items")
        } else {
            node.get("properties").and_then(|p| p.get(seg))
        };
        match next {
            Some(n) => node = resolve(root, n),
            None => return Vec::new(),
        }
    }
    node.get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// Follows `$ref` and picks the object branch of `anyOf`/`oneOf` (how `Option<T>` is written).
fn resolve<'a>(root: &'a Value, mut node: &'a Value) -> &'a Value {
    for _ in 0..8 {
        if let Some(r) = node.get("$ref").and_then(Value::as_str) {
            let path = r.trim_start_matches('#');
            match root.pointer(path) {
                Some(n) => node = n,
                None => return node,
            }
        } else if let Some(branches) = node
            .get("anyOf")
            .or_else(|| node.get("oneOf"))
            .and_then(Value::as_array)
        {
            match branches
                .iter()
                .find(|b| b.get("type").and_then(Value::as_str) != Some("null"))
            {
                Some(b) => node = b,
                None => return node,
            }
        } else {
            return node;
        }
    }
    node
}
