//! The steps a planning has run, each with the facts it changed, and how each gets its
//! postcondition: a fact the model picked by number, one the task's quoted words name, else
//! the engine's own pick among the step's facts. A step whose page did not change gets none;
//! only a last step that changed nothing visible is given its own target as the check.

use windup_model::{Action, Expect};

use crate::planner::facts::{self, Fact, FactKind, StepFacts};

/// One step of the plan being made.
#[derive(Debug, Clone)]
pub(in crate::runner) struct Planned {
    pub action: Action,
    /// What it changed on the page, holding right after it (empty for kept steps).
    pub facts: Vec<Fact>,
    /// Indices into `facts` chosen as its postconditions.
    pub picked: Vec<usize>,
    /// The engine chose its postcondition, not the model or the task: a verifying run that
    /// fails only on it may drop it.
    pub engine_chosen: bool,
}

impl Planned {
    pub(super) fn kept(action: Action) -> Planned {
        Planned {
            action,
            facts: Vec::new(),
            picked: Vec::new(),
            engine_chosen: false,
        }
    }
}

/// The facts of `steps[pending]`, as the prompt lists them.
pub(super) fn listed(steps: &[Planned], pending: &[usize]) -> Vec<StepFacts> {
    pending
        .iter()
        .map(|&i| StepFacts {
            step: steps[i].action.id.clone(),
            facts: steps[i].facts.clone(),
        })
        .collect()
}

/// Marks the facts numbered `numbers` (from 1, across `pending` in order) as picked.
pub(super) fn pick_numbers(steps: &mut [Planned], pending: &[usize], numbers: &[usize]) {
    let mut n = 0;
    for &i in pending {
        for k in 0..steps[i].facts.len() {
            n += 1;
            if numbers.contains(&n) && !steps[i].picked.contains(&k) {
                steps[i].picked.push(k);
            }
        }
    }
}

/// The appeared facts of `pending` steps that show a string the task quotes, as (step, fact)
/// indices, with the quotes.
fn quoted_facts(
    steps: &[Planned],
    pending: &[usize],
    task: &str,
) -> (Vec<String>, Vec<(usize, usize)>) {
    let quotes = facts::quoted(task);
    let mut found = Vec::new();
    for &i in pending {
        for (k, f) in steps[i].facts.iter().enumerate() {
            if f.kind == FactKind::Appeared && quotes.contains(&f.about) {
                found.push((i, k));
            }
        }
    }
    (quotes, found)
}

/// Picks, among `pending` steps, the appeared facts that show a string the task quotes.
/// Returns whether any was found (then no closing call is needed).
pub(super) fn pick_quoted(steps: &mut [Planned], pending: &[usize], task: &str) -> bool {
    let (_, found) = quoted_facts(steps, pending, task);
    for &(i, k) in &found {
        if !steps[i].picked.contains(&k) {
            steps[i].picked.push(k);
        }
    }
    !found.is_empty()
}

/// Whether the task quotes strings and every one appeared after one of `pending`.
pub(super) fn quotes_shown(steps: &[Planned], pending: &[usize], task: &str) -> bool {
    let (quotes, found) = quoted_facts(steps, pending, task);
    !quotes.is_empty()
        && quotes
            .iter()
            .all(|q| found.iter().any(|&(i, k)| steps[i].facts[k].about == *q))
}

/// Every step's `expect` from its picked facts; a step with facts but no pick gets the
/// engine's; a last step with no postcondition at all is checked on its own target.
pub(super) fn finish(steps: &mut [Planned]) -> Vec<Action> {
    let last = steps.len().saturating_sub(1);
    let mut out = Vec::with_capacity(steps.len());
    for (i, s) in steps.iter_mut().enumerate() {
        if s.picked.is_empty()
            && !s.facts.is_empty()
            && let Some(k) = facts::engine_pick(&s.action, &s.facts)
        {
            s.picked.push(k);
            s.engine_chosen = true;
        }
        let mut action = s.action.clone();
        if !s.picked.is_empty() {
            let mut expect = action.expect.take().unwrap_or_default();
            for &k in &s.picked {
                facts::merge(&mut expect, &s.facts[k]);
            }
            action.expect = Some(expect);
        }
        let unproven = action.expect.as_ref().is_none_or(Expect::is_empty);
        if i == last
            && unproven
            && let Some(t) = &action.target
        {
            action.expect = Some(Expect {
                visible: Some(t.selector.clone()),
                ..Expect::default()
            });
            s.engine_chosen = true;
        }
        out.push(action);
    }
    out
}
