//! Next.js routes from file names. The app router: `app/**/page.{tsx,jsx,ts,js}` (also under
//! `src/`), route groups `(group)` dropped from the URL, `[id]` → `:id`, `[...slug]` → `*slug`,
//! `[[...slug]]` → `*slug?`; parallel `@slot` folders, intercepting `(.)`/`(..)`/`(...)` folders
//! and private `_folder`s produce no URL of their own. The pages router: `pages/**` without
//! `_app`, `_document`, `_error`, `404`, `500` and `api/`.

use std::path::{Path, PathBuf};

const EXTENSIONS: [&str; 4] = ["tsx", "jsx", "ts", "js"];

/// A route and the file that renders it.
pub(super) struct FileRoute {
    pub route: String,
    pub file: PathBuf,
}

/// The app router's routes under `app_dir`.
pub(super) fn app_router(app_dir: &Path) -> Vec<FileRoute> {
    let mut out = Vec::new();
    walk_app(app_dir, &mut Vec::new(), &mut out);
    out
}

fn walk_app(dir: &Path, segs: &mut Vec<String>, out: &mut Vec<FileRoute>) {
    for e in sorted_entries(dir) {
        let name = e.file_name().to_string_lossy().to_string();
        let path = e.path();
        if path.is_dir() {
            if name.starts_with('_') || name.starts_with('@') || intercepting(&name) {
                continue;
            }
            let pushed = match app_segment(&name) {
                Some(seg) => {
                    segs.push(seg);
                    true
                }
                None => false,
            };
            walk_app(&path, segs, out);
            if pushed {
                segs.pop();
            }
        } else if let Some((stem, ext)) = name.rsplit_once('.')
            && stem == "page"
            && EXTENSIONS.contains(&ext)
        {
            out.push(FileRoute {
                route: format!("/{}", segs.join("/")),
                file: path,
            });
        }
    }
}

/// The entries of `dir` by name (none when it cannot be read), so routes come out in a
/// stable order.
fn sorted_entries(dir: &Path) -> Vec<std::fs::DirEntry> {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).collect())
        .unwrap_or_default();
    entries.sort_by_key(|e| e.file_name());
    entries
}

/// `(.)x`, `(..)x`, `(..)(..)x`, `(...)x`: a route intercepted from elsewhere.
fn intercepting(name: &str) -> bool {
    name.starts_with("(.)") || name.starts_with("(..)") || name.starts_with("(...)")
}

/// The URL segment of a folder; none for a route group.
fn app_segment(name: &str) -> Option<String> {
    if name.starts_with('(') && name.ends_with(')') {
        return None;
    }
    Some(dynamic(name))
}

fn dynamic(name: &str) -> String {
    if let Some(inner) = name
        .strip_prefix("[[...")
        .and_then(|s| s.strip_suffix("]]"))
    {
        format!("*{inner}?")
    } else if let Some(inner) = name.strip_prefix("[...").and_then(|s| s.strip_suffix(']')) {
        format!("*{inner}")
    } else if let Some(inner) = name.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
        format!(":{inner}")
    } else {
        name.to_string()
    }
}

/// The pages router's routes under `pages_dir`.
pub(super) fn pages_router(pages_dir: &Path) -> Vec<FileRoute> {
    let mut out = Vec::new();
    walk_pages(pages_dir, &mut Vec::new(), &mut out);
    out
}

fn walk_pages(dir: &Path, segs: &mut Vec<String>, out: &mut Vec<FileRoute>) {
    for e in sorted_entries(dir) {
        let name = e.file_name().to_string_lossy().to_string();
        let path = e.path();
        if path.is_dir() {
            if (segs.is_empty() && name == "api") || name.starts_with('_') || name.starts_with('.')
            {
                continue;
            }
            segs.push(dynamic(&name));
            walk_pages(&path, segs, out);
            segs.pop();
            continue;
        }
        let Some((stem, ext)) = name.rsplit_once('.') else {
            continue;
        };
        if !EXTENSIONS.contains(&ext)
            || stem.starts_with('_')
            || (stem.contains('.') && !stem.starts_with('['))
            || (segs.is_empty() && (stem == "404" || stem == "500"))
        {
            continue;
        }
        let mut all = segs.clone();
        if stem != "index" {
            all.push(dynamic(stem));
        }
        out.push(FileRoute {
            route: format!("/{}", all.join("/")),
            file: path,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::dynamic;

    #[test]
    fn dynamic_segments() {
        assert_eq!(dynamic("[id]"), ":id");
        assert_eq!(dynamic("[...slug]"), "*slug");
        assert_eq!(dynamic("[[...slug]]"), "*slug?");
        assert_eq!(dynamic("billing"), "billing");
    }
}
