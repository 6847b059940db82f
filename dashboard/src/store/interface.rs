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

    /// The new token's id.
    async fn create_token(&self, project_id: i64, token: &NewToken<'_>) -> Result<i64>;
    /// Tokens whose hash starts with `lookup`; the caller compares the full hash in constant time.
    async fn tokens_by_lookup(&self, lookup: &str) -> Result<Vec<TokenRow>>;
    /// The project's tokens, oldest first, revoked and expired ones included.
    async fn tokens(&self, project_id: i64) -> Result<Vec<TokenInfo>>;
    /// Revokes the project's token `id` (a token already revoked keeps its first time); `None`
    /// when the project has no such token.
    async fn revoke_token(
        &self,
        project_id: i64,
        id: i64,
        now_ms: i64,
    ) -> Result<Option<TokenInfo>>;
    async fn touch_token(&self, id: i64, now_ms: i64) -> Result<()>;

    /// The new person's id; `Conflict` when the email is taken.
    async fn create_user(&self, email: &str, password_hash: &str, now_ms: i64) -> Result<i64>;
    async fn user(&self, email: &str) -> Result<Option<UserRow>>;
    /// Flags or unflags an instance administrator; `false` when no one has that email.
    async fn set_instance_admin(&self, email: &str, admin: bool) -> Result<bool>;
    async fn users(&self) -> Result<Vec<UserInfo>>;
    /// The role stored for a person in a project (instance administrators need none).
    async fn role(&self, project_id: i64, user_id: i64) -> Result<Option<String>>;
    /// The projects a person has a role in, by slug.
    async fn member_projects(&self, user_id: i64) -> Result<Vec<Project>>;
    async fn members(&self, project_id: i64) -> Result<Vec<MemberRow>>;
    /// Gives a person a role in a project, replacing the one they had.
    async fn set_role(&self, project_id: i64, user_id: i64, role: &str, now_ms: i64) -> Result<()>;
    async fn remove_member(&self, project_id: i64, user_id: i64) -> Result<bool>;
    /// Keeps a role for the account `email` will have (replacing an earlier invitation).
    async fn invite(&self, project_id: i64, email: &str, role: &str, now_ms: i64) -> Result<()>;
    async fn invitations(&self, project_id: i64) -> Result<Vec<InvitationRow>>;
    async fn cancel_invitation(&self, project_id: i64, email: &str) -> Result<bool>;
    /// Turns every invitation of `email` into the person's roles (a role they have is kept),
    /// in one transaction; how many roles were added.
    async fn claim_invitations(&self, user_id: i64, email: &str, now_ms: i64) -> Result<u64>;

    /// The person linked to the GitHub account `github_id`.
    async fn user_by_github(&self, github_id: i64) -> Result<Option<UserRow>>;
    /// Links a person to a GitHub account; `Conflict` when another person has it.
    async fn link_github(&self, user_id: i64, github_id: i64, login: &str) -> Result<()>;
    /// Whether any project invited `email`.
    async fn invited(&self, email: &str) -> Result<bool>;
    /// The team mappings of one project, or of all when `None`.
    async fn team_roles(&self, project_id: Option<i64>) -> Result<Vec<TeamRoleRow>>;
    /// Adds a team mapping, or changes its role.
    async fn set_team_role(&self, mapping: &TeamRoleRow, now_ms: i64) -> Result<()>;
    /// Removes a team mapping and the roles it granted.
    async fn remove_team_role(&self, project_id: i64, org: &str, team: &str) -> Result<bool>;
    /// A person's role in a project and the team (`org/team`) that granted it, if one did.
    async fn membership(
        &self,
        project_id: i64,
        user_id: i64,
    ) -> Result<Option<(String, Option<String>)>>;
    /// Gives a person a role in a project on behalf of the team `org/team`.
    async fn set_team_membership(
        &self,
        project_id: i64,
        user_id: i64,
        role: &str,
        team: &str,
        now_ms: i64,
    ) -> Result<()>;
    /// Takes away the role `team` granted a person in a project (one a person granted stays).
    async fn remove_team_membership(
        &self,
        project_id: i64,
        user_id: i64,
        team: &str,
    ) -> Result<bool>;

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
    /// Keeps a GitHub sign-in's `state` (its SHA-256) until `expires_ms`; forgets expired ones.
    async fn create_oauth_state(&self, sha256: &str, expires_ms: i64, now_ms: i64) -> Result<()>;
    /// Takes the state for its one callback: true only the first time, and before it expires.
    async fn take_oauth_state(&self, sha256: &str, now_ms: i64) -> Result<bool>;

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

    /// The branch's latest run.
    async fn latest_run(&self, project_id: i64, branch: &str) -> Result<Option<RunSummary>>;
    /// The first run of the branch's current state: of its red streak when `failing`, else of
    /// its green one.
    async fn streak_start(
        &self,
        project_id: i64,
        branch: &str,
        failing: bool,
    ) -> Result<Option<RunSummary>>;
    /// The first run in which the scenario failed on `branch` since it last passed there: its
    /// id and start.
    async fn first_failure(
        &self,
        project_id: i64,
        scenario_id: &str,
        branch: &str,
    ) -> Result<Option<(String, i64)>>;
    /// Heals and proposals, newest first.
    async fn reviews(&self, project_id: i64, limit: i64) -> Result<Vec<ReviewRow>>;
    /// Whether the scenario passed on `branch` after `after_ms` as a plain replay (no heal, no
    /// proposal): the heal or proposal before it was taken into the committed plan.
    async fn replayed_since(
        &self,
        project_id: i64,
        scenario_id: &str,
        branch: &str,
        after_ms: i64,
    ) -> Result<bool>;
    /// The results of the project's last `runs` runs (on `branch`, when given), oldest run
    /// first.
    async fn grid(&self, project_id: i64, branch: Option<&str>, runs: i64)
    -> Result<Vec<GridCell>>;
    /// Sets (or, with `None`, clears) the project's weekly LLM budget.
    async fn set_budget(&self, project_id: i64, micro_usd: Option<i64>) -> Result<()>;
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
    /// Whether the project has a run of this id (an artifact is taken only for one).
    async fn has_run(&self, project_id: i64, run_id: &str) -> Result<bool>;
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
    /// The plans pushed runs stopped trusting, newest first.
    async fn run_stale_entries(&self, project_id: i64, limit: i64) -> Result<Vec<RunStaleRow>>;
    async fn run_stale_entry(&self, project_id: i64, id: i64) -> Result<Option<RunStaleRow>>;

    /// The branch's site map as stored (JSON), when one is.
    async fn sitemap_get(&self, project_id: i64, branch: &str) -> Result<Option<String>>;
    /// Replaces the branch's site map with `merge(stored)`, atomically against other merges
    /// (retried when another write came first); returns what was stored.
    async fn sitemap_merge(
        &self,
        project_id: i64,
        branch: &str,
        merge: &(dyn for<'m> Fn(Option<&'m str>) -> String + Send + Sync),
        now_ms: i64,
    ) -> Result<String>;

    /// Deletes the runs that started before `before_ms` with their results, ledger records,
    /// stale plans and screenshots, and screenshots uploaded before it; keeps every rollup and the plan
    /// cache. A pruned run's id stays taken: uploading it again changes nothing.
    async fn prune_runs(&self, before_ms: i64, now_ms: i64) -> Result<Pruned>;
}
