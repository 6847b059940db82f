//! The GitHub Action's entrypoint as a library: the Action's inputs and the GitHub context
//! become a `windup run` through the engine (the same `Config`, `Runner` and reporters as the
//! CLI); then the job summary, annotations, step outputs, the PR comment and the dashboard.
//! The exit code is the runner's; nothing on the side (comment, dashboard) changes it.

pub mod app;
pub mod comment;
pub mod dashboard;
pub mod environment;
pub mod github;
pub mod inputs;
pub mod summary;
pub mod trust;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use secrecy::ExposeSecret;
use windup_engine::browser::RunAs;
use windup_engine::config::{Config, Overrides};
use windup_engine::env::ChildEnv;
use windup_engine::events::{Event, EventSink};
use windup_engine::reporters::{self, ReportFormat, ReportSpec};
use windup_engine::runner::{Ended, RunError, Runner, Selection, pick, run_to_end};
use windup_model::{
    CacheOutcome, CiInfo, ExitCode, GitInfo, InputError, Problems, RunReport, ScenarioStatus,
};

use crate::environment::Environment;
use crate::github::{Context, error_command, warning_command, warning_on};
use crate::inputs::{BadInput, Inputs};
use crate::summary::Notes;

/// The whole Action: inputs, run, outputs, from `environment` (the process's, read once).
/// Prints the log and workflow commands on stdout.
pub fn run(environment: &Environment) -> ExitCode {
    let env = &|k: &str| environment.get(k);
    let inputs = match Inputs::read(env) {
        Ok(i) => i,
        Err(bad) => return bad_inputs(&bad),
    };
    let ctx = Context::read(env);
    let root = ctx.workspace.join(&inputs.working_directory);
    if !root.is_dir() {
        return bad_inputs(&[BadInput::new(
            "working-directory",
            format!("`{}` is not a folder of the workspace", root.display()),
            "check out the repository first (actions/checkout) and give the folder that holds windup.toml and e2e/",
        )]);
    }
    let prepared = match prepare(environment, &inputs, &ctx, &root) {
        Ok(p) => p,
        Err(Stop::Bad(bad)) => return bad_inputs(&bad),
        Err(Stop::Problems(p)) => return problems(&p, &ctx.workspace),
    };
    let app = match &inputs.start_command {
        Some(command) => {
            let wait_for = inputs
                .wait_for
                .as_ref()
                .expect("checked with start-command");
            println!("Starting the app: {command} (waiting for {wait_for})");
            match app::App::start(command, &root, wait_for, &prepared.child_env) {
                Ok(app) => Some(app),
                Err(e) => {
                    println!(
                        "{}",
                        error_command(None, "windup: the app did not start", &e.to_string())
                    );
                    return ExitCode::Infrastructure;
                }
            }
        }
        None => None,
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            println!(
                "{}",
                error_command(
                    None,
                    "windup",
                    &format!("cannot start the async runtime: {e}")
                )
            );
            return ExitCode::Infrastructure;
        }
    };
    let code = runtime.block_on(run_and_report(&inputs, &ctx, &root, prepared));
    if let Some(app) = app {
        app.stop();
    }
    code
}

/// Everything checked and resolved before anything starts.
struct Prepared {
    config: Config,
    selection: Selection,
    reports: Vec<ReportSpec>,
    notes: Notes,
    dashboard: Option<windup_engine::dashboard_client::Settings>,
    /// The engine's view of the environment (with the dashboard token).
    engine_env: windup_engine::env::Env,
    /// What start-command's app and Chromium get: the environment without secrets.
    child_env: ChildEnv,
}

enum Stop {
    Bad(Vec<BadInput>),
    Problems(Problems),
}

