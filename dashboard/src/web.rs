//! The pages people read: askama templates (auto-escaped), htmx vendored and served from the
//! binary, charts as inline SVG, a strict CSP. A session cookie is required; API tokens are
//! never accepted here. Every form carries a CSRF token.

use std::collections::HashMap;

use askama::Template;
use askama_web::WebTemplate;
use axum::extract::{DefaultBodyLimit, FromRequestParts, Path, Query, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE, COOKIE, LOCATION, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use serde::Deserialize;
use windup_model::money::usd;
use windup_model::{CacheEntry, RunReport, ScenarioStatus};

use crate::diff::{DiffRow, diff_steps};
use crate::secret::{self, Scope};
use crate::store::{Grouping, Project, RunFilter, RunSummary, StoreError};
use crate::svg::{self, Series, Step};
use crate::time::{days_ago, display, now_ms};
use crate::{AppState, admin};

pub const HTMX_PATH: &str = "/static/htmx-2.0.11.min.js";
const HTMX: &[u8] = include_bytes!("../static/htmx-2.0.11.min.js");
const CSS: &[u8] = include_bytes!("../static/app.css");
const SESSION_COOKIE: &str = "windup_session";
const LOGIN_CSRF_COOKIE: &str = "windup_login_csrf";
const SESSION_MS: i64 = 7 * 24 * 3600 * 1000;
const PAGE_SIZE: i64 = 25;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/login", get(login_page).post(login))
        .route("/logout", post(logout))
        .route("/", get(overview))
        .route("/projects", post(create_project))
        .route("/p/{slug}", get(project_page))
        .route("/p/{slug}/runs", get(runs_fragment))
        .route("/p/{slug}/runs/{run_id}", get(run_page))
        .route("/p/{slug}/runs/{run_id}/artifacts/{name}", get(artifact))
        .route("/p/{slug}/flaky", get(flaky_page))
        .route("/p/{slug}/spend", get(spend_page))
        .route("/p/{slug}/stale", get(stale_page))
        .route("/p/{slug}/stale/{id}", get(stale_detail))
        .route("/p/{slug}/tokens", get(tokens_page).post(create_token))
        .route(
            HTMX_PATH,
            get(|| async { asset("text/javascript; charset=utf-8", HTMX) }),
        )
        .route(
            "/static/app.css",
            get(|| async { asset("text/css; charset=utf-8", CSS) }),
        )
        .layer(DefaultBodyLimit::max(64 * 1024))
}

fn asset(content_type: &'static str, bytes: &'static [u8]) -> Response {
    (
        [
            (CONTENT_TYPE, content_type),
            (CACHE_CONTROL, "public, max-age=86400"),
        ],
        bytes,
    )
        .into_response()
}

// ----- errors -----

#[derive(Template, WebTemplate)]
#[template(path = "error.html")]
struct ErrorPage {
    title: String,
    message: String,
}

pub struct PageError(StatusCode, String);

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let title = self.0.canonical_reason().unwrap_or("Error").to_string();
        (
            self.0,
            ErrorPage {
                title,
                message: self.1,
            },
        )
            .into_response()
    }
}

impl From<StoreError> for PageError {
    fn from(e: StoreError) -> Self {
        tracing::error!(error = %e, "store failed");
        PageError(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The dashboard's store failed; see its log.".into(),
        )
    }
}

impl From<crate::error::ApiError> for PageError {
    fn from(e: crate::error::ApiError) -> Self {
        PageError(e.status, e.message)
    }
}

fn not_found(what: &str) -> PageError {
    PageError(StatusCode::NOT_FOUND, format!("No such {what}."))
}

type PageResult = Result<Response, PageError>;

// ----- sessions -----

fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

fn set_cookie(
    state: &AppState,
    name: &str,
    value: &str,
    path: &str,
    max_age: i64,
    same_site: &str,
) -> HeaderValue {
    let secure = if state.config.secure_cookies {
        "; Secure"
    } else {
        ""
    };
    HeaderValue::from_str(&format!(
        "{name}={value}; Path={path}; Max-Age={max_age}; HttpOnly; SameSite={same_site}{secure}"
    ))
    .expect("cookie values are hex")
}

fn redirect(to: &str) -> Response {
    (StatusCode::SEE_OTHER, [(LOCATION, to.to_string())]).into_response()
}

/// A signed-in person, from the session cookie only.
pub struct Person {
    email: String,
    csrf: String,
    session_hash: String,
}

impl FromRequestParts<AppState> for Person {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Response> {
        let Some(id) = cookie(&parts.headers, SESSION_COOKIE) else {
            return Err(redirect("/login"));
        };
        let hash = secret::sha256_hex(&id);
        match state.store.session(&hash).await {
            Ok(Some(s)) if s.expires_ms > now_ms() => Ok(Person {
                email: s.email,
                csrf: s.csrf,
                session_hash: hash,
            }),
            Ok(_) => Err(redirect("/login")),
            Err(e) => Err(PageError::from(e).into_response()),
        }
    }
}

