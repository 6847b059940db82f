//! Reshaping a schemars JSON Schema into what each provider's structured output accepts.
//!
//! Providers accept a subset of JSON Schema, and local servers (llama.cpp, Ollama, vLLM) a
//! smaller one still, so the schema sent is a looser copy of the real one. The planner always
//! validates the reply against the real schema; nothing here has to be exact, only accepted.

use std::collections::HashSet;

use serde_json::{Map, Value};

/// Keywords removed for OpenAI strict mode, which rejects or ignores them. Validation against
/// the real schema catches what they would have constrained.
pub const STRICT_DROPPED: &[&str] = &[
    "$schema",
    "$id",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "format",
    "pattern",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
    "uniqueItems",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "contentEncoding",
    "contentMediaType",
];

/// Keywords removed for Gemini's `responseJsonSchema`.
pub const GEMINI_DROPPED: &[&str] = &["$schema", "default", "examples", "deprecated"];

/// Keywords whose value is a map of subschemas.
const SCHEMA_MAPS: &[&str] = &["properties", "$defs", "definitions", "patternProperties"];
/// Keywords whose value is a subschema or a list of subschemas.
const SCHEMA_LISTS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems"];
const SCHEMA_ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "contains",
    "if",
    "then",
    "else",
];

/// Replaces every local `$ref` (`#/$defs/X`, `#/definitions/X`) by the definition it names and
/// drops the definitions, since several servers cannot follow references. A recursive reference
/// cannot be inlined: it stays, and so does its definition (itself inlined around the cycle).
pub fn inline_refs(schema: &Value) -> Value {
    let defs = definitions(schema);
    let mut kept = HashSet::new();
    let mut stack = Vec::new();
    let mut out = inline(schema, &defs, &mut stack, &mut kept);
    if let Value::Object(root) = &mut out {
        root.remove("$defs");
        root.remove("definitions");
        if !kept.is_empty() {
            // Each kept definition is inlined with itself on the stack, so it refers to itself
            // (or to another kept one) and to nothing else.
            let mut out_defs = Map::new();
            let mut pending: Vec<String> = kept.iter().cloned().collect();
            while let Some(name) = pending.pop() {
                if out_defs.contains_key(&name) {
                    continue;
                }
                let Some(def) = defs.get(&name) else { continue };
                let mut more = HashSet::new();
                let mut stack = vec![name.clone()];
                let inlined = inline(def, &defs, &mut stack, &mut more);
                out_defs.insert(name, inlined);
                pending.extend(more.into_iter().filter(|n| !out_defs.contains_key(n)));
            }
            root.insert("$defs".into(), Value::Object(out_defs));
        }
    }
    out
}

