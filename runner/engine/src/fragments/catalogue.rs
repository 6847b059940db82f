//! The project's fragments, read and checked: loading `e2e/fragments/*.json`, loops between them,
//! the trust boundary, and the `use` steps of plans.

use std::collections::BTreeMap;
use std::path::Path;

use windup_model::limits::InputFile;
use windup_model::validate::fragment_from_json;
use windup_model::{ActionType, Fragment, InputError, Problems};

use crate::boundary::Boundary;
use crate::fsutil::{input_files, read_input};

/// Every fragment of a project, by id.
#[derive(Debug, Clone, Default)]
pub struct Fragments {
    pub(super) by_id: BTreeMap<String, Fragment>,
}

impl Fragments {
    /// Reads `dir/*.json`; a missing folder is an empty catalogue.
    pub fn load(dir: &Path) -> Result<Fragments, Problems> {
        let mut by_id = BTreeMap::new();
        let mut problems = Vec::new();
        for path in input_files(dir, &["json"])? {
            let file = path.display().to_string();
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default();
            let text = match read_input(&path, &file, InputFile::Fragment) {
                Ok(Some(t)) => t,
                Ok(None) => continue,
                Err(problem) => {
                    problems.push(problem);
                    continue;
                }
            };
            match fragment_from_json(&file, &text, Some(stem)) {
                Ok(f) => {
                    by_id.insert(f.id.clone(), f);
                }
                Err(p) => problems.extend(p.0),
            }
        }
        let fragments = Fragments { by_id };
        problems.extend(fragments.cycles(dir));
        if problems.is_empty() {
            Ok(fragments)
        } else {
            Err(Problems(problems))
        }
    }

    /// The fragment a `use` step names.
    pub fn get(&self, id: &str) -> Option<&Fragment> {
        self.by_id.get(id)
    }

    /// Every fragment id, sorted: the catalogue the planner is shown and an error lists.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.by_id.keys().map(String::as_str)
    }

    /// A fragment that uses itself, directly or not, would never end.
    fn cycles(&self, dir: &Path) -> Vec<InputError> {
        let mut out = Vec::new();
        for id in self.by_id.keys() {
            let mut stack = vec![(id.as_str(), vec![id.as_str()])];
            while let Some((current, path)) = stack.pop() {
                let Some(f) = self.by_id.get(current) else {
                    continue;
                };
                for a in f.actions.iter().filter(|a| a.kind == ActionType::Use) {
                    let Some(next) = a.use_fragment.as_deref() else {
                        continue;
                    };
                    if next == id {
                        out.push(InputError::new(
                            dir.join(format!("{id}.json")).display().to_string(),
                            "actions",
                            format!("fragment uses itself: {} → {id}", path.join(" → ")),
                            "remove the `use` that closes the loop",
                        ));
                    } else if !path.contains(&next) {
                        let mut p = path.clone();
                        p.push(next);
                        stack.push((next, p));
                    }
                }
            }
        }
        out
    }

    /// Problems of every fragment with the trust boundary (where its steps go, which
    /// credentials they name), each named by its file under `dir`.
    pub fn boundary_problems(&self, dir: &str, boundary: &Boundary) -> Vec<InputError> {
        self.by_id
            .iter()
            .flat_map(|(id, f)| {
                boundary.actions_problems(&format!("{dir}/{id}.json"), "", &f.actions)
            })
            .collect()
    }

    /// Problems with a plan's `use` steps: fragments that do not exist.
    pub fn check_uses(
        &self,
        file: &str,
        prefix: &str,
        plan: &windup_model::Plan,
    ) -> Vec<InputError> {
        plan.actions
            .iter()
            .enumerate()
            .filter(|(_, a)| a.kind == ActionType::Use)
            .filter_map(|(i, a)| {
                let id = a.use_fragment.as_deref()?;
                (!self.by_id.contains_key(id)).then(|| {
                    let known: Vec<&str> = self.ids().collect();
                    InputError::new(
                        file,
                        format!("{prefix}actions[{i}].use"),
                        format!(
                            "no fragment `{id}` in {}/",
                            crate::project::Layout::FRAGMENTS_DIR
                        ),
                        if known.is_empty() {
                            format!(
                                "add {}/<id>.json or inline the steps",
                                crate::project::Layout::FRAGMENTS_DIR
                            )
                        } else {
                            format!("use one of: {}", known.join(", "))
                        },
                    )
                })
            })
            .collect()
    }
}
