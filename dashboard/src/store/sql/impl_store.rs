//! The `Store` trait for both backends. Each method runs the SQL of its concern's file,
//! compiled for that backend. `#[async_trait]` reads the whole impl at once, so it cannot be
//! assembled from the concern files' macros; hence this one place that lists every method.

use async_trait::async_trait;

use super::backends::{PgStore, SqliteStore};
use super::{
    accounts, artifacts, cache, github, headline, ingest, people, reads, retention, sitemap, tokens,
};
use crate::store::{
    CachePut, CacheRow, FlakyRow, GridCell, Grouping, InvitationRow, MemberRow, NewRun, NewToken,
    Project, Pruned, RateRow, Result, ReviewRow, RunDetail, RunFilter, RunStaleRow, RunSummary,
    SessionRow, SpendRow, StaleRow, Store, TeamRoleRow, TokenInfo, TokenRow, UserInfo, UserRow,
};

macro_rules! impl_store {
    ($store:ty, $backend:ident) => {
        #[async_trait]
        impl Store for $store {
            async fn create_project(
                &self,
                slug: &str,
                default_branch: &str,
                now_ms: i64,
            ) -> Result<Project> {
                accounts::$backend::create_project(self, slug, default_branch, now_ms).await
            }
            async fn project(&self, slug: &str) -> Result<Option<Project>> {
                accounts::$backend::project(self, slug).await
            }
            async fn project_by_id(&self, id: i64) -> Result<Option<Project>> {
                accounts::$backend::project_by_id(self, id).await
            }
            async fn projects(&self) -> Result<Vec<Project>> {
                accounts::$backend::projects(self).await
            }
            async fn set_project_repo(
                &self,
                project_id: i64,
                github_repo: Option<&str>,
            ) -> Result<()> {
                accounts::$backend::set_project_repo(self, project_id, github_repo).await
            }
            async fn create_token(&self, project_id: i64, token: &NewToken<'_>) -> Result<i64> {
                tokens::$backend::create_token(self, project_id, token).await
            }
            async fn tokens_by_lookup(&self, lookup: &str) -> Result<Vec<TokenRow>> {
                tokens::$backend::tokens_by_lookup(self, lookup).await
            }
            async fn tokens(&self, project_id: i64) -> Result<Vec<TokenInfo>> {
                tokens::$backend::tokens(self, project_id).await
            }
            async fn revoke_token(
                &self,
                project_id: i64,
                id: i64,
                now_ms: i64,
            ) -> Result<Option<TokenInfo>> {
                tokens::$backend::revoke_token(self, project_id, id, now_ms).await
            }
            async fn touch_token(&self, id: i64, now_ms: i64) -> Result<()> {
                tokens::$backend::touch_token(self, id, now_ms).await
            }
            async fn create_user(
                &self,
                email: &str,
                password_hash: &str,
                now_ms: i64,
            ) -> Result<i64> {
                accounts::$backend::create_user(self, email, password_hash, now_ms).await
            }
            async fn set_instance_admin(&self, email: &str, admin: bool) -> Result<bool> {
                people::$backend::set_instance_admin(self, email, admin).await
            }
            async fn users(&self) -> Result<Vec<UserInfo>> {
                people::$backend::users(self).await
            }
            async fn role(&self, project_id: i64, user_id: i64) -> Result<Option<String>> {
                people::$backend::role(self, project_id, user_id).await
            }
            async fn member_projects(&self, user_id: i64) -> Result<Vec<Project>> {
                people::$backend::member_projects(self, user_id).await
            }
            async fn members(&self, project_id: i64) -> Result<Vec<MemberRow>> {
                people::$backend::members(self, project_id).await
            }
            async fn set_role(
                &self,
                project_id: i64,
                user_id: i64,
                role: &str,
                now_ms: i64,
            ) -> Result<()> {
                people::$backend::set_role(self, project_id, user_id, role, now_ms).await
            }
            async fn remove_member(&self, project_id: i64, user_id: i64) -> Result<bool> {
                people::$backend::remove_member(self, project_id, user_id).await
            }
            async fn invite(
                &self,
                project_id: i64,
                email: &str,
                role: &str,
                now_ms: i64,
            ) -> Result<()> {
                people::$backend::invite(self, project_id, email, role, now_ms).await
            }
            async fn invitations(&self, project_id: i64) -> Result<Vec<InvitationRow>> {
                people::$backend::invitations(self, project_id).await
            }
            async fn cancel_invitation(&self, project_id: i64, email: &str) -> Result<bool> {
                people::$backend::cancel_invitation(self, project_id, email).await
            }
            async fn claim_invitations(
                &self,
                user_id: i64,
                email: &str,
                now_ms: i64,
            ) -> Result<u64> {
                people::$backend::claim_invitations(self, user_id, email, now_ms).await
            }
            async fn user(&self, email: &str) -> Result<Option<UserRow>> {
                accounts::$backend::user(self, email).await
            }
            async fn user_by_github(&self, github_id: i64) -> Result<Option<UserRow>> {
                github::$backend::user_by_github(self, github_id).await
            }
            async fn link_github(&self, user_id: i64, github_id: i64, login: &str) -> Result<()> {
                github::$backend::link_github(self, user_id, github_id, login).await
            }
            async fn invited(&self, email: &str) -> Result<bool> {
                github::$backend::invited(self, email).await
            }
            async fn team_roles(&self, project_id: Option<i64>) -> Result<Vec<TeamRoleRow>> {
                github::$backend::team_roles(self, project_id).await
            }
            async fn set_team_role(&self, mapping: &TeamRoleRow, now_ms: i64) -> Result<()> {
                github::$backend::set_team_role(self, mapping, now_ms).await
            }
            async fn remove_team_role(
                &self,
                project_id: i64,
                org: &str,
                team: &str,
            ) -> Result<bool> {
                github::$backend::remove_team_role(self, project_id, org, team).await
            }
            async fn membership(
                &self,
                project_id: i64,
                user_id: i64,
            ) -> Result<Option<(String, Option<String>)>> {
                github::$backend::membership(self, project_id, user_id).await
            }
            async fn set_team_membership(
                &self,
                project_id: i64,
                user_id: i64,
                role: &str,
                team: &str,
                now_ms: i64,
            ) -> Result<()> {
                github::$backend::set_team_membership(self, project_id, user_id, role, team, now_ms)
                    .await
            }
            async fn remove_team_membership(
                &self,
                project_id: i64,
                user_id: i64,
                team: &str,
            ) -> Result<bool> {
                github::$backend::remove_team_membership(self, project_id, user_id, team).await
            }
            async fn create_session(
                &self,
                sha256: &str,
                user_id: i64,
                csrf: &str,
                expires_ms: i64,
            ) -> Result<()> {
                accounts::$backend::create_session(self, sha256, user_id, csrf, expires_ms).await
            }
            async fn session(&self, sha256: &str) -> Result<Option<SessionRow>> {
                accounts::$backend::session(self, sha256).await
            }
            async fn delete_session(&self, sha256: &str) -> Result<()> {
                accounts::$backend::delete_session(self, sha256).await
            }
            async fn delete_expired_sessions(&self, now_ms: i64) -> Result<()> {
                accounts::$backend::delete_expired_sessions(self, now_ms).await
            }
            async fn create_oauth_state(
                &self,
                sha256: &str,
                expires_ms: i64,
                now_ms: i64,
            ) -> Result<()> {
                accounts::$backend::create_oauth_state(self, sha256, expires_ms, now_ms).await
            }
            async fn take_oauth_state(&self, sha256: &str, now_ms: i64) -> Result<bool> {
                accounts::$backend::take_oauth_state(self, sha256, now_ms).await
            }
            async fn insert_run(&self, project_id: i64, run: &NewRun, now_ms: i64) -> Result<bool> {
                ingest::$backend::insert_run(self, project_id, run, now_ms).await
            }
            async fn run(&self, project_id: i64, run_id: &str) -> Result<Option<RunDetail>> {
                reads::$backend::run(self, project_id, run_id).await
            }
            async fn runs(&self, project_id: i64, filter: &RunFilter) -> Result<Vec<RunSummary>> {
                reads::$backend::runs(self, project_id, filter).await
            }
            async fn branches(&self, project_id: i64) -> Result<Vec<String>> {
                reads::$backend::branches(self, project_id).await
            }
            async fn set_comment_status(
                &self,
                project_id: i64,
                run_id: &str,
                status: &str,
            ) -> Result<()> {
                ingest::$backend::set_comment_status(self, project_id, run_id, status).await
            }
            async fn ledger_for_run(&self, project_id: i64, run_id: &str) -> Result<Vec<String>> {
                reads::$backend::ledger_for_run(self, project_id, run_id).await
            }
            async fn pass_rates(
                &self,
                project_id: i64,
                by: Grouping,
                since_day: &str,
            ) -> Result<Vec<RateRow>> {
                reads::$backend::pass_rates(self, project_id, by, since_day).await
            }
            async fn flaky(&self, project_id: i64, limit: i64) -> Result<Vec<FlakyRow>> {
                reads::$backend::flaky(self, project_id, limit).await
            }
            async fn latest_run(
                &self,
                project_id: i64,
                branch: &str,
            ) -> Result<Option<RunSummary>> {
                headline::$backend::latest_run(self, project_id, branch).await
            }
            async fn streak_start(
                &self,
                project_id: i64,
                branch: &str,
                failing: bool,
            ) -> Result<Option<RunSummary>> {
                headline::$backend::streak_start(self, project_id, branch, failing).await
            }
            async fn first_failure(
                &self,
                project_id: i64,
                scenario_id: &str,
                branch: &str,
            ) -> Result<Option<(String, i64)>> {
                headline::$backend::first_failure(self, project_id, scenario_id, branch).await
            }
            async fn reviews(&self, project_id: i64, limit: i64) -> Result<Vec<ReviewRow>> {
                headline::$backend::reviews(self, project_id, limit).await
            }
            async fn replayed_since(
                &self,
                project_id: i64,
                scenario_id: &str,
                branch: &str,
                after_ms: i64,
            ) -> Result<bool> {
                headline::$backend::replayed_since(self, project_id, scenario_id, branch, after_ms)
                    .await
            }
            async fn grid(
                &self,
                project_id: i64,
                branch: Option<&str>,
                runs: i64,
            ) -> Result<Vec<GridCell>> {
                headline::$backend::grid(self, project_id, branch, runs).await
            }
            async fn set_budget(&self, project_id: i64, micro_usd: Option<i64>) -> Result<()> {
                headline::$backend::set_budget(self, project_id, micro_usd).await
            }
            async fn spend(&self, project_id: i64, since_day: &str) -> Result<Vec<SpendRow>> {
                reads::$backend::spend(self, project_id, since_day).await
            }
            async fn last_failure(
                &self,
                project_id: i64,
                scenario_id: &str,
                branch: &str,
                before_ms: i64,
            ) -> Result<Option<String>> {
                reads::$backend::last_failure(self, project_id, scenario_id, branch, before_ms)
                    .await
            }
            async fn put_artifact(
                &self,
                project_id: i64,
                run_id: &str,
                name: &str,
                bytes: &[u8],
                now_ms: i64,
            ) -> Result<()> {
                artifacts::$backend::put_artifact(self, project_id, run_id, name, bytes, now_ms)
                    .await
            }
            async fn has_run(&self, project_id: i64, run_id: &str) -> Result<bool> {
                artifacts::$backend::has_run(self, project_id, run_id).await
            }
            async fn artifact(
                &self,
                project_id: i64,
                run_id: &str,
                name: &str,
            ) -> Result<Option<Vec<u8>>> {
                artifacts::$backend::artifact(self, project_id, run_id, name).await
            }
            async fn artifact_names(&self, project_id: i64, run_id: &str) -> Result<Vec<String>> {
                artifacts::$backend::artifact_names(self, project_id, run_id).await
            }
            async fn cache_get(
                &self,
                project_id: i64,
                scenario_id: &str,
                start_url: &str,
                scenario_sha: &str,
                branch: &str,
            ) -> Result<Option<CacheRow>> {
                cache::$backend::cache_get(
                    self,
                    project_id,
                    scenario_id,
                    start_url,
                    scenario_sha,
                    branch,
                )
                .await
            }
            async fn cache_put(&self, project_id: i64, put: &CachePut<'_>) -> Result<bool> {
                cache::$backend::cache_put(self, project_id, put).await
            }
            async fn stale_entries(&self, project_id: i64, limit: i64) -> Result<Vec<StaleRow>> {
                cache::$backend::stale_entries(self, project_id, limit).await
            }
            async fn stale_entry(&self, project_id: i64, id: i64) -> Result<Option<StaleRow>> {
                cache::$backend::stale_entry(self, project_id, id).await
            }
            async fn run_stale_entries(
                &self,
                project_id: i64,
                limit: i64,
            ) -> Result<Vec<RunStaleRow>> {
                cache::$backend::run_stale_entries(self, project_id, limit).await
            }
            async fn run_stale_entry(
                &self,
                project_id: i64,
                id: i64,
            ) -> Result<Option<RunStaleRow>> {
                cache::$backend::run_stale_entry(self, project_id, id).await
            }
            async fn sitemap_get(&self, project_id: i64, branch: &str) -> Result<Option<String>> {
                sitemap::$backend::sitemap_get(self, project_id, branch).await
            }
            async fn sitemap_merge(
                &self,
                project_id: i64,
                branch: &str,
                merge: &(dyn for<'m> Fn(Option<&'m str>) -> String + Send + Sync),
                now_ms: i64,
            ) -> Result<String> {
                sitemap::$backend::sitemap_merge(self, project_id, branch, merge, now_ms).await
            }
            async fn prune_runs(&self, before_ms: i64, now_ms: i64) -> Result<Pruned> {
                retention::$backend::prune_runs(self, before_ms, now_ms).await
            }
        }
    };
}

impl_store!(SqliteStore, sqlite);
impl_store!(PgStore, postgres);
