//! `windup new "rough instruction"`: one budgeted, ledgered call turns an instruction into a
//! precise scenario (`planner::author`), with its start page from the site map, else from the
//! links of the app's home page; credentials written into the instruction are registered first
//! (`authoring`), so neither the model nor the scenario ever sees their values. The scenario is
//! validated and never overwrites a file.

use std::path::Path;
use std::time::Instant;

use time::OffsetDateTime;
use windup_model::ledger::PhaseTimings;
use windup_model::{CacheOutcome, InputError, Problems, Scenario, ScenarioStatus};

use super::ledger::RecordHead;
use super::setup::Planning;
use super::{RunError, Runner};
use crate::authoring::{Registered, find_literals, register};
use crate::base_url::path_of;
use crate::fragments::Fragments;
use crate::planner::author::{AuthorAsk, Draft};
use crate::planner::{Observation, PlanFailure, Spend};
use crate::project::{Layout, display, load_scenarios};
use crate::secrets::ProjectSecrets;
use crate::sitemap::SiteMapFile;

/// What `windup new` wrote.
#[derive(Debug, Clone)]
pub struct Authored {
    /// The scenario file, relative to the project root.
    pub file: String,
    /// The scenario.
    pub scenario: Scenario,
    /// Credentials found in the instruction: (ENV name, account, field, newly registered).
    pub credentials: Vec<(String, String, String, bool)>,
    /// What the call cost, in micro-dollars.
    pub cost_micro_usd: u64,
}

/// Why the model's draft is not taken as the scenario.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum DraftRejected {
    /// It starts on a page that was not offered.
    #[error(
        "the scenario written starts on `{start_url}`, which is not one of the start pages listed"
    )]
    UnlistedStart { start_url: String },
    /// It needs a scenario that is no setup.
    #[error("the scenario written needs `{need}`, which is not a setup scenario")]
    NotASetup { need: String },
    /// No free id could be made from the model's.
    #[error("the id `{base}` is not usable")]
    UnusableId { base: String },
    /// It holds a credential's value.
    #[error("the scenario written holds a credential's value")]
    HoldsCredential,
}

impl Runner {
    /// Writes a scenario from `instruction` (see the module docs). `id` overrides the model's.
    pub async fn author(&self, instruction: &str, id: Option<&str>) -> Result<Authored, RunError> {
        let root = self.config.root.clone();
        let config_file = display(&root, &root.join(Layout::CONFIG_FILE));
        self.config.require_base_url()?;
        let planner = match &self.planning {
            Planning::Ready(p) => p,
            Planning::Off => {
                return Err(InputError::new(
                    config_file,
                    "providers",
                    "no LLM provider is configured, so `new` cannot write a scenario",
                    "add a [providers.NAME] table (docs/planning-and-providers.md), or write e2e/scenarios/<id>.yaml by hand",
                )
                .into());
            }
            Planning::Unavailable(why) => {
                return Err(InputError::new(
                    config_file,
                    "providers",
                    format!("the provider cannot be used: {why}"),
                    "set its key (docs/planning-and-providers.md)",
                )
                .into());
            }
        };
        let scenarios = load_scenarios(&root)?;
        let taken: Vec<String> = scenarios.iter().map(|s| s.scenario.id.clone()).collect();
        if let Some(id) = id {
            check_new_id(&self.config.root, id, &taken)?;
        }
        if instruction.trim().is_empty() {
            return Err(InputError::new(
                "windup new",
                "instruction",
                "is empty",
                "describe the flow: windup new \"sign in as the admin and archive the first project\"",
            )
            .into());
        }
        // Literal credentials become ENV names before anything leaves the process.
        let literals = find_literals(instruction);
        let registered = register(&root, &literals, &account_word(instruction), &self.secrets)?;
        let mut clean = instruction.to_string();
        for r in &registered {
            clean = clean.replace(&r.value, &format!("({} of {})", r.env_name, r.account));
        }
        let secrets = ProjectSecrets::load(&root, &self.config.env)?;
        let credentials: Vec<String> = secrets
            .manifest()
            .accounts
            .iter()
            .map(|(name, a)| {
                let fields: Vec<String> = a
                    .fields
                    .iter()
                    .map(|(f, env)| format!("{f}={env}"))
                    .collect();
                format!("{name}: {}", fields.join(" "))
            })
            .collect();
        let setups: Vec<(String, String)> = scenarios
            .iter()
            .filter(|s| s.scenario.setup)
            .map(|s| (s.scenario.id.clone(), s.scenario.task.clone()))
            .collect();
        let pages = self.start_pages().await?;
        let ask = AuthorAsk {
            instruction: &clean,
            pages: &pages,
            setups: &setups,
            credentials: &credentials,
            taken: &taken,
        };
        let fragments = Fragments::load(&root.join(Layout::FRAGMENTS_DIR))?;
        let project = crate::planner::Project {
            boundary: self.boundary(),
            fragments: &fragments,
            secrets: &secrets,
            budget: &self.budget,
            files: &[],
        };
        let mut spend = Spend::default();
        let started = OffsetDateTime::now_utc();
        let clock = Instant::now();
        let drafted = planner.author(&ask, &project, &mut spend).await;
        let made = drafted.and_then(|d| {
            scenario_of(&self.config.root, &self.secrets, d, id, &ask, &registered).map_err(|e| {
                PlanFailure {
                    class: windup_model::FailureClass::PlanRejected,
                    message: e.to_string(),
                }
            })
        });
        let ledger_id = made.as_ref().map_or("new", |s| s.id.as_str()).to_string();
        self.ledger_author(&ledger_id, started, clock, &spend, made.as_ref().err());
        let scenario = made.map_err(|f| {
            RunError::Input(Problems(vec![InputError::new(
                "windup new",
                "instruction",
                format!("no scenario was written: {}", f.message),
                "try again, or reword the instruction",
            )]))
        })?;
        let file = root
            .join(Layout::SCENARIOS_DIR)
            .join(format!("{}.yaml", scenario.id));
        let shown = display(&root, &file);
        let yaml = serde_norway::to_string(&scenario).expect("a scenario serializes");
        windup_model::validate::scenario_from_yaml(&shown, &yaml, Some(&scenario.id))?;
        // Checked again just before writing: never overwrite a file.
        if file.exists() {
            return Err(taken_error(&self.config.root, &scenario.id).into());
        }
        crate::fsutil::write_atomic(&file, yaml.as_bytes()).map_err(|e| {
            InputError::new(
                &shown,
                "(file)",
                format!("cannot be written: {e}"),
                "check the folder's permissions",
            )
        })?;
        Ok(Authored {
            file: shown,
            scenario,
            credentials: registered
                .into_iter()
                .map(|r| (r.env_name, r.account, r.field, r.new))
                .collect(),
            cost_micro_usd: spend.cost_micro_usd,
        })
    }

