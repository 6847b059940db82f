//! `windup`: parse arguments, call the engine, map the outcome to a named exit code.

mod accept;
mod bench;
mod browser;
mod costs;
mod export;
mod fragment;
mod init;
mod list;
mod mcp;
mod new;
mod output;
mod push;
mod scan;
mod validate;

use std::path::{Path, PathBuf};
use std::process::ExitCode as ProcessExit;

use clap::{Args, Parser, Subcommand};
use windup_engine::config::{Config, Overrides};
use windup_engine::fsutil::read_capped;
use windup_engine::reporters::{self, ReportSpec};
use windup_engine::runner::{Ended, RunError, Runner, Selection, parse_shard, run_to_end};
use windup_model::limits::InputFile;
use windup_model::validate::{plan_from_json, too_large};
use windup_model::{ExitCode, Problems, RunReport};

#[derive(Parser)]
#[command(
    name = "windup",
    version,
    about = "Browser end-to-end tests from plain-language scenarios: planned once, replayed for free."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run scenarios (all when none is named): replay cached, verified plans; plan the others.
    Run {
        /// What to run: scenario ids, globs over ids (`'checkout-*'`) and tags (`@smoke`), as
        /// the Action's `scenarios` input takes them.
        scenarios: Vec<String>,
        #[command(flatten)]
        selection: SelectionArgs,
        #[command(flatten)]
        planning: PlanningArgs,
        #[command(flatten)]
        dashboard: push::DashboardArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Check one scenario against the validation protocol: 5 generations, 10 replays, the
    /// speed-up, $0 replays, recovery from a broken selector, and the app broken step by step
    /// (each mutant must fail the plan). Uses a scratch plan cache.
    Bench {
        /// The scenario id.
        scenario: String,
        /// Also write the results as JSON to this file.
        #[arg(long, value_name = "PATH")]
        json: Option<PathBuf>,
        #[command(flatten)]
        planning: PlanningArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Run one plan file directly: no cache, no LLM, no project folder needed.
    Replay {
        /// The plan to run (JSON, plan_version 0.2 or 0.1).
        plan: PathBuf,
        /// When it passes, save it as the cached plan of the scenario it names.
        #[arg(long)]
        save: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Check every scenario, fragment, cached plan and the config (or the files named), and
    /// name each problem; with --prove, also prove each cached plan in Chromium, with no LLM.
    Validate {
        /// Files to check instead of the whole project; with --prove, scenario ids (default:
        /// every scenario).
        files: Vec<PathBuf>,
        /// Also prove each cached plan in Chromium, with no LLM: every check must be false
        /// before its step and true after, every step needed (the plan run without it fails),
        /// and the task's quoted strings, numbers and named controls shown. Exit 1 when a plan
        /// does not prove its task.
        #[arg(long)]
        prove: bool,
        #[command(flatten)]
        common: Common,
    },
    /// Adopt a scenario's proposal (a verified plan waiting in place of one written or accepted
    /// by a person), or mark its cached plan as reviewed; --list shows the proposals.
    Accept(accept::AcceptArgs),
    /// Upload a run's report and ledger records to the team dashboard (default: the last run),
    /// then send every upload spooled while it was unreachable.
    Push(push::PushArgs),
    /// Total the LLM spend recorded in the run ledger, by model, provider, scenario and day.
    Costs(costs::CostsArgs),
    /// List the scenarios a selection picks, with their tags, what the plan cache holds for
    /// each and how each ended last.
    List(list::ListArgs),
    /// Write each verified plan as a plain Playwright spec, with no Windup dependency.
    Export(export::ExportArgs),
    /// Write a precise scenario from a rough instruction (one LLM call): a checkable outcome,
    /// its start page, hints, the setups it needs, credentials by name. Never overwrites a file.
    New {
        /// What the flow does, in your words ("sign in as the admin and archive a project").
        instruction: String,
        /// The scenario's id (default: the model's, made unique).
        #[arg(long)]
        id: Option<String>,
        /// Plan and verify it right away.
        #[arg(long)]
        plan: bool,
        #[command(flatten)]
        planning: PlanningArgs,
        #[command(flatten)]
        common: Common,
    },
    /// Serve the MCP tools over stdio, for a coding agent to drive the app and save what it did
    /// as a scenario that replays with no LLM call.
    Mcp(mcp::McpArgs),
    /// Read the app's routes and controls from its source (Next.js, react-router) into the
    /// site map, e2e/.windup/sitemap.json.
    Scan(scan::ScanArgs),
    /// Start a debug Chromium with the project's own persistent profile (e2e/.windup/profile/)
    /// and its debugging port on 127.0.0.1, for `--cdp-url` runs to attach to. Runs until
    /// Chromium exits or Ctrl-C.
    Browser(browser::BrowserArgs),
    /// Fragments, the steps plans share: extract one from verified steps.
    Fragment(fragment::FragmentArgs),
    /// Scaffold a project: windup.toml, an example scenario, the manifest, .gitignore entries.
    /// Never overwrites a file.
    Init {
        /// The project root.
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// The app's base URL to write into windup.toml.
        #[arg(long, default_value = "http://127.0.0.1:3000")]
        base_url: String,
    },
}

#[derive(Args, Default)]
struct SelectionArgs {
    /// Only scenarios with this tag (repeatable: any of them).
    #[arg(long = "tag", value_name = "TAG")]
    tags: Vec<String>,
    /// Only the scenarios that failed in the last run.
    #[arg(long)]
    failed: bool,
    /// Run the i-th of n stable parts of the suite (split by a hash of scenario ids), for a CI matrix.
    #[arg(long, value_name = "i/n")]
    shard: Option<String>,
    /// Re-run a failed scenario up to N times; one that then passes is reported flaky.
    #[arg(long, value_name = "N", default_value_t = 0)]
    retries: u32,
    /// Scenarios run at once, each in its own browser context [default: the number of cores].
    #[arg(short = 'j', long, value_name = "N")]
    jobs: Option<u32>,
}

#[derive(Args, Default)]
struct PlanningArgs {
    /// The LLM provider to plan with: a [providers.NAME] of windup.toml.
    #[arg(long, env = "WINDUP_PROVIDER")]
    provider: Option<String>,
    /// Dollars this run may spend on LLM calls; overrides `[budget] usd_per_run`.
    #[arg(long, value_name = "USD")]
    budget_usd: Option<f64>,
    /// Make no LLM call: scenarios without a verified plan fail with not_cached.
    #[arg(long)]
    require_cached: bool,
    /// Ask the LLM for a summary and a fix suggestion for each failure (opt-in, budgeted).
    #[arg(long)]
    suggest: bool,
    /// After a run with failures, one budgeted LLM call that summarises them together (opt-in).
    #[arg(long)]
    debrief: bool,
    /// Re-plan up front the cached plans the site map says are at risk, instead of replaying
    /// them first (needs a provider).
    #[arg(long)]
    replan_at_risk: bool,
    /// Move a cached plan whose replay fails out of the cache (to stale/) even when no verified
    /// plan replaces it. By default it stays cached and the next run replays it again.
    #[arg(long)]
    invalidate: bool,
    /// Never heal a replayed step whose target was renamed or moved (healing needs no LLM;
    /// `heal = false` in windup.toml turns it off too).
    #[arg(long)]
    no_heal: bool,
}

/// Where the project is, and the app it tests.
#[derive(Args, Clone)]
pub(crate) struct ProjectArgs {
    /// The project root (where windup.toml and e2e/ are).
    #[arg(long, default_value = ".")]
    pub(crate) root: PathBuf,
    /// The app's base URL; overrides windup.toml.
    #[arg(long, env = "WINDUP_BASE_URL")]
    pub(crate) base_url: Option<String>,
}

#[derive(Args)]
struct Common {
    #[command(flatten)]
    project: crate::ProjectArgs,
    /// Show the browser window.
    #[arg(long)]
    headed: bool,
    #[command(flatten)]
    attach: browser::AttachArgs,
    /// When a scenario ends with a screenshot: only-on-failure (default), on, off; overrides
    /// windup.toml's `[browser] screenshots`.
    #[arg(long, value_name = "WHEN")]
    screenshots: Option<windup_engine::executor::Screenshots>,
    /// Keep a trace, a small screenshot with the URL, target box and timings after each step:
    /// off (default), on-failure, on; overrides windup.toml's `[browser] trace`.
    #[arg(long, value_name = "WHEN")]
    trace: Option<windup_engine::executor::Trace>,
    /// The environment tested, by name (`staging`), written to the run's report: the
    /// dashboard's flaky view and pass rates are kept per environment.
    #[arg(long, value_name = "NAME")]
    environment: Option<String>,
    /// Write a report: FORMAT=PATH (repeatable; formats: json, junit, html).
    #[arg(long = "report", value_name = "FORMAT=PATH")]
    reports: Vec<String>,
    /// Write no HTML report in the run's folder (by default every run writes
    /// e2e/.windup/runs/RUN_ID/report.html; the newest 20 run folders are kept).
    #[arg(long)]
    no_html_report: bool,
    /// Print only failures and the summary.
    #[arg(short, long, conflicts_with = "verbose")]
    quiet: bool,
    /// Print every step with its timings.
    #[arg(short, long)]
    verbose: bool,
}

impl Common {
    fn verbosity(&self) -> output::Verbosity {
        match (self.quiet, self.verbose) {
            (true, _) => output::Verbosity::Quiet,
            (false, true) => output::Verbosity::Verbose,
            _ => output::Verbosity::Normal,
        }
    }
}

fn main() -> ProcessExit {
    let cli = Cli::parse();
    // `windup mcp` logs every action the agent takes; other commands only warnings.
    init_tracing(if matches!(cli.command, Command::Mcp(_)) {
        "warn,windup::mcp=info"
    } else {
        "warn"
    });
    let code = match cli.command {
        Command::Validate {
            files,
            prove,
            common,
        } => validate::run(&files, prove, common),
        Command::Accept(args) => accept::run(&args),
        Command::Costs(args) => costs::run(&args),
        Command::List(args) => list::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Fragment(args) => fragment::run(args),
        Command::Scan(args) => scan::run(&args),
        Command::Mcp(args) => mcp::run(&args),
        Command::New {
            instruction,
            id,
            plan,
            planning,
            common,
        } => new::run(instruction, id, plan, common, planning),
        Command::Push(args) => push::run(&args),
        Command::Init { root, base_url } => init::run(&root, &base_url),
        Command::Browser(args) => browser::run(&args),
        Command::Run {
            scenarios,
            selection,
            planning,
            dashboard,
            common,
        } => {
            let shard = match selection.shard.as_deref().map(parse_shard).transpose() {
                Ok(s) => s,
                Err(e) => {
                    print_problems(&e.into());
                    return ExitCode::BadInput.into();
                }
            };
            let selection = Selection {
                ids: scenarios,
                tags: selection.tags,
                failed: selection.failed,
                shard,
                retries: selection.retries,
                jobs: selection.jobs.unwrap_or_else(Selection::default_jobs),
            };
            let root = common.project.root.clone();
            let ran = std::cell::RefCell::new(None);
            let code = execute(
                common,
                planning,
                &dashboard,
                Some(&ran),
                move |runner, sink| {
                    Box::pin(async move { runner.run_selected(&selection, sink).await })
                },
            );
            // The dashboard only after the run and its reports: it never changes the verdict.
            if let Some(run_id) = ran.into_inner() {
                push::after_run(&root, &dashboard, &run_id);
            }
            code
        }
        Command::Bench {
            scenario,
            json,
            planning,
            common,
        } => bench::run(scenario, json, planning, common),
        Command::Replay { plan, save, common } => replay(plan, save, common),
    };
    code.into()
}

fn init_tracing(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("WINDUP_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(|| MaskedStderr)
        .with_target(false)
        .without_time()
        .init();
}

/// Standard error for log lines, with every secret the run holds masked: the formatter
/// writes each event whole, in one call.
struct MaskedStderr;

impl std::io::Write for MaskedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let line = windup_engine::secrets::redact_log(&String::from_utf8_lossy(buf));
        std::io::stderr().write_all(line.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

fn print_problems(problems: &Problems) {
    for p in &problems.0 {
        eprintln!(
            "error: {}: {}: {}\n  fix: {}",
            p.file, p.field, p.problem, p.fix
        );
    }
}

/// The project's config; when it cannot be loaded, its problems are printed and the bad-input
/// exit code comes back.
fn config_or_exit(root: &std::path::Path, overrides: &Overrides) -> Result<Config, ExitCode> {
    Config::load(root, overrides).map_err(|e| {
        print_problems(&Problems::from(e));
        ExitCode::BadInput
    })
}

fn load_config(
    common: &Common,
    planning: &PlanningArgs,
    dashboard: &push::DashboardArgs,
) -> Result<(Config, Vec<ReportSpec>), Problems> {
    let mut overrides = Overrides {
        dashboard_url: dashboard.dashboard_url.clone(),
        no_push: dashboard.no_push,
        base_url: common.project.base_url.clone(),
        headed: common.headed,
        screenshots: common.screenshots,
        trace: common.trace,
        provider: planning.provider.clone(),
        budget_usd: planning.budget_usd,
        require_cached: planning.require_cached,
        suggest: planning.suggest,
        debrief: planning.debrief,
        replan_at_risk: planning.replan_at_risk,
        invalidate: planning.invalidate,
        no_heal: planning.no_heal,
        environment: common.environment.clone(),
        ..Overrides::default()
    };
    common.attach.apply(&mut overrides);
    let config = Config::load(&common.project.root, &overrides).map_err(Problems::from);
    // windup.toml's reports (paths relative to the project root), then the flags'.
    let reports = match &config {
        Ok(c) => reporters::configured(&c.file.reports, &c.root, &common.reports),
        Err(_) => reporters::configured(&[], &common.project.root, &common.reports),
    };
    match (config, reports) {
        (Ok(c), Ok(r)) => Ok((c, r)),
        (Ok(_), Err(problems)) => Err(Problems(problems)),
        (Err(mut p), reports) => {
            p.0.extend(reports.err().unwrap_or_default());
            Err(p)
        }
    }
}

type RunFuture<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, RunError>> + 'a>>;

/// `run` and `replay`: the run, then its summary and reports. `ran` receives the run's id.
fn execute<F>(
    common: Common,
    planning: PlanningArgs,
    dashboard: &push::DashboardArgs,
    ran: Option<&std::cell::RefCell<Option<String>>>,
    run: F,
) -> ExitCode
where
    F: for<'a> FnOnce(&'a Runner, &'a output::Terminal) -> RunFuture<'a, RunReport>,
{
    let root = common.project.root.clone();
    // A plan file replayed where there is no project (no windup.toml) leaves no run folder
    // behind in whatever folder that is.
    let in_project = root
        .join(windup_engine::project::Layout::CONFIG_FILE)
        .is_file();
    let html = !common.no_html_report && in_project;
    with_runner_and(
        &common,
        &planning,
        dashboard,
        run,
        |report, terminal, reports| {
            if let Some(ran) = ran {
                *ran.borrow_mut() = Some(report.run_id.clone());
            }
            terminal.summary(&report);
            if let Err(e) = reporters::write_all(reports, &report, &root) {
                eprintln!("error: {e}");
                return ExitCode::Infrastructure;
            }
            if html {
                run_folder_report(&root, &report, terminal);
            }
            ExitCode::of_run(&report.totals)
        },
    )
}

/// The run's HTML report in its run folder, its path printed after the summary, and the run
/// folders beyond the newest [`reporters::kept::KEEP_RUNS`] removed. Neither changes the verdict:
/// a failure is a warning.
fn run_folder_report(root: &Path, report: &RunReport, terminal: &output::Terminal) {
    use reporters::kept;
    match kept::write_run_html(root, report) {
        Ok(path) => terminal.report_path(&windup_engine::project::display(root, &path)),
        Err(e) => eprintln!("warning: the run's HTML report could not be written: {e}"),
    }
    if let Err(e) = kept::prune_runs(root, kept::KEEP_RUNS, &report.run_id) {
        eprintln!(
            "warning: old run folders in {} could not be removed: {e}",
            windup_engine::project::Layout::RUNS_DIR
        );
    }
}

/// Loads the config, starts the runtime and the runner, runs `run` (Ctrl-C closes the browser
/// and exits 130), then hands the outcome to `finish`; errors map to their exit codes.
fn with_runner<T, F, G>(common: &Common, planning: &PlanningArgs, run: F, finish: G) -> ExitCode
where
    F: for<'a> FnOnce(&'a Runner, &'a output::Terminal) -> RunFuture<'a, T>,
    G: FnOnce(T, &output::Terminal, &[ReportSpec]) -> ExitCode,
{
    with_runner_and(
        common,
        planning,
        &push::DashboardArgs::default(),
        run,
        finish,
    )
}

/// [`with_runner`] with the dashboard flags of `run`.
fn with_runner_and<T, F, G>(
    common: &Common,
    planning: &PlanningArgs,
    dashboard: &push::DashboardArgs,
    run: F,
    finish: G,
) -> ExitCode
where
    F: for<'a> FnOnce(&'a Runner, &'a output::Terminal) -> RunFuture<'a, T>,
    G: FnOnce(T, &output::Terminal, &[ReportSpec]) -> ExitCode,
{
    let (config, reports) = match load_config(common, planning, dashboard) {
        Ok(x) => x,
        Err(p) => {
            print_problems(&p);
            return ExitCode::BadInput;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::Infrastructure;
        }
    };
    let terminal = output::Terminal::new(common.verbosity());
    runtime.block_on(async {
        let runner = match Runner::new(config) {
            Ok(r) => r,
            Err(p) => {
                print_problems(&p);
                return ExitCode::BadInput;
            }
        };
        // Ctrl-C or SIGTERM must not leave Chromium running behind us (nor, attached, our
        // tabs in it): the browser is closed however the run ends.
        match run_to_end(&runner, run(&runner, &terminal)).await {
            Ended::Stopped(signal) => {
                eprintln!(
                    "\n{signal}: the browser is closed (an attached one: only Windup's tabs)"
                );
                ExitCode::Interrupted
            }
            Ended::Ran(Ok(value)) => finish(value, &terminal, &reports),
            Ended::Ran(Err(RunError::Input(p))) => {
                print_problems(&p);
                ExitCode::BadInput
            }
            Ended::Ran(Err(RunError::Infrastructure(e))) => {
                eprintln!("error: the run could not start: {e}");
                ExitCode::Infrastructure
            }
        }
    })
}

fn replay(path: PathBuf, save: bool, common: Common) -> ExitCode {
    let file = path.display().to_string();
    let plan = match read_capped(&path, InputFile::Plan.max_bytes()) {
        Ok(Some(text)) => match plan_from_json(&file, &text) {
            Ok(p) => p,
            Err(p) => {
                print_problems(&p);
                return ExitCode::BadInput;
            }
        },
        Ok(None) => {
            print_problems(&too_large(&file, InputFile::Plan).into());
            return ExitCode::BadInput;
        }
        Err(e) => {
            eprintln!(
                "error: {file}: (file): cannot be read: {e}\n  fix: give the path of a plan JSON file"
            );
            return ExitCode::BadInput;
        }
    };
    execute(
        common,
        PlanningArgs::default(),
        &push::DashboardArgs::default(),
        None,
        move |runner, sink| Box::pin(async move { runner.replay(&plan, save, sink).await }),
    )
}
