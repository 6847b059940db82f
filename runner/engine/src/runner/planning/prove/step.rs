//! What proving works with: how strictly a plan is held, what it found, each step with its
//! facts and what of it lasts, and the small rules the runs share (room for a check, the
//! strongest fact).

use std::collections::BTreeSet;
use std::time::Duration;

use windup_model::{Action, ActionType, Expect};

use super::super::proofs::own_state;
use crate::browser::{BrowserError, Session};
use crate::planner::facts::Fact;
use crate::planner::words::Seen;
use crate::verifier::Check;
/// What to do with a check that proves nothing and a step that nothing proves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::runner) enum Strictness {
    /// A plan the planner made: drop them, saying so in the planning log.
    Drop,
    /// An agent's flow (`windup mcp`): refuse the plan, naming them.
    Refuse,
    /// A plan people wrote or committed (`windup validate --prove`): change nothing, report.
    Report,
}

/// A plan proven step by step.
#[derive(Debug, Clone, Default)]
pub(in crate::runner) struct Proven {
    /// The steps kept, each with its checks.
    pub actions: Vec<Action>,
    /// Why each step was kept or dropped and each check dropped or added: the planning log.
    pub notes: Vec<String>,
    /// With [`Strictness::Report`]: what does not prove the task.
    pub problems: Vec<String>,
    /// Steps kept though no check needs them: they change only their own target (a typed
    /// value, a ticked box), which the server or a later scenario may need but which proves
    /// nothing of the task.
    pub unproven: Vec<String>,
    /// Checks kept though they held before their step (what must stay true), by step id:
    /// they show none of the task's words.
    pub invariants: Vec<(String, Expect)>,
    /// How long the proving runs took.
    pub duration: Duration,
    /// With [`Strictness::Report`]: the controls the pages showed on the proving run (a task
    /// naming one must use it).
    pub seen: BTreeSet<Seen>,
}

/// What leaving a step out did.
pub(super) enum Omission {
    /// A check or a later step failed: why.
    Fails(String),
    /// Every check still held.
    Holds,
}

/// One step being proven: the step with its checks, and the facts planning saw it change that
/// are not (yet) checks.
pub(super) struct Step {
    pub(super) action: Action,
    pub(super) facts: Vec<Fact>,
    /// What of the step lasts to the end of the proving run (its checks and facts that still
    /// hold after the last step): the step's part in the outcome. A check that is gone by then
    /// (a page left behind, a menu closed) proves the step only through what comes after it.
    pub(super) lasting: Vec<Expect>,
    /// Its checks that show the task's own words: proofs wherever they hold.
    pub(super) telling: Vec<Expect>,
    /// Its checks that already held before it ran: never proofs.
    pub(super) held_before: Vec<Expect>,
}

impl Step {
    pub(super) fn new(action: Action, facts: Vec<Fact>) -> Step {
        Step {
            action,
            facts,
            lasting: Vec::new(),
            telling: Vec::new(),
            held_before: Vec::new(),
        }
    }

    /// Whether `clause` (a check or a fact of this step) can prove it where it runs: it did not
    /// hold before the step, and it lasts or shows the task's words.
    pub(super) fn proves(&self, clause: &Expect) -> bool {
        !self.held_before.contains(clause)
            && (self.lasting.contains(clause) || self.telling.contains(clause))
    }
}

/// Whether leaving `action` out can change what the checks see: every step but `wait_for`
/// (a check itself) and `download` (its downloaded file is its proof).
pub(super) fn changes_page(action: &Action) -> bool {
    !matches!(action.kind, ActionType::WaitFor | ActionType::Download)
}

/// The strongest of `facts`: texts before controls, counters last.
pub(super) fn best(facts: &[Fact]) -> Option<Fact> {
    facts.iter().min_by_key(|f| (f.counter, f.kind)).cloned()
}

/// Whether `action`'s checks have room for `clause`: its field is free, or holds only a
/// restatement of the step's own input (which `clause` may replace).
pub(super) fn has_room(action: &Action, clause: &Expect) -> bool {
    let mut kept = action.expect.clone().unwrap_or_default();
    for c in kept.clauses() {
        if own_state(action, &c) {
            kept.remove_clause(&c);
        }
    }
    kept.has_room_for(clause)
}

/// Adds `clause` to `action`'s checks, in place of a restatement of its own input in that
/// field.
pub(super) fn add_check(action: &mut Action, clause: &Expect) {
    let own: Vec<Expect> = action
        .expect
        .iter()
        .flat_map(Expect::clauses)
        .filter(|c| own_state(action, c))
        .collect();
    let expect = action.expect.get_or_insert_with(Expect::default);
    for c in own.iter().filter(|c| !c.has_room_for(clause)) {
        expect.remove_clause(c);
    }
    expect.absorb(clause);
}

/// Whether `clause` holds on the page now (a check that does not compile never does).
pub(super) async fn holds_now(
    session: &Session,
    base: &url::Url,
    clause: &Expect,
) -> Result<bool, BrowserError> {
    match Check::compile(clause) {
        Ok(check) => check.holds_now(session, base, clause).await,
        Err(_) => Ok(false),
    }
}

pub(super) fn clip(message: &str) -> String {
    let mut s: String = message.chars().take(160).collect();
    if s.len() < message.len() {
        s.push('…');
    }
    s
}
