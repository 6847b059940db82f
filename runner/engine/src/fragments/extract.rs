//! Extraction, the pure part: which steps (`--steps a1-a3`), the new fragment's id, the
//! fragment made of them, and the plan rewritten to `use` it. The last extracted step's
//! `expect` becomes the fragment's own `expect`, what it proves: the catalogue shows it, and
//! a `use` step checks it where the step did. The runner verifies both before anything is
//! written (`Runner::extract_fragment`).

use std::ops::RangeInclusive;

use windup_model::fragment::FRAGMENT_VERSION;
use windup_model::{Action, ActionType, Fragment, InputError, Plan};

/// The longest fragment id accepted (it is also a file name).
const MAX_ID: usize = 64;

/// The steps `spec` names (`a1-a3`, or one id such as `a2`), as indexes into the plan's
/// steps. `file` is the cached plan's file, named in the problem.
pub fn steps(file: &str, spec: &str, plan: &Plan) -> Result<RangeInclusive<usize>, InputError> {
    let ids: Vec<&str> = plan.actions.iter().map(|a| a.id.as_str()).collect();
    let known = || format!("name steps of the plan: {}", ids.join(", "));
    let (first, last) = match spec.split_once('-') {
        Some((a, b)) => (a.trim(), b.trim()),
        None => (spec.trim(), spec.trim()),
    };
    let index = |id: &str| {
        ids.iter().position(|x| *x == id).ok_or_else(|| {
            InputError::new(
                file,
                "--steps",
                format!("no step `{id}` in the cached plan"),
                known(),
            )
        })
    };
    let (i, j) = (index(first)?, index(last)?);
    if i > j {
        return Err(InputError::new(
            file,
            "--steps",
            format!("`{first}` comes after `{last}` in the plan"),
            format!("write the first step first: {last}-{first}"),
        ));
    }
    Ok(i..=j)
}

/// Problems with a new fragment's id: the same rule as the fragment format's (`[a-z0-9._-]`,
/// starting with a letter or digit), since it is also the file name.
pub fn check_id(id: &str) -> Result<(), InputError> {
    let ok = id.len() <= MAX_ID
        && id
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && id.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
        });
    if ok {
        Ok(())
    } else {
        Err(InputError::new(
            "(arguments)",
            "--id",
            format!("`{id}` is not a fragment id"),
            format!(
                "use lower-case letters, digits, `.`, `_` and `-`, starting with a letter or digit, at most {MAX_ID} characters (such as sign-in)"
            ),
        ))
    }
}

/// The fragment made of `plan`'s steps in `range`, starting on the route `start`.
pub fn fragment(
    plan: &Plan,
    range: RangeInclusive<usize>,
    id: &str,
    start: Option<String>,
    description: String,
) -> Fragment {
    let mut actions: Vec<Action> = plan.actions[range].to_vec();
    let expect = actions
        .last_mut()
        .and_then(|a| a.expect.take())
        .filter(|e| !e.is_empty());
    Fragment {
        fragment_version: FRAGMENT_VERSION.to_string(),
        id: id.to_string(),
        description,
        start,
        actions,
        expect,
    }
}

/// `plan` with its steps in `range` replaced by one `use: <id>` step, which keeps the first
/// replaced step's id.
pub fn rewrite(plan: &Plan, range: RangeInclusive<usize>, id: &str) -> Plan {
    let mut out = plan.clone();
    let step = use_step(&plan.actions[*range.start()].id, id);
    out.actions.splice(range, [step]);
    out
}

/// A step `step_id` that runs fragment `fragment`.
pub fn use_step(step_id: &str, fragment: &str) -> Action {
    Action {
        id: step_id.to_string(),
        kind: ActionType::Use,
        target: None,
        value: None,
        value_ref: None,
        url: None,
        key: None,
        use_fragment: Some(fragment.to_string()),
        files: None,
        expect: None,
        timeout_ms: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        serde_json::from_value(serde_json::json!({
            "plan_version": "0.1", "scenario_id": "s", "task": "t", "start_url": "/login.html",
            "generated_by": "human",
            "actions": [
                {"id": "a1", "type": "fill", "target": {"selector": "label=\"Email\""}, "value": "x"},
                {"id": "a2", "type": "click", "target": {"selector": "text=\"Go\""},
                 "expect": {"url": "/projects.html"}},
                {"id": "a3", "type": "click", "target": {"selector": "text=\"Next\""},
                 "expect": {"visible": "text=\"Done\""}}
            ]
        }))
        .unwrap()
    }

    #[test]
    fn ranges_name_steps_of_the_plan_in_order() {
        let p = plan();
        assert_eq!(steps("f", "a1-a2", &p).unwrap(), 0..=1);
        assert_eq!(steps("f", "a3", &p).unwrap(), 2..=2);
        let e = steps("f", "a3-a1", &p).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.fix.as_str()),
            ("--steps", "write the first step first: a1-a3")
        );
        let e = steps("f", "a1-a9", &p).unwrap_err();
        assert!(
            e.problem.contains("no step `a9`") && e.fix.contains("a1, a2, a3"),
            "{e:?}"
        );
    }

    #[test]
    fn ids_follow_the_fragment_format() {
        assert!(check_id("sign-in").is_ok() && check_id("v2.login_x").is_ok());
        for bad in ["", "Sign-in", "-x", "../x", "a/b", &"x".repeat(65)] {
            assert!(check_id(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_last_steps_postcondition_becomes_the_fragments_and_the_plan_uses_it() {
        let p = plan();
        let f = fragment(&p, 0..=1, "sign-in", Some("/login.html".into()), "d".into());
        assert_eq!(f.actions.len(), 2);
        assert_eq!(f.actions[1].expect, None);
        assert_eq!(f.expect.unwrap().url.as_deref(), Some("/projects.html"));
        let r = rewrite(&p, 0..=1, "sign-in");
        let ids: Vec<_> = r.actions.iter().map(|a| (a.id.as_str(), a.kind)).collect();
        assert_eq!(ids, [("a1", ActionType::Use), ("a3", ActionType::Click)]);
        assert_eq!(r.actions[0].use_fragment.as_deref(), Some("sign-in"));
    }
}
