//! The semantic rules a schema cannot say: of a plan's and a fragment's actions (unique ids,
//! which fields each action type takes, parseable selectors within their limits, keys and URL
//! globs, at most so many steps) and of their postconditions.

use std::collections::HashSet;

use super::error::{InputError, version_problem};
use super::limits::{chain_too_long, selector_too_long, too_many_steps};
use crate::plan::{
    Action, ActionType, FILES_DIR, PLAN_VERSION, PLAN_VERSIONS_READ, Plan, file_name_problem,
    since_version,
};
use crate::selector::Selector;

/// The semantic rules of a plan. `prefix` is prepended to field names (`plan.` in a cache entry).
pub fn plan_semantics(file: &str, prefix: &str, plan: &Plan) -> Vec<InputError> {
    let mut problems = Vec::new();
    if !PLAN_VERSIONS_READ.contains(&plan.plan_version.as_str()) {
        problems.push(version_problem(
            file,
            &format!("{prefix}plan_version"),
            &plan.plan_version,
            &PLAN_VERSIONS_READ.join("`, `"),
        ));
    } else {
        problems.extend(steps_of_version(
            file,
            prefix,
            &plan.plan_version,
            &plan.actions,
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

/// A plan (or fragment) of an older version holds only the steps that version had: a step type
/// it did not have means the file was written for a newer one and mislabelled. Fragment and
/// plan versions move together, so one table serves both.
pub(super) fn steps_of_version(
    file: &str,
    prefix: &str,
    version: &str,
    actions: &[Action],
) -> Vec<InputError> {
    let rank = |v: &str| PLAN_VERSIONS_READ.iter().position(|x| *x == v);
    actions
        .iter()
        .enumerate()
        .filter(|(_, a)| rank(since_version(a.kind)) > rank(version))
        .map(|(i, a)| {
            InputError::new(
                file,
                format!("{prefix}actions[{i}].type"),
                format!(
                    "`{}` came with version {}, but the file says {version}",
                    a.kind,
                    since_version(a.kind),
                ),
                format!("set the file's version to \"{PLAN_VERSION}\""),
            )
        })
        .collect()
}

pub(super) fn actions_semantics(
    file: &str,
    prefix: &str,
    actions: &[Action],
    final_needs_expect: bool,
) -> Vec<InputError> {
    let mut problems = Vec::new();
    if let Some((what, fix)) = too_many_steps(actions.len()) {
        problems.push(InputError::new(file, format!("{prefix}actions"), what, fix));
    }
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
                if let Some((what, fix)) = selector_problem(
                    &t.selector,
                    "write a selector such as role=button[name=\"Save\"]",
                ) {
                    problem(".target.selector", what, fix);
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
                    problem(".key", e.to_string(), "use a key such as Enter, Tab, Escape, ArrowDown, a, or a chord such as Control+A".into());
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
        match (kind, &action.files) {
            (ActionType::Upload, None) => problem(
                ".files",
                "`upload` needs the files to set".into(),
                format!("add `\"files\": [\"invoice.pdf\"]`, naming files in {FILES_DIR}/"),
            ),
            (ActionType::Upload, Some(files)) => {
                if files.is_empty() {
                    problem(
                        ".files",
                        "`upload` has an empty `files`".into(),
                        format!("name at least one file in {FILES_DIR}/"),
                    );
                }
                for (j, name) in files.iter().enumerate() {
                    if let Some(what) = file_name_problem(name) {
                        problem(
                            &format!(".files[{j}]"),
                            what,
                            format!(
                                "name a file directly in {FILES_DIR}/, such as \"invoice.pdf\""
                            ),
                        );
                    }
                }
            }
            (_, None) => {}
            (_, Some(_)) => problem(
                ".files",
                format!("`{kind}` takes no files"),
                "remove `files`, or use `upload`".into(),
            ),
        }
        if let Some(expect) = &action.expect {
            if expect.download.is_some() && kind != ActionType::Download {
                problem(
                    ".expect.download",
                    format!("`{kind}` starts no download to check"),
                    "move `download` to the `expect` of a `download` step".into(),
                );
            }
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

pub(super) fn expect_semantics(
    file: &str,
    at: &str,
    expect: &crate::plan::Expect,
) -> Vec<InputError> {
    let mut problems = Vec::new();
    if expect.is_empty() {
        problems.push(InputError::new(
            file,
            at,
            "`expect` is empty",
            "give at least one of visible, hidden, url, value, count, download; or remove it",
        ));
    }
    for (field, selector) in expect.selectors() {
        if let Some((what, fix)) =
            selector_problem(selector, "write a selector such as text=\"Saved\"")
        {
            problems.push(InputError::new(file, format!("{at}.{field}"), what, fix));
        }
    }
    if let Some(d) = &expect.download {
        problems.extend(download_semantics(file, &format!("{at}.download"), d));
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

fn download_semantics(file: &str, at: &str, d: &crate::plan::DownloadExpect) -> Vec<InputError> {
    let mut problems = Vec::new();
    if let Some(name) = &d.name
        && let Err(e) = globset::Glob::new(name)
    {
        problems.push(InputError::new(
            file,
            format!("{at}.name"),
            format!("bad file name glob `{name}`: {e}"),
            "write a name such as `report.csv` or a glob such as `report-*.csv`",
        ));
    }
    if d.size.is_some() && (d.min_size.is_some() || d.max_size.is_some()) {
        problems.push(InputError::new(
            file,
            format!("{at}.size"),
            "`size` is exact, so `min_size`/`max_size` beside it say nothing",
            "keep `size`, or `min_size`/`max_size`",
        ));
    }
    if let (Some(min), Some(max)) = (d.min_size, d.max_size)
        && min > max
    {
        problems.push(InputError::new(
            file,
            format!("{at}.min_size"),
            format!("`min_size` {min} is larger than `max_size` {max}"),
            "swap them, or widen the range",
        ));
    }
    problems
}

/// Why a selector cannot be used, and the fix: over a size limit (checked before it is parsed,
/// and never echoed), or not parseable (`example` is then the fix).
fn selector_problem(selector: &str, example: &str) -> Option<(String, String)> {
    if let Some(p) = selector_too_long(selector) {
        return Some(p);
    }
    match Selector::parse(selector) {
        Err(e) => Some((format!("bad selector `{selector}`: {e}"), example.into())),
        Ok(parsed) => chain_too_long(parsed.parts.len()),
    }
}
