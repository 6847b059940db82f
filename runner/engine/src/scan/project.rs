//! Where the app's source is and which framework each app root uses; the scan's entry point.
//!
//! The source is the project root unless `[scan] roots` or `--source` say otherwise. A root that
//! is a monorepo (`apps/*`, `packages/*` with their own `package.json`) is scanned app by app,
//! and its packages are known by name so that routes imported from `@acme/routes` are followed.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use windup_model::sitemap::route_problem;

use super::next;
use super::react_router::Modules;
use super::result::{ScanResult, ScannedRoute};

/// Why a scan could not start.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// A source root does not exist.
    #[error("the source folder {0} does not exist; fix [scan] roots in windup.toml or --source")]
    NoSource(PathBuf),
    /// The site map there cannot be read.
    #[error("{0}")]
    SiteMap(windup_model::Problems),
    /// The site map could not be written.
    #[error("could not write {0}: {1}")]
    Write(PathBuf, std::io::Error),
}

/// Folders never scanned.
const SKIP: [&str; 8] = [
    "node_modules",
    "dist",
    "build",
    "out",
    "coverage",
    "target",
    "public",
    "e2e",
];
const SOURCE_EXTENSIONS: [&str; 4] = ["tsx", "ts", "jsx", "js"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framework {
    Next,
    ReactRouter,
    Unknown,
}

/// Scans the app's source: `roots` relative to `project` (the project root itself when empty).
pub fn scan(project: &Path, roots: &[PathBuf]) -> Result<ScanResult, ScanError> {
    let roots: Vec<PathBuf> = if roots.is_empty() {
        vec![project.to_path_buf()]
    } else {
        roots.iter().map(|r| project.join(r)).collect()
    };
    let mut apps = Vec::new();
    let mut packages = HashMap::new();
    // A root inside a monorepo still imports the repository's packages by name.
    for m in workspace_members(project) {
        if let Some(name) = package_name(&m) {
            packages.insert(name, m);
        }
    }
    for root in &roots {
        if !root.is_dir() {
            return Err(ScanError::NoSource(root.clone()));
        }
        let members = workspace_members(root);
        for m in &members {
            if let Some(name) = package_name(m) {
                packages.insert(name, m.clone());
            }
        }
        if members.is_empty() || framework(root) != Framework::Unknown {
            apps.push(root.clone());
        }
        apps.extend(
            members
                .into_iter()
                .filter(|m| framework(m) != Framework::Unknown),
        );
    }
    let mut modules = Modules::new(packages);
    let mut found: BTreeMap<String, ScannedRoute> = BTreeMap::new();
    let mut warnings = Vec::new();
    for app in &apps {
        let fw = framework(app);
        let mut routes: Vec<(String, Option<PathBuf>)> = Vec::new();
        if matches!(fw, Framework::Next | Framework::Unknown) {
            for dir in ["app", "src/app"] {
                routes.extend(
                    next::app_router(&app.join(dir))
                        .into_iter()
                        .map(|r| (r.route, Some(r.file))),
                );
            }
            for dir in ["pages", "src/pages"] {
                if fw == Framework::Next {
                    routes.extend(
                        next::pages_router(&app.join(dir))
                            .into_iter()
                            .map(|r| (r.route, Some(r.file))),
                    );
                }
            }
        }
        if matches!(fw, Framework::ReactRouter | Framework::Unknown) {
            for file in source_files(app) {
                let has_router = modules.get(&file).is_some_and(|m| !m.roots.is_empty());
                if has_router {
                    routes.extend(
                        modules
                            .routes_of(&file)
                            .into_iter()
                            .map(|f| (f.route, f.file)),
                    );
                }
            }
        }
        for (route, file) in routes {
            if found.contains_key(&route) {
                continue;
            }
            // The site map holds only path patterns (a route reaches prompts): a folder or a
            // `path=` the rule cannot take is named, not kept.
            if let Some(problem) = route_problem(&route) {
                warnings.push(format!(
                    "the route `{}` is left out of the site map: {problem}",
                    route.escape_debug()
                ));
                continue;
            }
            let (controls, links) = match file.as_deref().and_then(|f| modules.get(f)) {
                Some(m) => (m.controls.clone(), m.links.clone()),
                None => (Vec::new(), Vec::new()),
            };
            let file = file.map(|f| f.strip_prefix(project).unwrap_or(&f).display().to_string());
            found.insert(
                route.clone(),
                ScannedRoute {
                    route,
                    file,
                    controls,
                    links,
                },
            );
        }
    }
    if apps.len() > 1 {
        warnings.push(format!(
            "{} apps found ({}); their routes are merged into one site map: list the one under test in windup.toml [scan] roots",
            apps.len(),
            apps.iter()
                .map(|a| a.strip_prefix(project).unwrap_or(a).display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    warnings.append(&mut modules.warnings);
    Ok(ScanResult {
        routes: found.into_values().collect(),
        warnings,
    })
}

/// A monorepo's members: folders under `apps/` and `packages/` with a `package.json`.
fn workspace_members(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for group in ["apps", "packages"] {
        let Ok(entries) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.join("package.json").is_file())
            .collect();
        dirs.sort();
        out.extend(dirs);
    }
    out
}

fn package_json(dir: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
    serde_json::from_str(&text).ok()
}

fn package_name(dir: &Path) -> Option<String> {
    package_json(dir)?.get("name")?.as_str().map(str::to_string)
}

fn framework(dir: &Path) -> Framework {
    let Some(pkg) = package_json(dir) else {
        return Framework::Unknown;
    };
    let has = |dep: &str| {
        ["dependencies", "devDependencies", "peerDependencies"]
            .iter()
            .any(|k| pkg.get(k).and_then(|d| d.get(dep)).is_some())
    };
    if has("next") {
        Framework::Next
    } else if has("react-router") || has("react-router-dom") {
        Framework::ReactRouter
    } else {
        Framework::Unknown
    }
}

/// The app's source files, sorted, without dependencies, builds and nested packages.
fn source_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.filter_map(Result::ok) {
            let path = e.path();
            let name = e.file_name().to_string_lossy().to_string();
            if name.starts_with('.') || SKIP.contains(&name.as_str()) {
                continue;
            }
            if path.is_dir() {
                // A nested package is its own app (a monorepo's member).
                if dir == root && (name == "apps" || name == "packages") {
                    continue;
                }
                stack.push(path);
            } else if path
                .extension()
                .and_then(|x| x.to_str())
                .is_some_and(|x| SOURCE_EXTENSIONS.contains(&x))
                && !name.ends_with(".d.ts")
                && !name.contains(".test.")
                && !name.contains(".spec.")
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
