//! `windup mcp`: the MCP server over stdio for coding agents (see the `windup-mcp` crate).
//! Standard output carries the protocol only; the log goes to stderr and
//! `e2e/.windup/mcp.log`. The server runs through the same lifecycle as `windup run`: the end
//! of stdin, or a stop signal (Ctrl-C, SIGTERM, SIGHUP; exit 130), ends it, and the browser is
//! closed either way.

use clap::Args;
use windup_engine::config::Overrides;
use windup_engine::runner::{Drive, Ended, Runner, run_to_end};
use windup_model::ExitCode;

#[derive(Args)]
pub(crate) struct McpArgs {
    #[command(flatten)]
    project: crate::ProjectArgs,
    /// Show the browser window, to watch the agent work.
    #[arg(long)]
    headed: bool,
    #[command(flatten)]
    attach: crate::browser::AttachArgs,
}

pub(crate) fn run(args: &McpArgs) -> ExitCode {
    let mut overrides = Overrides {
        base_url: args.project.base_url.clone(),
        headed: args.headed,
        ..Overrides::default()
    };
    args.attach.apply(&mut overrides);
    let config = match crate::config_or_exit(&args.project.root, &overrides) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let attaching = config.browser.cdp_url.is_some();
    let drive = match Runner::new(config).and_then(Drive::new) {
        Ok(d) => d,
        Err(problems) => {
            crate::print_problems(&problems);
            return ExitCode::BadInput;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: could not start the async runtime: {e}");
            return ExitCode::Infrastructure;
        }
    };
    // A browser to attach to is checked before the agent's first call.
    if attaching && let Err(e) = runtime.block_on(drive.start_browser()) {
        return match e.as_input_error() {
            Some(problem) => {
                crate::print_problems(&problem.into());
                ExitCode::BadInput
            }
            None => {
                eprintln!("error: {e}");
                ExitCode::Infrastructure
            }
        };
    }
    let browser = drive.browser();
    let ended = runtime.block_on(run_to_end(&browser, windup_mcp::serve_stdio(drive)));
    // Stopped by a signal, the server's read of stdin may still block a thread of the runtime:
    // the browser is closed, so nothing is left to wait for.
    runtime.shutdown_background();
    match ended {
        Ended::Ran(Ok(())) => ExitCode::Success,
        Ended::Ran(Err(e)) => {
            eprintln!("error: {e}");
            ExitCode::Infrastructure
        }
        Ended::Stopped(signal) => {
            eprintln!("{signal}: the browser is closed (an attached one: only Windup's tabs)");
            ExitCode::Interrupted
        }
    }
}