impl Person {
    fn check_csrf(&self, token: &str) -> Result<(), PageError> {
        if !token.is_empty() && secret::same(token, &self.csrf) {
            Ok(())
        } else {
            Err(PageError(
                StatusCode::FORBIDDEN,
                "The form's CSRF token is missing or wrong; reload the page and try again.".into(),
            ))
        }
    }

    fn chrome(&self) -> Chrome {
        Chrome {
            email: self.email.clone(),
            csrf: self.csrf.clone(),
        }
    }
}

/// What every signed-in page shows around its content.
struct Chrome {
    email: String,
    csrf: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "login.html")]
struct LoginPage {
    csrf: String,
    error: String,
}

async fn login_page(State(state): State<AppState>) -> Response {
    let csrf = secret::random_hex();
    let cookie = set_cookie(&state, LOGIN_CSRF_COOKIE, &csrf, "/login", 3600, "Strict");
    (
        [(SET_COOKIE, cookie)],
        LoginPage {
            csrf,
            error: String::new(),
        },
    )
        .into_response()
}

#[derive(Deserialize)]
struct LoginForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    csrf: String,
}

/// A valid argon2 hash of nothing anyone types, so a missing account costs as long as a wrong
/// password.
const DUMMY_HASH: &str = "$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$H6zFbmZ0cdsXl3KUIm5Gi9VZ5yFy3aN5X4Yzb9pVjAs";

async fn login(
    State(state): State<AppState>,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> PageResult {
    let expected = cookie(&headers, LOGIN_CSRF_COOKIE).unwrap_or_default();
    if expected.is_empty() || !secret::same(&expected, &form.csrf) {
        return Err(PageError(
            StatusCode::FORBIDDEN,
            "The sign-in form's CSRF token is missing or wrong; reload the page.".into(),
        ));
    }
    let user = state.store.user(&form.email.trim().to_lowercase()).await?;
    let hash = user
        .as_ref()
        .map(|u| u.password_hash.as_str())
        .unwrap_or(DUMMY_HASH);
    let password = form.password.clone();
    let hash_owned = hash.to_string();
    let ok = tokio::task::spawn_blocking(move || secret::verify_password(&password, &hash_owned))
        .await
        .unwrap_or(false);
    let Some(user) = user.filter(|_| ok) else {
        let csrf = secret::random_hex();
        let cookie = set_cookie(&state, LOGIN_CSRF_COOKIE, &csrf, "/login", 3600, "Strict");
        let page = LoginPage {
            csrf,
            error: "Wrong email or password.".into(),
        };
        return Ok((StatusCode::UNAUTHORIZED, [(SET_COOKIE, cookie)], page).into_response());
    };
    state.store.delete_expired_sessions(now_ms()).await?;
    let id = secret::random_hex();
    state
        .store
        .create_session(
            &secret::sha256_hex(&id),
            user.id,
            &secret::random_hex(),
            now_ms() + SESSION_MS,
        )
        .await?;
    let session = set_cookie(&state, SESSION_COOKIE, &id, "/", SESSION_MS / 1000, "Lax");
    let clear = set_cookie(&state, LOGIN_CSRF_COOKIE, "", "/login", 0, "Strict");
    let mut response = redirect("/");
    response.headers_mut().append(SET_COOKIE, session);
    response.headers_mut().append(SET_COOKIE, clear);
    Ok(response)
}

#[derive(Deserialize)]
struct CsrfForm {
    #[serde(default)]
    csrf: String,
}

async fn logout(
    State(state): State<AppState>,
    person: Person,
    Form(form): Form<CsrfForm>,
) -> PageResult {
    person.check_csrf(&form.csrf)?;
    state.store.delete_session(&person.session_hash).await?;
    let mut response = redirect("/login");
    response.headers_mut().append(
        SET_COOKIE,
        set_cookie(&state, SESSION_COOKIE, "", "/", 0, "Lax"),
    );
    Ok(response)
}

// ----- overview -----

struct ProjectRow {
    slug: String,
    default_branch: String,
    last_run: String,
    last_result: String,
    ok: bool,
}

#[derive(Template, WebTemplate)]
#[template(path = "overview.html")]
struct OverviewPage {
    chrome: Chrome,
    projects: Vec<ProjectRow>,
    error: String,
}

async fn overview_with(state: &AppState, person: &Person, error: String) -> PageResult {
    let mut projects = Vec::new();
    for p in state.store.projects().await? {
        let last = state
            .store
            .runs(
                p.id,
                &RunFilter {
                    limit: 1,
                    ..RunFilter::default()
                },
            )
            .await?;
        let (last_run, last_result, ok) = match last.first() {
            Some(r) => (
                display(r.started_ms),
                format!("{} passed, {} failed", r.passed, r.failed),
                r.failed == 0,
            ),
            None => ("no runs yet".into(), String::new(), true),
        };
        projects.push(ProjectRow {
            slug: p.slug,
            default_branch: p.default_branch,
            last_run,
            last_result,
            ok,
        });
    }
    Ok(OverviewPage {
        chrome: person.chrome(),
        projects,
        error,
    }
    .into_response())
}

async fn overview(State(state): State<AppState>, person: Person) -> PageResult {
    overview_with(&state, &person, String::new()).await
}

#[derive(Deserialize)]
struct ProjectForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    slug: String,
    #[serde(default)]
    default_branch: String,
}

