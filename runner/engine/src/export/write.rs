//! The export of a project: which scenarios, their verified plans read and checked like any
//! other road a plan comes in by, every spec made in memory, and only then the files written
//! (each atomically). Bad input names its file, field and fix, and nothing is written.

use std::path::{Path, PathBuf};

use windup_model::{InputError, Problems, Scenario};

use super::config::{ConfigInput, config};
use super::resolve::Resolution;
use super::spec::{SpecInput, spec};
use crate::boundary::Boundary;
use crate::cache::{Lookup, PlanCache};
use crate::fragments::Fragments;
use crate::fsutil::write_atomic;
use crate::project::{Layout, ScenarioFile, display, load_scenarios};

/// What to export.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The project root (where windup.toml and `e2e/` are).
    pub root: &'a Path,
    /// Scenario ids; none means every scenario with a verified plan. The setups they need come
    /// along.
    pub scenarios: &'a [String],
    /// The folder the specs go to.
    pub out: &'a Path,
    /// The trust boundary plans are held to (from the base URL, `[planner] allowed_origins`
    /// and the manifest); `None` without a base URL, when only the other checks apply.
    pub boundary: Option<&'a Boundary>,
    /// What `playwright.config.ts` carries over, if one is written.
    pub config: ConfigInput<'a>,
    /// What is known of the app's pages: nothing, the probe `--check` runs first, or what it
    /// found.
    pub resolution: Resolution<'a>,
}

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exported {
    /// Each spec written, in scenario order (setups as `<id>.setup.ts`, the rest `<id>.spec.ts`).
    pub specs: Vec<PathBuf>,
    /// `playwright.config.ts`, when there was none and it was written.
    pub config: Option<PathBuf>,
    /// Scenarios left out for want of a verified plan, with why (only when none was named).
    pub skipped: Vec<(String, String)>,
}

/// Writes one `@playwright/test` spec per verified plan, and the config when missing.
pub fn playwright(request: &Request<'_>) -> Result<Exported, Problems> {
    let root = request.root;
    let all = load_scenarios(root)?;
    let (selected, mut problems) = select(&all, request.scenarios, root);
    let fragments = Fragments::load(&root.join(Layout::FRAGMENTS_DIR))?;
    let totp = crate::secrets::totp_names(root);
    if let Some(b) = request.boundary {
        problems.extend(fragments.boundary_problems(Layout::FRAGMENTS_DIR, b));
    }
    let cache = PlanCache::new(root);
    let files_dir = relative_to(request.out, &root.join(Layout::FILES_DIR));
    let named = |id: &str| request.scenarios.iter().any(|s| s == id);
    let mut files = Vec::new();
    let mut missing = Vec::new();
    for scenario in &selected {
        let plan_file = display(root, &cache.path(&scenario.id));
        let entry = match cache.lookup(scenario) {
            Err(p) => {
                problems.extend(p.0);
                continue;
            }
            Ok(Lookup::Hit(entry)) => entry,
            Ok(Lookup::Changed(_)) => {
                missing.push((
                    scenario,
                    plan_file,
                    "its cached plan was made for an earlier text of it",
                ));
                continue;
            }
            Ok(Lookup::Miss) => {
                missing.push((scenario, plan_file, "it has no verified plan yet"));
                continue;
            }
        };
        let plan = &entry.plan;
        problems.extend(fragments.check_uses(&plan_file, "plan.", plan));
        if let Some(b) = request.boundary {
            problems.extend(b.plan_problems(&plan_file, "plan.", plan));
        }
        let input = SpecInput {
            scenario,
            plan,
            plan_file: &plan_file,
            fragments: &fragments,
            totp: &totp,
            files_dir: &files_dir,
            resolution: request.resolution,
        };
        match spec(&input) {
            Ok(text) => files.push((scenario, text)),
            Err(bad) => problems.push(InputError::new(&plan_file, bad.field, bad.problem, bad.fix)),
        }
    }
    // A scenario without a verified plan is an error when it was named or an exported one needs
    // it (its spec would wait for a storage file nothing writes); else it is reported skipped.
    let mut skipped = Vec::new();
    for (scenario, plan_file, why) in missing {
        let needed = files.iter().any(|(s, _)| s.needs.contains(&scenario.id));
        if named(&scenario.id) || needed {
            let who = if named(&scenario.id) {
                "it was named"
            } else {
                "a scenario exported needs it"
            };
            problems.push(InputError::new(
                &plan_file,
                "(file)",
                format!("`{}` cannot be exported ({who}): {why}", scenario.id),
                format!(
                    "run `windup run {}` to plan and verify it, then export again",
                    scenario.id
                ),
            ));
        } else {
            skipped.push((scenario.id.clone(), why.to_string()));
        }
    }
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    let files = files
        .into_iter()
        .map(|(scenario, text)| (spec_name(scenario), text))
        .collect();
    write_all(request, files, skipped)
}

