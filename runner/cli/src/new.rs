//! `windup new "rough instruction"`: a precise scenario written from an instruction by one
//! budgeted, ledgered call (the engine's `Runner::author`); with `--plan`, planned and verified
//! at once.

use windup_engine::reporters;
use windup_engine::runner::{Authored, Selection};
use windup_model::{ExitCode, RunReport};

use crate::{Common, PlanningArgs, with_runner};

pub(crate) fn run(
    instruction: String,
    id: Option<String>,
    plan: bool,
    common: Common,
    planning: PlanningArgs,
) -> ExitCode {
    let root = common.project.root.clone();
    with_runner(
        &common,
        &planning,
        move |runner, terminal| {
            Box::pin(async move {
                let authored = runner.author(&instruction, id.as_deref()).await?;
                print_authored(&authored);
                let report = if plan {
                    let selection = Selection {
                        ids: vec![authored.scenario.id.clone()],
                        tags: Vec::new(),
                        failed: false,
                        shard: None,
                        retries: 0,
                        jobs: 1,
                    };
                    Some(runner.run_selected(&selection, terminal).await?)
                } else {
                    None
                };
                Ok::<(Authored, Option<RunReport>), windup_engine::runner::RunError>((
                    authored, report,
                ))
            })
        },
        move |(_, report), terminal, reports| match report {
            None => ExitCode::Success,
            Some(report) => {
                terminal.summary(&report);
                if let Err(e) = reporters::write_all(reports, &report, &root) {
                    eprintln!("error: {e}");
                    return ExitCode::Infrastructure;
                }
                ExitCode::of_run(&report.totals)
            }
        },
    )
}

fn print_authored(a: &Authored) {
    let s = &a.scenario;
    eprintln!(
        "wrote {} (${:.4}):\n  task: {}\n  start_url: {}",
        a.file,
        a.cost_micro_usd as f64 / 1e6,
        s.task,
        s.start_url
    );
    for h in &s.hints {
        eprintln!("  hint: {h}");
    }
    if !s.needs.is_empty() {
        eprintln!("  needs: {}", s.needs.join(", "));
    }
    for (env, account, field, new) in &a.credentials {
        if *new {
            eprintln!(
                "  registered the {account} account's {field} as {env} in e2e/manifest.yaml; its value is in .env.local (git-ignored), never in the scenario"
            );
        } else {
            eprintln!(
                "  the {field} written in the instruction is {env} ({account}), already declared"
            );
        }
    }
}
