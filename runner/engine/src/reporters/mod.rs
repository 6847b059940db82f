//! Reports written after a run, one module per format, each with one `write_report` entry.

mod filmstrip;
pub mod html;
mod inline;
pub mod json;
pub mod junit;
pub mod kept;

use std::path::{Path, PathBuf};

use windup_model::{InputError, RunReport};

/// A report format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    /// The run report itself (`schemas/run-report.schema.json`), for machines.
    Json,
    /// JUnit XML, for CI test-report tools.
    Junit,
    /// One self-contained HTML page, for people.
    Html,
}

const FORMATS: &str = "json, junit, html";

/// `--report FORMAT=PATH`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReportSpec {
    /// What to write.
    pub format: ReportFormat,
    /// Where to write it: under the project root for windup.toml's entries ([`configured`]),
    /// as given for the command line's.
    pub path: PathBuf,
}

impl ReportSpec {
    /// Reads one `FORMAT=PATH`; a bad one says which formats there are.
    pub fn parse(raw: &str) -> Result<ReportSpec, InputError> {
        let Some((format, path)) = raw.split_once('=') else {
            return Err(InputError::new(
                "command line",
                "--report",
                format!("`{raw}` has no format"),
                format!("write --report FORMAT=PATH with a format of: {FORMATS}"),
            ));
        };
        let format = match format {
            "json" => ReportFormat::Json,
            "junit" => ReportFormat::Junit,
            "html" => ReportFormat::Html,
            other => {
                return Err(InputError::new(
                    "command line",
                    "--report",
                    format!("unknown report format `{other}`"),
                    format!("use one of: {FORMATS}"),
                ));
            }
        };
        if path.is_empty() {
            return Err(InputError::new(
                "command line",
                "--report",
                "the report path is empty",
                format!("write --report {}=PATH", format.as_str()),
            ));
        }
        Ok(ReportSpec {
            format,
            path: PathBuf::from(path),
        })
    }

    /// Writes the report atomically. `root` is the project root: the report's screenshot paths
    /// are relative to it (the HTML report inlines them), and its scenario files are under it
    /// (the JUnit report names them).
    pub fn write(&self, report: &RunReport, root: &Path) -> std::io::Result<()> {
        match self.format {
            ReportFormat::Json => json::write_report(&self.path, report),
            ReportFormat::Junit => junit::write_report(&self.path, report, root),
            ReportFormat::Html => html::write_report(&self.path, report, root),
        }
    }
}

/// A report that could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the report {}: {source}", path.display())]
pub struct WriteError {
    /// The report that could not be written.
    pub path: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

/// The reports a run writes: windup.toml's `reports` (paths relative to the project root
/// `root`), then `extra` (`FORMAT=PATH` from the command line or the Action, paths as given).
/// Every bad entry is named; a windup.toml entry by its index.
pub fn configured(
    file_reports: &[String],
    root: &Path,
    extra: &[String],
) -> Result<Vec<ReportSpec>, Vec<InputError>> {
    let mut reports = Vec::new();
    let mut problems = Vec::new();
    for (i, raw) in file_reports.iter().enumerate() {
        match ReportSpec::parse(raw) {
            Ok(mut r) => {
                r.path = root.join(&r.path);
                reports.push(r);
            }
            Err(e) => problems.push(InputError {
                file: root
                    .join(crate::project::Layout::CONFIG_FILE)
                    .display()
                    .to_string(),
                field: format!("reports[{i}]"),
                ..e
            }),
        }
    }
    for raw in extra {
        match ReportSpec::parse(raw) {
            Ok(r) => reports.push(r),
            Err(e) => problems.push(e),
        }
    }
    if problems.is_empty() {
        Ok(reports)
    } else {
        Err(problems)
    }
}

/// Writes every report of a run, stopping at the first that cannot be written.
pub fn write_all(specs: &[ReportSpec], report: &RunReport, root: &Path) -> Result<(), WriteError> {
    for spec in specs {
        spec.write(report, root).map_err(|source| WriteError {
            path: spec.path.clone(),
            source,
        })?;
    }
    Ok(())
}

impl ReportFormat {
    /// The format's name, as `--report` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            ReportFormat::Json => "json",
            ReportFormat::Junit => "junit",
            ReportFormat::Html => "html",
        }
    }
}

/// Dollars as the terminal shows them too.
pub(crate) use windup_model::money::usd;

pub use windup_model::markdown::duration;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_format() {
        for (raw, format, path) in [
            (
                "json=out/report.json",
                ReportFormat::Json,
                "out/report.json",
            ),
            ("junit=junit.xml", ReportFormat::Junit, "junit.xml"),
            ("html=a=b.html", ReportFormat::Html, "a=b.html"),
        ] {
            assert_eq!(
                ReportSpec::parse(raw).unwrap(),
                ReportSpec {
                    format,
                    path: PathBuf::from(path)
                }
            );
        }
    }

    #[test]
    fn rejects_unknown_missing_and_empty() {
        let unknown = ReportSpec::parse("xml=out.xml").unwrap_err();
        assert!(unknown.problem.contains("`xml`"), "{unknown:?}");
        assert!(unknown.fix.contains("json, junit, html"), "{unknown:?}");
        let no_format = ReportSpec::parse("report.html").unwrap_err();
        assert!(no_format.fix.contains("json, junit, html"), "{no_format:?}");
        let empty = ReportSpec::parse("junit=").unwrap_err();
        assert!(empty.fix.contains("junit=PATH"), "{empty:?}");
        // Formats are case-sensitive, like every other value on the command line.
        assert!(ReportSpec::parse("HTML=r.html").is_err());
    }

    #[test]
    fn money_and_durations_without_floats() {
        assert_eq!(usd(0), "$0.0000");
        assert_eq!(usd(1), "$0.0001");
        assert_eq!(usd(1_234), "$0.0013");
        assert_eq!(usd(2_500_000), "$2.5000");
        assert_eq!(duration(0), "0 ms");
        assert_eq!(duration(999), "999 ms");
        assert_eq!(duration(12_345), "12.34 s");
    }
}
