//! The team dashboard, from the Action's side: plans restored before the run, the report and
//! ledger pushed after it. The engine's dashboard client does the talking; a dashboard that
//! cannot be reached is a warning, never a failure.
//!
//! Seam: until the engine has its dashboard client, `restore` and `push` only report that
//! nothing was exchanged, and the Action uses the committed plan cache.

use std::path::Path;

use windup_model::RunReport;

/// `dashboard-url` and `dashboard-token`.
#[derive(Clone)]
pub struct Dashboard {
    pub url: url::Url,
    pub token: Option<String>,
}

impl std::fmt::Debug for Dashboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dashboard")
            .field("url", &self.url.as_str())
            .field("token", &self.token.as_ref().map(|_| "[hidden]"))
            .finish()
    }
}

/// What one exchange with the dashboard gave.
#[derive(Debug, Clone, Default)]
pub struct Exchange {
    /// For a `::warning::`: the dashboard could not be reached or refused.
    pub warning: Option<String>,
    /// The run's page on the dashboard.
    pub link: Option<String>,
}

impl Dashboard {
    /// Before the run: the branch's plans (else the default branch's) into the plan cache.
    pub async fn restore(&self, _root: &Path, _branch: Option<&str>) -> Exchange {
        Exchange {
            warning: Some(self.unsupported()),
            link: None,
        }
    }

    /// After the run: the report and its ledger lines, and the plans the run verified.
    pub async fn push(&self, _root: &Path, _report: &RunReport) -> Exchange {
        Exchange {
            warning: Some(self.unsupported()),
            link: None,
        }
    }

    fn unsupported(&self) -> String {
        format!(
            "dashboard-url is set ({}) but this version of the Action has no dashboard client yet; the committed plan cache was used and nothing was pushed",
            self.url
        )
    }
}
