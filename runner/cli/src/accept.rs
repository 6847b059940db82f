//! `windup accept`: adopt a scenario's proposal (or mark its cached plan as reviewed), the
//! engine's `cache::accept`; `--list` shows the proposals waiting. Exit 0, or 2 naming the file
//! and the fix.

use std::path::PathBuf;

use clap::Args;
use windup_engine::cache::{Accepted, PlanCache, accept};
use windup_model::ExitCode;

#[derive(Args)]
pub(crate) struct AcceptArgs {
    /// Scenario ids whose proposal to adopt, or whose cached plan to mark as reviewed.
    #[arg(required_unless_present = "list")]
    scenarios: Vec<String>,
    /// List the proposals waiting, with their step diffs, and change nothing.
    #[arg(long, conflicts_with = "scenarios")]
    list: bool,
    /// The project root.
    #[arg(long, default_value = ".")]
    root: PathBuf,
}

pub(crate) fn run(args: &AcceptArgs) -> ExitCode {
    if args.list {
        return list(args);
    }
    let mut code = ExitCode::Success;
    for id in &args.scenarios {
        match accept(&args.root, id) {
            Ok(Accepted::Adopted {
                proposal,
                stale,
                diff,
            }) => {
                println!(
                    "{id}: adopted {proposal} ({}), marked reviewed",
                    diff.headline()
                );
                if let Some(stale) = stale {
                    println!("  the plan it replaced is kept in {stale}");
                }
            }
            Ok(Accepted::Marked { file, outdated }) => {
                println!("{id}: {file} marked reviewed (no proposal was waiting)");
                if outdated {
                    println!(
                        "  note: it was verified for an earlier text of the scenario, so `windup run {id}` does not replay it (it re-plans it as a proposal where it may plan)"
                    );
                }
            }
            Err(p) => {
                crate::print_problems(&p);
                code = ExitCode::BadInput;
            }
        }
    }
    code
}

fn list(args: &AcceptArgs) -> ExitCode {
    let cache = PlanCache::new(&args.root);
    let proposals = cache.proposals();
    if proposals.is_empty() {
        println!("no proposal is waiting");
        return ExitCode::Success;
    }
    let mut code = ExitCode::Success;
    for (id, read) in proposals {
        let entry = match read {
            Ok(e) => e,
            Err(p) => {
                crate::print_problems(&p);
                code = ExitCode::BadInput;
                continue;
            }
        };
        let Some(p) = cache.proposed(&entry) else {
            continue;
        };
        let why = entry.proposal.as_ref().map(|x| &x.why);
        let failure = why
            .map(|w| {
                let class = w
                    .failure_class
                    .map(|c| format!(", {c}"))
                    .unwrap_or_default();
                let at = w
                    .failed_action_id
                    .as_deref()
                    .map(|a| format!(" at {a}"))
                    .unwrap_or_default();
                let run = w
                    .run_id
                    .as_deref()
                    .map(|r| format!(", run {r}"))
                    .unwrap_or_default();
                format!("{}{class}{at}{run}", w.reason)
            })
            .unwrap_or_default();
        println!(
            "{id}: {} ({}; {failure}): {}",
            p.file,
            p.source.as_str(),
            p.diff.headline()
        );
        for line in p.diff.lines() {
            println!("  {line}");
        }
        println!("  adopt it: windup accept {id}");
    }
    code
}
