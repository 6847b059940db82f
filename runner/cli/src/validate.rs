//! `windup validate`: every input file checked, every problem named, exit 0 or 2. With
//! `--prove`, each cached plan is then proven in Chromium with no LLM (the engine's `audit`):
//! exit 1 when one does not prove its task.

use std::path::{Path, PathBuf};

use windup_engine::boundary::Boundary;
use windup_engine::cache::PlanCache;
use windup_engine::config::{Config, Overrides};
use windup_engine::executor::{missing_upload_files, refused_upload_files};
use windup_engine::fragments::Fragments;
use windup_engine::fsutil::read_capped;
use windup_engine::project::{Layout, display, load_scenarios};
use windup_engine::runner::{PlanAudit, Selection};
use windup_engine::secrets::ProjectSecrets;
use windup_model::limits::InputFile;
use windup_model::validate::{
    cache_entry_from_json, fragment_from_json, plan_from_json, scenario_from_yaml, too_large,
};
use windup_model::{ExitCode, InputError, Problems};

use crate::{Common, PlanningArgs};

pub(crate) fn run(files: &[PathBuf], prove: bool, common: Common) -> ExitCode {
    let root = common.project.root.clone();
    if prove {
        let code = check(&root, &[]);
        if code != ExitCode::Success {
            return code;
        }
        let ids: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        return prove_plans(ids, common);
    }
    check(&root, files)
}

/// Proves the cached plans of `ids` (every scenario when empty) and prints what each lacks.
fn prove_plans(ids: Vec<String>, common: Common) -> ExitCode {
    let planning = PlanningArgs {
        require_cached: true,
        ..PlanningArgs::default()
    };
    let verbose = common.verbose;
    crate::with_runner(
        &common,
        &planning,
        move |runner, _| {
            Box::pin(async move {
                let selection = Selection {
                    ids,
                    ..Selection::default()
                };
                runner.audit(&selection).await
            })
        },
        move |audits: Vec<PlanAudit>, _, _| {
            let unproven = audits.iter().filter(|a| !a.proven()).count();
            for a in &audits {
                let file = a.file.as_deref().unwrap_or("(no plan)");
                if a.proven() {
                    println!("proven   {} ({file})", a.scenario_id);
                } else {
                    println!("UNPROVEN {} ({file})", a.scenario_id);
                    for p in &a.problems {
                        println!("  - {p}");
                    }
                }
                if verbose {
                    for n in &a.notes {
                        println!("    {n}");
                    }
                }
            }
            eprintln!(
                "\n{} of {} plans prove their task",
                audits.len() - unproven,
                audits.len()
            );
            if unproven == 0 {
                ExitCode::Success
            } else {
                ExitCode::ScenarioFailed
            }
        },
    )
}

