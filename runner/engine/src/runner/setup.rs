//! The `Runner` and how it is set up: the project's secrets, the browser, and the planner when
//! a provider is configured and usable. What it runs lives beside it: `schedule` (a run),
//! `scenario` (one scenario), `replay` (one plan), `bench`.

use std::time::Duration;

use time::OffsetDateTime;
use windup_model::{InputError, Plan, Problems, Scenario};

use crate::boundary::Boundary;
use crate::browser::Browser;
use crate::config::Config;
use crate::fragments::Fragments;
use crate::planner::{Budget, Planner};
use crate::project::{Layout, display};
use crate::secrets::ProjectSecrets;

/// Whether this run can plan.
pub(super) enum Planning {
    /// No provider is configured.
    Off,
    /// A provider is configured but cannot be used (its key is not set, say).
    Unavailable(String),
    Ready(Planner),
}

/// Runs scenarios and plans against one browser.
pub struct Runner {
    pub(super) config: Config,
    pub(super) browser: Browser,
    pub(super) secrets: ProjectSecrets,
    /// Where plans may go and what they may type; none until a base URL is set.
    pub(super) boundary: Option<Boundary>,
    pub(super) planning: Planning,
    pub(super) budget: Budget,
}

impl Runner {
    /// Reads the project's secrets (`e2e/manifest.yaml`, `.env.local`) and sets up the chosen
    /// LLM provider. A provider whose key is not set leaves planning unavailable (replays still
    /// run); a model without a known price under a spend budget is a configuration error.
    pub fn new(config: Config) -> Result<Self, Problems> {
        let browser = Browser::new(config.browser.clone());
        Self::with_browser(config, browser)
    }

    /// As `new`, on a browser the caller already has (test harnesses share one).
    pub fn with_browser(config: Config, browser: Browser) -> Result<Self, Problems> {
        let mut secrets = ProjectSecrets::load(&config.root, &config.env)?;
        // The provider's key and the dashboard token are masked wherever a credential is.
        let other_secrets = config
            .provider
            .iter()
            .filter_map(|(_, p)| p.api_key_env.as_deref())
            .chain(config.dashboard.iter().map(|d| d.token_env.as_str()));
        secrets.mask_also(other_secrets);
        let boundary = config
            .base_url
            .as_ref()
            .map(|base| Boundary::new(base, &config.planner.allowed_origins, secrets.manifest()));
        let config_file = display(&config.root, &config.root.join(Layout::CONFIG_FILE));
        let prices = config.prices.clone();
        let planning = match &config.provider {
            None => Planning::Off,
            Some((name, provider)) => {
                let today = OffsetDateTime::now_utc().date();
                if config.limits.micro_usd.is_some()
                    && prices.price(&provider.model, today).is_none()
                {
                    return Err(InputError::new(
                        &config_file,
                        format!("providers.{name}.model"),
                        format!("no price is known for model `{}`, so the spend budget cannot be enforced", provider.model),
                        format!("add [prices.\"{}\"] with input_usd_per_mtok and output_usd_per_mtok (0 for a local model)", provider.model),
                    )
                    .into());
                }
                // The key from the environment, or from `.env.local`.
                match crate::llm::client(name, provider, &|k| secrets.lookup(k)) {
                    Ok(client) => Planning::Ready(Planner::new(
                        client,
                        config.planner.clone().for_provider(provider),
                        prices,
                    )),
                    Err(e) => {
                        Planning::Unavailable(format!("{}: {} ({})", e.field, e.problem, e.fix))
                    }
                }
            }
        };
        let budget = Budget::new(config.limits);
        Ok(Runner {
            config,
            browser,
            secrets,
            boundary,
            planning,
            budget,
        })
    }

    /// The project's trust boundary; callers check the base URL first (`require_base_url`).
    pub(super) fn boundary(&self) -> &Boundary {
        self.boundary
            .as_ref()
            .expect("the base URL is checked before anything runs")
    }

    /// Problems that keep a plan from running here, whatever its road in (the committed cache,
    /// the dashboard, a file): where it goes, which credentials it names, which fragments it
    /// uses. `file` names it in each problem, and `prefix` its place in the file (`plan.` in a
    /// cache entry).
    pub(super) fn plan_problems(
        &self,
        file: &str,
        prefix: &str,
        plan: &Plan,
        fragments: &Fragments,
    ) -> Vec<InputError> {
        let mut problems = self.boundary().plan_problems(file, prefix, plan);
        problems.extend(fragments.check_uses(file, prefix, plan));
        problems
    }

    /// The planner, when a provider is configured and usable.
    pub(crate) fn planner(&self) -> Option<&Planner> {
        match &self.planning {
            Planning::Ready(p) => Some(p),
            _ => None,
        }
    }

    pub(super) fn scenario_timeout(&self, scenario: &Scenario) -> Duration {
        scenario
            .timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.config.timeouts.scenario)
    }

    /// Closes the runner's browser and waits for it to exit; call it once the runner is done.
    pub async fn close(&self) {
        self.browser.close().await;
    }
}
