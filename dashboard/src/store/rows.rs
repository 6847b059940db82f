//! The rows that go into the store and come out of it: plain data, no queries.

/// `sqlx::FromRow` for SQLite's and PostgreSQL's rows, each field read from the column of its
/// name, as sqlx's derive does; the struct literal names every field, so one left out fails to
/// compile. Written out rather than derived: the derive is sqlx's proc macro, which compiles
/// sqlx's drivers (and SQLite's C source) a second time, for the host.
macro_rules! from_row {
    ($name:ident { $($field:ident),* $(,)? }) => {
        from_row!(@one sqlx::sqlite::SqliteRow, $name { $($field),* });
        from_row!(@one sqlx::postgres::PgRow, $name { $($field),* });
    };
    (@one $row:ty, $name:ident { $($field:ident),* }) => {
        impl<'r> sqlx::FromRow<'r, $row> for $name {
            fn from_row(row: &'r $row) -> Result<Self, sqlx::Error> {
                use sqlx::Row as _;
                Ok($name { $($field: row.try_get(stringify!($field))?),* })
            }
        }
    };
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    pub id: i64,
    pub slug: String,
    pub default_branch: String,
    pub created_ms: i64,
    /// `owner/name` that gets the project's PR comments (checked by `repo::RepoName` before
    /// it is stored); none: no comments.
    pub github_repo: Option<String>,
    /// The weekly LLM budget set on the project page, in micro-dollars; none: no budget.
    pub budget_micro_usd: Option<i64>,
}
from_row! { Project { id, slug, default_branch, created_ms, github_repo, budget_micro_usd } }

/// A token as authentication needs it.
#[derive(Debug, Clone)]
pub struct TokenRow {
    pub id: i64,
    pub project_id: i64,
    pub sha256: String,
    pub scopes: String,
    pub branch_glob: Option<String>,
    pub expires_ms: Option<i64>,
    pub revoked_ms: Option<i64>,
    pub last_used_ms: Option<i64>,
}
from_row! { TokenRow {
    id, project_id, sha256, scopes, branch_glob, expires_ms, revoked_ms, last_used_ms
} }

/// A token to store: only its hash, and the indexed prefix of the hash.
#[derive(Debug, Clone)]
pub struct NewToken<'a> {
    pub lookup: &'a str,
    pub sha256: &'a str,
    /// Space-separated scopes.
    pub scopes: &'a str,
    pub branch_glob: Option<&'a str>,
    /// `''` when none was given.
    pub name: &'a str,
    pub expires_ms: Option<i64>,
    pub created_ms: i64,
}

/// A token as the lists show it (the CLI, the API, the tokens page): never its hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenInfo {
    pub id: i64,
    pub name: String,
    pub scopes: String,
    pub branch_glob: Option<String>,
    pub created_ms: i64,
    pub last_used_ms: Option<i64>,
    pub expires_ms: Option<i64>,
    pub revoked_ms: Option<i64>,
}
from_row! { TokenInfo {
    id, name, scopes, branch_glob, created_ms, last_used_ms, expires_ms, revoked_ms
} }

/// Whether a token is accepted at `now_ms`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenState {
    Active,
    Expired,
    Revoked,
}

impl TokenState {
    pub fn of(expires_ms: Option<i64>, revoked_ms: Option<i64>, now_ms: i64) -> TokenState {
        if revoked_ms.is_some() {
            TokenState::Revoked
        } else if expires_ms.is_some_and(|e| e <= now_ms) {
            TokenState::Expired
        } else {
            TokenState::Active
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            TokenState::Active => "active",
            TokenState::Expired => "expired",
            TokenState::Revoked => "revoked",
        }
    }
}

impl TokenInfo {
    pub fn state(&self, now_ms: i64) -> TokenState {
        TokenState::of(self.expires_ms, self.revoked_ms, now_ms)
    }
}

#[derive(Debug, Clone)]
pub struct UserRow {
    pub id: i64,
    pub email: String,
    /// `''` for an account without a local password (made by a GitHub sign-in).
    pub password_hash: String,
    /// 1 for an instance administrator, else 0.
    pub instance_admin: i64,
    /// The GitHub account linked to it, by GitHub's numeric user id.
    pub github_id: Option<i64>,
}
from_row! { UserRow { id, email, password_hash, instance_admin, github_id } }

#[derive(Debug, Clone)]
pub struct SessionRow {
    pub user_id: i64,
    pub email: String,
    pub csrf: String,
    pub expires_ms: i64,
    pub instance_admin: i64,
}
from_row! { SessionRow { user_id, email, csrf, expires_ms, instance_admin } }