fn check(root: &Path, files: &[PathBuf]) -> ExitCode {
    let (problems, checked) = if files.is_empty() {
        project(root)
    } else {
        let mut problems = Vec::new();
        let boundary = boundary(root, &mut problems);
        let (more, checked) = named(files, boundary.as_ref());
        problems.extend(more);
        (problems, checked)
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
    let boundary = boundary(root, &mut problems);
    let scenarios = match load_scenarios(root) {
        Ok(s) => s,
        Err(p) => {
            problems.extend(p.0);
            Vec::new()
        }
    };
    checked += count_files(&root.join(Layout::SCENARIOS_DIR), &["yaml", "yml"]);
    let scenario_stems: std::collections::HashSet<String> =
        std::fs::read_dir(root.join(Layout::SCENARIOS_DIR))
            .into_iter()
            .flatten()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
            .filter_map(|p| p.file_stem().and_then(|s| s.to_str()).map(str::to_string))
            .collect();
    let fragments = match Fragments::load(&root.join(Layout::FRAGMENTS_DIR)) {
        Ok(f) => f,
        Err(p) => {
            problems.extend(p.0);
            Fragments::default()
        }
    };
    checked += count_files(&root.join(Layout::FRAGMENTS_DIR), &["json"]);
    if let Some(b) = &boundary {
        let dir = display(root, &root.join(Layout::FRAGMENTS_DIR));
        problems.extend(fragments.boundary_problems(&dir, b));
    }
    // What an upload would send: plain files in e2e/files/ only, never a link out of it.
    problems.extend(refused_upload_files(root));
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
                // A scenario file that is there but does not parse has its own problems: its
                // plan is not an orphan too.
                if !scenarios
                    .iter()
                    .any(|s| s.scenario.id == entry.key.scenario_id)
                    && !scenario_stems.contains(&entry.key.scenario_id)
                {
                    problems.push(InputError::new(
                        &file,
                        "key.scenario_id",
                        format!("no scenario `{}` exists", entry.key.scenario_id),
                        "delete the orphaned entry, or restore the scenario",
                    ));
                }
                problems.extend(fragments.check_uses(&file, "plan.", &entry.plan));
                problems.extend(missing_upload_files(
                    root,
                    &file,
                    "plan.",
                    &entry.plan.actions,
                ));
                if let Some(b) = &boundary {
                    problems.extend(b.plan_problems(&file, "plan.", &entry.plan));
                }
            }
            Err(p) => problems.extend(p.0),
        }
    }
    // Proposals waiting for `windup accept`: the plan each would make active.
    for (_, read) in cache.proposals() {
        checked += 1;
        match read {
            Ok(entry) => {
                let file = display(root, &cache.proposal_path(&entry.key.scenario_id));
                problems.extend(fragments.check_uses(&file, "plan.", &entry.plan));
                problems.extend(missing_upload_files(
                    root,
                    &file,
                    "plan.",
                    &entry.plan.actions,
                ));
                if let Some(b) = &boundary {
                    problems.extend(b.plan_problems(&file, "plan.", &entry.plan));
                }
            }
            Err(p) => problems.extend(p.0),
        }
    }
    // The site map, when there is one.
    let site_map = windup_engine::sitemap::SiteMapFile::new(root);
    if site_map.path().exists() {
        checked += 1;
        if let Err(p) = site_map.load() {
            problems.extend(p.0);
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

/// The project's trust boundary (its base URL, allowed origins and the manifest's credentials),
/// which every plan and fragment must keep to; none without a base URL. The config's and the
/// manifest's own problems go to `problems`.
fn boundary(root: &Path, problems: &mut Vec<InputError>) -> Option<Boundary> {
    let config = match Config::load(root, &Overrides::default()) {
        Ok(c) => c,
        Err(e) => {
            problems.push(e);
            return None;
        }
    };
    let secrets = match ProjectSecrets::load(root, &config.env) {
        Ok(s) => s,
        Err(p) => {
            problems.extend(p.0);
            return None;
        }
    };
    let base = config.base_url.as_ref()?;
    Some(Boundary::new(
        base,
        &config.planner.allowed_origins,
        secrets.manifest(),
    ))
}

/// Checks the files named, each by its kind: `.yaml` is a scenario; JSON by its version field.
/// Plans, cache entries and fragments keep to the project's boundary when it has one.
fn named(files: &[PathBuf], boundary: Option<&Boundary>) -> (Vec<InputError>, usize) {
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
            let outside = |found: Vec<InputError>| {
                if found.is_empty() {
                    Ok(())
                } else {
                    Err(Problems(found))
                }
            };
            match kind {
                Some("cache_version") => cache_entry_from_json(&file, &text).and_then(|e| {
                    outside(
                        boundary
                            .map_or_else(Vec::new, |b| b.plan_problems(&file, "plan.", &e.plan)),
                    )
                }),
                Some("fragment_version") => fragment_from_json(&file, &text, stem).and_then(|f| {
                    outside(
                        boundary
                            .map_or_else(Vec::new, |b| b.actions_problems(&file, "", &f.actions)),
                    )
                }),
                _ => plan_from_json(&file, &text).and_then(|p| {
                    outside(boundary.map_or_else(Vec::new, |b| b.plan_problems(&file, "", &p)))
                }),
            }
        };
        if let Err(p) = result {
            problems.extend(p.0);
        }
    }
    (problems, files.len())
}