async fn create_project(
    State(state): State<AppState>,
    person: Person,
    Form(form): Form<ProjectForm>,
) -> PageResult {
    person.check_csrf(&form.csrf)?;
    let branch = Some(form.default_branch.trim()).filter(|b| !b.is_empty());
    match admin::create_project(&*state.store, form.slug.trim(), branch).await {
        Ok(p) => Ok(redirect(&format!("/p/{}", p.slug))),
        Err(e) => {
            let mut response = overview_with(&state, &person, e.message).await?;
            *response.status_mut() = e.status;
            Ok(response)
        }
    }
}

// ----- project page: pass rates and runs -----

async fn project_of(state: &AppState, slug: &str) -> Result<Project, PageError> {
    state
        .store
        .project(slug)
        .await?
        .ok_or_else(|| not_found("project"))
}

#[derive(Deserialize, Default)]
struct RunsQuery {
    #[serde(default)]
    branch: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    page: Option<i64>,
}

impl RunsQuery {
    fn filter(&self) -> RunFilter {
        let page = self.page.unwrap_or(0).clamp(0, 100_000);
        RunFilter {
            branch: self.branch.clone().filter(|b| !b.is_empty()),
            status: self
                .status
                .clone()
                .filter(|s| s == "passed" || s == "failed"),
            workflow_run: None,
            limit: PAGE_SIZE + 1,
            offset: page * PAGE_SIZE,
        }
    }

    /// The runs fragment (for htmx) or, with `fragment` false, the whole project page (for a
    /// plain link), at `page` with this filter.
    fn link(&self, slug: &str, page: i64, fragment: bool) -> String {
        let mut url = url::Url::parse("http://x/").expect("static url");
        url.set_path(&if fragment {
            format!("/p/{slug}/runs")
        } else {
            format!("/p/{slug}")
        });
        {
            let mut q = url.query_pairs_mut();
            if let Some(b) = self.branch.as_deref().filter(|b| !b.is_empty()) {
                q.append_pair("branch", b);
            }
            if let Some(s) = self.status.as_deref().filter(|s| !s.is_empty()) {
                q.append_pair("status", s);
            }
            q.append_pair("page", &page.to_string());
        }
        format!("{}?{}", url.path(), url.query().unwrap_or(""))
    }
}

struct RunView {
    run_id: String,
    url: String,
    started: String,
    branch: String,
    commit: String,
    shard: String,
    passed: i64,
    failed: i64,
    flaky: i64,
    llm_calls: i64,
    cost: String,
    cache: String,
    ok: bool,
}

struct RunGroup {
    workflow_run: String,
    runs: Vec<RunView>,
    passed: i64,
    failed: i64,
}

fn run_view(slug: &str, r: &RunSummary) -> RunView {
    RunView {
        run_id: r.run_id.clone(),
        url: format!("/p/{slug}/runs/{}", r.run_id),
        started: display(r.started_ms),
        branch: r.branch.clone().unwrap_or_default(),
        commit: r
            .commit_sha
            .as_deref()
            .map(|c| c.chars().take(8).collect())
            .unwrap_or_default(),
        shard: r.shard.clone().unwrap_or_default(),
        passed: r.passed,
        failed: r.failed,
        flaky: r.flaky,
        llm_calls: r.llm_calls,
        cost: usd(r.cost_micro_usd.max(0) as u64),
        cache: format!("{}/{}", r.cache_hits, r.scenarios),
        ok: r.failed == 0,
    }
}

/// Shards of one CI workflow run are shown together, in the order they first appear.
fn group_runs(slug: &str, runs: &[RunSummary]) -> Vec<RunGroup> {
    let mut groups: Vec<RunGroup> = Vec::new();
    for r in runs {
        let key = r.workflow_run.clone().unwrap_or_default();
        let index = match groups
            .iter()
            .position(|g| !key.is_empty() && g.workflow_run == key)
        {
            Some(i) => i,
            None => {
                groups.push(RunGroup {
                    workflow_run: key,
                    runs: Vec::new(),
                    passed: 0,
                    failed: 0,
                });
                groups.len() - 1
            }
        };
        let group = &mut groups[index];
        group.passed += r.passed;
        group.failed += r.failed;
        group.runs.push(run_view(slug, r));
    }
    groups
}

