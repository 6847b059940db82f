//! The run report as JSON (`schemas/run-report.schema.json`).

use std::path::Path;

use windup_model::RunReport;

/// Writes the run report to `path` as pretty JSON, atomically.
pub fn write_report(path: &Path, report: &RunReport) -> std::io::Result<()> {
    crate::fsutil::write_json(path, report)
}
