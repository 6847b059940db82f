//! Planning logic, provider-agnostic: one page, the task and what is known go in; a validated
//! segment of plan comes out. Structured output; two retry levels: transient ones inside the
//! `llm` client, semantic ones here (the problems go back in one more call). Every call passes
//! the budget gate first and is counted, priced and timed.

pub mod budget;
pub mod check;
pub mod page;
pub mod prompt;

use std::collections::BTreeSet;
use std::time::Instant;

use schemars::JsonSchema;
use serde::Deserialize;
use time::Date;
use windup_model::ledger::TokenUsage;
use windup_model::{Action, FailureClass, Plan, Scenario};

use crate::costs::{DatedPrice, PriceTable, worst_case_micro_usd};
use crate::fragments::Fragments;
use crate::llm::{LlmClient, LlmError, LlmRequest, Usage};
use crate::secrets::ProjectSecrets;

pub use budget::{Budget, Limits};
pub use check::Segment;
pub use page::PageView;

/// How the planner behaves; `[planner]` in windup.toml.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Characters of the page (elements and snapshot) a prompt may carry.
    pub page_chars: usize,
    pub max_elements: usize,
    /// Extra calls with the validation problems after a rejected answer.
    pub semantic_retries: u32,
    /// Continuation calls per scenario when a plan reaches a page it was not planned on.
    pub max_continuations: u32,
    /// Origins a `goto` may reach besides the base URL's.
    pub allowed_origins: Vec<url::Origin>,
    pub max_output_tokens: u32,
    pub temperature: Option<f32>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            page_chars: 6_000,
            max_elements: 80,
            semantic_retries: 1,
            max_continuations: 3,
            allowed_origins: Vec::new(),
            max_output_tokens: 2_048,
            temperature: Some(0.0),
        }
    }
}

/// Which of the ledger's call counters a call adds to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallKind {
    Planning,
    Continuation,
    Replan,
    Suggest,
}

/// A step that failed, as the prompt reports it.
#[derive(Debug, Clone)]
pub struct StepFailure {
    pub action: Action,
    pub class: FailureClass,
    pub message: String,
}

/// Why this call is made.
#[derive(Debug, Clone)]
pub enum Purpose {
    /// A fresh plan from the start page.
    Plan,
    /// The plan reached a page it was not planned on (and, when given, failed there).
    Continue { failure: Option<StepFailure> },
    /// A cached plan failed on replay: plan the rest from where it failed.
    Repair { failure: StepFailure },
}

impl Purpose {
    fn kind(&self) -> CallKind {
        match self {
            Purpose::Plan => CallKind::Planning,
            Purpose::Continue { .. } => CallKind::Continuation,
            Purpose::Repair { .. } => CallKind::Replan,
        }
    }
}

/// One question to the planner.
pub struct Ask<'a> {
    pub scenario: &'a Scenario,
    pub page: &'a PageView,
    /// Steps already executed, in order.
    pub done: &'a [Action],
    pub purpose: Purpose,
    /// Fragment ids with their descriptions.
    pub fragments: &'a [(String, String)],
    /// Seam for the site map's slice of known pages (a later issue).
    pub site_map: Option<&'a str>,
}

/// What the project gives every call.
pub struct Project<'a> {
    pub base_url: &'a url::Url,
    pub fragments: &'a Fragments,
    pub secrets: &'a ProjectSecrets,
    pub budget: &'a Budget,
}

/// What a scenario's planning cost, for its result and its ledger record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Spend {
    pub planning: u32,
    pub continuation: u32,
    pub replan: u32,
    /// Opt-in failure summaries and fix suggestions.
    pub suggest: u32,
    pub usage: Usage,
    pub cost_micro_usd: u64,
    pub price_date: Option<Date>,
    /// Time spent in planning calls, provider latency included.
    pub llm_ms: u64,
    /// Time spent building prompts and checking answers.
    pub own_ms: u64,
}

impl Spend {
    pub fn calls(&self) -> u32 {
        self.planning + self.continuation + self.replan + self.suggest
    }

    fn count(&mut self, kind: CallKind) {
        match kind {
            CallKind::Planning => self.planning += 1,
            CallKind::Continuation => self.continuation += 1,
            CallKind::Replan => self.replan += 1,
            CallKind::Suggest => self.suggest += 1,
        }
    }
}

/// Why planning gave up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFailure {
    pub class: FailureClass,
    pub message: String,
}

/// The model's answer: steps, and whether the task ends on the page it saw.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)] // only its schema is used: answers are checked as JSON, then as a plan
struct Answer {
    /// The steps, in order.
    actions: Vec<Action>,
    /// What holds after the last step: it proves the task is done (or, when `complete` is
    /// false, that the next page was reached). Joins the last step's `expect`.
    final_expect: windup_model::Expect,
    /// False when the task continues on a page not seen yet.
    complete: bool,
}

/// Engines a planner-made selector starts with. Sent as a `pattern` so grammar-constrained
/// servers cannot write a bare CSS selector; the planner's checks still cover every part of
/// a chain.
const SELECTOR_PATTERN: &str = "^(role|text|label|placeholder|testid|css)=.+$";