/// A person as the CLI lists them: never a password hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserInfo {
    pub id: i64,
    pub email: String,
    pub instance_admin: i64,
    pub created_ms: i64,
}
from_row! { UserInfo { id, email, instance_admin, created_ms } }

/// A person's role in a project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRow {
    pub user_id: i64,
    pub email: String,
    pub role: String,
    pub created_ms: i64,
}
from_row! { MemberRow { user_id, email, role, created_ms } }

/// Members of a GitHub organisation's team get `role` in the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamRoleRow {
    pub project_id: i64,
    pub org: String,
    pub team: String,
    pub role: String,
}
from_row! { TeamRoleRow { project_id, org, team, role } }

impl TeamRoleRow {
    /// `org/team`, as a membership granted by the mapping records it.
    pub fn name(&self) -> String {
        format!("{}/{}", self.org, self.team)
    }
}

/// A role waiting for the account of `email`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvitationRow {
    pub email: String,
    pub role: String,
    pub created_ms: i64,
}
from_row! { InvitationRow { email, role, created_ms } }

/// A run as ingested: the report's facts in columns, the report itself as JSON.
#[derive(Debug, Clone, Default)]
pub struct NewRun {
    pub run_id: String,
    pub started_ms: i64,
    pub finished_ms: i64,
    pub branch: Option<String>,
    pub commit_sha: Option<String>,
    pub workflow_run: Option<String>,
    pub shard: Option<String>,
    pub scenarios: i64,
    pub passed: i64,
    pub failed: i64,
    pub skipped: i64,
    pub flaky: i64,
    pub llm_calls: i64,
    pub cost_micro_usd: i64,
    pub cache_hits: i64,
    pub duration_ms: i64,
    pub report_json: String,
    pub pr_repo: Option<String>,
    pub pr_number: Option<i64>,
    pub pr_head_sha: Option<String>,
    /// Scenarios healed without an LLM (`totals.healed`).
    pub healed: i64,
    /// The environment the run tested (`report.environment`), checked by ingest.
    pub environment: Option<String>,
    pub results: Vec<NewResult>,
    pub ledger: Vec<NewLedger>,
    /// The plans the run stopped trusting (`RunUpload::invalidations`), stored with the run.
    pub stale: Vec<NewStale>,
}

