//! The entry points, one per format: refuse text over the format's size limit, parse, check
//! against the JSON Schema, deserialise, then apply the format's own rules (versions, ids that
//! must match the file name, the plan rules).

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::{Checked, InputError, Problems, WHOLE_FILE, version_problem};
use super::json_schema::schema_problems;
use super::limits::within_limit;
use super::rules::{actions_semantics, expect_semantics, plan_semantics, steps_of_version};
use crate::cache::{CACHE_VERSIONS_READ, CacheEntry, CacheStatus};
use crate::fragment::{FRAGMENT_VERSIONS_READ, Fragment};
use crate::limits::InputFile;
use crate::plan::{PLAN_VERSIONS_READ, Plan};
use crate::scenario::Scenario;
use crate::schema::Format;
use crate::sitemap::{MAP_VERSION, SiteMap};

/// Parses a scenario from YAML (refused unparsed when over its size limit). `expected_id` is the file's stem, which must equal `id`.
pub fn scenario_from_yaml(file: &str, text: &str, expected_id: Option<&str>) -> Checked<Scenario> {
    within_limit(file, InputFile::Scenario, text)?;
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

/// Why `id` is not a scenario id, by the scenario schema's own rule (the one definition of
/// it), as a problem with `field` of `file`; None when it is one.
pub fn scenario_id_problem(file: &str, field: &str, id: &str) -> Option<InputError> {
    let probe = serde_json::json!({"id": id, "task": "t", "start_url": "/"});
    super::schema_problems(file, Format::Scenario, &probe)
        .into_iter()
        .find(|p| p.field == "id")
        .map(|p| InputError {
            field: field.to_string(),
            ..p
        })
}

/// Parses and fully checks a plan from JSON.
pub fn plan_from_json(file: &str, text: &str) -> Checked<Plan> {
    within_limit(file, InputFile::Plan, text)?;
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
    if !PLAN_VERSIONS_READ.contains(&plan.plan_version.as_str()) {
        problems.push(version_problem(
            file,
            "plan_version",
            &plan.plan_version,
            &PLAN_VERSIONS_READ.join("`, `"),
        ));
    } else {
        problems.extend(steps_of_version(
            file,
            "",
            &plan.plan_version,
            &plan.actions,
        ));
    }
    problems.extend(actions_semantics(file, "", &plan.actions, finished));
    problems
}

/// Parses and fully checks a fragment from JSON. `expected_id` is the file's stem.
pub fn fragment_from_json(file: &str, text: &str, expected_id: Option<&str>) -> Checked<Fragment> {
    within_limit(file, InputFile::Fragment, text)?;
    let fragment: Fragment = typed(file, Format::Fragment, json(file, text)?)?;
    let mut problems = Vec::new();
    if !FRAGMENT_VERSIONS_READ.contains(&fragment.fragment_version.as_str()) {
        problems.push(version_problem(
            file,
            "fragment_version",
            &fragment.fragment_version,
            &FRAGMENT_VERSIONS_READ.join("`, `"),
        ));
    } else {
        problems.extend(steps_of_version(
            file,
            "",
            &fragment.fragment_version,
            &fragment.actions,
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
    within_limit(file, InputFile::CacheEntry, text)?;
    entry_checked(file, text)
}

/// Parses and fully checks a proposal (`e2e/.windup/cache/proposals/<id>.json`): a cache entry
/// with the status `proposed`, within the limit of two plans.
pub fn proposal_from_json(file: &str, text: &str) -> Checked<CacheEntry> {
    within_limit(file, InputFile::Proposal, text)?;
    let entry = entry_checked(file, text)?;
    if entry.status != CacheStatus::Proposed {
        return Err(InputError::new(
            file,
            "status",
            "a proposal's status must be `proposed`",
            "delete the file; the next run that re-plans the scenario proposes again",
        )
        .into());
    }
    Ok(entry)
}

fn entry_checked(file: &str, text: &str) -> Checked<CacheEntry> {
    let entry: CacheEntry = typed(file, Format::CacheEntry, json(file, text)?)?;
    let mut problems = Vec::new();
    if !CACHE_VERSIONS_READ.contains(&entry.cache_version.as_str()) {
        problems.push(version_problem(
            file,
            "cache_version",
            &entry.cache_version,
            &CACHE_VERSIONS_READ.join("`, `"),
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
    if (entry.status == CacheStatus::Proposed) != entry.proposal.is_some() {
        problems.push(InputError::new(
            file,
            "proposal",
            "a proposal needs `status: proposed` and its `proposal`, and only a proposal has them",
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

/// Parses and checks a site map from JSON.
pub fn site_map_from_json(file: &str, text: &str) -> Checked<SiteMap> {
    within_limit(file, InputFile::SiteMap, text)?;
    let map: SiteMap = typed(file, Format::SiteMap, json(file, text)?)?;
    if map.map_version != MAP_VERSION {
        return Err(version_problem(file, "map_version", &map.map_version, MAP_VERSION).into());
    }
    // The schema says most of it; the one rule says all of it (a note's day, too).
    let problems: Vec<InputError> = map
        .problems()
        .into_iter()
        .map(|p| {
            InputError::new(
                file,
                p.field,
                p.problem,
                "fix or delete that entry; `windup scan` and the next run add what is missing",
            )
        })
        .collect();
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    Ok(map)
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
