//! `windup fragment extract`: verified steps of a cached plan as a fragment (the engine's
//! `Runner::extract_fragment`), verified alone before it is written.

use clap::{Args, Subcommand};
use windup_engine::runner::{Extract, Extracted};
use windup_model::ExitCode;

use crate::{Common, PlanningArgs};

#[derive(Args)]
pub(crate) struct FragmentArgs {
    #[command(subcommand)]
    command: FragmentCommand,
}

#[derive(Subcommand)]
enum FragmentCommand {
    /// Turn verified steps of a scenario's cached plan into a fragment in e2e/fragments/ that
    /// starts on the page they started on; written only after it passes alone in a fresh context.
    Extract(ExtractArgs),
}

#[derive(Args)]
struct ExtractArgs {
    /// The scenario whose cached plan holds the steps.
    scenario: String,
    /// The steps, by id: a1-a3, or one such as a2.
    #[arg(long, value_name = "FIRST-LAST")]
    steps: String,
    /// The fragment's id, also its file name: lower-case letters, digits, dots, underscores and dashes.
    #[arg(long)]
    id: String,
    /// What the fragment does, for planners and people [default: its steps, in one line].
    #[arg(long)]
    description: Option<String>,
    /// Also replace the steps in the cached plan by one step that uses the fragment, once that
    /// plan passes a full run.
    #[arg(long)]
    rewrite: bool,
    #[command(flatten)]
    project: crate::ProjectArgs,
    /// Show the browser window.
    #[arg(long)]
    headed: bool,
}

pub(crate) fn run(args: FragmentArgs) -> ExitCode {
    let FragmentCommand::Extract(args) = args.command;
    let scenario = args.scenario.clone();
    // No report and no screenshot: what it writes is the fragment and the cache entry.
    let common = Common {
        project: args.project.clone(),
        headed: args.headed,
        screenshots: None,
        trace: None,
        environment: None,
        reports: Vec::new(),
        no_html_report: true,
        quiet: false,
        verbose: false,
        attach: crate::browser::AttachArgs::default(),
    };
    crate::with_runner(
        &common,
        &PlanningArgs::default(),
        move |runner, terminal| {
            Box::pin(async move {
                let req = Extract {
                    scenario: &args.scenario,
                    steps: &args.steps,
                    id: &args.id,
                    description: args.description.as_deref(),
                    rewrite: args.rewrite,
                };
                runner.extract_fragment(&req, terminal).await
            })
        },
        move |extracted, _, _| match extracted {
            Extracted::Written {
                file,
                start,
                rewrote,
            } => {
                println!("wrote {file} (starts on {start}; passed alone in a fresh context)");
                if rewrote {
                    println!(
                        "the cached plan of {scenario} now uses it (it passed a full run first)"
                    );
                }
                ExitCode::Success
            }
            Extracted::Failed(why) => {
                eprintln!("error: nothing was written: {why}");
                ExitCode::ScenarioFailed
            }
        },
    )
}
