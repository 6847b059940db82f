//! What every scenario of one run shares: the plan cache, the fragments, the run id, the event
//! sink, and the saved storage of the setup scenarios that passed, which the scenarios that
//! need them start with.

use std::path::Path;

use windup_model::Scenario;

use super::storage::{self, StorageState};
use crate::browser::Session;
use crate::cache::PlanCache;
use crate::events::EventSink;
use crate::fragments::Fragments;

/// Saved storage of the setup scenarios that passed in this run, by setup id.
pub(super) type Storages = std::sync::Mutex<std::collections::HashMap<String, StorageState>>;

/// What every scenario of one run shares.
#[derive(Clone, Copy)]
pub(super) struct RunShared<'a> {
    pub(super) cache: &'a PlanCache,
    pub(super) fragments: &'a Fragments,
    pub(super) run_id: &'a str,
    pub(super) events: &'a dyn EventSink,
    pub(super) storage: &'a Storages,
    /// The site map: slices for the planner, the at-risk check.
    pub(super) site: &'a super::site::Site,
}

impl RunShared<'_> {
    /// The saved storage a scenario starts with: that of every setup it needs.
    pub(super) fn state_for(&self, scenario: &Scenario) -> Option<StorageState> {
        if scenario.needs.is_empty() {
            return None;
        }
        let saved = self.storage.lock().expect("storage lock");
        let mut state = StorageState::default();
        for need in &scenario.needs {
            if let Some(s) = saved.get(need) {
                state.cookies.extend(s.cookies.iter().cloned());
                state.origins.extend(s.origins.iter().cloned());
            }
        }
        Some(state)
    }

    /// Keeps a passed setup's storage for the scenarios that need it.
    pub(super) async fn keep_setup_state(
        &self,
        root: &Path,
        scenario: &Scenario,
        session: &Session,
    ) {
        if !scenario.setup {
            return;
        }
        match storage::capture(session).await {
            Ok(state) => {
                if let Err(e) = storage::save(root, &scenario.id, &state) {
                    tracing::warn!("could not save the storage of setup {}: {e}", scenario.id);
                }
                self.storage
                    .lock()
                    .expect("storage lock")
                    .insert(scenario.id.clone(), state);
            }
            Err(e) => tracing::warn!("could not read the storage of setup {}: {e}", scenario.id),
        }
    }
}
