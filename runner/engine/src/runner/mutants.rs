//! `windup bench`'s "break the app" step: for each step that acts on an element, the verified
//! plan is run once from a fresh context with that element made deaf to the page
//! (`Locator::mute`: its clicks, keys, input, change and its form's submit never reach the app's
//! listeners, a link's navigation is cancelled, while the browser still types and ticks). A plan
//! that still passes has not proven the step: the mutant survived. A test tool's checks are only
//! as good as the breakage they catch.

use serde::Serialize;
use windup_model::{ActionType, Plan};

use super::planning::Prover;
use crate::locator::Locator;

/// One mutant of the app: the events of one step never reach it.
#[derive(Debug, Clone, Serialize)]
pub struct Mutant {
    /// The step whose events were kept from the app.
    pub action_id: String,
    /// The step as one line.
    pub step: String,
    /// The plan failed on the mutant, as it must.
    pub caught: bool,
    /// How the plan failed, or why the mutant could not be made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Steps whose target's events a mutant keeps from the app.
fn mutable(kind: ActionType) -> bool {
    matches!(
        kind,
        ActionType::Click
            | ActionType::Fill
            | ActionType::Press
            | ActionType::Select
            | ActionType::Check
            | ActionType::Uncheck
            | ActionType::Hover
            | ActionType::Upload
            | ActionType::Download
    )
}

impl Prover<'_> {
    /// Runs `plan` once per step with a target, that step's element deaf to the app.
    pub(super) async fn break_app(&self, plan: &Plan) -> Vec<Mutant> {
        let mut out = Vec::new();
        for (k, action) in plan.actions.iter().enumerate() {
            let Some(target) = action.target.as_ref().filter(|_| mutable(action.kind)) else {
                continue;
            };
            let mut mutant = Mutant {
                action_id: action.id.clone(),
                step: action.summary(),
                caught: false,
                detail: None,
            };
            let mut session = match self.fresh_context().await {
                Ok(s) => s,
                Err(r) => {
                    mutant.detail = Some(format!(
                        "the start page did not open: {}",
                        r.message.unwrap_or_default()
                    ));
                    out.push(mutant);
                    continue;
                }
            };
            let before = self
                .run_quiet(&mut session, &plan.actions[..k], false)
                .await;
            let muted = match (&before.failure, Locator::parse(&target.selector)) {
                (Some(f), _) => Err(format!("the steps before it failed: {}", f.message)),
                (None, Err(e)) => Err(e.to_string()),
                (None, Ok(locator)) => match locator.mute(&session).await {
                    Ok(true) => Ok(()),
                    Ok(false) => Err("its target was not on the page".to_string()),
                    Err(e) => Err(e.to_string()),
                },
            };
            match muted {
                Err(why) => mutant.detail = Some(why),
                Ok(()) => {
                    let rest = self
                        .run_quiet(&mut session, &plan.actions[k..], false)
                        .await;
                    mutant.caught = rest.failure.is_some();
                    mutant.detail = Some(match rest.failure {
                        Some(f) => format!(
                            "failed at {} ({})",
                            f.action_id.as_deref().unwrap_or("the plan"),
                            f.class
                        ),
                        None => "the plan still passed: its checks do not see this step's effect"
                            .to_string(),
                    });
                }
            }
            session.close().await;
            out.push(mutant);
        }
        out
    }
}
