//! The planner bound to one provider and price, and its main question: the next segment of
//! plan for the page it is shown. An answer the checks reject goes back with its problems
//! (semantic retries); credential values never reach a prompt.

use std::collections::BTreeSet;
use std::time::Instant;

use windup_model::{Action, FailureClass, Plan, Scenario};

use super::answer::{Choices, plan_schema, proof_schema};
use super::facts::StepFacts;
use super::{Ask, Budget, Purpose, Segment, Settings, Spend, check, prompt};
use crate::boundary::Boundary;
use crate::costs::PriceTable;
use crate::fragments::{Fragments, page_path};
use crate::llm::{LlmClient, LlmError, LlmRequest};
use crate::secrets::ProjectSecrets;

/// What the project gives every call.
pub(crate) struct Project<'a> {
    /// Where plans may go and which credentials they may name.
    pub boundary: &'a Boundary,
    pub fragments: &'a Fragments,
    pub secrets: &'a ProjectSecrets,
    pub budget: &'a Budget,
    /// The names of the files in `e2e/files/` an upload may set (names only, never contents).
    pub files: &'a [String],
}

/// Why planning gave up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlanFailure {
    pub class: FailureClass,
    pub message: String,
}

/// The planner bound to one provider and price.
pub(crate) struct Planner {
    pub(super) client: Box<dyn LlmClient>,
    pub(super) settings: Settings,
    pub(super) prices: PriceTable,
}

impl Planner {
    pub(crate) fn new(client: Box<dyn LlmClient>, settings: Settings, prices: PriceTable) -> Self {
        Planner {
            client,
            settings,
            prices,
        }
    }

    pub(crate) fn settings(&self) -> &Settings {
        &self.settings
    }

    pub(crate) fn provider(&self) -> &str {
        self.client.provider()
    }

    pub(crate) fn model(&self) -> &str {
        self.client.model()
    }

    /// `provider/model`, as plans record who made them.
    pub(crate) fn generated_by(&self) -> String {
        format!("{}/{}", self.client.provider(), self.client.model())
    }

    /// Asks for the next segment of plan; counts, prices and times every call into `spend`.
    pub(crate) async fn plan(
        &self,
        ask: &Ask<'_>,
        project: &Project<'_>,
        spend: &mut Spend,
    ) -> Result<Segment, PlanFailure> {
        let own = Instant::now();
        let credentials = credentials(project.secrets);
        let allowed: BTreeSet<String> = credentials.iter().map(|(_, env)| env.clone()).collect();
        let facts = ask.facts.iter().map(|s| s.facts.len()).sum();
        let stub = Plan {
            plan_version: windup_model::plan::PLAN_VERSION.to_string(),
            scenario_id: ask.scenario.id.clone(),
            task: ask.scenario.task.clone(),
            start_url: ask.scenario.start_url.clone(),
            generated_by: self.generated_by(),
            actions: Vec::new(),
        };
        let rules = check::Rules {
            boundary: project.boundary,
            fragments: project.fragments,
            taken_ids: ask.done.iter().map(|a| a.id.clone()).collect(),
            observation: ask.page,
            facts,
            files: project.files,
        };
        // Credential values never reach a prompt, even when the page shows one in a field.
        let user = project
            .secrets
            .redact(&prompt::user_message(ask, &credentials, project.files));
        let system = prompt::SYSTEM.to_string();
        // Only the fragments that start on this page may be named.
        let fragments = project.fragments.usable_on(&page_path(&ask.page.url));
        // A text or heading clicked already to no effect is not offered again: a small model
        // otherwise clicks the page's own copy of the task over and over.
        let dead: BTreeSet<&str> = ask
            .done
            .iter()
            .filter(|a| ask.unchanged.contains(&a.id))
            .filter(|a| {
                matches!(
                    a.kind,
                    windup_model::ActionType::Click | windup_model::ActionType::Hover
                )
            })
            .filter_map(|a| a.target.as_ref().map(|t| t.selector.as_str()))
            .collect();
        let refs: Vec<String> = ask
            .page
            .items
            .iter()
            .enumerate()
            .filter(|(_, i)| i.control || !dead.contains(i.selector.as_str()))
            .map(|(n, _)| format!("e{}", n + 1))
            .collect();
        let schema = plan_schema(&Choices {
            refs: &refs,
            facts,
            credentials: &allowed.iter().cloned().collect::<Vec<_>>(),
            fragments: &fragments,
            files: project.files,
        });
        let mut rejected: Vec<String> = Vec::new();
        let mut last_answer = None;
        spend.own_ms += own.elapsed().as_millis() as u64;
        for attempt in 0..=self.settings.semantic_retries {
            let own = Instant::now();
            let request = LlmRequest {
                system: system.clone(),
                user: if attempt == 0 {
                    user.clone()
                } else {
                    format!(
                        "{user}{}",
                        project.secrets.redact(&prompt::rejection(&rejected))
                    )
                },
                schema_name: "windup_plan".to_string(),
                schema: schema.clone(),
                max_output_tokens: self.settings.max_output_tokens,
                temperature: self.settings.temperature,
            };
            spend.own_ms += own.elapsed().as_millis() as u64;
            tracing::debug!(
                scenario_id = ask.scenario.id,
                attempt,
                "planner prompt:\n{}",
                request.user
            );
            let result = self.call(&request, project, spend).await?;
            spend.count(&ask.purpose);
            let own = Instant::now();
            let completion = match result {
                Ok(c) => c,
                Err(LlmError::Refused { message, .. }) => {
                    return Err(PlanFailure {
                        class: FailureClass::PlanRejected,
                        message: format!("the model refused to plan: {message}"),
                    });
                }
                Err(e) => {
                    return Err(PlanFailure {
                        class: FailureClass::LlmError,
                        message: project.secrets.redact(&e.to_string()),
                    });
                }
            };
            tracing::debug!(
                scenario_id = ask.scenario.id,
                attempt,
                "planner answer: {}",
                project.secrets.redact(&completion.text)
            );
            let mut answer = check::accept(&completion.text, &stub, &rules);
            if completion.finish == crate::llm::Finish::Length
                && let Err(problems) = &mut answer
            {
                problems.insert(
                    0,
                    format!(
                        "the answer was cut off at {} output tokens (fix: fewer steps: only those whose targets are in ELEMENTS)",
                        request.max_output_tokens
                    ),
                );
            }
            spend.own_ms += own.elapsed().as_millis() as u64;
            match answer {
                Ok(segment) => return Ok(segment),
                Err(problems) => {
                    tracing::info!(
                        scenario_id = ask.scenario.id,
                        attempt,
                        "planner answer rejected: {}",
                        problems.join("; ")
                    );
                    rejected = problems;
                    last_answer = Some(completion.text);
                }
            }
        }
        // Still wrong after the retries: a small model repeats a misplaced step. Its other
        // steps still run; proving decides what is kept, as for any answer.
        if let Some(text) = &last_answer
            && let Ok((segment, dropped)) = check::salvage(text, &stub, &rules)
        {
            tracing::info!(
                scenario_id = ask.scenario.id,
                "the planner's last answer is taken without the steps that fit no target: {}",
                project.secrets.redact(&dropped.join("; "))
            );
            return Ok(segment);
        }
        Err(PlanFailure {
            class: FailureClass::PlanRejected,
            message: project.secrets.redact(&format!(
                "the model's plan was still invalid after {} calls: {}",
                self.settings.semantic_retries + 1,
                rejected.join("; ")
            )),
        })
    }
}

