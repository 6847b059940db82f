//! react-router v6/v7: the route lists handed to a router, composed with their parents (nested,
//! index and `lazy` routes, layout routes without a path), following route arrays defined in
//! other modules, the app's own or a workspace package's (`@acme/routes`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::parse::{Module, RouteNode, module};

/// Extensions tried for an import without one, in order.
const RESOLVE: [&str; 4] = ["tsx", "ts", "jsx", "js"];
/// How deep imports and nesting are followed.
const MAX_DEPTH: usize = 16;

/// Modules read so far, by path: each is parsed once.
pub(super) struct Modules {
    read: HashMap<PathBuf, Module>,
    /// Workspace packages by name, for imports of `@scope/pkg`.
    pub packages: HashMap<String, PathBuf>,
    pub warnings: Vec<String>,
}

/// A route found: its pattern and the module of its component.
pub(super) struct Found {
    pub route: String,
    pub file: Option<PathBuf>,
}

impl Modules {
    pub(super) fn new(packages: HashMap<String, PathBuf>) -> Modules {
        Modules {
            read: HashMap::new(),
            packages,
            warnings: Vec::new(),
        }
    }

    /// The module at `path`, read on first use; `None` when it cannot be read.
    pub(super) fn get(&mut self, path: &Path) -> Option<&Module> {
        if !self.read.contains_key(path) {
            let text = std::fs::read_to_string(path).ok()?;
            let (m, problem) = module(path, &text);
            if let Some(p) = problem {
                self.warnings.push(p);
            }
            self.read.insert(path.to_path_buf(), m);
        }
        self.read.get(path)
    }

    /// Where an import specifier from `from` leads, when it is the app's own code.
    pub(super) fn resolve(&self, from: &Path, spec: &str) -> Option<PathBuf> {
        let base = if spec.starts_with('.') {
            lexical(&from.parent()?.join(spec))
        } else {
            let (pkg, sub) = self
                .packages
                .iter()
                .filter(|(name, _)| spec == name.as_str() || spec.starts_with(&format!("{name}/")))
                .max_by_key(|(name, _)| name.len())?;
            let rest = spec[pkg.len()..].trim_start_matches('/');
            if rest.is_empty() {
                return ["src/index", "index"]
                    .iter()
                    .find_map(|i| with_extension(&sub.join(i)));
            }
            return with_extension(&sub.join(rest))
                .or_else(|| with_extension(&sub.join("src").join(rest)));
        };
        with_extension(&base)
    }

    /// Every route under the routers of the module at `entry`.
    pub(super) fn routes_of(&mut self, entry: &Path) -> Vec<Found> {
        let roots = match self.get(entry) {
            Some(m) => m.roots.clone(),
            None => return Vec::new(),
        };
        let mut out = Vec::new();
        for nodes in roots {
            self.compose(entry, &nodes, "", &mut out, 0);
        }
        out
    }

    fn compose(
        &mut self,
        file: &Path,
        nodes: &[RouteNode],
        parent: &str,
        out: &mut Vec<Found>,
        depth: usize,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        for node in nodes {
            match node {
                RouteNode::Ref(name) => {
                    if let Some((at, nodes)) = self.array(file, name, 0) {
                        self.compose(&at, &nodes, parent, out, depth + 1);
                    }
                }
                RouteNode::Route {
                    path,
                    index,
                    component,
                    lazy,
                    children,
                } => {
                    let full = match path {
                        Some(p) => join(parent, p),
                        None => parent.to_string(),
                    };
                    let renders = component.is_some() || lazy.is_some() || *index;
                    if (path.is_some() || *index) && renders {
                        let module = match lazy {
                            Some(spec) => self.resolve(file, spec),
                            None => component.as_deref().and_then(|c| self.component(file, c)),
                        };
                        out.push(Found {
                            route: pattern(&full),
                            file: module,
                        });
                    }
                    self.compose(file, children, &full, out, depth + 1);
                }
            }
        }
    }

    /// The array of routes `name` names in `file`: declared there, imported, or re-exported.
    fn array(
        &mut self,
        file: &Path,
        name: &str,
        depth: usize,
    ) -> Option<(PathBuf, Vec<RouteNode>)> {
        if depth > MAX_DEPTH {
            return None;
        }
        let m = self.get(file)?;
        if let Some(nodes) = m.arrays.get(name) {
            return Some((file.to_path_buf(), nodes.clone()));
        }
        if name == "default"
            && let Some(local) = m.default_export.clone()
        {
            return self.array(file, &local, depth + 1);
        }
        let imported = m.imports.get(name).cloned();
        let reexports = m.reexports.clone();
        if let Some((spec, imported)) = imported {
            let target = self.resolve(file, &spec)?;
            return self.array(&target, &imported, depth + 1);
        }
        for (exported, spec, local) in reexports {
            if exported == name || exported == "*" {
                let target = self.resolve(file, &spec)?;
                let want = if exported == "*" {
                    name
                } else {
                    local.as_str()
                };
                if let Some(found) = self.array(&target, want, depth + 1) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// The module a component named in `file` comes from (itself when declared there).
    fn component(&mut self, file: &Path, name: &str) -> Option<PathBuf> {
        let m = self.get(file)?;
        if let Some(spec) = m.lazy_components.get(name).cloned() {
            return self.resolve(file, &spec);
        }
        match m.imports.get(name).cloned() {
            Some((spec, _)) => self.resolve(file, &spec),
            None => Some(file.to_path_buf()),
        }
    }
}

/// `a/./b/../c` as `a/c`, without touching the file system.
fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn with_extension(base: &Path) -> Option<PathBuf> {
    if base.is_file() {
        return Some(base.to_path_buf());
    }
    for ext in RESOLVE {
        let p = PathBuf::from(format!("{}.{ext}", base.display()));
        if p.is_file() {
            return Some(p);
        }
    }
    for ext in RESOLVE {
        let p = base.join(format!("index.{ext}"));
        if p.is_file() {
            return Some(p);
        }
    }
    None
}

/// A child's path under its parent's (an absolute child path stands alone).
fn join(parent: &str, child: &str) -> String {
    if child.starts_with('/') {
        child.to_string()
    } else {
        format!("{}/{}", parent.trim_end_matches('/'), child)
    }
}

/// A react-router path as a site-map pattern: `*` → `*splat`, trailing slashes dropped.
fn pattern(path: &str) -> String {
    let segs: Vec<String> = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(|s| {
            if s == "*" {
                "*splat".into()
            } else {
                s.to_string()
            }
        })
        .collect();
    format!("/{}", segs.join("/"))
}

#[cfg(test)]
mod tests {
    use super::{join, pattern};

    #[test]
    fn paths_compose_with_their_parents() {
        assert_eq!(pattern(&join("/projects", ":id")), "/projects/:id");
        assert_eq!(pattern(&join("/projects/", "/abs")), "/abs");
        assert_eq!(pattern(&join("", "")), "/");
        assert_eq!(pattern(&join("/docs", "*")), "/docs/*splat");
    }
}