fn prepare(
    environment: &Environment,
    inputs: &Inputs,
    ctx: &Context,
    root: &Path,
) -> Result<Prepared, Stop> {
    let overrides = Overrides {
        base_url: inputs.base_url.clone(),
        environment: inputs.environment.clone(),
        provider: inputs.provider.clone(),
        budget_usd: inputs.budget_usd,
        require_cached: inputs.require_cached,
        no_heal: !inputs.heal,
        suggest: inputs.suggest,
        trace: inputs.trace,
        debrief: inputs.debrief,
        dashboard_url: inputs.dashboard_url.as_ref().map(|u| u.to_string()),
        // Pushing on, no re-plan up front, no attach flag: CI runs its own Chromium
        // (`[browser] cdp_url` would still apply).
        ..Overrides::default()
    };
    let mut config = Config::load(root, &overrides).map_err(|e| Stop::Problems(e.into()))?;
    let refused = trust::check(&config, inputs, &trust::Workspace::of(ctx));
    if !refused.is_empty() {
        return Err(Stop::Problems(Problems(refused)));
    }
    if config.base_url.is_none()
        && let Some(w) = &inputs.wait_for
    {
        // start-command's app is what the run tests when nothing else is named.
        config.base_url = w.join("/").ok();
    }
    if let Some(model) = &inputs.model {
        match &mut config.provider {
            Some((_, p)) => p.model = model.clone(),
            None => {
                return Err(Stop::Bad(vec![BadInput::new(
                    "model",
                    "a model is given but no LLM provider is configured",
                    "add a [providers.NAME] table to windup.toml (kind, model, api_key_env), or remove `model`",
                )]));
            }
        }
    }
    let mut notes = Notes {
        shard: inputs.shard.map(|(i, n)| format!("{i}/{n}")),
        scenario_dir: relative(&ctx.workspace, root),
        ..Notes::default()
    };
    if !config.require_cached
        && let Some((name, provider)) = &config.provider
        && let Some(key) = &provider.api_key_env
        && environment.get(key).is_none_or(|v| v.is_empty())
    {
        let fork = if ctx.pull_request.as_ref().is_some_and(|p| p.from_fork) {
            " (a pull request from a fork gets no secrets)"
        } else {
            ""
        };
        notes.require_cached_reason = Some(format!(
            "the provider `{name}` reads its key from `{key}`, which is not set{fork}"
        ));
        config.require_cached = true;
    }
    let selection = selection(root, inputs)?;
    let mut reports = reporters::configured(&config.file.reports, root, &[])
        .map_err(|p| Stop::Problems(Problems(p)))?;
    for raw in &inputs.reports {
        let mut spec = ReportSpec::parse(raw)
            .map_err(|e| Stop::Bad(vec![BadInput::new("reports", e.problem, e.fix)]))?;
        spec.path = root.join(&spec.path);
        reports.push(spec);
    }
    // Handed to the engine's view of the environment, never set in the process's own.
    let mut engine_vars = BTreeMap::new();
    if let (Some(settings), Some(token)) = (&config.dashboard, &inputs.dashboard_token) {
        // The engine reads the dashboard token from the variable `token_env` names.
        engine_vars.insert(
            settings.token_env.clone(),
            token.expose_secret().to_string(),
        );
    }
    if let Some(pr) = ctx.pull_request.as_ref().filter(|p| p.from_fork)
        && let Some(branch) = pr.branch()
    {
        // The engine restores and saves plans on `GITHUB_HEAD_REF`, which for a fork is the
        // fork's bare branch name (often `main`): the qualified name replaces it.
        engine_vars.insert("GITHUB_HEAD_REF".to_string(), branch);
    }
    if !engine_vars.is_empty() {
        config.env = config.env.with(engine_vars);
    }
    let child_env = environment.stripped(&environment::secret_names(&config));
    config.browser.env = Some(child_env.clone());
    // Chromium, like start-command's app, cannot read the Action's /proc/PID/environ.
    config.browser.run_as = app::app_user(app::euid()).map(|(uid, gid)| RunAs { uid, gid });
    let dashboard = config.dashboard.clone();
    let engine_env = config.env.clone();
    notes.run_link = ctx.run_url();
    Ok(Prepared {
        config,
        selection,
        reports,
        notes,
        dashboard,
        engine_env,
        child_env,
    })
}

/// `scenarios`: ids, globs over ids and `@tags`, in the engine's one selection language
/// ([`windup_engine::runner::pick`], as `windup run WORDS` takes them); checked here so a word
/// that picks nothing is named as this input. The shard then splits what was picked.
fn selection(root: &Path, inputs: &Inputs) -> Result<Selection, Stop> {
    let filter = &inputs.scenarios;
    let words: Vec<String> = filter
        .patterns
        .iter()
        .cloned()
        .chain(filter.tags.iter().map(|t| format!("@{t}")))
        .collect();
    if !words.is_empty() {
        let all = windup_engine::project::load_scenarios(root).map_err(Stop::Problems)?;
        if let Err(bad) = pick(&all, &words) {
            return Err(Stop::Bad(
                bad.into_iter()
                    .map(|b| BadInput::new("scenarios", b.problem, b.fix))
                    .collect(),
            ));
        }
    }
    Ok(Selection {
        ids: words,
        tags: Vec::new(),
        failed: false,
        shard: inputs.shard,
        retries: inputs.retries,
        jobs: inputs.parallel.unwrap_or_else(Selection::default_jobs),
    })
}

