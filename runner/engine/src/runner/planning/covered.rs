//! What an answer's steps left of the page, as planning reads it: the controls the task still
//! needs that the steps covered (a page that ended its task), a click on a text rather than a
//! control, and the controls a page lists by role and name.

use std::collections::BTreeSet;

use windup_model::Action;

use super::proofs::Planned;
use crate::planner::words::{Seen, TaskWords};

/// The task's own words (quoted or named controls) whose controls were usable on `began` and
/// are covered on `now`, and that no step of the last `answer` acted on (a click that ended
/// the task's page is done, not still needed), in the task's spelling: nothing of the page's
/// own text.
pub(super) fn newly_covered(
    began: &crate::planner::Observation,
    now: &crate::planner::Observation,
    words: &TaskWords,
    answer: &[Planned],
) -> Vec<String> {
    // A control the answer's own steps acted on is done, not still needed.
    let acted = |word: &str| {
        answer.iter().any(|s| {
            s.action
                .target
                .as_ref()
                .is_some_and(|t| words.names_target(&t.selector, word))
        })
    };
    let usable = |page: &crate::planner::Observation, word: &str, covered: bool| {
        page.items.iter().any(|i| {
            i.control
                && i.name.trim().eq_ignore_ascii_case(word)
                && (i.covered == Some(true)) == covered
        })
    };
    // The controls the task names by a phrase too ("press login" for a button "Login").
    let implicit = words.implicit(&controls(began));
    let mut out: Vec<String> = words
        .quotes
        .iter()
        .chain(&words.named)
        .chain(&implicit)
        .filter(|w| usable(began, w, false) && usable(now, w, true) && !acted(w))
        .map(|w| format!("{w:?}"))
        .collect();
    out.dedup();
    out
}

/// Whether `action` clicks or hovers a text `page` listed, not a control.
pub(super) fn on_text(action: &Action, page: &crate::planner::Observation) -> bool {
    matches!(
        action.kind,
        windup_model::ActionType::Click | windup_model::ActionType::Hover
    ) && action.target.as_ref().is_some_and(|t| {
        page.items
            .iter()
            .any(|i| !i.control && i.selector == t.selector)
            && !page
                .items
                .iter()
                .any(|i| i.control && i.selector == t.selector)
    })
}

/// The controls an observation lists, by role and name.
pub(super) fn controls(page: &crate::planner::Observation) -> BTreeSet<Seen> {
    page.items
        .iter()
        .filter(|i| i.control && !i.name.trim().is_empty())
        .map(|i| (i.role.clone(), i.name.clone()))
        .collect()
}
