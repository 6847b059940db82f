//! An answer's steps in the order the task names their targets: tried once, with no LLM call,
//! when the answer as given broke itself (a form submitted before the fields the task names
//! first were set). The task is the person's own text; the page only says which control a
//! step targets.

use windup_model::Action;

use crate::planner::Observation;
use crate::planner::words::find_phrase;

/// `actions` reordered so that the steps whose targets the task names come in the order it
/// names them; a step on an unnamed target stays right after the step it followed. `None` when
/// that is the order they already have.
pub(super) fn in_task_order(
    actions: &[Action],
    page: &Observation,
    task: &str,
) -> Option<Vec<Action>> {
    let task = task.to_lowercase();
    let named_at = |a: &Action| -> Option<usize> {
        let selector = &a.target.as_ref()?.selector;
        let item = page
            .items
            .iter()
            .find(|i| i.control && &i.selector == selector)?;
        let name = item.name.trim().to_lowercase();
        if name.chars().filter(|c| c.is_alphanumeric()).count() < 2 {
            return None;
        }
        find_phrase(&task, &name)
    };
    let mut key = 0;
    let mut keyed: Vec<(usize, usize, &Action)> = actions
        .iter()
        .enumerate()
        .map(|(n, a)| {
            if let Some(at) = named_at(a) {
                key = at;
            }
            (key, n, a)
        })
        .collect();
    keyed.sort_by_key(|&(key, n, _)| (key, n));
    if keyed.iter().enumerate().all(|(i, &(_, n, _))| i == n) {
        return None;
    }
    Some(keyed.into_iter().map(|(_, _, a)| a.clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planner::observation::Item;

    fn control(selector: &str, name: &str) -> Item {
        serde_json::from_value(serde_json::json!({
            "selector": selector, "name": name, "control": true, "tag": "input"
        }))
        .unwrap()
    }

    fn step(id: &str, kind: &str, selector: &str) -> Action {
        serde_json::from_value(serde_json::json!({
            "id": id, "type": kind, "target": {"selector": selector}
        }))
        .unwrap()
    }

    fn page() -> Observation {
        Observation {
            items: vec![
                control("#agree", "Agree"),
                control("#news", "Newsletter"),
                control("#go", "Submit"),
            ],
            ..Observation::default()
        }
    }

    fn ids(actions: &[Action]) -> Vec<&str> {
        actions.iter().map(|a| a.id.as_str()).collect()
    }

    #[test]
    fn steps_follow_the_order_the_task_names_their_targets() {
        let answer = [
            step("a1", "click", "#go"),
            step("a2", "check", "#news"),
            step("a3", "check", "#agree"),
        ];
        let task = "Tick Agree and Newsletter, then click Submit";
        let again = in_task_order(&answer, &page(), task).expect("reordered");
        assert_eq!(ids(&again), ["a3", "a2", "a1"]);
    }

    #[test]
    fn an_unnamed_step_stays_after_the_step_it_followed_and_a_kept_order_is_none() {
        let answer = [
            step("a1", "click", "#go"),
            step("a2", "press", "#other"),
            step("a3", "check", "#agree"),
        ];
        let again = in_task_order(&answer, &page(), "Tick Agree and click Submit").unwrap();
        assert_eq!(ids(&again), ["a3", "a1", "a2"]);
        assert_eq!(
            in_task_order(&again, &page(), "Tick Agree and click Submit"),
            None
        );
        // Nothing the task names: nothing to go by.
        assert_eq!(in_task_order(&answer, &page(), "Finish the form"), None);
    }
}
