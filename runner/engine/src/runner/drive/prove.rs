//! Postconditions: the agent picks, by number, the facts its last step changed, or names an
//! element (a ref, or a selector) that must be visible or gone; either is checked on the page
//! before it is recorded.

use tokio::time::Instant;
use windup_model::{Expect, Selector};

use super::state::{Drive, DriveError};
use crate::planner::facts::{Fact, FactKind};
use crate::verifier::Check;

impl Drive {
    /// Makes facts of the last step its postconditions: `numbers` from the list shown after it,
    /// and an element that must be `visible` or `hidden` (a ref of the page last shown, or a
    /// selector such as `text="Saved"`). Returns the step's postcondition as it will be saved.
    pub async fn expect(
        &mut self,
        numbers: &[usize],
        visible: Option<&str>,
        hidden: Option<&str>,
    ) -> Result<String, DriveError> {
        let Some(last) = self.steps.last() else {
            return Err(DriveError::new(
                "no step has been taken yet (fix: act first; expect proves the last step)",
            ));
        };
        let listed = last.facts.len();
        if let Some(&n) = numbers.iter().find(|&&n| n == 0 || n > listed) {
            return Err(DriveError(match listed {
                0 => format!(
                    "the last step ({}) changed nothing listable, so there is no fact {n} (fix: name an element with visible or hidden)",
                    last.action.id
                ),
                _ => format!(
                    "fact {n} is not one of the {listed} listed after {} (fix: a number from 1 to {listed})",
                    last.action.id
                ),
            }));
        }
        if numbers.is_empty() && visible.is_none() && hidden.is_none() {
            return Err(DriveError::new(
                "nothing to expect (fix: give facts by number, or an element that is visible or hidden)",
            ));
        }
        let mut own = Vec::new();
        if let Some(v) = visible {
            let selector = self.selector_of(v)?;
            own.push(Fact {
                expect: Expect {
                    visible: Some(selector.clone()),
                    ..Expect::default()
                },
                kind: FactKind::Appeared,
                about: selector,
                counter: false,
            });
        }
        if let Some(h) = hidden {
            let selector = self.selector_of(h)?;
            own.push(Fact {
                expect: Expect {
                    hidden: Some(selector.clone()),
                    ..Expect::default()
                },
                kind: FactKind::Disappeared,
                about: selector,
                counter: false,
            });
        }
        // The agent's own elements must hold now, as the listed facts did when they were read.
        let base = self.runner.boundary().base_url().clone();
        let wait = self.runner.config.timeouts.action;
        let session = self.session()?;
        for fact in &own {
            let check = Check::compile(&fact.expect).map_err(|e| DriveError(e.to_string()))?;
            if let Err(e) = check
                .wait(session, &base, &fact.expect, Instant::now() + wait)
                .await
            {
                return Err(DriveError(format!(
                    "{} does not hold on the page now: {e}",
                    fact.line()
                )));
            }
        }
        let last = self.steps.last_mut().expect("checked above");
        // The agent's elements come first: where two facts check the same field, the first wins.
        let mut picked: Vec<usize> = Vec::new();
        for fact in own {
            picked.push(last.facts.len());
            last.facts.push(fact);
        }
        picked.extend(numbers.iter().map(|n| n - 1));
        for k in last.picked.drain(..) {
            if !picked.contains(&k) {
                picked.push(k);
            }
        }
        last.picked = picked;
        let mut expect = Expect::default();
        for &k in &last.picked {
            crate::planner::facts::merge(&mut expect, &last.facts[k]);
        }
        let line = serde_json::to_string(&expect).expect("an expect serializes");
        let id = last.action.id.clone();
        self.log.write("expect", &format!("{id} {line}"), None);
        Ok(format!("{id} expects {line}"))
    }

    /// A ref of the page last shown as its element's selector, or a selector as it is.
    fn selector_of(&self, target: &str) -> Result<String, DriveError> {
        if let Some(item) = self.page.as_ref().and_then(|p| p.item(target)) {
            return Ok(item.selector.clone());
        }
        if Selector::has_engine_prefix(target) {
            crate::locator::Locator::parse(target)
                .map_err(|e| DriveError(format!("`{target}` is not a selector: {e}")))?;
            return Ok(target.to_string());
        }
        Err(DriveError(format!(
            "`{target}` is neither a ref of the page last shown nor a selector (fix: a ref such as e3 from observe, or text=\"Saved\", role=button[name=\"Save\"], testid=…)"
        )))
    }
}