async fn run_and_report(inputs: &Inputs, ctx: &Context, root: &Path, p: Prepared) -> ExitCode {
    let Prepared {
        config,
        selection,
        reports,
        mut notes,
        dashboard,
        engine_env,
        child_env: _,
    } = p;
    if let Some(reason) = &notes.require_cached_reason {
        println!(
            "{}",
            warning_command(
                "windup: planning is off",
                &format!("{reason}: only cached plans run, as with require-cached")
            )
        );
    }
    let runner = match Runner::new(config) {
        Ok(r) => r,
        Err(p) => return problems(&p, &ctx.workspace),
    };
    let mut report = match run_to_end(&runner, runner.run_selected(&selection, &Log)).await {
        Ended::Stopped(signal) => {
            println!("interrupted ({signal}): the browser is closed");
            return ExitCode::Interrupted;
        }
        Ended::Ran(Ok(r)) => r,
        Ended::Ran(Err(RunError::Input(p))) => return problems(&p, &ctx.workspace),
        Ended::Ran(Err(RunError::Infrastructure(e))) => {
            println!(
                "{}",
                error_command(None, "windup: the run could not start", &e.to_string())
            );
            return ExitCode::Infrastructure;
        }
    };
    stamp(&mut report, ctx);
    let mut code = ExitCode::of_run(&report.totals);
    if let Err(e) = reporters::write_all(&reports, &report, root) {
        println!("{}", error_command(None, "windup: report", &e.to_string()));
        code = ExitCode::Infrastructure;
    }
    if let Some(settings) = &dashboard {
        let uploaded = dashboard::upload(root, settings, &report.run_id, &engine_env).await;
        for w in &uploaded.warnings {
            warn_if(Some(w));
        }
        notes.dashboard_link = uploaded.link;
    }
    println!("windup: {}", summary::totals_line(&report));
    notes.healed_files = summary::healed_files(&report, root, &notes.scenario_dir);
    annotate(&report, &notes);
    write_outputs(&report, &reports, ctx);
    if inputs.summary
        && let Some(path) = &ctx.step_summary
        && let Err(e) = github::append(path, &summary::markdown(&report, &notes))
    {
        warn_if(Some(&format!("could not write the job summary: {e}")));
    }
    if inputs.comment {
        post_comment(&report, &notes, ctx, dashboard.is_some()).await;
    }
    code
}

/// The GitHub context is more exact than the checkout's git state (a pull request's checkout
/// is a merge commit on a detached HEAD).
fn stamp(report: &mut RunReport, ctx: &Context) {
    if let Some(commit) = ctx.commit() {
        report.git = Some(GitInfo {
            commit: commit.to_string(),
            branch: ctx.branch(),
        });
    }
    if ctx.run_id.is_some() {
        let shard = report.ci.as_ref().and_then(|c| c.shard.clone());
        report.ci = Some(CiInfo {
            provider: "github".into(),
            workflow_run: ctx.run_id.clone(),
            job: ctx.job.clone(),
            shard,
        });
    }
}

/// One `::error` per failed scenario, and one `::warning` per healed one, on its scenario file.
fn annotate(report: &RunReport, notes: &Notes) {
    for s in &report.scenarios {
        let Some(heal) = &s.heal else { continue };
        let then = match &s.proposal {
            Some(p) => format!(
                "the plan is a person's, so the healed one is proposed in {}: `windup accept {}` adopts it",
                p.file, s.scenario_id
            ),
            None => format!(
                "commit the healed plan, {}, or this heal is paid again on every run",
                windup_model::markdown::project_file(
                    &notes.scenario_dir,
                    &format!("e2e/.windup/cache/{}.json", s.scenario_id)
                )
            ),
        };
        println!(
            "{}",
            warning_on(
                &summary::scenario_file(&notes.scenario_dir, &s.scenario_id),
                &format!("healed without an LLM: {}", s.scenario_id),
                &format!("{}; {then}", heal.describe())
            )
        );
    }
    // The title is the one reason line's head (class and step); the message the scenario and
    // the one sentence, then the evidence, the triage's deciding fact and the advice, a line
    // each: the failure's message is never repeated.
    for s in &report.scenarios {
        let Some(r) = windup_model::reason::reason(s) else {
            continue;
        };
        let mut message = format!("{}: {}", s.scenario_id, r.sentence);
        for line in r
            .evidence
            .iter()
            .cloned()
            .chain(r.triage.iter().map(|t| format!("triage: {t}")))
            .chain(r.advice.iter().map(|a| format!("advice: {a}")))
        {
            message.push('\n');
            message.push_str(&line);
        }
        println!(
            "{}",
            error_command(
                Some(&summary::scenario_file(&notes.scenario_dir, &s.scenario_id)),
                &r.head,
                &message
            )
        );
    }
}