    /// Start page candidates, never none: the site map's pages, else the app's home page and the
    /// pages its links on the base URL's origin lead to.
    async fn start_pages(&self) -> Result<Vec<(String, String)>, RunError> {
        let map = SiteMapFile::new(&self.config.root).load()?;
        // Routes with parameters are no page to start on; a map of only those lists none.
        let mapped: Vec<(String, String)> = map
            .pages
            .iter()
            .filter(|p| !p.route.contains(':') && !p.route.contains('*'))
            .take(60)
            .map(|p| {
                let controls: Vec<String> = p
                    .controls
                    .iter()
                    .take(8)
                    .map(|c| format!("{} \"{}\"", c.role, c.name))
                    .collect();
                (
                    p.route.clone(),
                    format!(
                        "\"{}\" {}",
                        p.title.as_deref().unwrap_or(""),
                        controls.join(", ")
                    ),
                )
            })
            .collect();
        if !mapped.is_empty() {
            return Ok(mapped);
        }
        let base = self.boundary().base_url().clone();
        let session = self
            .browser
            .acquire_session()
            .await
            .map_err(RunError::Infrastructure)?;
        let opened = match session
            .hold_to(self.boundary().app_origins().to_vec())
            .await
        {
            Ok(()) => session
                .goto(base.as_str(), self.config.timeouts.navigation)
                .await
                .map_err(|e| format!("{e:?}")),
            Err(e) => Err(e.to_string()),
        };
        let s = &self.config.planner;
        let page = match opened {
            Ok(()) => Observation::capture(
                &session,
                "",
                self.boundary().app_origins(),
                s.max_elements,
                s.page_chars,
            )
            .await
            .ok(),
            Err(why) => {
                tracing::warn!("{base} did not open, so no start page is listed from it: {why}");
                None
            }
        };
        session.close().await;
        let mut pages = vec![(
            path_of(&base),
            format!(
                "the home page \"{}\"",
                page.as_ref().map(|p| p.title.as_str()).unwrap_or_default()
            ),
        )];
        for item in page.iter().flat_map(|p| p.items.iter()) {
            let Some(url) = item.href.as_deref().and_then(|h| url::Url::parse(h).ok()) else {
                continue;
            };
            if url.origin() != base.origin() {
                continue;
            }
            let path = path_of(&url);
            if !pages.iter().any(|(p, _)| *p == path) {
                pages.push((path, format!("linked as \"{}\"", item.name)));
            }
        }
        Ok(pages)
    }