#[derive(Template, WebTemplate)]
#[template(path = "runs.html")]
struct RunsFragment {
    groups: Vec<RunGroup>,
    self_url: String,
    newer: String,
    older: String,
    newer_page: String,
    older_page: String,
}

async fn runs_list(
    state: &AppState,
    project: &Project,
    q: &RunsQuery,
) -> Result<RunsFragment, PageError> {
    let filter = q.filter();
    let mut runs = state.store.runs(project.id, &filter).await?;
    let more = runs.len() as i64 > PAGE_SIZE;
    runs.truncate(PAGE_SIZE as usize);
    let page = filter.offset / PAGE_SIZE;
    let slug = &project.slug;
    let at = |page: i64, fragment: bool, show: bool| {
        if show {
            q.link(slug, page, fragment)
        } else {
            String::new()
        }
    };
    Ok(RunsFragment {
        groups: group_runs(slug, &runs),
        self_url: q.link(slug, page, true),
        newer: at(page - 1, true, page > 0),
        older: at(page + 1, true, more),
        newer_page: at(page - 1, false, page > 0),
        older_page: at(page + 1, false, more),
    })
}

async fn runs_fragment(
    State(state): State<AppState>,
    _person: Person,
    Path(slug): Path<String>,
    Query(q): Query<RunsQuery>,
) -> PageResult {
    let project = project_of(&state, &slug).await?;
    Ok(runs_list(&state, &project, &q).await?.into_response())
}

struct ScenarioRate {
    scenario_id: String,
    passed: i64,
    total: i64,
    percent: i64,
}

#[derive(Template, WebTemplate)]
#[template(path = "project.html")]
struct ProjectPage {
    chrome: Chrome,
    slug: String,
    tab: &'static str,
    branches: Vec<String>,
    branch: String,
    status: String,
    branch_chart: String,
    scenario_chart: String,
    scenarios: Vec<ScenarioRate>,
    runs: RunsFragment,
}

const CHART_DAYS: i64 = 30;

fn chart_days() -> Vec<String> {
    (0..CHART_DAYS).rev().map(days_ago).collect()
}

fn series_from(days: &[String], rows: &[crate::store::RateRow], max: usize) -> Vec<Series> {
    let index: HashMap<&str, usize> = days
        .iter()
        .enumerate()
        .map(|(i, d)| (d.as_str(), i))
        .collect();
    // Each series with its number of scenario runs, to keep the busiest ones.
    let mut by_key: Vec<(Series, i64)> = Vec::new();
    for r in rows {
        let label = r.key.clone().unwrap_or_else(|| "(no branch)".into());
        let Some(&i) = index.get(r.day.as_str()) else {
            continue;
        };
        match by_key.iter_mut().find(|(s, _)| s.label == label) {
            Some((series, volume)) => {
                series.points.push((i, r.passed, r.total));
                *volume += r.total;
            }
            None => by_key.push((
                Series {
                    label,
                    points: vec![(i, r.passed, r.total)],
                },
                r.total,
            )),
        }
    }
    by_key.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.label.cmp(&b.0.label)));
    by_key.truncate(max);
    by_key.into_iter().map(|(series, _)| series).collect()
}

async fn project_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
    Query(q): Query<RunsQuery>,
) -> PageResult {
    let project = project_of(&state, &slug).await?;
    let days = chart_days();
    let since = days[0].clone();
    let by_branch = state
        .store
        .pass_rates(project.id, Grouping::Branch, &since)
        .await?;
    let by_scenario = state
        .store
        .pass_rates(project.id, Grouping::Scenario, &since)
        .await?;
    let mut totals: Vec<ScenarioRate> = Vec::new();
    for r in &by_scenario {
        let id = r.key.clone().unwrap_or_default();
        match totals.iter_mut().find(|t| t.scenario_id == id) {
            Some(t) => {
                t.passed += r.passed;
                t.total += r.total;
            }
            None => totals.push(ScenarioRate {
                scenario_id: id,
                passed: r.passed,
                total: r.total,
                percent: 0,
            }),
        }
    }
    for t in &mut totals {
        t.percent = if t.total > 0 {
            100 * t.passed / t.total
        } else {
            0
        };
    }
    totals.sort_by(|a, b| {
        a.percent
            .cmp(&b.percent)
            .then(a.scenario_id.cmp(&b.scenario_id))
    });
    let page = ProjectPage {
        chrome: person.chrome(),
        slug: project.slug.clone(),
        tab: "runs",
        branches: state.store.branches(project.id).await?,
        branch: q.branch.clone().unwrap_or_default(),
        status: q.status.clone().unwrap_or_default(),
        branch_chart: svg::pass_rate_chart(&days, &series_from(&days, &by_branch, 6)),
        scenario_chart: svg::pass_rate_chart(&days, &series_from(&days, &by_scenario, 6)),
        scenarios: totals,
        runs: runs_list(&state, &project, &q).await?,
    };
    Ok(page.into_response())
}

