//! `windup validate`: every input file checked, every problem named, exit 0 or 2.

use std::path::{Path, PathBuf};

use windup_engine::cache::PlanCache;
use windup_engine::config::{Config, Overrides};
use windup_engine::fragments::Fragments;
use windup_engine::fsutil::read_capped;
use windup_engine::project::{Layout, display, load_scenarios};
use windup_model::limits::InputFile;
use windup_model::validate::{
    cache_entry_from_json, fragment_from_json, plan_from_json, scenario_from_yaml, too_large,
};
use windup_model::{ExitCode, InputError, Problems};

pub(crate) fn run(root: &Path, files: &[PathBuf]) -> ExitCode {
    let (problems, checked) = if files.is_empty() {
        project(root)
    } else {
        named(files)
    };
    if problems.is_empty() {
        eprintln!("ok: {checked} files checked, no problems");
        ExitCode::Success
    } else {
        super::print_problems(&Problems(problems.clone()));
        eprintln!("\n{} problem(s) in {checked} files checked", problems.len());
        ExitCode::BadInput
    }
}

fn project(root: &Path) -> (Vec<InputError>, usize) {
    let mut problems = Vec::new();
    let mut checked = 0;
    if root.join("windup.toml").exists() {
        checked += 1;
    }
    if let Err(e) = Config::load(root, &Overrides::default()) {
        problems.push(e);
    }
    let scenarios = match load_scenarios(root) {
        Ok(s) => s,
        Err(p) => {
            problems.extend(p.0);
            Vec::new()
        }
    };
    checked += count_files(&root.join(Layout::SCENARIOS_DIR), &["yaml", "yml"]);
    let fragments = match Fragments::load(&root.join(Layout::FRAGMENTS_DIR)) {
        Ok(f) => f,
        Err(p) => {
            problems.extend(p.0);
            Fragments::default()
        }
    };
    checked += count_files(&root.join(Layout::FRAGMENTS_DIR), &["json"]);
    let cache = PlanCache::new(root);
    let mut cached: Vec<PathBuf> = std::fs::read_dir(cache.dir())
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    cached.sort();
    for path in cached {
        checked += 1;
        let file = display(root, &path);
        let Some(text) = read(&path, &file, InputFile::CacheEntry, &mut problems) else {
            continue;
        };
        match cache_entry_from_json(&file, &text) {
            Ok(entry) => {
                let stem = path
                    .file_stem()
                    .and_then(|s| s.to_str())
                    .unwrap_or_default();
                if entry.key.scenario_id != stem {
                    problems.push(InputError::new(
                        &file,
                        "key.scenario_id",
                        format!("`{}` does not match the file name", entry.key.scenario_id),
                        "delete the entry; the next run plans the scenario again",
                    ));
                }
                if !scenarios
                    .iter()
                    .any(|s| s.scenario.id == entry.key.scenario_id)
                {
                    problems.push(InputError::new(
                        &file,
                        "key.scenario_id",
                        format!("no scenario `{}` exists", entry.key.scenario_id),
                        "delete the orphaned entry, or restore the scenario",
                    ));
                }
                problems.extend(fragments.check_uses(&file, "plan.", &entry.plan));
            }
            Err(p) => problems.extend(p.0),
        }
    }
    (problems, checked)
}

fn count_files(dir: &Path, exts: &[&str]) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter(|e| {
            e.path()
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| exts.contains(&x))
        })
        .count()
}

/// The file's text; a file over `kind`'s size limit is refused without being read whole.
fn read(
    path: &Path,
    file: &str,
    kind: InputFile,
    problems: &mut Vec<InputError>,
) -> Option<String> {
    match read_capped(path, kind.max_bytes()) {
        Ok(Some(t)) => Some(t),
        Ok(None) => {
            problems.push(too_large(file, kind));
            None
        }
        Err(e) => {
            problems.push(InputError::new(
                file,
                "(file)",
                format!("cannot be read: {e}"),
                "check the path and its permissions",
            ));
            None
        }
    }
}

/// Checks the files named, each by its kind: `.yaml` is a scenario; JSON by its version field.
fn named(files: &[PathBuf]) -> (Vec<InputError>, usize) {
    let mut problems = Vec::new();
    for path in files {
        let file = path.display().to_string();
        let stem = path.file_stem().and_then(|s| s.to_str());
        let ext = path
            .extension()
            .and_then(|x| x.to_str())
            .unwrap_or_default();
        let yaml = ext == "yaml" || ext == "yml";
        // A JSON file's kind is known only once it is parsed; plans, fragments and cache
        // entries share one size limit, so the cap holds whichever it is.
        let kind = if yaml {
            InputFile::Scenario
        } else {
            InputFile::Plan
        };
        let Some(text) = read(path, &file, kind, &mut problems) else {
            continue;
        };
        let result = if yaml {
            scenario_from_yaml(&file, &text, stem).map(|_| ())
        } else {
            let kind = serde_json::from_str::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| {
                    ["cache_version", "fragment_version", "plan_version"]
                        .into_iter()
                        .find(|k| v.get(k).is_some())
                });
            match kind {
                Some("cache_version") => cache_entry_from_json(&file, &text).map(|_| ()),
                Some("fragment_version") => fragment_from_json(&file, &text, stem).map(|_| ()),
                _ => plan_from_json(&file, &text).map(|_| ()),
            }
        };
        if let Err(p) = result {
            problems.extend(p.0);
        }
    }
    (problems, files.len())
}
