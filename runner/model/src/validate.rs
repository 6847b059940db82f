//! Reading the on-disk formats: JSON Schema first, then the types, then the semantic rules.
//! Every problem names the file, the field and the fix.

use std::collections::HashSet;
use std::sync::LazyLock;

use jsonschema::error::ValidationErrorKind;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::cache::{CACHE_VERSION, CacheEntry};
use crate::fragment::{FRAGMENT_VERSION, Fragment};
use crate::plan::{Action, ActionType, PLAN_VERSION, Plan};
use crate::scenario::Scenario;
use crate::schema::{self, Format};
use crate::selector::Selector;

/// One problem with one input file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {field}: {problem}\n  fix: {fix}")]
pub struct InputError {
    pub file: String,
    /// Where in the file, as `actions[2].target.selector`; `(file)` for the whole file.
    pub field: String,
    pub problem: String,
    pub fix: String,
}

impl InputError {
    pub fn new(
        file: impl Into<String>,
        field: impl Into<String>,
        problem: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        InputError {
            file: file.into(),
            field: field.into(),
            problem: problem.into(),
            fix: fix.into(),
        }
    }
}

/// All the problems found in one or more files.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Problems(pub Vec<InputError>);

impl std::fmt::Display for Problems {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl From<InputError> for Problems {
    fn from(e: InputError) -> Self {
        Problems(vec![e])
    }
}

pub type Checked<T> = Result<T, Problems>;

const WHOLE_FILE: &str = "(file)";

/// Parses a scenario from YAML. `expected_id` is the file's stem, which must equal `id`.
pub fn scenario_from_yaml(file: &str, text: &str, expected_id: Option<&str>) -> Checked<Scenario> {
    let value: Value = serde_norway::from_str(text).map_err(|e| {
        InputError::new(
            file,
            WHOLE_FILE,
            format!("not valid YAML: {e}"),
            "fix the YAML syntax at the line and column given",
        )
    })?;
    let scenario: Scenario = typed(file, Format::Scenario, value)?;
    if let Some(expected) = expected_id
        && scenario.id != expected
    {
        return Err(InputError::new(
            file,
            "id",
            format!("id `{}` does not match the file name", scenario.id),
            format!(
                "set `id: {expected}` or rename the file to `{}.yaml`",
                scenario.id
            ),
        )
        .into());
    }
    Ok(scenario)
}

/// Parses and fully checks a plan from JSON.
pub fn plan_from_json(file: &str, text: &str) -> Checked<Plan> {
    let plan: Plan = typed(file, Format::Plan, json(file, text)?)?;
    let problems = plan_semantics(file, "", &plan);
    if problems.is_empty() {
        Ok(plan)
    } else {
        Err(Problems(problems))
    }
}

/// Checks a plan that is being built in parts (the planner's segments): the JSON Schema and
/// every semantic rule, except that an unfinished plan's last step may lack its `expect`.
pub fn plan_problems(file: &str, plan: &Plan, finished: bool) -> Vec<InputError> {
    let value = serde_json::to_value(plan).expect("a plan serializes");
    let mut problems = schema_problems(file, Format::Plan, &value);
    if !problems.is_empty() {
        return problems;
    }
    if plan.plan_version != PLAN_VERSION {
        problems.push(version_problem(
            file,
            "plan_version",
            &plan.plan_version,
            PLAN_VERSION,
        ));
    }
    problems.extend(actions_semantics(file, "", &plan.actions, finished));
    problems
}

/// Parses and fully checks a fragment from JSON. `expected_id` is the file's stem.
pub fn fragment_from_json(file: &str, text: &str, expected_id: Option<&str>) -> Checked<Fragment> {
    let fragment: Fragment = typed(file, Format::Fragment, json(file, text)?)?;
    let mut problems = Vec::new();
    if fragment.fragment_version != FRAGMENT_VERSION {
        problems.push(version_problem(
            file,
            "fragment_version",
            &fragment.fragment_version,
            FRAGMENT_VERSION,
        ));
    }
    if let Some(expected) = expected_id
        && fragment.id != expected
    {
        problems.push(InputError::new(
            file,
            "id",
            format!("id `{}` does not match the file name", fragment.id),
            format!("set `\"id\": \"{expected}\"` or rename the file"),
        ));
    }
    problems.extend(actions_semantics(file, "", &fragment.actions, false));
    if let Some(expect) = &fragment.expect {
        problems.extend(expect_semantics(file, "expect", expect));
    }
    if problems.is_empty() {
        Ok(fragment)
    } else {
        Err(Problems(problems))
    }
}

/// Parses and fully checks a cache entry (and the plan inside it) from JSON.
pub fn cache_entry_from_json(file: &str, text: &str) -> Checked<CacheEntry> {
    let entry: CacheEntry = typed(file, Format::CacheEntry, json(file, text)?)?;
    let mut problems = Vec::new();
    if entry.cache_version != CACHE_VERSION {
        problems.push(version_problem(
            file,
            "cache_version",
            &entry.cache_version,
            CACHE_VERSION,
        ));
    }
    if entry.key.scenario_id != entry.plan.scenario_id {
        problems.push(InputError::new(
            file,
            "plan.scenario_id",
            format!(
                "the plan is for `{}` but the key says `{}`",
                entry.plan.scenario_id, entry.key.scenario_id
            ),
            "delete the entry; the next run plans the scenario again",
        ));
    }
    problems.extend(plan_semantics(file, "plan.", &entry.plan));
    if problems.is_empty() {
        Ok(entry)
    } else {
        Err(Problems(problems))
    }
}

fn json(file: &str, text: &str) -> Checked<Value> {
    serde_json::from_str(text).map_err(|e| {
        InputError::new(
            file,
            WHOLE_FILE,
            format!("not valid JSON: {e}"),
            "fix the JSON syntax at the line and column given",
        )
        .into()
    })
}

/// Validates against the format's JSON Schema, then deserialises.
fn typed<T: DeserializeOwned>(file: &str, format: Format, value: Value) -> Checked<T> {
    let problems = schema_problems(file, format, &value);
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    serde_json::from_value(value).map_err(|e| {
        InputError::new(
            file,
            WHOLE_FILE,
            e.to_string(),
            format!("compare the file with schemas/{}", format.file_name()),
        )
        .into()
    })
}

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

fn version_problem(file: &str, field: &str, found: &str, known: &str) -> InputError {
    InputError::new(
        file,
        field,
        format!("version `{found}` is not one this windup reads (`{known}`)"),
        "upgrade windup, or regenerate the file with this version",
    )
}

/// The semantic rules of a plan. `prefix` is prepended to field names (`plan.` in a cache entry).
pub fn plan_semantics(file: &str, prefix: &str, plan: &Plan) -> Vec<InputError> {
    let mut problems = Vec::new();
    if plan.plan_version != PLAN_VERSION {
        problems.push(version_problem(
            file,
            &format!("{prefix}plan_version"),
            &plan.plan_version,
            PLAN_VERSION,
        ));
    }
    if plan.actions.is_empty() {
        problems.push(InputError::new(
            file,
            format!("{prefix}actions"),
            "the plan has no actions",
            "add at least one action",
        ));
    }
    problems.extend(actions_semantics(file, prefix, &plan.actions, true));
    problems
}

fn actions_semantics(
    file: &str,
    prefix: &str,
    actions: &[Action],
    final_needs_expect: bool,
) -> Vec<InputError> {
    let mut problems = Vec::new();
    let mut ids = HashSet::new();
    for (i, action) in actions.iter().enumerate() {
        let at = format!("{prefix}actions[{i}]");
        let mut problem = |field: &str, what: String, fix: String| {
            problems.push(InputError::new(file, format!("{at}{field}"), what, fix));
        };
        if !ids.insert(action.id.as_str()) {
            problem(
                ".id",
                format!("id `{}` is used twice", action.id),
                "give every action its own id".into(),
            );
        }
        let kind = action.kind;
        match &action.target {
            Some(t) => {
                if let Err(e) = Selector::parse(&t.selector) {
                    problem(
                        ".target.selector",
                        format!("bad selector `{}`: {e}", t.selector),
                        "write a selector such as role=button[name=\"Save\"]".into(),
                    );
                }
                if !kind.needs_target() && kind != ActionType::Press {
                    problem(
                        ".target",
                        format!("`{kind}` takes no target"),
                        "remove `target`".into(),
                    );
                }
            }
            None if kind.needs_target() => problem(
                ".target.selector",
                format!("`{kind}` needs a target"),
                "add `\"target\": {\"selector\": \"…\"}`".into(),
            ),
            None => {}
        }
        match kind {
            ActionType::Fill => match (&action.value, &action.value_ref) {
                (Some(_), Some(_)) => problem(
                    ".value",
                    "`fill` has both `value` and `value_ref`".into(),
                    "keep exactly one: `value` for literal text, `value_ref` for a credential's ENV name".into(),
                ),
                (None, None) => problem(
                    ".value",
                    "`fill` needs the text to type".into(),
                    "add `value` (literal text) or `value_ref` (a credential's ENV name)".into(),
                ),
                _ => {}
            },
            ActionType::Select => {
                if action.value.is_none() {
                    problem(
                        ".value",
                        "`select` needs the option's value or label".into(),
                        "add `value`".into(),
                    );
                }
            }
            _ => {
                if action.value.is_some() || action.value_ref.is_some() {
                    problem(
                        ".value",
                        format!("`{kind}` takes no value"),
                        "remove `value`/`value_ref`, or use `fill` or `select`".into(),
                    );
                }
            }
        }
        match (kind, &action.url) {
            (ActionType::Goto, None) => problem(
                ".url",
                "`goto` needs a url".into(),
                "add `\"url\": \"/path\"`".into(),
            ),
            (ActionType::Goto, Some(u)) if u.trim().is_empty() => problem(
                ".url",
                "`goto` has an empty url".into(),
                "add a path such as `/` or an absolute URL".into(),
            ),
            (ActionType::Goto, Some(_)) | (_, None) => {}
            (_, Some(_)) => problem(
                ".url",
                format!("`{kind}` takes no url"),
                "remove `url`, or use `goto`".into(),
            ),
        }
        match (kind, &action.key) {
            (ActionType::Press, None) => problem(
                ".key",
                "`press` needs a key".into(),
                "add `\"key\": \"Enter\"`".into(),
            ),
            (ActionType::Press, Some(k)) => {
                if let Err(e) = crate::keys::parse_chord(k) {
                    problem(".key", e, "use a key such as Enter, Tab, Escape, ArrowDown, a, or a chord such as Control+A".into());
                }
            }
            (_, Some(_)) => problem(
                ".key",
                format!("`{kind}` takes no key"),
                "remove `key`, or use `press`".into(),
            ),
            (_, None) => {}
        }
        match (kind, &action.use_fragment) {
            (ActionType::Use, None) => problem(
                ".use",
                "`use` needs a fragment id".into(),
                "add `\"use\": \"<fragment id>\"` naming a file in e2e/fragments/".into(),
            ),
            (ActionType::Use, Some(_)) | (_, None) => {}
            (_, Some(_)) => problem(
                ".use",
                format!("`{kind}` takes no `use`"),
                "remove `use`, or set `type` to `use`".into(),
            ),
        }
        if let Some(expect) = &action.expect {
            for e in expect_semantics(file, &format!("{at}.expect"), expect) {
                problems.push(e);
            }
        }
    }
    if final_needs_expect && let Some(last) = actions.last() {
        let has_expect = last.expect.as_ref().is_some_and(|e| !e.is_empty());
        if !has_expect && last.kind != ActionType::Use {
            problems.push(InputError::new(
                file,
                format!("{prefix}actions[{}].expect", actions.len() - 1),
                "the final action has no postcondition, so success could not be verified",
                "add an `expect` (visible, hidden, url, value or count) that proves the task is done",
            ));
        }
    }
    problems
}

fn expect_semantics(file: &str, at: &str, expect: &crate::plan::Expect) -> Vec<InputError> {
    let mut problems = Vec::new();
    if expect.is_empty() {
        problems.push(InputError::new(
            file,
            at,
            "`expect` is empty",
            "give at least one of visible, hidden, url, value, count; or remove it",
        ));
    }
    for (field, selector) in expect.selectors() {
        if let Err(e) = Selector::parse(selector) {
            problems.push(InputError::new(
                file,
                format!("{at}.{field}"),
                format!("bad selector `{selector}`: {e}"),
                "write a selector such as text=\"Saved\"",
            ));
        }
    }
    if let Some(url) = &expect.url
        && let Err(e) = globset::Glob::new(url)
    {
        problems.push(InputError::new(
            file,
            format!("{at}.url"),
            format!("bad URL glob `{url}`: {e}"),
            "write a glob such as `/todos*` or `**/done`",
        ));
    }
    problems
}
