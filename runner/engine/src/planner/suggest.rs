//! Opt-in advice on a failure (`suggest = true`), asked of the planner's model through the same
//! budget gate as every call.

use schemars::JsonSchema;
use serde::Deserialize;
use windup_model::{FailureClass, Scenario};

use super::{PlanFailure, Planner, Project, Spend, prompt};
use crate::llm::LlmRequest;

impl Planner {
    /// Opt-in: the model's reading of one failure and a fix to consider, from the failure and
    /// its evidence (page content inside the untrusted block, credentials masked). Advice for
    /// people: nothing here touches a plan or the cache.
    pub(crate) async fn suggest(
        &self,
        scenario: &Scenario,
        result: &windup_model::ScenarioResult,
        project: &Project<'_>,
        spend: &mut Spend,
    ) -> Result<windup_model::Suggestion, PlanFailure> {
        #[derive(Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        struct Advice {
            /// What went wrong, in one or two sentences.
            summary: String,
            /// What to change, in one or two sentences.
            fix: String,
        }
        let user = project.secrets.redact(&prompt::suggestion_message(
            scenario,
            result,
            self.settings.page_chars,
        ));
        let request = LlmRequest {
            system: prompt::SUGGEST_SYSTEM.to_string(),
            user,
            schema_name: "windup_advice".to_string(),
            schema: serde_json::to_value(schemars::schema_for!(Advice)).expect("schema"),
            max_output_tokens: 400,
            temperature: self.settings.temperature,
        };
        let result = self.call(&request, project, spend).await?;
        spend.calls.suggest += 1;
        let completion = result.map_err(|e| PlanFailure {
            class: FailureClass::LlmError,
            message: project.secrets.redact(&e.to_string()),
        })?;
        let advice: Advice =
            serde_json::from_str(completion.text.trim()).map_err(|e| PlanFailure {
                class: FailureClass::LlmError,
                message: format!("the suggestion is not the JSON asked for: {e}"),
            })?;
        Ok(windup_model::Suggestion {
            summary: project.secrets.redact(advice.summary.trim()),
            fix: project.secrets.redact(advice.fix.trim()),
            by: self.generated_by(),
        })
    }
}
