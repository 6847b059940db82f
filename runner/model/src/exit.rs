//! Named process exit codes, shared by the CLI, the Action and anything that wraps them.

/// What a `windup` process tells its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitCode {
    /// Every scenario passed (or `validate` found nothing wrong).
    Success = 0,
    /// At least one scenario failed.
    ScenarioFailed = 1,
    /// Bad usage, configuration or input, found before anything ran.
    BadInput = 2,
    /// The run could not happen at all (for example the browser would not start).
    Infrastructure = 3,
    /// Interrupted (Ctrl-C): the browser was closed, no report was written.
    Interrupted = 130,
}

impl ExitCode {
    /// The verdict of a run that happened: 1 when a scenario failed, else 0.
    pub fn of_run(totals: &crate::report::Totals) -> ExitCode {
        if totals.failed > 0 {
            ExitCode::ScenarioFailed
        } else {
            ExitCode::Success
        }
    }

    /// The number the process exits with.
    pub fn code(self) -> u8 {
        self as u8
    }
}

impl From<ExitCode> for std::process::ExitCode {
    fn from(code: ExitCode) -> Self {
        std::process::ExitCode::from(code.code())
    }
}