fn definitions(schema: &Value) -> Map<String, Value> {
    let mut all = Map::new();
    for key in ["definitions", "$defs"] {
        if let Some(Value::Object(defs)) = schema.get(key) {
            all.extend(defs.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    all
}

fn ref_name(reference: &str) -> Option<&str> {
    reference
        .strip_prefix("#/$defs/")
        .or_else(|| reference.strip_prefix("#/definitions/"))
}

fn inline(
    node: &Value,
    defs: &Map<String, Value>,
    stack: &mut Vec<String>,
    kept: &mut HashSet<String>,
) -> Value {
    match node {
        Value::Object(obj) => {
            if let Some(Value::String(reference)) = obj.get("$ref")
                && let Some(name) = ref_name(reference)
                && let Some(def) = defs.get(name)
            {
                if stack.iter().any(|n| n == name) {
                    kept.insert(name.to_string());
                    let mut out = obj.clone();
                    out.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
                    return Value::Object(out);
                }
                stack.push(name.to_string());
                let mut out = match inline(def, defs, stack, kept) {
                    Value::Object(m) => m,
                    // A boolean schema: nothing to merge the siblings into.
                    other => {
                        stack.pop();
                        return other;
                    }
                };
                stack.pop();
                // Siblings of `$ref` (a field's description) win over the definition's.
                for (k, v) in obj {
                    if k != "$ref" {
                        out.insert(k.clone(), inline(v, defs, stack, kept));
                    }
                }
                return Value::Object(out);
            }
            let mut out = Map::new();
            for (k, v) in obj {
                let v = if is_schema_keyword(k) {
                    inline_keyword(k, v, defs, stack, kept)
                } else {
                    v.clone()
                };
                out.insert(k.clone(), v);
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

fn is_schema_keyword(k: &str) -> bool {
    SCHEMA_MAPS.contains(&k) || SCHEMA_LISTS.contains(&k) || SCHEMA_ONE.contains(&k)
}

fn inline_keyword(
    k: &str,
    v: &Value,
    defs: &Map<String, Value>,
    stack: &mut Vec<String>,
    kept: &mut HashSet<String>,
) -> Value {
    if k == "$defs" || k == "definitions" {
        // Dropped by the caller; not worth inlining.
        return v.clone();
    }
    match v {
        Value::Object(m) if SCHEMA_MAPS.contains(&k) => Value::Object(
            m.iter()
                .map(|(name, s)| (name.clone(), inline(s, defs, stack, kept)))
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|s| inline(s, defs, stack, kept)).collect())
        }
        other => inline(other, defs, stack, kept),
    }
}

/// Visits every subschema, outermost first, with the keyword-aware walk (a property named
/// `format` is a property, not a keyword).
fn walk_mut(node: &mut Value, f: &mut dyn FnMut(&mut Map<String, Value>)) {
    let Value::Object(obj) = node else { return };
    f(obj);
    for (k, v) in obj.iter_mut() {
        if SCHEMA_MAPS.contains(&k.as_str()) {
            if let Value::Object(m) = v {
                m.values_mut().for_each(|s| walk_mut(s, f));
            }
        } else if SCHEMA_LISTS.contains(&k.as_str()) || SCHEMA_ONE.contains(&k.as_str()) {
            match v {
                Value::Array(items) => items.iter_mut().for_each(|s| walk_mut(s, f)),
                other => walk_mut(other, f),
            }
        }
    }
}

/// The schema for OpenAI's `response_format: json_schema` with `strict: true`:
/// references inlined; every object closed (`additionalProperties: false`) with all its
/// properties required, those that were optional made nullable; `oneOf` read as `anyOf`;
/// the keywords of [`STRICT_DROPPED`] removed.
///
/// A reply may therefore carry `null` for a field the real schema lets one omit: see
/// [`drop_null_members`].
pub fn openai_strict(schema: &Value) -> Value {
    let mut out = inline_refs(schema);
    walk_mut(&mut out, &mut |obj| {
        for k in STRICT_DROPPED {
            obj.remove(*k);
        }
        if let Some(one_of) = obj.remove("oneOf") {
            match obj.get_mut("anyOf") {
                Some(Value::Array(any)) => {
                    if let Value::Array(more) = one_of {
                        any.extend(more);
                    }
                }
                _ => {
                    obj.insert("anyOf".into(), one_of);
                }
            }
        }
        let is_object = obj.contains_key("properties")
            || obj.get("type") == Some(&Value::String("object".into()))
            || type_list_has(obj, "object");
        if !is_object {
            return;
        }
        // Strict mode cannot express open maps; such an object admits no extra member.
        obj.insert("additionalProperties".into(), Value::Bool(false));
        let required: HashSet<String> = match obj.get("required") {
            Some(Value::Array(r)) => r
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => HashSet::new(),
        };
        let props = obj
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        let Value::Object(props) = props else { return };
        let mut names = Vec::with_capacity(props.len());
        for (name, prop) in props.iter_mut() {
            if !required.contains(name) {
                make_nullable(prop);
            }
            names.push(Value::String(name.clone()));
        }
        obj.insert("required".into(), Value::Array(names));
    });
    out
}

/// The schema for Gemini's `generationConfig.responseJsonSchema`: [`loose`], without
/// `pattern`, which Gemini does not promise to enforce.
pub fn gemini(schema: &Value) -> Value {
    let mut out = loose(schema);
    walk_mut(&mut out, &mut |obj| {
        obj.remove("pattern");
    });
    out
}

/// The schema for servers that enforce it by grammar (llama.cpp with `strict` off): references
/// inlined, `const` written as a one-value `enum` (better supported), `oneOf` as `anyOf`, and
/// the keywords of [`GEMINI_DROPPED`] removed. `pattern` stays, with its `.` made safe for a
/// JSON string (see [`json_safe_pattern`]): llama.cpp compiles it into the grammar.
pub fn loose(schema: &Value) -> Value {
    let mut out = inline_refs(schema);
    walk_mut(&mut out, &mut |obj| {
        for k in GEMINI_DROPPED {
            obj.remove(*k);
        }
        if let Some(Value::String(p)) = obj.get_mut("pattern") {
            *p = json_safe_pattern(p);
        }
        if let Some(c) = obj.remove("const") {
            obj.insert("enum".into(), Value::Array(vec![c]));
        }
        if !obj.contains_key("anyOf")
            && let Some(one_of) = obj.remove("oneOf")
        {
            obj.insert("anyOf".into(), one_of);
        }
    });
    out
}

/// llama.cpp (and the servers built on it: Ollama, LM Studio) match a string's `pattern`
/// against the raw JSON text between the quotes, where its `.` admits a bare `"`. The model can
/// then end the string early and write keys the schema never allowed
/// (`"selector": "css=input", "equals": "x"`). Every `.` outside a character class becomes one
/// JSON string character instead: anything but a quote or backslash, or an escape.
pub fn json_safe_pattern(pattern: &str) -> String {
    const JSON_CHAR: &str = r#"([^"\\]|\\["\\/bfnrt])"#;
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                out.push(c);
                if let Some(next) = chars.next() {
                    out.push(next);
                }
            }
            '[' if !in_class => {
                in_class = true;
                out.push(c);
            }
            ']' if in_class => {
                in_class = false;
                out.push(c);
            }
            '.' if !in_class => out.push_str(JSON_CHAR),
            _ => out.push(c),
        }
    }
    out
}

fn type_list_has(obj: &Map<String, Value>, t: &str) -> bool {
    matches!(obj.get("type"), Some(Value::Array(ts)) if ts.iter().any(|v| v == t))
}

fn is_null_schema(v: &Value) -> bool {
    v.get("type") == Some(&Value::String("null".into()))
}

/// Lets a subschema also accept `null`, the way schemars writes `Option<T>`.
fn make_nullable(prop: &mut Value) {
    let Value::Object(obj) = prop else {
        // `true` already admits null; `false` admits nothing, and stays so.
        return;
    };
    if let Some(Value::Array(any)) = obj.get_mut("anyOf") {
        if !any.iter().any(is_null_schema) {
            any.push(serde_json::json!({"type": "null"}));
        }
        return;
    }
    let has_enum = obj.contains_key("enum");
    match obj.get_mut("type") {
        Some(Value::String(t)) if t == "null" => return,
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            obj.insert("type".into(), serde_json::json!([t, "null"]));
        }
        Some(Value::Array(ts)) if !ts.iter().any(|v| v == "null") => {
            ts.push(Value::String("null".into()));
        }
        Some(Value::Array(_)) => {}
        _ if !has_enum => {
            // No type to extend (a `const`, or an untyped schema): wrap it.
            let inner = Value::Object(std::mem::take(obj));
            let description = inner.get("description").cloned();
            obj.insert("anyOf".into(), serde_json::json!([inner, {"type": "null"}]));
            if let Some(d) = description {
                obj.insert("description".into(), d);
            }
            return;
        }
        _ => {}
    }
    if let Some(Value::Array(values)) = obj.get_mut("enum")
        && !values.iter().any(Value::is_null)
    {
        values.push(Value::Null);
    }
}

/// Removes every object member whose value is `null`, recursively: a strict-mode reply carries
/// `null` for each field the model left out, where the real schema expects no member at all.
pub fn drop_null_members(value: &mut Value) {
    match value {
        Value::Object(obj) => {
            obj.retain(|_, v| !v.is_null());
            obj.values_mut().for_each(drop_null_members);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_null_members),
        _ => {}
    }
}

/// Whether `v` holds an `enum` with no value anywhere (llama.cpp's grammar refuses one); for
/// the tests of every schema the engine sends.
#[cfg(test)]
pub(crate) fn has_empty_enum(v: &Value) -> bool {
    match v {
        Value::Object(o) => {
            o.get("enum")
                .is_some_and(|e| e.as_array().is_some_and(Vec::is_empty))
                || o.values().any(has_empty_enum)
        }
        Value::Array(a) => a.iter().any(has_empty_enum),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[expect(dead_code, reason = "only its schema is used")]
    #[derive(schemars::JsonSchema)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        Click,
        Fill,
    }

    #[expect(dead_code, reason = "only its schema is used")]
    #[derive(schemars::JsonSchema)]
    /// The inner thing.
    struct Inner {
        /// A selector.
        #[schemars(length(min = 1))]
        selector: String,
        format: Option<String>,
    }

    #[expect(dead_code, reason = "only its schema is used")]
    #[derive(schemars::JsonSchema)]
    struct Outer {
        id: String,
        kind: Kind,
        note: Option<String>,
        #[schemars(range(min = 1, max = 10))]
        count: Option<u32>,
        /// Where.
        inner: Option<Inner>,
        items: Vec<Inner>,
        #[serde(default)]
        tags: Vec<String>,
    }

    fn outer() -> Value {
        serde_json::to_value(schemars::schema_for!(Outer)).unwrap()
    }

    fn sorted(v: &Value) -> Vec<&str> {
        let mut names: Vec<&str> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        names.sort();
        names
    }

    fn no_refs(v: &Value) -> bool {
        match v {
            Value::Object(o) => !o.contains_key("$ref") && o.values().all(no_refs),
            Value::Array(a) => a.iter().all(no_refs),
            _ => true,
        }
    }

    #[test]
    fn a_pattern_sent_to_a_grammar_cannot_end_the_json_string_early() {
        let safe = json_safe_pattern("^(role|text|css)=.+$");
        assert_eq!(safe, r#"^(role|text|css)=([^"\\]|\\["\\/bfnrt])+$"#);
        // A grammar matches the pattern against the raw text between the JSON quotes.
        let raw = jsonschema::validator_for(&json!({"type": "string", "pattern": safe})).unwrap();
        assert!(raw.is_valid(&json!(r#"role=button[name=\"Add\"]"#)));
        assert!(raw.is_valid(&json!(r#"css=a\\b"#)));
        assert!(!raw.is_valid(&json!(r#"css=input", "equals": "x"#)));
        assert!(!raw.is_valid(&json!(r#"css=a\q"#)), "not a JSON escape");
        // Classes and escapes are kept as written.
        assert_eq!(
            json_safe_pattern(r"^[a-z0-9._-]*\.json$"),
            r"^[a-z0-9._-]*\.json$"
        );
        let sent = loose(&json!({"properties": {"s": {"type": "string", "pattern": "^x.$"}}}));
        assert_eq!(
            sent["properties"]["s"]["pattern"],
            json!(json_safe_pattern("^x.$"))
        );
    }

    #[test]
    fn strict_transform_of_a_schemars_schema() {
        let s = openai_strict(&outer());
        assert!(no_refs(&s), "{s:#}");
        assert!(s.get("$defs").is_none() && s.get("$schema").is_none());
        assert_eq!(s["additionalProperties"], json!(false));
        assert_eq!(
            sorted(&s["required"]),
            ["count", "id", "inner", "items", "kind", "note", "tags"]
        );
        assert_eq!(s["properties"]["id"]["type"], json!("string"));
        assert_eq!(s["properties"]["note"]["type"], json!(["string", "null"]));
        // Range keywords and `format: uint32` are gone; the type stays nullable.
        assert_eq!(
            s["properties"]["count"],
            json!({"type": ["integer", "null"]})
        );
        // The enum is inlined and, being required, not nullable.
        assert_eq!(s["properties"]["kind"]["enum"], json!(["click", "fill"]));
        assert_eq!(s["properties"]["kind"]["type"], json!("string"));
        // Option<struct>: anyOf [inlined object, null], the field's description kept.
        let inner = &s["properties"]["inner"];
        assert_eq!(inner["description"], json!("Where."));
        let any = inner["anyOf"].as_array().unwrap();
        assert_eq!(any.len(), 2);
        assert_eq!(any[1], json!({"type": "null"}));
        assert_eq!(any[0]["additionalProperties"], json!(false));
        assert_eq!(sorted(&any[0]["required"]), ["format", "selector"]);
        // A property named `format` survives; the keyword `minLength` does not.
        assert_eq!(
            any[0]["properties"]["format"]["type"],
            json!(["string", "null"])
        );
        assert_eq!(
            any[0]["properties"]["selector"],
            json!({"type": "string", "description": "A selector."})
        );
        // Array items are inlined and closed too.
        assert_eq!(
            s["properties"]["items"]["items"]["additionalProperties"],
            json!(false)
        );
        // A defaulted field becomes required and nullable.
        assert_eq!(s["properties"]["tags"]["type"], json!(["array", "null"]));
    }

    #[test]
    fn strict_transform_of_the_plan_schema_keeps_it_whole() {
        let plan = windup_model::schema::schema_value(windup_model::schema::Format::Plan);
        let s = openai_strict(&plan);
        assert!(no_refs(&s));
        let action = &s["properties"]["actions"]["items"];
        assert_eq!(action["additionalProperties"], json!(false));
        let required = action["required"].as_array().unwrap();
        assert_eq!(
            required.len(),
            action["properties"].as_object().unwrap().len()
        );
        // Target has a property called `description`: it is a property, not a keyword.
        let target = &action["properties"]["target"]["anyOf"][0];
        assert!(target["properties"]["description"].is_object());
        assert!(action["properties"]["id"].get("minLength").is_none());
        let text = s.to_string();
        for k in [
            "\"format\":",
            "\"pattern\":",
            "\"minItems\":",
            "\"maximum\":",
        ] {
            assert!(!text.contains(k), "{k} left in {s:#}");
        }
    }

    #[test]
    fn enum_and_const_become_nullable() {
        let mut e = json!({"enum": ["a", "b"], "type": "string"});
        make_nullable(&mut e);
        assert_eq!(
            e,
            json!({"enum": ["a", "b", null], "type": ["string", "null"]})
        );
        let mut t = json!({"type": ["integer", "null"]});
        make_nullable(&mut t);
        assert_eq!(t, json!({"type": ["integer", "null"]}));
        let mut c = json!({"const": "x", "description": "d"});
        make_nullable(&mut c);
        assert_eq!(
            c,
            json!({"anyOf": [{"const": "x", "description": "d"}, {"type": "null"}], "description": "d"})
        );
    }

    #[test]
    fn recursive_refs_stay_with_their_definition() {
        let s = json!({
            "type": "object",
            "properties": {"root": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {
                "type": "object",
                "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}
            }}
        });
        let out = inline_refs(&s);
        assert_eq!(out["properties"]["root"]["type"], json!("object"));
        assert_eq!(
            out["properties"]["root"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
        assert_eq!(
            out["$defs"]["Node"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Node"})
        );
    }

    #[test]
    fn gemini_schema_inlines_and_rewrites_const() {
        let s = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "t": {"$ref": "#/definitions/T"},
                "default": {"type": "string", "default": "x", "pattern": "^a.+$"}
            },
            "definitions": {"T": {"oneOf": [{"const": "a"}, {"const": "b"}]}}
        });
        let g = gemini(&s);
        assert_eq!(
            g,
            json!({
                "type": "object",
                "properties": {
                    "t": {"anyOf": [{"enum": ["a"]}, {"enum": ["b"]}]},
                    "default": {"type": "string"}
                }
            })
        );
        // Grammar-enforcing servers keep the pattern, made safe for a JSON string.
        assert_eq!(
            loose(&s).pointer("/properties/default/pattern"),
            Some(&json!(json_safe_pattern("^a.+$")))
        );
    }

    #[test]
    fn nulls_are_dropped_deeply() {
        let mut v = json!({"a": null, "b": [{"c": null, "d": 1}], "e": {"f": null}});
        drop_null_members(&mut v);
        assert_eq!(v, json!({"b": [{"d": 1}], "e": {}}));
    }
}
