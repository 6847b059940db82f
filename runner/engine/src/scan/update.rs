//! `windup scan` written into the project's site map: the routes a scan found merged as
//! `static` facts.

use super::project::{ScanError, scan};
use super::result::ScanResult;

/// A scan written into the project's site map.
#[derive(Debug)]
pub struct ScanReport {
    /// What the scan found.
    pub result: ScanResult,
    /// Whether the site map's file changed.
    pub written: bool,
    /// The site map's file.
    pub path: std::path::PathBuf,
}

/// `windup scan`: scans the source (`roots` relative to `root`, the root itself when empty) and
/// merges the routes into `e2e/.windup/sitemap.json` as `static` facts.
pub fn update_site_map(
    root: &std::path::Path,
    roots: &[std::path::PathBuf],
) -> Result<ScanReport, ScanError> {
    let result = scan(root, roots)?;
    let file = crate::sitemap::SiteMapFile::new(root);
    let mut map = file.load().map_err(ScanError::SiteMap)?;
    result.apply_to(&mut map);
    let written = file
        .save(&map)
        .map_err(|e| ScanError::Write(file.path().to_path_buf(), e))?;
    Ok(ScanReport {
        result,
        written,
        path: file.path().to_path_buf(),
    })
}
