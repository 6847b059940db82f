//! The typed outcomes of a scenario's stages, which `pipeline` reads: what the cache lookup
//! found, what a replay came to, what healing made of a failed one.

use windup_model::{CacheEntry, CacheOutcome, InputError, ScenarioResult};

use crate::browser::Session;
use crate::executor::{Execution, Failure};
use crate::sitemap::AtRisk;

/// What the cache holds for a scenario, judged before anything runs.
pub(in crate::runner) enum Looked {
    /// A verified plan to replay, with the site map's reason when it says the plan is at risk.
    Hit {
        entry: Box<CacheEntry>,
        risk: Option<AtRisk>,
    },
    /// A plan the site map says will break, re-planned up front (`--replan-at-risk`).
    AtRisk {
        entry: Box<CacheEntry>,
        risk: AtRisk,
    },
    /// A plan outside the trust boundary: never run.
    Untrusted {
        entry: Box<CacheEntry>,
        problems: Vec<InputError>,
    },
    /// A plan verified for an earlier text of the scenario.
    Outdated(Box<CacheEntry>),
    /// No plan.
    Miss,
}

/// What a replay of a cached plan came to.
pub(in crate::runner) enum Replayed {
    /// It passed, or failed in a way that leaves the plan standing (the app, the browser, a
    /// timeout): the scenario's result.
    Done(ScenarioResult),
    /// It failed in a way that says the plan no longer holds.
    Failed(FailedReplay),
}

/// A replay that failed in a way that says the plan no longer holds, with its context still
/// open on the page where it failed.
pub(in crate::runner) struct FailedReplay {
    pub(in crate::runner) execution: Execution,
    pub(in crate::runner) session: Session,
    pub(in crate::runner) failure: Failure,
    /// How the replay's result names the cache: `hit`, or `hit_changed_page`.
    pub(in crate::runner) hit: CacheOutcome,
    /// The start page's signature now, when it differs from the one the plan was verified on.
    pub(in crate::runner) changed: Option<String>,
}

/// What the heal stage made of a failed replay.
pub(in crate::runner) enum Healed {
    /// The healed plan verified: it is cached, or, in place of a protected plan, proposed.
    Yes(ScenarioResult),
    /// Not healed: the replay goes on to a repair, or its failure is kept.
    No(Unhealed),
}

/// A failed replay that did not heal, with why (when healing was tried) and whether a
/// healing attempt moved its context on from the page where the step failed.
pub(in crate::runner) struct Unhealed {
    pub(in crate::runner) replay: FailedReplay,
    pub(in crate::runner) why: Option<String>,
    pub(in crate::runner) moved_on: bool,
}
