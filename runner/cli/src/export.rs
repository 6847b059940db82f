//! `windup export --format playwright`: the project's verified plans as plain Playwright specs
//! (the engine's `export`), and with `--check` their outcome under the local `@playwright/test`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use windup_engine::boundary::Boundary;
use windup_engine::config::Overrides;
use windup_engine::export::{self, ConfigInput, Request, Resolution};
use windup_engine::secrets::ProjectSecrets;
use windup_model::{ExitCode, Problems};

use crate::print_problems;

#[derive(Args)]
pub(crate) struct ExportArgs {
    /// Scenario ids to export [default: every scenario with a verified plan]; the setups they
    /// need come along.
    scenarios: Vec<String>,
    /// What to write: `playwright`, one @playwright/test spec per plan.
    #[arg(long, value_enum)]
    format: Format,
    /// The folder the specs go to (with playwright.config.ts when it has none).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// Then run the specs with the @playwright/test installed in DIR or a folder above it and
    /// report per spec; each passing spec is then rewritten with the plain locator wherever
    /// Playwright found it unique, and the tab and dialog handling only where its pages needed it.
    #[arg(long)]
    check: bool,
    #[command(flatten)]
    project: crate::ProjectArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Playwright,
}

pub(crate) fn run(args: &ExportArgs) -> ExitCode {
    let Format::Playwright = args.format;
    let overrides = Overrides {
        base_url: args.project.base_url.clone(),
        ..Overrides::default()
    };
    let config = match crate::config_or_exit(&args.project.root, &overrides) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // Plans are held to the same boundary as in a run; the credentials' values are not used.
    let secrets = match ProjectSecrets::load(&args.project.root, &config.env) {
        Ok(s) => s,
        Err(p) => {
            print_problems(&p);
            return ExitCode::BadInput;
        }
    };
    let boundary = config
        .base_url
        .as_ref()
        .map(|base| Boundary::new(base, &config.planner.allowed_origins, secrets.manifest()));
    // The Chromium Windup runs, so the specs run on it (and `--check` passes) on this machine
    // with nothing set; CHROMIUM_PATH still overrides it elsewhere.
    let chromium = config
        .file
        .browser
        .executable
        .clone()
        .or_else(|| windup_engine::browser::find_chromium(None, false));
    let mut request = Request {
        root: &args.project.root,
        scenarios: &args.scenarios,
        out: &args.out,
        boundary: boundary.as_ref(),
        config: ConfigInput {
            base_url: config.base_url.as_ref(),
            timeouts: config.timeouts,
            viewport: config.browser.viewport,
            executable: chromium.as_deref(),
            args: &config.file.browser.args,
            testid_attribute: &config.browser.testid_attribute,
        },
        // With --check, the specs first probe the live app for what their locators match.
        resolution: if args.check {
            Resolution::Probe
        } else {
            Resolution::Unknown
        },
    };
    let exported = match export::playwright(&request) {
        Ok(e) => e,
        Err(p) => {
            print_problems(&p);
            return ExitCode::BadInput;
        }
    };
    for spec in &exported.specs {
        println!("wrote {}", spec.display());
    }
    if let Some(c) = &exported.config {
        println!("wrote {}", c.display());
    }
    for (id, why) in &exported.skipped {
        println!("skipped {id}: {why} (run `windup run {id}` first)");
    }
    if exported.specs.is_empty() {
        print_problems(&Problems(vec![windup_model::InputError::new(
            args.project.root.display().to_string(),
            "scenarios",
            "no scenario has a verified plan to export",
            "run `windup run` first: it plans, verifies and caches each scenario",
        )]));
        return ExitCode::BadInput;
    }
    if !args.check {
        return ExitCode::Success;
    }
    match export::check(&args.out, &exported.specs) {
        Ok(checked) => {
            // Written again from what the run found: what ran is what is kept.
            request.resolution = Resolution::Known(&checked.evidence);
            if let Err(p) = export::playwright(&request) {
                print_problems(&p);
                return ExitCode::BadInput;
            }
            let mut code = ExitCode::Success;
            for o in &checked.outcomes {
                match (&o.passed, &o.message) {
                    (true, _) => println!("passed {}", o.file.display()),
                    (false, m) => {
                        code = ExitCode::ScenarioFailed;
                        println!(
                            "failed {}: {}",
                            o.file.display(),
                            m.as_deref().unwrap_or("failed")
                        );
                    }
                }
            }
            code
        }
        Err(e @ export::CheckError::NotInstalled(_)) => {
            eprintln!("error: {e}");
            ExitCode::BadInput
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::Infrastructure
        }
    }
}