fn write_outputs(report: &RunReport, reports: &[ReportSpec], ctx: &Context) {
    let Some(path) = &ctx.output else {
        return;
    };
    let t = &report.totals;
    let replanned = report
        .scenarios
        .iter()
        .filter(|s| s.cache == CacheOutcome::StaleReplanned)
        .count();
    // The input's reports win over windup.toml's for the outputs: they come last.
    let report_path = |format: ReportFormat| {
        reports
            .iter()
            .rev()
            .find(|r| r.format == format)
            .map(|r| relative(&ctx.workspace, &r.path))
            .unwrap_or_default()
    };
    let outputs = [
        ("passed", t.passed.to_string()),
        ("failed", t.failed.to_string()),
        ("flaky", t.flaky.to_string()),
        ("llm-calls", t.llm_calls.to_string()),
        (
            "cost-usd",
            windup_model::money::usd_exact(t.cost_micro_usd)
                .trim_start_matches('$')
                .to_string(),
        ),
        ("cache-hits", t.cache_hits.to_string()),
        ("replanned", replanned.to_string()),
        ("report-json", report_path(ReportFormat::Json)),
        ("report-html", report_path(ReportFormat::Html)),
        ("report-junit", report_path(ReportFormat::Junit)),
    ];
    debug_assert_eq!(outputs.len(), OUTPUTS.len());
    if let Err(e) = github::write_outputs(path, &outputs) {
        warn_if(Some(&format!("could not write the step outputs: {e}")));
    }
}

/// Every output, in `action.yml`'s order.
pub const OUTPUTS: &[&str] = &[
    "passed",
    "failed",
    "flaky",
    "llm-calls",
    "cost-usd",
    "cache-hits",
    "replanned",
    "report-json",
    "report-html",
    "report-junit",
];

async fn post_comment(report: &RunReport, notes: &Notes, ctx: &Context, dashboard: bool) {
    if dashboard {
        println!("windup: the dashboard posts the pull request comment");
        return;
    }
    let Some(pr) = &ctx.pull_request else {
        println!("windup: not a pull request, so no comment");
        return;
    };
    let (Some(token), Some(repository)) = (&ctx.token, &ctx.repository) else {
        warn_if(Some(
            "comment is true but GITHUB_TOKEN is not in the step's environment; add `env: GITHUB_TOKEN: ${{ github.token }}` and `permissions: pull-requests: write`",
        ));
        return;
    };
    let body = summary::comment(report, notes);
    match comment::upsert(
        &ctx.api_url,
        token.expose_secret(),
        repository,
        pr.number,
        &body,
    )
    .await
    {
        Ok(posted) => println!("windup: pull request comment {posted:?}"),
        Err(e) => warn_if(Some(&format!("no pull request comment: {e}"))),
    }
}

fn warn_if(message: Option<&str>) {
    if let Some(m) = message {
        println!("{}", warning_command("windup", m));
    }
}

fn bad_inputs(bad: &[BadInput]) -> ExitCode {
    for b in bad {
        println!(
            "{}",
            error_command(
                None,
                &format!("windup: bad input `{}`", b.input),
                &b.to_string()
            )
        );
    }
    ExitCode::BadInput
}

/// The engine's input problems (windup.toml, scenarios, plans), each on its file.
fn problems(p: &Problems, workspace: &Path) -> ExitCode {
    for InputError {
        file,
        field,
        problem,
        fix,
    } in &p.0
    {
        let path = Path::new(file);
        let shown = if path.is_absolute() {
            relative(workspace, path)
        } else {
            file.clone()
        };
        println!(
            "{}",
            error_command(
                Some(&shown),
                "windup: bad input",
                &format!("{shown}: {field}: {problem}; fix: {fix}")
            )
        );
    }
    ExitCode::BadInput
}

/// `path` relative to the workspace, as GitHub and later steps name files.
fn relative(workspace: &Path, path: &Path) -> String {
    let clean = |p: &Path| -> PathBuf { p.canonicalize().unwrap_or_else(|_| p.to_path_buf()) };
    let (ws, p) = (clean(workspace), clean(path));
    match p.strip_prefix(&ws) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

/// The step's log: one line per finished scenario.
struct Log;

impl EventSink for Log {
    fn on_event(&self, event: &Event) {
        match event {
            Event::RunStarted { scenarios } => println!(
                "windup: {scenarios} scenario{}",
                if *scenarios == 1 { "" } else { "s" }
            ),
            Event::ScenarioFinished { result: r } => println!(
                "{} {} ({}, {} LLM call{}, {})",
                match (r.status, r.flaky) {
                    (ScenarioStatus::Passed, false) => "PASS ",
                    (ScenarioStatus::Passed, true) => "FLAKY",
                    (ScenarioStatus::Failed, _) => "FAIL ",
                    (ScenarioStatus::Skipped, _) => "SKIP ",
                },
                r.scenario_id,
                summary::plan_label(r.cache),
                r.llm_calls,
                if r.llm_calls == 1 { "" } else { "s" },
                reporters::duration(r.duration_ms)
            ),
            _ => {}
        }
    }
}
