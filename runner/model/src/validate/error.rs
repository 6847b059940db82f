//! What a reader reports: each problem with the file, the field and the fix, so a bad input
//! tells the user what to change.

/// One problem with one input file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {field}: {problem}\n  fix: {fix}")]
pub struct InputError {
    /// Where the input came from: a file's path, else its source (a flag, an ENV variable,
    /// `plan` for a planner's answer).
    pub file: String,
    /// Where in the file, as `actions[2].target.selector`; `(file)` for the whole file.
    pub field: String,
    /// What is wrong, as a lowercase fragment.
    pub problem: String,
    /// What to change to fix it.
    pub fix: String,
}

impl InputError {
    /// A problem with `field` of `file`, and its fix.
    pub fn new(
        file: impl Into<String>,
        field: impl Into<String>,
        problem: impl Into<String>,
        fix: impl Into<String>,
    ) -> Self {
        InputError {
            file: file.into(),
            field: field.into(),
            problem: problem.into(),
            fix: fix.into(),
        }
    }
}

/// All the problems found in one or more files.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct Problems(pub Vec<InputError>);

impl std::fmt::Display for Problems {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, p) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{p}")?;
        }
        Ok(())
    }
}

impl From<InputError> for Problems {
    fn from(e: InputError) -> Self {
        Problems(vec![e])
    }
}

/// A value read from a file, or everything wrong with the file.
pub type Checked<T> = Result<T, Problems>;

/// The field name of a problem with the whole file (not valid JSON, say).
pub(super) const WHOLE_FILE: &str = "(file)";

/// A format version this windup does not read.
pub(super) fn version_problem(file: &str, field: &str, found: &str, known: &str) -> InputError {
    InputError::new(
        file,
        field,
        format!("version `{found}` is not one this windup reads (`{known}`)"),
        "upgrade windup, or regenerate the file with this version",
    )
}
