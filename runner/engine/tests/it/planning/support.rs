//! Helpers shared by the planning tests: a throwaway project with a fake provider in its
//! windup.toml, the fixture pages, and the answers the tests script.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use windup_engine::config::{Config, Overrides};
use windup_engine::runner::Runner;
use windup_model::RunReport;
use windup_testkit::fake_llm::FakeLlm;

use crate::support::*;

/// A throwaway project: windup.toml, scenarios, manifest, .env.local.
pub(crate) struct Project {
    dir: tempfile::TempDir,
}

#[derive(Clone, Copy)]
pub(crate) enum Wire {
    OpenAi,
    Gemini,
}

pub(crate) fn provider_toml(fake: &FakeLlm, wire: Wire, extra: &str) -> String {
    let (kind, model, base) = match wire {
        Wire::OpenAi => ("openai", "gpt-4.1-mini", fake.openai_base_url()),
        Wire::Gemini => ("gemini", "gemini-2.5-flash", fake.gemini_base_url()),
    };
    let timeout = if extra.contains("timeout_ms") {
        ""
    } else {
        "timeout_ms = 3000\n"
    };
    format!(
        "[providers.fake]\nkind = \"{kind}\"\nmodel = \"{model}\"\nbase_url = \"{base}\"\nmax_retries = 1\n{timeout}{extra}\n"
    )
}

impl Project {
    pub(crate) fn new(base: &url::Url, toml: &str) -> Project {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("e2e/scenarios")).unwrap();
        std::fs::write(
            dir.path().join("windup.toml"),
            format!("base_url = \"{base}\"\n[timeouts]\naction_ms = 1200\n{toml}"),
        )
        .unwrap();
        Project { dir }
    }

    pub(crate) fn root(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn write(&self, rel: &str, text: &str) {
        let path = self.root().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    pub(crate) fn scenario(&self, id: &str, task: &str, start_url: &str) {
        self.write(
            &format!("e2e/scenarios/{id}.yaml"),
            &format!("id: {id}\ntask: {task:?}\nstart_url: {start_url}\n"),
        );
    }

    pub(crate) fn runner(&self, overrides: Overrides) -> Runner {
        let config = Config::load(self.root(), &overrides).unwrap_or_else(|e| panic!("{e}"));
        Runner::with_browser(config, browser().clone()).unwrap_or_else(|p| panic!("{p}"))
    }

    pub(crate) async fn run(&self, overrides: Overrides) -> RunReport {
        let runner = self.runner(overrides);
        let report = runner
            .run(&[], &windup_engine::events::NoEvents)
            .await
            .unwrap();
        note_pid(browser()).await;
        report
    }

    pub(crate) fn ledger(&self) -> Vec<Value> {
        std::fs::read_to_string(self.root().join("e2e/.windup/ledger.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    pub(crate) fn cached(&self, id: &str) -> Option<Value> {
        std::fs::read_to_string(self.root().join(format!("e2e/.windup/cache/{id}.json")))
            .ok()
            .map(|t| serde_json::from_str(&t).unwrap())
    }

    pub(crate) fn stale(&self) -> Vec<PathBuf> {
        std::fs::read_dir(self.root().join("e2e/.windup/cache/stale"))
            .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default()
    }
}

pub(crate) fn pages() -> Server {
    Server::start(&engine_dir().join("tests/fixtures/pages"))
}

/// The task the Save answers plan: it quotes what the page shows when done, so the engine
/// picks the proof itself and one call is all it takes.
pub(crate) const SAVE_TASK: &str = "Save the page until it says \"Saved\"";

/// Clicks the page's Save button, by the ref the prompt lists for it.
pub(crate) fn save_plan() -> Value {
    json!({"actions": [{"type": "click", "target": {"ref": "@button \"Save\""}}], "complete": true})
}

/// Asserts a cached plan replayed and passed with no LLM call.
#[track_caller]
pub(crate) fn assert_replayed(r: &windup_model::ScenarioResult) {
    assert_eq!(
        (r.status, r.cache, r.llm_calls),
        (
            windup_model::ScenarioStatus::Passed,
            windup_model::CacheOutcome::Hit,
            0
        ),
        "{:?}",
        r.message
    );
}

pub(crate) fn single(report: &RunReport) -> &windup_model::ScenarioResult {
    assert_eq!(report.scenarios.len(), 1);
    &report.scenarios[0]
}

/// Adds "Buy milk" in a TodoMVC app whose new-todo field is named `placeholder`.
pub(crate) fn todomvc_answer(placeholder: &str) -> Value {
    let field = format!("@textbox {placeholder:?}");
    json!({"actions": [
        {"type": "fill", "target": {"ref": field}, "value": "Buy milk"},
        {"type": "press", "key": "Enter", "target": {"ref": field}}
    ], "complete": true})
}

pub(crate) fn ids(report: &RunReport) -> Vec<String> {
    report
        .scenarios
        .iter()
        .map(|s| s.scenario_id.clone())
        .collect()
}

/// Caches `plan` as if a run (`run-0`, 10 ms, no baseline) had just verified it.
pub(crate) fn cache_as_verified(
    root: &Path,
    scenario: &windup_model::Scenario,
    plan: &windup_model::Plan,
) {
    let verified = windup_engine::cache::Verified {
        scenario,
        plan,
        start_sig: None,
        duration_ms: 10,
        run_id: "run-0",
        baseline: None,
    };
    windup_engine::cache::PlanCache::new(root)
        .save_verified(&verified)
        .unwrap();
}
