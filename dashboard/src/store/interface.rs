//! What the dashboard asks of its storage: the `Store` trait and its one error type.

use async_trait::async_trait;

use super::rows::*;

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
    /// Sets (or, with `None`, clears) the repository that gets the project's PR comments.
    async fn set_project_repo(&self, project_id: i64, github_repo: Option<&str>) -> Result<()>;

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

    /// Inserts the run, its scenario results and ledger records, and adds them to the rollups.
    /// `false` when the run was already there or retention pruned it: then nothing changes,
    /// whatever the upload carries.
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

    /// Deletes the runs that started before `before_ms` with their results, ledger records
    /// and screenshots, and screenshots uploaded before it; keeps every rollup and the plan
    /// cache. A pruned run's id stays taken: uploading it again changes nothing.
    async fn prune_runs(&self, before_ms: i64, now_ms: i64) -> Result<Pruned>;
}