// ----- flaky -----

struct FlakyView {
    scenario_id: String,
    commit: String,
    passed: i64,
    failed: i64,
    retried: i64,
    last: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "flaky.html")]
struct FlakyPage {
    chrome: Chrome,
    slug: String,
    tab: &'static str,
    rows: Vec<FlakyView>,
}

async fn flaky_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
) -> PageResult {
    let project = project_of(&state, &slug).await?;
    let rows = state
        .store
        .flaky(project.id, 200)
        .await?
        .into_iter()
        .map(|f| FlakyView {
            scenario_id: f.scenario_id,
            commit: f
                .commit_sha
                .map(|c| c.chars().take(8).collect())
                .unwrap_or_default(),
            passed: f.passed,
            failed: f.failed,
            retried: f.retried,
            last: display(f.last_ms),
        })
        .collect();
    Ok(FlakyPage {
        chrome: person.chrome(),
        slug,
        tab: "flaky",
        rows,
    }
    .into_response())
}

// ----- spend -----

struct SpendView {
    day: String,
    provider: String,
    model: String,
    calls: i64,
    input_tokens: i64,
    output_tokens: i64,
    cost: String,
}

struct ModelTotal {
    provider: String,
    model: String,
    calls: i64,
    cost: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "spend.html")]
struct SpendPage {
    chrome: Chrome,
    slug: String,
    tab: &'static str,
    total: String,
    chart: String,
    models: Vec<ModelTotal>,
    rows: Vec<SpendView>,
    runs: Vec<RunView>,
}

fn money(micro: i64) -> String {
    usd(u64::try_from(micro).unwrap_or(0))
}

async fn spend_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
) -> PageResult {
    let project = project_of(&state, &slug).await?;
    let days = chart_days();
    let rows = state.store.spend(project.id, &days[0]).await?;
    let mut per_day: Vec<(String, i64, String)> =
        days.iter().map(|d| (d.clone(), 0, String::new())).collect();
    let mut models: Vec<(String, String, i64, i64)> = Vec::new();
    let mut total = 0i64;
    for r in &rows {
        if let Some(d) = per_day.iter_mut().find(|d| d.0 == r.day) {
            d.1 += r.cost_micro_usd;
        }
        let provider = r
            .provider
            .clone()
            .unwrap_or_else(|| "(none: replay)".into());
        let model = r.model.clone().unwrap_or_else(|| "(none)".into());
        match models.iter_mut().find(|m| m.0 == provider && m.1 == model) {
            Some(m) => {
                m.2 += r.calls;
                m.3 += r.cost_micro_usd;
            }
            None => models.push((provider, model, r.calls, r.cost_micro_usd)),
        }
        total += r.cost_micro_usd;
    }
    for d in &mut per_day {
        d.2 = money(d.1);
    }
    let runs = state
        .store
        .runs(
            project.id,
            &RunFilter {
                limit: 50,
                ..RunFilter::default()
            },
        )
        .await?;
    let page = SpendPage {
        chrome: person.chrome(),
        slug: slug.clone(),
        tab: "spend",
        total: money(total),
        chart: svg::bar_chart(&per_day),
        models: models
            .into_iter()
            .map(|(provider, model, calls, cost)| ModelTotal {
                provider,
                model,
                calls,
                cost: money(cost),
            })
            .collect(),
        rows: rows
            .into_iter()
            .map(|r| SpendView {
                day: r.day,
                provider: r.provider.unwrap_or_default(),
                model: r.model.unwrap_or_default(),
                calls: r.calls,
                input_tokens: r.input_tokens,
                output_tokens: r.output_tokens,
                cost: money(r.cost_micro_usd),
            })
            .collect(),
        runs: runs.iter().map(|r| run_view(&slug, r)).collect(),
    };
    Ok(page.into_response())
}

// ----- stale plans -----

struct StaleView {
    id: i64,
    scenario_id: String,
    branch: String,
    reason: String,
    when: String,
    replaced: bool,
}

#[derive(Template, WebTemplate)]
#[template(path = "stale.html")]
struct StalePage {
    chrome: Chrome,
    slug: String,
    tab: &'static str,
    rows: Vec<StaleView>,
}

