//! The site map's file: read tolerantly (a missing file is an empty map; a malformed one is an
//! error naming it), written atomically, and only when its bytes would change, so a run that
//! learned nothing leaves git quiet.

use std::path::{Path, PathBuf};

use windup_model::Problems;
use windup_model::limits::InputFile;
use windup_model::sitemap::SiteMap;
use windup_model::validate::site_map_from_json;

use crate::fsutil::{read_input, write_atomic};
use crate::project::Layout;

/// The project's `e2e/.windup/sitemap.json`.
#[derive(Debug, Clone)]
pub struct SiteMapFile {
    path: PathBuf,
}

/// The map as written: canonical order, pretty JSON, a trailing newline.
pub fn render(map: &SiteMap) -> String {
    let mut map = map.clone();
    map.canonicalize();
    let mut text = serde_json::to_string_pretty(&map).expect("a site map serialises");
    text.push('\n');
    text
}

impl SiteMapFile {
    /// The site map of the project at `root` (nothing is read yet).
    pub fn new(root: &Path) -> SiteMapFile {
        SiteMapFile {
            path: root.join(Layout::SITEMAP_FILE),
        }
    }

    /// Where it lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The map; an empty one when there is no file yet.
    pub fn load(&self) -> Result<SiteMap, Problems> {
        let file = self.path.display().to_string();
        match read_input(&self.path, &file, InputFile::SiteMap)? {
            Some(text) => site_map_from_json(&file, &text),
            None => Ok(SiteMap::new()),
        }
    }

    /// Writes the map unless the file already holds exactly these bytes; says whether it wrote.
    pub fn save(&self, map: &SiteMap) -> std::io::Result<bool> {
        let text = render(map);
        if std::fs::read(&self.path).is_ok_and(|old| old == text.as_bytes()) {
            return Ok(false);
        }
        write_atomic(&self.path, text.as_bytes())?;
        Ok(true)
    }
}