/// The scenarios to export: those named (each must exist) or all, plus the setups they need.
fn select(all: &[ScenarioFile], ids: &[String], root: &Path) -> (Vec<Scenario>, Vec<InputError>) {
    let mut problems = Vec::new();
    let mut selected: Vec<Scenario> = if ids.is_empty() {
        all.iter().map(|f| f.scenario.clone()).collect()
    } else {
        let mut out = Vec::new();
        for id in ids {
            match all.iter().find(|f| &f.scenario.id == id) {
                Some(f) if !out.iter().any(|s: &Scenario| &s.id == id) => {
                    out.push(f.scenario.clone())
                }
                Some(_) => {}
                None => {
                    let known: Vec<&str> = all.iter().map(|f| f.scenario.id.as_str()).collect();
                    problems.push(InputError::new(
                        display(root, &root.join(Layout::SCENARIOS_DIR)),
                        "scenarios",
                        format!("there is no scenario `{id}`"),
                        if known.is_empty() {
                            "add a scenario, plan and verify it with `windup run`".to_string()
                        } else {
                            format!("use one of: {}", known.join(", "))
                        },
                    ));
                }
            }
        }
        out
    };
    let needs: Vec<String> = selected.iter().flat_map(|s| s.needs.clone()).collect();
    for need in needs {
        if !selected.iter().any(|s| s.id == need)
            && let Some(f) = all.iter().find(|f| f.scenario.id == need)
        {
            selected.push(f.scenario.clone());
        }
    }
    (selected, problems)
}

fn spec_name(scenario: &Scenario) -> String {
    if scenario.setup {
        format!("{}.setup.ts", scenario.id)
    } else {
        format!("{}.spec.ts", scenario.id)
    }
}

/// Every spec, then the config and `.gitignore` where none is: nothing is written before every
/// spec was made.
fn write_all(
    request: &Request<'_>,
    files: Vec<(String, String)>,
    skipped: Vec<(String, String)>,
) -> Result<Exported, Problems> {
    let out = request.out;
    let io = |path: &Path, e: std::io::Error| -> Problems {
        InputError::new(
            path.display().to_string(),
            "(file)",
            format!("cannot be written: {e}"),
            "check that --out names a folder you can write to",
        )
        .into()
    };
    let mut exported = Exported {
        skipped,
        ..Exported::default()
    };
    for (name, text) in files {
        let path = out.join(name);
        write_atomic(&path, text.as_bytes()).map_err(|e| io(&path, e))?;
        exported.specs.push(path);
    }
    let config_path = out.join("playwright.config.ts");
    if !config_path.exists() {
        write_atomic(&config_path, config(&request.config).as_bytes())
            .map_err(|e| io(&config_path, e))?;
        exported.config = Some(config_path);
    }
    // Setups' saved storage holds session tokens.
    let ignore = out.join(".gitignore");
    if !ignore.exists() {
        write_atomic(&ignore, b".auth/\ntest-results/\nplaywright-report/\n")
            .map_err(|e| io(&ignore, e))?;
    }
    Ok(exported)
}

/// `to` as seen from the folder `from` (`../e2e/files` from `<root>/playwright`), with `/`
/// between its parts as the spec writes it; `to` whole when the two share no root.
fn relative_to(from: &Path, to: &Path) -> String {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (from, to) = (absolute(from), absolute(to));
    let parts = |p: &Path| -> Vec<String> {
        p.components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect()
    };
    let (a, b) = (parts(&from), parts(&to));
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return to.to_string_lossy().into_owned();
    }
    let mut out: Vec<String> = vec!["..".into(); a.len() - common];
    out.extend(b[common..].iter().cloned());
    out.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_files_folder_is_found_from_the_specs_folder() {
        let root = Path::new("/p/app");
        let files = root.join("e2e/files");
        assert_eq!(
            relative_to(&root.join("playwright"), &files),
            "../e2e/files"
        );
        assert_eq!(
            relative_to(&root.join("tests/e2e/pw"), &files),
            "../../../e2e/files"
        );
        assert_eq!(relative_to(root, &files), "e2e/files");
        assert_eq!(
            relative_to(Path::new("/q/out"), &files),
            "../../p/app/e2e/files"
        );
    }
}