async fn stale_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
) -> PageResult {
    let project = project_of(&state, &slug).await?;
    let rows = state
        .store
        .stale_entries(project.id, 200)
        .await?
        .into_iter()
        .map(|s| StaleView {
            id: s.id,
            scenario_id: s.scenario_id,
            branch: s.branch,
            reason: s.stale_reason,
            when: display(s.stale_ms),
            replaced: s.replaced_json.is_some(),
        })
        .collect();
    Ok(StalePage {
        chrome: person.chrome(),
        slug,
        tab: "stale",
        rows,
    }
    .into_response())
}

#[derive(Default)]
struct EvidenceView {
    run_id: String,
    run_url: String,
    failure_class: String,
    message: String,
    failing_step: String,
    url: String,
    target: String,
    console_errors: Vec<String>,
    failed_requests: Vec<String>,
    screenshot: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "stale_detail.html")]
struct StaleDetailPage {
    chrome: Chrome,
    slug: String,
    tab: &'static str,
    scenario_id: String,
    start_url: String,
    branch: String,
    reason: String,
    when: String,
    invalidation: String,
    evidence: Option<EvidenceView>,
    diff: Vec<DiffRow>,
    replaced: bool,
}

fn steps(entry: &CacheEntry) -> Vec<String> {
    entry
        .plan
        .actions
        .iter()
        .map(|a| format!("{}: {}", a.id, a.summary()))
        .collect()
}

async fn stale_detail(
    State(state): State<AppState>,
    person: Person,
    Path((slug, id)): Path<(String, i64)>,
) -> PageResult {
    let project = project_of(&state, &slug).await?;
    let row = state
        .store
        .stale_entry(project.id, id)
        .await?
        .ok_or_else(|| not_found("stale plan"))?;
    let old: CacheEntry = serde_json::from_str(&row.entry_json).map_err(|e| {
        PageError(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("stored entry unreadable: {e}"),
        )
    })?;
    let new: Option<CacheEntry> = row
        .replaced_json
        .as_deref()
        .and_then(|j| serde_json::from_str(j).ok());
    let old_steps = steps(&old);
    let diff = match &new {
        Some(n) => diff_steps(&old_steps, &steps(n)),
        None => diff_steps(&old_steps, &old_steps),
    };
    let invalidation = old
        .invalidation
        .as_ref()
        .map(|i| format!("{} {}", i.reason, i.message.clone().unwrap_or_default()))
        .unwrap_or_default();
    let mut evidence = None;
    if let Some(run_id) = state
        .store
        .last_failure(project.id, &row.scenario_id, &row.branch, row.stale_ms)
        .await?
        && let Some(run) = state.store.run(project.id, &run_id).await?
        && let Ok(report) = serde_json::from_str::<RunReport>(&run.report_json)
        && let Some(s) = report
            .scenarios
            .iter()
            .find(|s| s.scenario_id == row.scenario_id)
    {
        let names = state.store.artifact_names(project.id, &run_id).await?;
        let ev = s.evidence.clone().unwrap_or_default();
        let failing = s
            .failed_action_id
            .clone()
            .or_else(|| ev.action_id.clone())
            .unwrap_or_default();
        evidence = Some(EvidenceView {
            run_url: format!("/p/{slug}/runs/{run_id}"),
            failure_class: match s.failure_class {
                Some(c) => c.as_str().to_string(),
                None => "replay failed; re-planned and passed".to_string(),
            },
            message: s.message.clone().unwrap_or_default(),
            failing_step: old
                .plan
                .actions
                .iter()
                .find(|a| a.id == failing)
                .map(|a| format!("{}: {}", a.id, a.summary()))
                .unwrap_or(failing),
            url: ev.url.clone().unwrap_or_default(),
            target: ev.target.clone().unwrap_or_default(),
            console_errors: ev.console_errors.clone(),
            failed_requests: ev.failed_requests.clone(),
            screenshot: screenshot_url(&slug, &run_id, ev.screenshot.as_deref(), &names),
            run_id,
        });
    }
    let page = StaleDetailPage {
        chrome: person.chrome(),
        slug,
        tab: "stale",
        scenario_id: row.scenario_id,
        start_url: row.start_url,
        branch: row.branch,
        reason: row.stale_reason,
        when: display(row.stale_ms),
        invalidation,
        evidence,
        diff,
        replaced: new.is_some(),
    };
    Ok(page.into_response())
}

/// The runner uploads a screenshot under its file name; the report names it by its path.
fn screenshot_url(slug: &str, run_id: &str, path: Option<&str>, uploaded: &[String]) -> String {
    let Some(name) = path.and_then(|p| p.rsplit('/').next()) else {
        return String::new();
    };
    if uploaded.iter().any(|u| u == name) {
        format!("/p/{slug}/runs/{run_id}/artifacts/{name}")
    } else {
        String::new()
    }
}

