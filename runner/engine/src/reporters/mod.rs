//! Reports written after a run, one module per format, each with one `write_report` entry.

pub mod json;

use std::path::PathBuf;

use windup_model::{InputError, RunReport};

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Json,
}

/// `--report FORMAT=PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportSpec {
    pub format: ReportFormat,
    pub path: PathBuf,
}

impl ReportSpec {
    pub fn parse(raw: &str) -> Result<ReportSpec, InputError> {
        let Some((format, path)) = raw.split_once('=') else {
            return Err(InputError::new(
                "command line",
                "--report",
                format!("`{raw}` has no format"),
                "write --report json=PATH",
            ));
        };
        let format = match format {
            "json" => ReportFormat::Json,
            other => {
                return Err(InputError::new(
                    "command line",
                    "--report",
                    format!("unknown report format `{other}`"),
                    "use one of: json",
                ));
            }
        };
        if path.is_empty() {
            return Err(InputError::new(
                "command line",
                "--report",
                "the report path is empty",
                "write --report json=report.json",
            ));
        }
        Ok(ReportSpec {
            format,
            path: PathBuf::from(path),
        })
    }

    pub fn write(&self, report: &RunReport) -> std::io::Result<()> {
        match self.format {
            ReportFormat::Json => json::write_report(&self.path, report),
        }
    }
}
