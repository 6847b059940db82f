//! The layout of a user's repository: `windup.toml`, `e2e/scenarios/*.yaml`,
//! `e2e/fragments/*.json`, `e2e/.windup/`.

use std::path::{Path, PathBuf};

use windup_model::limits::InputFile;
use windup_model::validate::scenario_from_yaml;
use windup_model::{InputError, Problems, Scenario};

use crate::fsutil::{input_files, read_input};

/// Every path Windup reads or writes in a user's repository, relative to the project root: the one
/// place these names are spelled. Messages quote the constants; code joins them to a root.
#[derive(Debug, Clone, Copy)]
pub struct Layout;

impl Layout {
    /// The project's settings.
    pub const CONFIG_FILE: &str = "windup.toml";
    /// Scenarios, one YAML file each (committed).
    pub const SCENARIOS_DIR: &str = "e2e/scenarios";
    /// Fragments, one JSON file each (committed).
    pub const FRAGMENTS_DIR: &str = "e2e/fragments";
    /// Files an `upload` step sets on a file input, by name (committed).
    pub const FILES_DIR: &str = windup_model::plan::FILES_DIR;
    /// Accounts and the ENV names of their credentials (committed; never a value).
    pub const MANIFEST_FILE: &str = "e2e/manifest.yaml";
    /// Credential values for local runs (never committed).
    pub const ENV_LOCAL_FILE: &str = ".env.local";
    /// Verified plans, one JSON file per scenario (committed).
    pub const CACHE_DIR: &str = "e2e/.windup/cache";
    /// The site map, committed like the cache.
    pub const SITEMAP_FILE: &str = "e2e/.windup/sitemap.json";
    /// Notes recorded about the app while there is no site map (committed; moved into the site
    /// map once it exists).
    pub const MEMORY_FILE: &str = "e2e/.windup/memory.json";
    /// Invalidated plans kept as evidence, under the cache folder.
    pub const STALE_DIR: &str = "e2e/.windup/cache/stale";
    /// Verified plans proposed in place of protected ones (written or accepted by a person),
    /// one per scenario, waiting for `windup accept` (committed, so a pull request shows them).
    pub const PROPOSALS_DIR: &str = "e2e/.windup/cache/proposals";
    /// The run ledger, one JSON line per scenario per run.
    pub const LEDGER_FILE: &str = "e2e/.windup/ledger.jsonl";
    /// Uploads waiting for the dashboard to come back.
    pub const SPOOL_DIR: &str = "e2e/.windup/spool";
    /// Run reports, screenshots and downloads (`<run_id>/downloads/<scenario>/`), one folder
    /// per run.
    pub const RUNS_DIR: &str = "e2e/.windup/runs";
    /// The last run's report, for `windup report` and `windup push`.
    pub const LAST_RUN_FILE: &str = "e2e/.windup/last-run.json";
    /// Saved browser storage of setups (cookies, localStorage).
    pub const STORAGE_DIR: &str = "e2e/.windup/storage";
    /// `windup browser`'s persistent Chromium profile (owner-only; the developer's sign-ins).
    pub const PROFILE_DIR: &str = "e2e/.windup/profile";
    /// The run-local files a project's `.gitignore` lists: evidence, the last run's verdicts, the
    /// ledger, saved sign-in state, `windup browser`'s profile, uploads waiting for the dashboard,
    /// `windup mcp`'s action log
    /// and local credentials. The plan cache is meant to be committed.
    pub const GIT_IGNORED: [&str; 8] = [
        ".env.local",
        "e2e/.windup/runs/",
        "e2e/.windup/last-run.json",
        "e2e/.windup/ledger.jsonl",
        "e2e/.windup/storage/",
        "e2e/.windup/profile/",
        "e2e/.windup/spool/",
        "e2e/.windup/mcp.log",
    ];
}

/// A scenario and the file it came from.
#[derive(Debug, Clone)]
pub struct ScenarioFile {
    /// The YAML file: the project root joined with `e2e/scenarios/<name>.yaml`.
    pub path: PathBuf,
    /// The scenario it holds, validated.
    pub scenario: Scenario,
}

/// The scenario `id` among `scenarios`, or the error a command naming it as SCENARIO gives: the
/// folder it was looked for in and the ids there are.
pub fn named_scenario<'a>(
    root: &Path,
    scenarios: &'a [ScenarioFile],
    id: &str,
) -> Result<&'a ScenarioFile, InputError> {
    scenarios
        .iter()
        .find(|s| s.scenario.id == id)
        .ok_or_else(|| {
            let folder = display(root, &root.join(Layout::SCENARIOS_DIR));
            let known: Vec<&str> = scenarios.iter().map(|s| s.scenario.id.as_str()).collect();
            InputError::new(
                &folder,
                "SCENARIO",
                format!("no scenario `{id}` in {folder}"),
                if known.is_empty() {
                    format!("add {}/{id}.yaml", Layout::SCENARIOS_DIR)
                } else {
                    format!("name one of: {}", known.join(", "))
                },
            )
        })
}

/// Reads every scenario, sorted by id. All problems are reported together.
pub fn load_scenarios(root: &Path) -> Result<Vec<ScenarioFile>, Problems> {
    let dir = root.join(Layout::SCENARIOS_DIR);
    let mut problems = Vec::new();
    let mut out: Vec<ScenarioFile> = Vec::new();
    for path in input_files(&dir, &["yaml", "yml"])? {
        let file = display(root, &path);
        let stem = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let text = match read_input(&path, &file, InputFile::Scenario) {
            Ok(Some(t)) => t,
            Ok(None) => continue,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        match scenario_from_yaml(&file, &text, Some(stem)) {
            Ok(scenario) => {
                if let Some(other) = out.iter().find(|s| s.scenario.id == scenario.id) {
                    problems.push(InputError::new(
                        &file,
                        "id",
                        format!(
                            "id `{}` is also used by {}",
                            scenario.id,
                            display(root, &other.path)
                        ),
                        "give each scenario its own id",
                    ));
                    continue;
                }
                out.push(ScenarioFile { path, scenario });
            }
            Err(p) => problems.extend(p.0),
        }
    }
    for f in &out {
        for need in &f.scenario.needs {
            let fix = |what: &str| {
                InputError::new(
                    display(root, &f.path),
                    "needs",
                    what.to_string(),
                    "name scenarios that declare `setup: true`",
                )
            };
            match out.iter().find(|o| &o.scenario.id == need) {
                None => problems.push(fix(&format!("no scenario `{need}`"))),
                Some(o) if !o.scenario.setup => {
                    problems.push(fix(&format!("`{need}` is not a setup scenario")))
                }
                Some(_) if f.scenario.setup => problems.push(fix(
                    "a setup scenario cannot need another (sign in once, in one setup)",
                )),
                Some(_) => {}
            }
        }
    }
    if problems.is_empty() {
        out.sort_by(|a, b| a.scenario.id.cmp(&b.scenario.id));
        Ok(out)
    } else {
        Err(Problems(problems))
    }
}

/// A path relative to the project root when it is inside it, for messages.
pub fn display(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}