// ----- run detail -----

struct ActionView {
    id: String,
    step: String,
    status: String,
    started_ms: u64,
    duration_ms: u64,
    error: String,
}

struct ScenarioView {
    scenario_id: String,
    task: String,
    status: String,
    ok: bool,
    flaky: bool,
    attempts: u32,
    cache: String,
    llm_calls: u32,
    cost: String,
    duration_ms: u64,
    failure_class: String,
    message: String,
    suggestion_summary: String,
    suggestion_fix: String,
    suggestion_by: String,
    evidence_url: String,
    evidence_target: String,
    console_errors: Vec<String>,
    failed_requests: Vec<String>,
    screenshot: String,
    timeline: String,
    actions: Vec<ActionView>,
}

struct LedgerView {
    scenario_id: String,
    provider: String,
    model: String,
    calls: u32,
    input_tokens: u64,
    output_tokens: u64,
    cost: String,
}

#[derive(Template, WebTemplate)]
#[template(path = "run.html")]
struct RunPage {
    chrome: Chrome,
    slug: String,
    tab: &'static str,
    run: RunView,
    workflow_run: String,
    finished: String,
    pull_request: String,
    comment_status: String,
    windup_version: String,
    base_url: String,
    scenarios: Vec<ScenarioView>,
    ledger: Vec<LedgerView>,
}

async fn run_page(
    State(state): State<AppState>,
    person: Person,
    Path((slug, run_id)): Path<(String, String)>,
) -> PageResult {
    let project = project_of(&state, &slug).await?;
    let run = state
        .store
        .run(project.id, &run_id)
        .await?
        .ok_or_else(|| not_found("run"))?;
    let report: RunReport = serde_json::from_str(&run.report_json).map_err(|e| {
        PageError(
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("stored report unreadable: {e}"),
        )
    })?;
    let names = state.store.artifact_names(project.id, &run_id).await?;
    let scenarios = report
        .scenarios
        .iter()
        .map(|s| {
            let ev = s.evidence.clone().unwrap_or_default();
            let sug = s.suggestion.clone().unwrap_or_default();
            ScenarioView {
                scenario_id: s.scenario_id.clone(),
                task: s.task.clone().unwrap_or_default(),
                status: crate::ingest::status_str(s.status).to_string(),
                ok: s.status != ScenarioStatus::Failed,
                flaky: s.flaky,
                attempts: s.attempts,
                cache: crate::ingest::cache_str(s.cache).to_string(),
                llm_calls: s.llm_calls,
                cost: usd(s.cost_micro_usd),
                duration_ms: s.duration_ms,
                failure_class: s
                    .failure_class
                    .map(|c| c.as_str().to_string())
                    .unwrap_or_default(),
                message: s.message.clone().unwrap_or_default(),
                suggestion_summary: sug.summary,
                suggestion_fix: sug.fix,
                suggestion_by: sug.by,
                evidence_url: ev.url.clone().unwrap_or_default(),
                evidence_target: ev.target.clone().unwrap_or_default(),
                console_errors: ev.console_errors.clone(),
                failed_requests: ev.failed_requests.clone(),
                screenshot: screenshot_url(&slug, &run_id, ev.screenshot.as_deref(), &names),
                timeline: svg::timeline(
                    &s.actions
                        .iter()
                        .map(|a| Step {
                            label: a
                                .step
                                .clone()
                                .unwrap_or_else(|| format!("{} {}", a.id, a.kind.as_str())),
                            started_ms: a.started_ms,
                            wait_ms: a.wait_ms,
                            act_ms: a.act_ms,
                            verify_ms: a.verify_ms,
                            failed: a.status == windup_model::ActionStatus::Failed,
                        })
                        .collect::<Vec<_>>(),
                ),
                actions: s
                    .actions
                    .iter()
                    .map(|a| ActionView {
                        id: a.id.clone(),
                        step: a
                            .step
                            .clone()
                            .unwrap_or_else(|| a.kind.as_str().to_string()),
                        status: format!("{:?}", a.status).to_lowercase(),
                        started_ms: a.started_ms,
                        duration_ms: a.duration_ms,
                        error: a.error.clone().unwrap_or_default(),
                    })
                    .collect(),
            }
        })
        .collect();
    let ledger = state
        .store
        .ledger_for_run(project.id, &run_id)
        .await?
        .iter()
        .filter_map(|j| serde_json::from_str::<windup_model::LedgerRecord>(j).ok())
        .map(|l| LedgerView {
            scenario_id: l.scenario_id,
            provider: l.provider.unwrap_or_default(),
            model: l.model.unwrap_or_default(),
            calls: l.calls.total(),
            input_tokens: l.tokens.input,
            output_tokens: l.tokens.output,
            cost: usd(l.cost_micro_usd),
        })
        .collect();
    let s = &run.summary;
    let page = RunPage {
        chrome: person.chrome(),
        slug: slug.clone(),
        tab: "runs",
        run: run_view(&slug, s),
        workflow_run: s.workflow_run.clone().unwrap_or_default(),
        finished: display(s.finished_ms),
        pull_request: match (&s.pr_repo, s.pr_number) {
            (Some(repo), Some(n)) => format!("{repo}#{n}"),
            _ => String::new(),
        },
        comment_status: s.comment_status.clone().unwrap_or_default(),
        windup_version: report.windup_version.clone(),
        base_url: report.base_url.clone().unwrap_or_default(),
        scenarios,
        ledger,
    };
    Ok(page.into_response())
}