/// The answer schema for one call: `value_ref` may only name one of `credentials` (and is left
/// out when there are none), so a grammar-enforcing server cannot invent a credential.
fn with_credentials(
    schema: &serde_json::Value,
    credentials: &BTreeSet<String>,
) -> serde_json::Value {
    let mut schema = schema.clone();
    let props = schema
        .pointer_mut("/$defs/Action/properties")
        .and_then(serde_json::Value::as_object_mut)
        .expect("the plan schema has Action properties");
    if credentials.is_empty() {
        props.remove("value_ref");
    } else if let Some(serde_json::Value::Object(field)) = props.get_mut("value_ref") {
        let mut names: Vec<serde_json::Value> =
            credentials.iter().map(|c| c.as_str().into()).collect();
        names.push(serde_json::Value::Null);
        field.insert("enum".into(), serde_json::Value::Array(names));
    }
    schema
}

/// The answer's JSON Schema, with every selector field constrained to start with an engine.
fn answer_schema() -> serde_json::Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(Answer)).expect("schema");
    for pointer in [
        "/$defs/Target/properties/selector",
        "/$defs/Expect/properties/visible",
        "/$defs/Expect/properties/hidden",
        "/$defs/CountExpect/properties/selector",
        "/$defs/ValueExpect/properties/selector",
    ] {
        let field = schema
            .pointer_mut(pointer)
            .and_then(serde_json::Value::as_object_mut)
            .unwrap_or_else(|| panic!("the plan schema has {pointer}"));
        field.insert("pattern".into(), SELECTOR_PATTERN.into());
    }
    schema
}

/// The planner bound to one provider and price.
pub struct Planner {
    client: Box<dyn LlmClient>,
    settings: Settings,
    prices: PriceTable,
    schema: serde_json::Value,
}