    fn ledger_author(
        &self,
        scenario_id: &str,
        started: OffsetDateTime,
        clock: Instant,
        spend: &Spend,
        failed: Option<&PlanFailure>,
    ) {
        let git = crate::ci::git_info(&self.config.root, &self.config.env);
        let head = RecordHead {
            run_id: uuid::Uuid::now_v7().to_string(),
            scenario_id: scenario_id.to_string(),
            started_at: started,
            finished_at: started + clock.elapsed(),
            status: if failed.is_some() {
                ScenarioStatus::Failed
            } else {
                ScenarioStatus::Skipped
            },
            failure_class: failed.map(|f| f.class),
            cache: CacheOutcome::None,
            git: git.as_ref(),
        };
        let timings = PhaseTimings {
            plan_ms: spend.llm_ms,
            execute_ms: 0,
            verify_ms: 0,
        };
        let ledger = self.ledger();
        ledger.write(vec![ledger.spend_record(head, spend, timings)]);
    }
}

/// The account an instruction signs in as (`as the admin` → `admin`), else `user`.
fn account_word(instruction: &str) -> String {
    let words: Vec<String> = instruction
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    words
        .windows(3)
        .find_map(|w| {
            (w[0] == "as" && matches!(w[1].as_str(), "the" | "an" | "a")).then(|| w[2].clone())
        })
        .filter(|w| !w.is_empty() && !w.contains('@'))
        .unwrap_or_else(|| "user".into())
}

/// A scenario id already taken, as an input error on `--id`.
fn taken_error(root: &Path, id: &str) -> InputError {
    InputError::new(
        display(
            root,
            &root.join(Layout::SCENARIOS_DIR).join(format!("{id}.yaml")),
        ),
        "id",
        format!("a scenario `{id}` already exists, and `new` never overwrites a file"),
        "choose another --id, or delete the file first",
    )
}

/// A new scenario's id: well formed, and neither on disk nor `taken`.
fn check_new_id(root: &Path, id: &str, taken: &[String]) -> Result<(), InputError> {
    if let Some(mut bad) = windup_model::validate::scenario_id_problem("--id", "id", id) {
        bad.problem = format!("`{id}` is not a scenario id: {}", bad.problem);
        return Err(bad);
    }
    let exists = root
        .join(Layout::SCENARIOS_DIR)
        .join(format!("{id}.yaml"))
        .exists();
    if exists || taken.iter().any(|t| t == id) {
        return Err(taken_error(root, id));
    }
    Ok(())
}

/// The model's draft as a scenario: the caller's id, or the model's made free; a start page
/// and setups from those listed (a provider that does not enforce the schema could write
/// others); no value of a credential anywhere in it.
fn scenario_of(
    root: &Path,
    secrets: &ProjectSecrets,
    d: Draft,
    id: Option<&str>,
    ask: &AuthorAsk<'_>,
    registered: &[Registered],
) -> Result<Scenario, DraftRejected> {
    let taken = ask.taken;
    if !ask.pages.iter().any(|(p, _)| *p == d.start_url) {
        return Err(DraftRejected::UnlistedStart {
            start_url: d.start_url,
        });
    }
    let mut needs: Vec<String> = Vec::new();
    for need in d.needs {
        if !ask.setups.iter().any(|(s, _)| *s == need) {
            return Err(DraftRejected::NotASetup { need });
        }
        if !needs.contains(&need) {
            needs.push(need);
        }
    }
    let id = match id {
        Some(id) => id.to_string(),
        None => {
            let base = d.id.trim().to_string();
            let mut id = base.clone();
            let mut n = 1;
            while taken.contains(&id) || check_new_id(root, &id, taken).is_err() {
                n += 1;
                id = format!("{base}-{n}");
                if n > 50 {
                    return Err(DraftRejected::UnusableId { base });
                }
            }
            id
        }
    };
    let scenario = Scenario {
        id,
        task: d.task.trim().to_string(),
        start_url: d.start_url,
        hints: d
            .hints
            .into_iter()
            .map(|h| h.trim().to_string())
            .filter(|h| !h.is_empty())
            .collect(),
        tags: Vec::new(),
        timeout_ms: None,
        setup: false,
        needs,
    };
    let text = serde_json::to_string(&scenario).expect("a scenario serializes");
    if registered.iter().any(|r| text.contains(&r.value)) || secrets.redact(&text) != text {
        return Err(DraftRejected::HoldsCredential);
    }
    Ok(scenario)
}