/// A plan a pushed run stopped trusting, checked by ingest.
#[derive(Debug, Clone, Default)]
pub struct NewStale {
    pub scenario_id: String,
    pub start_url: String,
    pub stale_ms: i64,
    /// The invalidation's reason, one bounded line.
    pub reason: String,
    pub failure_class: Option<String>,
    /// The triage verdict of the run's failed result, when it has one.
    pub verdict: Option<String>,
    pub entry_json: String,
    pub replacement_json: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct NewResult {
    pub scenario_id: String,
    pub status: String,
    pub flaky: bool,
    pub cache: String,
    pub failure_class: Option<String>,
    pub message: Option<String>,
    /// The heal, described (`a4: FROM → TO (renamed)`), when the scenario passed healed.
    pub heal: Option<String>,
    /// The proposal's source and file (`healed e2e/.windup/cache/proposals/x.json`), when a
    /// person's plan was kept and a verified plan written beside it.
    pub proposal: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct NewLedger {
    pub run_id: String,
    pub scenario_id: String,
    pub day: String,
    pub started_ms: i64,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub calls: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cached_tokens: i64,
    pub cost_micro_usd: i64,
    pub record_json: String,
}

#[derive(Debug, Clone)]
pub struct RunSummary {
    pub run_id: String,
    pub started_ms: i64,
    pub finished_ms: i64,
    pub branch: Option<String>,
    pub commit_sha: Option<String>,
    pub workflow_run: Option<String>,
    pub shard: Option<String>,
    pub scenarios: i64,
    pub passed: i64,
    pub failed: i64,
    pub skipped: i64,
    pub flaky: i64,
    pub llm_calls: i64,
    pub cost_micro_usd: i64,
    pub cache_hits: i64,
    pub duration_ms: i64,
    pub pr_repo: Option<String>,
    pub pr_number: Option<i64>,
    pub comment_status: Option<String>,
    pub healed: i64,
    pub environment: Option<String>,
}
from_row! { RunSummary {
    run_id, started_ms, finished_ms, branch, commit_sha, workflow_run, shard, scenarios, passed,
    failed, skipped, flaky, llm_calls, cost_micro_usd, cache_hits, duration_ms, pr_repo,
    pr_number, comment_status, healed, environment
} }

#[derive(Debug, Clone)]
pub struct RunDetail {
    pub summary: RunSummary,
    pub report_json: String,
}

/// Which runs a list shows. `status` is `passed` (no failure) or `failed`.
#[derive(Debug, Clone, Default)]
pub struct RunFilter {
    pub branch: Option<String>,
    pub workflow_run: Option<String>,
    pub status: Option<String>,
    pub limit: i64,
    pub offset: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Grouping {
    Branch,
    Scenario,
    /// The environment a run named (`report.environment`); runs that named none are `None`.
    Environment,
}

/// Scenario outcomes of one day for one branch or scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RateRow {
    pub key: Option<String>,
    pub day: String,
    pub passed: i64,
    pub total: i64,
}
from_row! { RateRow { key, day, passed, total } }

/// A scenario that passed and failed on the same commit, or passed only on a retry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlakyRow {
    pub scenario_id: String,
    pub commit_sha: Option<String>,
    pub environment: Option<String>,
    pub passed: i64,
    pub failed: i64,
    pub retried: i64,
    pub last_ms: i64,
}
from_row! { FlakyRow { scenario_id, commit_sha, environment, passed, failed, retried, last_ms } }

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpendRow {
    pub day: String,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub calls: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cost_micro_usd: i64,
}
from_row! { SpendRow { day, provider, model, calls, input_tokens, output_tokens, cost_micro_usd } }

#[derive(Debug, Clone)]
pub struct CacheRow {
    pub branch: String,
    pub entry_json: String,
    pub updated_ms: i64,
}
from_row! { CacheRow { branch, entry_json, updated_ms } }

/// A plan the cache stopped trusting, with the plan that replaced it (when one did).
#[derive(Debug, Clone)]
pub struct StaleRow {
    pub id: i64,
    pub scenario_id: String,
    pub start_url: String,
    pub branch: String,
    pub stale_ms: i64,
    pub stale_reason: String,
    pub entry_json: String,
    pub replaced_json: Option<String>,
}
from_row! { StaleRow {
    id, scenario_id, start_url, branch, stale_ms, stale_reason, entry_json, replaced_json
} }

/// A plan a pushed run stopped trusting, with the plan that replaced it: the one the same run
/// verified, else an active shared-cache entry for the same key saved after it.
#[derive(Debug, Clone)]
pub struct RunStaleRow {
    pub id: i64,
    pub run_id: String,
    pub scenario_id: String,
    pub start_url: String,
    pub branch: String,
    pub stale_ms: i64,
    pub reason: String,
    pub failure_class: Option<String>,
    pub verdict: Option<String>,
    pub entry_json: String,
    pub replaced_json: Option<String>,
}
from_row! { RunStaleRow {
    id, run_id, scenario_id, start_url, branch, stale_ms, reason, failure_class, verdict,
    entry_json, replaced_json
} }

/// The cache key a `PUT` writes, with the entry as JSON.
#[derive(Debug, Clone)]
pub struct CachePut<'a> {
    pub branch: &'a str,
    pub scenario_id: &'a str,
    pub start_url: &'a str,
    pub scenario_sha: &'a str,
    pub entry_json: &'a str,
    pub now_ms: i64,
    /// Why the entry it replaces went stale (the runner's words, e.g. "replay failed: …");
    /// "replaced" when not given.
    pub stale_reason: Option<&'a str>,
}

/// What one retention pass deleted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    pub runs: u64,
    pub artifacts: u64,
}

/// A heal or a proposal a run made, for the reviewers' list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewRow {
    pub run_id: String,
    pub scenario_id: String,
    pub branch: String,
    /// `a4: FROM → TO (renamed)`.
    pub heal: Option<String>,
    /// `SOURCE FILE`: `healed e2e/.windup/cache/proposals/x.json`.
    pub proposal: Option<String>,
    pub started_ms: i64,
}
from_row! { ReviewRow { run_id, scenario_id, branch, heal, proposal, started_ms } }

/// One scenario's outcome in one run: a cell of the runs × scenarios grid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GridCell {
    pub run_id: String,
    pub started_ms: i64,
    pub scenario_id: String,
    pub status: String,
    pub flaky: i64,
    pub cache: String,
}
from_row! { GridCell { run_id, started_ms, scenario_id, status, flaky, cache } }