impl Planner {
    /// A closing call: which of `facts` (numbered from 1 across steps) prove the task is done.
    /// The answer is checked like any other; a rejected one gets the semantic retries.
    pub(crate) async fn prove(
        &self,
        scenario: &Scenario,
        done: &[Action],
        facts: &[StepFacts],
        project: &Project<'_>,
        spend: &mut Spend,
    ) -> Result<Vec<usize>, PlanFailure> {
        let listed: usize = facts.iter().map(|s| s.facts.len()).sum();
        let user = project
            .secrets
            .redact(&prompt::proof_message(scenario, done, facts));
        let mut rejected: Vec<String> = Vec::new();
        for attempt in 0..=self.settings.semantic_retries {
            let request = LlmRequest {
                system: prompt::PROVE_SYSTEM.to_string(),
                user: if attempt == 0 {
                    user.clone()
                } else {
                    format!("{user}{}", prompt::rejection(&rejected))
                },
                schema_name: "windup_proofs".to_string(),
                schema: proof_schema(listed),
                max_output_tokens: 100,
                temperature: self.settings.temperature,
            };
            let result = self.call(&request, project, spend).await?;
            spend.count(&Purpose::Prove);
            let completion = result.map_err(|e| PlanFailure {
                class: FailureClass::LlmError,
                message: project.secrets.redact(&e.to_string()),
            })?;
            match check::proofs(&completion.text, listed) {
                Ok(p) => return Ok(p),
                Err(problems) => rejected = problems,
            }
        }
        Err(PlanFailure {
            class: FailureClass::PlanRejected,
            message: format!(
                "the model did not pick the facts proving the task: {}",
                rejected.join("; ")
            ),
        })
    }
}

/// The credentials a plan may use: the manifest's ENV names, labelled `account.field`. A name
/// the manifest does not declare is never offered, even when the task mentions it.
fn credentials(secrets: &ProjectSecrets) -> Vec<(String, String)> {
    secrets
        .manifest()
        .accounts
        .iter()
        .flat_map(|(account, a)| {
            a.fields
                .iter()
                .map(move |(field, env)| (format!("{account}.{field}"), env.env_name().to_string()))
        })
        .collect()
}