async fn artifact(
    State(state): State<AppState>,
    _person: Person,
    Path((slug, run_id, name)): Path<(String, String, String)>,
) -> PageResult {
    let project = project_of(&state, &slug).await?;
    let bytes = state
        .store
        .artifact(project.id, &run_id, &name)
        .await?
        .ok_or_else(|| not_found("screenshot"))?;
    Ok((
        [
            (CONTENT_TYPE, "image/png"),
            (CACHE_CONTROL, "private, max-age=3600"),
        ],
        bytes,
    )
        .into_response())
}

// ----- tokens -----

#[derive(Template, WebTemplate)]
#[template(path = "tokens.html")]
struct TokensPage {
    chrome: Chrome,
    slug: String,
    tab: &'static str,
    scopes: Vec<&'static str>,
    created: String,
    created_scopes: String,
    error: String,
}

async fn tokens_page(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
) -> PageResult {
    project_of(&state, &slug).await?;
    Ok(TokensPage {
        chrome: person.chrome(),
        slug,
        tab: "tokens",
        scopes: Scope::ALL.iter().map(|s| s.as_str()).collect(),
        created: String::new(),
        created_scopes: String::new(),
        error: String::new(),
    }
    .into_response())
}

async fn create_token(
    State(state): State<AppState>,
    person: Person,
    Path(slug): Path<String>,
    body: axum::body::Bytes,
) -> PageResult {
    // Repeated `scope` fields: parsed by hand, as `Form` keeps only one value per name.
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(&body).into_owned().collect();
    let field = |name: &str| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    person.check_csrf(&field("csrf"))?;
    let project = project_of(&state, &slug).await?;
    let scopes: Vec<String> = pairs
        .iter()
        .filter(|(k, _)| k == "scope")
        .map(|(_, v)| v.clone())
        .collect();
    let branch = field("branch");
    let mut page = TokensPage {
        chrome: person.chrome(),
        slug,
        tab: "tokens",
        scopes: Scope::ALL.iter().map(|s| s.as_str()).collect(),
        created: String::new(),
        created_scopes: String::new(),
        error: String::new(),
    };
    match admin::create_token(&*state.store, &project, &scopes, Some(branch.trim())).await {
        Ok(t) => {
            page.created_scopes = t.scopes.join(" ");
            page.created = t.token;
            Ok(([(CACHE_CONTROL, "no-store")], page).into_response())
        }
        Err(e) => {
            page.error = e.message;
            Ok((e.status, page).into_response())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dummy_hash_is_a_real_argon2_hash() {
        // A missing account must cost a full argon2 verification, so the hash has to parse.
        assert!(argon2::password_hash::PasswordHash::new(DUMMY_HASH).is_ok());
        assert!(!secret::verify_password("anything", DUMMY_HASH));
    }

    #[test]
    fn runs_of_one_workflow_run_are_grouped() {
        let run = |id: &str, wf: Option<&str>| RunSummary {
            run_id: id.into(),
            started_ms: 0,
            finished_ms: 0,
            branch: None,
            commit_sha: None,
            workflow_run: wf.map(str::to_string),
            shard: None,
            scenarios: 1,
            passed: 1,
            failed: 0,
            skipped: 0,
            flaky: 0,
            llm_calls: 0,
            cost_micro_usd: 0,
            cache_hits: 1,
            duration_ms: 0,
            pr_repo: None,
            pr_number: None,
            comment_status: None,
        };
        let groups = group_runs(
            "p",
            &[
                run("a", Some("w1")),
                run("b", None),
                run("c", Some("w1")),
                run("d", None),
            ],
        );
        let shape: Vec<(String, usize)> = groups
            .iter()
            .map(|g| (g.workflow_run.clone(), g.runs.len()))
            .collect();
        assert_eq!(
            shape,
            [
                ("w1".to_string(), 2),
                (String::new(), 1),
                (String::new(), 1)
            ]
        );
        assert_eq!(groups[0].passed, 2);
    }
}
