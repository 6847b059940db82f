//! `windup fragment extract`: verified steps of a scenario's cached plan become a fragment,
//! `e2e/fragments/<id>.json`, that starts on the page the steps started on (recorded as its
//! route pattern) and proves what the last step proved. Nothing is written until it has passed
//! alone, from that page in a fresh context; with `rewrite`, the cached plan is replaced by one
//! that `use`s it only after that plan has passed a full run too. A file is never overwritten.

use windup_model::plan::PLAN_VERSION;
use windup_model::sitemap::generalize_path;
use windup_model::validate::fragment_from_json;
use windup_model::{InputError, Plan, Problems, Scenario};

use super::execute::{RunFor, RunParts};
use super::{RunError, Runner};
use crate::boundary::Boundary;
use crate::cache::{Lookup, PlanCache, Verified};
use crate::events::EventSink;
use crate::executor::{Execution, Failure};
use crate::fragments::{Fragments, extract, page_path};
use crate::project::{Layout, display, load_scenarios, named_scenario};
use crate::secrets::ProjectSecrets;
use std::path::Path;

/// What to extract.
#[derive(Debug, Clone)]
pub struct Extract<'a> {
    /// The scenario whose cached plan holds the steps.
    pub scenario: &'a str,
    /// `a1-a3`, or one step id.
    pub steps: &'a str,
    /// The new fragment's id (and file name).
    pub id: &'a str,
    /// What the fragment does, for planners and people; by default its steps in one line.
    pub description: Option<&'a str>,
    /// Also replace the steps in the cached plan by `use: <id>`.
    pub rewrite: bool,
}

/// What an extraction did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Extracted {
    /// The fragment passed alone and was written; the cached plan uses it when `rewrote`.
    Written {
        /// The fragment's file, relative to the project root.
        file: String,
        /// The route pattern it starts on.
        start: String,
        /// Whether the cached plan now uses it.
        rewrote: bool,
    },
    /// A verifying run failed: nothing was written. Says which run and which step.
    Failed(String),
}

