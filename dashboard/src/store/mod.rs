//! Storage: one small `Store` trait, implemented for SQLite (the embedded default) and
//! PostgreSQL. Both run the same SQL text (see `sql.rs`); times are UTC epoch milliseconds and
//! money integer micro-dollars, never floats.

mod sql;

use std::sync::Arc;

use async_trait::async_trait;

pub use sql::{PgStore, SqliteStore};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0} already exists")]
    Conflict(String),
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    #[error("migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
}

pub type Result<T> = std::result::Result<T, StoreError>;

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Project {
    pub id: i64,
    pub slug: String,
    pub default_branch: String,
    pub created_ms: i64,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TokenRow {
    pub id: i64,
    pub project_id: i64,
    pub sha256: String,
    pub scopes: String,
    pub branch_glob: Option<String>,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct UserRow {
    pub id: i64,
    pub email: String,
    pub password_hash: String,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct SessionRow {
    pub user_id: i64,
    pub email: String,
    pub csrf: String,
    pub expires_ms: i64,
}

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
    pub results: Vec<NewResult>,
    pub ledger: Vec<NewLedger>,
}

#[derive(Debug, Clone, Default)]
pub struct NewResult {
    pub scenario_id: String,
    pub status: String,
    pub flaky: bool,
    pub cache: String,
    pub failure_class: Option<String>,
    pub message: Option<String>,
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

#[derive(Debug, Clone, sqlx::FromRow)]
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
}

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
}

/// Scenario outcomes of one day for one branch or scenario.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct RateRow {
    pub key: Option<String>,
    pub day: String,
    pub passed: i64,
    pub total: i64,
}

/// A scenario that passed and failed on the same commit, or passed only on a retry.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct FlakyRow {
    pub scenario_id: String,
    pub commit_sha: Option<String>,
    pub passed: i64,
    pub failed: i64,
    pub retried: i64,
    pub last_ms: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct SpendRow {
    pub day: String,
    pub provider: Option<String>,
    pub model: Option<String>,
    pub calls: i64,
    pub input_tokens: i64,
    pub output_tokens: i64,
    pub cost_micro_usd: i64,
}

#[derive(Debug, Clone, sqlx::FromRow)]
pub struct CacheRow {
    pub branch: String,
    pub entry_json: String,
    pub updated_ms: i64,
}

/// A plan the cache stopped trusting, with the plan that replaced it (when one did).
#[derive(Debug, Clone, sqlx::FromRow)]
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

#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// `Conflict` when the slug is taken.
    async fn create_project(
        &self,
        slug: &str,
        default_branch: &str,
        now_ms: i64,
    ) -> Result<Project>;
    async fn project(&self, slug: &str) -> Result<Option<Project>>;
    async fn project_by_id(&self, id: i64) -> Result<Option<Project>>;
    async fn projects(&self) -> Result<Vec<Project>>;

    async fn create_token(
        &self,
        project_id: i64,
        lookup: &str,
        sha256: &str,
        scopes: &str,
        branch_glob: Option<&str>,
        now_ms: i64,
    ) -> Result<()>;
    /// Tokens whose hash starts with `lookup`; the caller compares the full hash in constant time.
    async fn tokens_by_lookup(&self, lookup: &str) -> Result<Vec<TokenRow>>;

    /// `Conflict` when the email is taken.
    async fn create_user(&self, email: &str, password_hash: &str, now_ms: i64) -> Result<()>;
    async fn user(&self, email: &str) -> Result<Option<UserRow>>;
    async fn create_session(
        &self,
        sha256: &str,
        user_id: i64,
        csrf: &str,
        expires_ms: i64,
    ) -> Result<()>;
    async fn session(&self, sha256: &str) -> Result<Option<SessionRow>>;
    async fn delete_session(&self, sha256: &str) -> Result<()>;
    /// Forgets sessions that expired before `now_ms`.
    async fn delete_expired_sessions(&self, now_ms: i64) -> Result<()>;

    /// Inserts the run, its scenario results and ledger records. `false` when the run was
    /// already there: then only ledger records not yet stored are added.
    async fn insert_run(&self, project_id: i64, run: &NewRun, now_ms: i64) -> Result<bool>;
    async fn run(&self, project_id: i64, run_id: &str) -> Result<Option<RunDetail>>;
    async fn runs(&self, project_id: i64, filter: &RunFilter) -> Result<Vec<RunSummary>>;
    async fn branches(&self, project_id: i64) -> Result<Vec<String>>;
    async fn set_comment_status(&self, project_id: i64, run_id: &str, status: &str) -> Result<()>;
    async fn ledger_for_run(&self, project_id: i64, run_id: &str) -> Result<Vec<String>>;

    async fn pass_rates(
        &self,
        project_id: i64,
        by: Grouping,
        since_day: &str,
    ) -> Result<Vec<RateRow>>;
    async fn flaky(&self, project_id: i64, limit: i64) -> Result<Vec<FlakyRow>>;
    async fn spend(&self, project_id: i64, since_day: &str) -> Result<Vec<SpendRow>>;
    /// The run in which the scenario last failed or was re-planned on `branch`, up to `before_ms`.
    async fn last_failure(
        &self,
        project_id: i64,
        scenario_id: &str,
        branch: &str,
        before_ms: i64,
    ) -> Result<Option<String>>;

    async fn put_artifact(
        &self,
        project_id: i64,
        run_id: &str,
        name: &str,
        bytes: &[u8],
        now_ms: i64,
    ) -> Result<()>;
    async fn artifact(&self, project_id: i64, run_id: &str, name: &str) -> Result<Option<Vec<u8>>>;
    async fn artifact_names(&self, project_id: i64, run_id: &str) -> Result<Vec<String>>;

    /// The active entry for exactly this key on exactly this branch.
    async fn cache_get(
        &self,
        project_id: i64,
        scenario_id: &str,
        start_url: &str,
        scenario_sha: &str,
        branch: &str,
    ) -> Result<Option<CacheRow>>;
    /// Makes the entry the active one for (scenario, start URL, branch). `true` when none was
    /// active; otherwise the previous one is kept as stale evidence (reason "replaced"). An
    /// identical repeat changes nothing.
    async fn cache_put(&self, project_id: i64, put: &CachePut<'_>) -> Result<bool>;
    async fn stale_entries(&self, project_id: i64, limit: i64) -> Result<Vec<StaleRow>>;
    async fn stale_entry(&self, project_id: i64, id: i64) -> Result<Option<StaleRow>>;
}

/// Opens the store a URL names and applies its migrations: `postgres://…` or
/// `postgresql://…` for PostgreSQL, anything else a SQLite file (`sqlite://path` or a path).
pub async fn open(url: &str) -> Result<Arc<dyn Store>> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        Ok(Arc::new(PgStore::connect(url).await?))
    } else {
        let path = url.strip_prefix("sqlite://").unwrap_or(url);
        Ok(Arc::new(
            SqliteStore::open(std::path::Path::new(path)).await?,
        ))
    }
}