impl Planner {
    pub fn new(client: Box<dyn LlmClient>, settings: Settings, prices: PriceTable) -> Self {
        let schema = answer_schema();
        Planner {
            client,
            settings,
            prices,
            schema,
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn provider(&self) -> &str {
        self.client.provider()
    }

    pub fn model(&self) -> &str {
        self.client.model()
    }

    /// `provider/model`, as plans record who made them.
    pub fn generated_by(&self) -> String {
        format!("{}/{}", self.client.provider(), self.client.model())
    }

    fn price(&self) -> Option<DatedPrice> {
        self.prices.price(self.client.model(), today())
    }

    /// Asks for the next segment of plan; counts, prices and times every call into `spend`.
    pub async fn plan(
        &self,
        ask: &Ask<'_>,
        project: &Project<'_>,
        spend: &mut Spend,
    ) -> Result<Segment, PlanFailure> {
        let own = Instant::now();
        let credentials = credentials(ask.scenario, project.secrets);
        let allowed: BTreeSet<String> = credentials.iter().map(|(_, env)| env.clone()).collect();
        let stub = Plan {
            plan_version: windup_model::plan::PLAN_VERSION.to_string(),
            scenario_id: ask.scenario.id.clone(),
            task: ask.scenario.task.clone(),
            start_url: ask.scenario.start_url.clone(),
            generated_by: self.generated_by(),
            actions: Vec::new(),
        };
        let rules = check::Rules {
            base_url: project.base_url,
            allowed_origins: &self.settings.allowed_origins,
            credentials: &allowed,
            fragments: project.fragments,
            taken_ids: ask.done.iter().map(|a| a.id.clone()).collect(),
        };
        // Credential values never reach a prompt, even when the page shows one in a field.
        let user = project.secrets.redact(&prompt::user_message(
            ask,
            &credentials,
            self.settings.page_chars,
        ));
        let system = prompt::SYSTEM.to_string();
        let kind = ask.purpose.kind();
        let schema = with_credentials(&self.schema, &allowed);
        let mut rejected: Vec<String> = Vec::new();
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
            let result = self.call(&request, kind, project, spend).await?;
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
            let mut answer = check::accept(&completion.text, &stub, &rules);
            if completion.finish == crate::llm::Finish::Length
                && let Err(problems) = &mut answer
            {
                problems.insert(
                    0,
                    format!(
                        "the answer was cut off at {} output tokens (fix: fewer, shorter steps)",
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
                }
            }
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

    /// One call through the budget gate: refused before it is made when its worst case could
    /// overshoot; counted, timed and priced into `spend` whatever its outcome.
    async fn call(
        &self,
        request: &LlmRequest,
        kind: CallKind,
        project: &Project<'_>,
        spend: &mut Spend,
    ) -> Result<Result<crate::llm::Completion, LlmError>, PlanFailure> {
        let price = self.price();
        let worst = price
            .as_ref()
            .map(|p| {
                worst_case_micro_usd(
                    p,
                    estimate_tokens(request),
                    u64::from(request.max_output_tokens),
                )
            })
            .unwrap_or(0);
        let reservation =
            project
                .budget
                .admit(spend.calls(), worst)
                .map_err(|why| PlanFailure {
                    class: FailureClass::BudgetExceeded,
                    message: format!("no LLM call was made: {why}"),
                })?;
        let called = Instant::now();
        let result = self.client.complete(request).await;
        spend.llm_ms += called.elapsed().as_millis() as u64;
        spend.count(kind);
        let usage = match &result {
            Ok(c) => c.usage,
            Err(e) => e.usage(),
        };
        spend.usage += usage;
        let cost = price
            .as_ref()
            .and_then(|_| {
                self.prices
                    .cost(self.client.model(), today(), tokens(usage))
            })
            .map(|(micro, date)| {
                spend.price_date = Some(date);
                micro
            })
            .unwrap_or(0);
        spend.cost_micro_usd += cost;
        project.budget.settle(reservation, cost);
        Ok(result)
    }

    /// Opt-in: the model's reading of one failure and a fix to consider, from the failure and
    /// its evidence (page content inside the untrusted block, credentials masked). Advice for
    /// people: nothing here touches a plan or the cache.
    pub async fn suggest(
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
        let completion = self
            .call(&request, CallKind::Suggest, project, spend)
            .await?
            .map_err(|e| PlanFailure {
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

/// The credentials a plan may use: the manifest's ENV names, and ENV-style names (with an
/// underscore) that the task or hints mention. Labelled `account.field` when the manifest says.
pub fn credentials(scenario: &Scenario, secrets: &ProjectSecrets) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = secrets
        .manifest()
        .accounts
        .iter()
        .flat_map(|(account, fields)| {
            fields
                .iter()
                .map(move |(field, env)| (format!("{account}.{field}"), env.clone()))
        })
        .collect();
    let text =
        std::iter::once(scenario.task.as_str()).chain(scenario.hints.iter().map(String::as_str));
    for word in text.flat_map(|t| t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))) {
        let env_like = word.len() >= 3
            && word.contains('_')
            && word.starts_with(|c: char| c.is_ascii_uppercase())
            && word
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if env_like && !out.iter().any(|(_, env)| env == word) {
            out.push(("mentioned".to_string(), word.to_string()));
        }
    }
    out
}

/// An upper estimate of a request's prompt tokens: two bytes per token is above what real
/// tokenizers give for English and code, and about right for non-Latin scripts.
fn estimate_tokens(r: &LlmRequest) -> u64 {
    let bytes = r.system.len() + r.user.len() + r.schema.to_string().len();
    (bytes as u64).div_ceil(2)
}

fn tokens(u: Usage) -> TokenUsage {
    TokenUsage {
        input: u.input_tokens,
        output: u.output_tokens,
        cached: u.cached_tokens,
    }
}

/// Today's date in UTC, which picks the price in force.
fn today() -> Date {
    time::OffsetDateTime::now_utc().date()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_answer_schema_refuses_bare_selectors_and_asks_for_a_final_expect() {
        let schema = answer_schema();
        let validator = jsonschema::validator_for(&schema).expect("a valid schema");
        let answer = |selector: &str, visible: &str| {
            json!({
                "actions": [{"id": "a1", "type": "click", "target": {"selector": selector}}],
                "final_expect": {"visible": visible},
                "complete": true
            })
        };
        assert!(validator.is_valid(&answer("css=#save", "text=\"Saved\"")));
        assert!(validator.is_valid(&answer("role=button[name=\"Save\"]", "testid=done")));
        assert!(!validator.is_valid(&answer("#save", "text=\"Saved\"")));
        assert!(!validator.is_valid(&answer("css=#save", "[name='Saved']")));
        let mut no_final = answer("css=#save", "text=\"Saved\"");
        no_final.as_object_mut().unwrap().remove("final_expect");
        assert!(!validator.is_valid(&no_final));
        // value_ref names only the project's credentials, and is gone when there are none.
        let creds: BTreeSet<String> = ["ADMIN_PASSWORD".to_string()].into();
        let with = jsonschema::validator_for(&with_credentials(&schema, &creds)).unwrap();
        let fill = |value_ref: &str| {
            json!({
                "actions": [{"id": "a1", "type": "fill", "target": {"selector": "label=\"Password\""}, "value_ref": value_ref}],
                "final_expect": {"url": "/home"},
                "complete": true
            })
        };
        assert!(with.is_valid(&fill("ADMIN_PASSWORD")));
        assert!(!with.is_valid(&fill("TODO_NAME")));
        let without = with_credentials(&schema, &BTreeSet::new());
        assert!(
            without
                .pointer("/$defs/Action/properties/value_ref")
                .is_none()
        );
        assert!(
            !jsonschema::validator_for(&without)
                .unwrap()
                .is_valid(&fill("ADMIN_PASSWORD"))
        );
        // What a grammar-enforcing server is sent keeps both constraints.
        let sent = crate::llm::schema::loose(&schema);
        assert_eq!(
            sent.pointer(
                "/properties/actions/items/properties/target/anyOf/0/properties/selector/pattern"
            ),
            Some(&json!(crate::llm::schema::json_safe_pattern(
                SELECTOR_PATTERN
            )))
        );
        assert!(
            sent["required"]
                .as_array()
                .unwrap()
                .contains(&json!("final_expect"))
        );
    }
}