impl Runner {
    /// `windup fragment extract`: see the module doc. Bad input (no such scenario, no verified
    /// plan, steps not in it, an id taken) is an `Input` error and nothing runs.
    pub async fn extract_fragment(
        &self,
        req: &Extract<'_>,
        events: &dyn EventSink,
    ) -> Result<Extracted, RunError> {
        self.config.require_base_url()?;
        extract::check_id(req.id)?;
        let root = &self.config.root;
        let dir = root.join(Layout::FRAGMENTS_DIR);
        let path = dir.join(format!("{}.json", req.id));
        let file = display(root, &path);
        let taken = || {
            InputError::new(
                &file,
                "--id",
                format!("fragment `{}` already exists", req.id),
                "choose another --id, or delete the file to extract it again",
            )
        };
        if path.exists() {
            return Err(taken().into());
        }
        let scenario = scenario_to_extract(&self.config.root, req.scenario)?;
        let cache = PlanCache::new(root);
        let cache_file = display(root, &cache.path(&scenario.id));
        let (plan, reviewed) = match cache.lookup(&scenario)? {
            Lookup::Hit(entry) => (entry.plan, entry.reviewed),
            Lookup::Changed(_) => {
                return Err(InputError::new(
                    &cache_file,
                    "key.scenario_sha",
                    "the cached plan was verified for an earlier text of the scenario",
                    format!(
                        "run `windup run {}` to plan and verify it again",
                        scenario.id
                    ),
                )
                .into());
            }
            Lookup::Miss => {
                return Err(InputError::new(
                    &cache_file,
                    "(file)",
                    format!("no verified plan is cached for `{}`", scenario.id),
                    format!("run `windup run {}` first", scenario.id),
                )
                .into());
            }
        };
        let range = extract::steps(&cache_file, req.steps, &plan)?;
        let fragments = Fragments::load(&dir)?;
        let mut problems = self.plan_problems(&cache_file, "plan.", &plan, &fragments);
        problems.extend(fragments.boundary_problems(&display(root, &dir), self.boundary()));
        if !problems.is_empty() {
            return Err(Problems(problems).into());
        }
        self.browser
            .ensure_started()
            .await
            .map_err(RunError::Infrastructure)?;
        let first = plan.actions[*range.start()].id.clone();
        let last = plan.actions[*range.end()].id.clone();

        // Where the steps start: the scenario's start page, else where the steps before led.
        let start_url = if *range.start() == 0 {
            plan.start_url.clone()
        } else {
            let mut before = plan.clone();
            before.actions.truncate(*range.start());
            let x = self
                .run_fresh(&scenario, &before, &fragments, events)
                .await?;
            if let Some(f) = &x.failure {
                return Ok(failed(
                    &self.secrets,
                    &format!("the steps before {first} did not replay"),
                    f,
                ));
            }
            match x.final_url.as_deref().map(|u| on_app(self.boundary(), u)) {
                Some(u) => u,
                None => {
                    return Ok(Extracted::Failed(format!(
                        "the page's URL could not be read after the steps before {first}"
                    )));
                }
            }
        };
        let start = generalize_path(&page_path(&start_url));
        // By default the steps themselves, which say what it does better than the task does.
        let description = req.description.map(str::to_string).unwrap_or_else(|| {
            let steps: Vec<String> = plan.actions[range.clone()]
                .iter()
                .map(|a| a.summary())
                .collect();
            format!(
                "{} (steps {first}-{last} of scenario `{}`)",
                steps.join("; "),
                scenario.id
            )
        });
        let fragment = extract::fragment(
            &plan,
            range.clone(),
            req.id,
            Some(start.clone()),
            description,
        );
        let mut text = serde_json::to_string_pretty(&fragment).expect("a fragment serializes");
        text.push('\n');
        // The format's own rules, as a later read will apply them.
        fragment_from_json(&file, &text, Some(req.id))?;
        let with = fragments.with(fragment);

        // Alone: a fresh context on its start page, and the fragment's steps only.
        let alone = Plan {
            plan_version: PLAN_VERSION.to_string(),
            scenario_id: scenario.id.clone(),
            task: format!("fragment {}", req.id),
            start_url: start_url.clone(),
            generated_by: plan.generated_by.clone(),
            actions: vec![extract::use_step("a1", req.id)],
        };
        let x = self.run_fresh(&scenario, &alone, &with, events).await?;
        if let Some(f) = &x.failure {
            return Ok(failed(
                &self.secrets,
                &format!(
                    "fragment `{}` did not pass alone from {start_url} in a fresh context",
                    req.id
                ),
                f,
            ));
        }

        // The rewritten plan, in full, before the cache changes.
        let rewritten = if req.rewrite {
            let r = extract::rewrite(&plan, range, req.id);
            let problems = self.plan_problems(&cache_file, "plan.", &r, &with);
            if !problems.is_empty() {
                return Err(Problems(problems).into());
            }
            let x = self.run_fresh(&scenario, &r, &with, events).await?;
            if let Some(f) = &x.failure {
                return Ok(failed(&self.secrets, "the rewritten plan did not pass", f));
            }
            Some((r, x))
        } else {
            None
        };

        crate::fsutil::write_new(&path, text.as_bytes()).map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                taken()
            } else {
                InputError::new(
                    &file,
                    "(file)",
                    format!("cannot be written: {e}"),
                    "check the folder's permissions",
                )
            }
        })?;
        if let Some((r, x)) = &rewritten {
            let run_id = uuid::Uuid::now_v7().to_string();
            // The person's own command: the rewritten plan replaces the old one even when it
            // is protected, and keeps its `reviewed` (a plan written by hand stays one).
            let baseline = self.results().masked_baseline(x);
            let verified = Verified {
                scenario: &scenario,
                plan: r,
                start_sig: x.start_sig.as_deref(),
                duration_ms: x.duration.as_millis() as u64,
                run_id: &run_id,
                baseline: baseline.as_ref(),
            };
            cache
                .save_chosen(
                    &verified,
                    reviewed,
                    "`windup fragment extract --rewrite` replaced it with the plan that uses the fragment",
                )
                .map_err(|e| {
                    InputError::new(
                        &cache_file,
                        "(file)",
                        format!("cannot be written: {e} (the fragment was written)"),
                        "check the folder's permissions, then extract again with another --id or rewrite the plan by hand",
                    )
                })?;
        }
        Ok(Extracted::Written {
            file,
            start,
            rewrote: rewritten.is_some(),
        })
    }

    /// One plan in a fresh context.
    async fn run_fresh(
        &self,
        scenario: &Scenario,
        plan: &Plan,
        fragments: &Fragments,
        events: &dyn EventSink,
    ) -> Result<Execution, RunError> {
        let run_id = uuid::Uuid::now_v7().to_string();
        let parts = RunParts {
            run_id: &run_id,
            scenario_id: &scenario.id,
            timeout: self.scenario_timeout(scenario),
            fragments,
            events,
        };
        self.execute_plan(parts, plan, RunFor::Verify)
            .await
            .map_err(RunError::Infrastructure)
    }
}

/// The scenario named, which must start without a setup's storage: extraction runs it in
/// fresh contexts only.
fn scenario_to_extract(root: &Path, id: &str) -> Result<Scenario, RunError> {
    let scenarios = load_scenarios(root)?;
    let found = named_scenario(root, &scenarios, id)?;
    if !found.scenario.needs.is_empty() {
        return Err(InputError::new(
            display(root, &found.path),
            "needs",
            "the scenario starts with the storage of its setups, which extraction does not replay",
            "extract from the setup scenario itself, or from a scenario without `needs`",
        )
        .into());
    }
    Ok(found.scenario.clone())
}

/// A page's URL as a plan names it: its path, query and fragment when it is on the base
/// URL's origin, else the whole URL.
fn on_app(boundary: &Boundary, url: &str) -> String {
    match url::Url::parse(url) {
        Ok(u) if u.origin() == boundary.base_url().origin() => crate::base_url::path_of(&u),
        _ => url.to_string(),
    }
}

/// A failed run of the extraction, its message masked.
fn failed(secrets: &ProjectSecrets, what: &str, f: &Failure) -> Extracted {
    Extracted::Failed(secrets.redact(&format!(
        "{what}: {} failed ({}): {}",
        f.action_id.as_deref().unwrap_or("the start page"),
        f.class,
        f.message
    )))
}
