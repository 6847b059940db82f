//! `use` steps: a fragment's steps run in place, labelled with the step and fragment, then the
//! fragment's own postconditions.

use tokio::time::Instant;
use windup_model::{Action, FailureClass};

use super::outcome::{Failure, fail};
use super::steps::{Executor, Timing};

/// Nested `use` deeper than this is a loop the fragment checks missed.
const MAX_FRAGMENT_DEPTH: usize = 8;

impl Executor<'_, '_> {
    /// A `use` step at nesting `depth`.
    pub(super) async fn use_fragment(
        &mut self,
        action: &Action,
        id: &str,
        depth: usize,
        timing: &mut Timing,
    ) -> Result<(), Failure> {
        let fid = action.use_fragment.as_deref().unwrap_or_default();
        let fragment = self.cx.fragments.get(fid).ok_or_else(|| {
            fail(
                FailureClass::PlanInvalid,
                Some(id),
                format!(
                    "no fragment `{fid}` in {}/",
                    crate::project::Layout::FRAGMENTS_DIR
                ),
            )
        })?;
        if depth >= MAX_FRAGMENT_DEPTH {
            return Err(fail(
                FailureClass::PlanInvalid,
                Some(id),
                format!("fragments nest deeper than {MAX_FRAGMENT_DEPTH}"),
            ));
        }
        let t = Instant::now();
        let label = format!("{}:{fid}", action.id);
        let actions = fragment.actions.clone();
        let own_expect = fragment.expect.clone();
        self.run_actions(&actions, Some(&label), depth + 1).await?;
        timing.1 = t.elapsed();
        if let Some(expect) = own_expect {
            let t = Instant::now();
            let d = self.deadline(action);
            self.verify(&expect, d, id).await?;
            timing.2 = t.elapsed();
        }
        Ok(())
    }
}
