//! `windup browser`: a debug Chrome with the project's own persistent profile and its
//! debugging port on loopback, for `--cdp-url` runs and agents to attach to; and the attach
//! flags every command that drives a browser shares ([`AttachArgs`]).

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use windup_engine::browser::{DebugBrowser, DebugOptions};
use windup_engine::config::Overrides;
use windup_engine::project::Layout;
use windup_engine::runner::StopSignals;
use windup_model::ExitCode;

/// Attaching to a running Chromium instead of starting one (`run`, `replay`, `bench`; `mcp`
/// can flatten it too).
#[derive(Args, Debug, Default, Clone)]
pub(crate) struct AttachArgs {
    /// Attach to a running Chromium instead of starting one: its debugging address
    /// (http://127.0.0.1:9222, as `windup browser` prints) or a ws://…/devtools/browser/… URL.
    /// Its tabs, cookies and the browser itself are left alone; overrides `[browser] cdp_url`.
    #[arg(long, value_name = "URL", env = "WINDUP_CDP_URL")]
    pub cdp_url: Option<String>,
    /// With --cdp-url: run scenarios in the attached browser's own profile (its cookies and
    /// sign-ins) instead of a new, empty context each. Only the tabs Windup opens are closed.
    #[arg(long)]
    pub reuse_context: bool,
}

impl AttachArgs {
    /// Puts the flags into the engine's overrides.
    pub(crate) fn apply(&self, overrides: &mut Overrides) {
        overrides.cdp_url.clone_from(&self.cdp_url);
        overrides.reuse_context = self.reuse_context;
    }
}

/// `windup browser`'s arguments.
#[derive(Args, Debug)]
pub(crate) struct BrowserArgs {
    /// The project root (the profile is its e2e/.windup/profile/).
    #[arg(long, default_value = ".")]
    root: PathBuf,
    /// The page to open; overrides windup.toml's base_url.
    #[arg(long, env = "WINDUP_BASE_URL")]
    base_url: Option<String>,
    /// The debugging port, on 127.0.0.1 only; 0 picks a free one.
    #[arg(long, default_value_t = 9222)]
    port: u16,
    /// Run without a window (for tests and machines without a display).
    #[arg(long)]
    headless: bool,
}

pub(crate) fn run(args: &BrowserArgs) -> ExitCode {
    let overrides = Overrides {
        base_url: args.base_url.clone(),
        ..Overrides::default()
    };
    let config = match crate::config_or_exit(&args.root, &overrides) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // Absolute: it is on Chromium's command line, and Chromium resolves nothing for us.
    let profile = config.root.join(Layout::PROFILE_DIR);
    let profile = std::path::absolute(&profile).unwrap_or(profile);
    let options = DebugOptions {
        executable: config.browser.executable.clone(),
        profile: profile.clone(),
        port: args.port,
        headless: args.headless,
        args: config.browser.args.clone(),
        start_url: config.base_url.clone(),
        launch_timeout: Duration::from_secs(30),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::Infrastructure;
        }
    };
    runtime.block_on(async {
        // Listened for before Chromium starts: a signal during the start drops it (its process
        // is killed with it) instead of leaving it running behind us.
        let mut signals = StopSignals::listen();
        let started = tokio::select! {
            started = DebugBrowser::start(&options) => started,
            signal = signals.requested() => {
                eprintln!("{signal}: Chromium was stopped while it started");
                return ExitCode::Interrupted;
            }
        };
        let mut browser = match started {
            Ok(b) => b,
            Err(e) if e.is_bad_input() => {
                eprintln!("error: windup browser: {e}");
                return ExitCode::BadInput;
            }
            Err(e) => {
                eprintln!("error: windup browser: {e}");
                return ExitCode::Infrastructure;
            }
        };
        let url = browser.cdp_url();
        let opened = config
            .base_url
            .as_ref()
            .map_or("about:blank".to_string(), |u| u.to_string());
        println!(
            "Chromium is running with the project's own profile, {profile}/ (owner-only, git-ignored:\n\
             sign in once and it is kept), on {opened}.\n\
             \n\
             CDP URL: {url}\n\
             (the debugging port listens on 127.0.0.1 only)\n\
             \n\
             Attach from another terminal:\n\
             \x20 windup run --cdp-url {url}                    each scenario in a new, empty context\n\
             \x20 windup run --cdp-url {url} --reuse-context    in this profile, with its sign-ins\n\
             \x20 windup replay PLAN.json --cdp-url {url}\n\
             Or set `cdp_url = \"{url}\"` under [browser] in windup.toml.\n\
             \n\
             Stop it with Ctrl-C here, or by closing the browser.",
            profile = Layout::PROFILE_DIR,
        );
        let _ = std::io::stdout().flush();
        tokio::select! {
            status = browser.wait() => {
                match status {
                    Ok(s) if s.success() => ExitCode::Success,
                    Ok(s) => {
                        eprintln!("error: Chromium exited ({s})\n{}", browser.stderr_tail());
                        ExitCode::Infrastructure
                    }
                    Err(e) => {
                        eprintln!("error: cannot wait for Chromium: {e}");
                        ExitCode::Infrastructure
                    }
                }
            }
            _ = signals.requested() => {
                eprintln!("stopping Chromium");
                browser.stop().await;
                ExitCode::Success
            }
        }
    })
}
