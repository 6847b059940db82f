//! Starting Chromium: how it is found, the flags it runs with, and the process on the other
//! end of the debugging pipe.

use std::collections::VecDeque;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::net::unix::pipe;
use tokio::task::JoinHandle;

use super::cdp::target::SetDiscoverTargets;
use super::connection::Connection;
use super::error::BrowserError;
use super::profile::Profile;
use super::transport::Transport;
use crate::child_env::ChildEnv;

/// How to start Chromium.
#[derive(Debug, Clone)]
pub struct BrowserOptions {
    /// The Chromium to run (`[browser] executable`); none to look for one (see
    /// [`find_chromium`]).
    pub executable: Option<PathBuf>,
    /// Whether to run without a window; a headless run prefers Chromium's headless shell.
    pub headless: bool,
    /// Every page's viewport, `(width, height)` in CSS pixels: the same layout on every
    /// machine, so plans replay alike.
    pub viewport: (u32, u32),
    /// Extra Chromium flags, without leading dashes.
    pub args: Vec<String>,
    /// How long Chromium may take to answer its first command before the launch fails.
    pub launch_timeout: Duration,
    /// Whether a closed session's tab is reset and handed to the next scenario instead of
    /// disposing of its context (see [`super::Session::close`]).
    pub reuse_tabs: bool,
    /// Chromium's whole environment; `None` inherits this process's. A caller whose
    /// environment holds secrets gives a copy without them (pages never read the environment,
    /// but a browser process that does not hold a secret cannot leak it).
    pub env: Option<ChildEnv>,
    /// A running Chromium to attach to instead of starting one (`--cdp-url`, `[browser]
    /// cdp_url`): its debugging address `http://127.0.0.1:9222`, or its browser WebSocket
    /// `ws://…/devtools/browser/<id>`. Windup then never closes that browser, never takes its
    /// tabs and never clears its cookies or cache; `executable`, `headless`, `args` and `env`
    /// are not used, and tabs are never reused.
    pub cdp_url: Option<url::Url>,
    /// With `cdp_url`: open each scenario's tab in the attached browser's default context (its
    /// profile's cookies and sign-ins) instead of a new, empty context, closing only the tabs
    /// Windup opened (`--reuse-context`).
    pub reuse_context: bool,
    /// Another user to run Chromium (and whatever `executable` names) as; `None` runs it as
    /// this process's. For a caller running as root whose own process holds secrets: another
    /// user cannot read them from `/proc/PID/environ`, even through a compromised renderer.
    pub run_as: Option<RunAs>,
    /// The attribute `testid=` selectors read (`[browser] testid_attribute`, Playwright's
    /// `testIdAttribute`); `data-testid` by default.
    pub testid_attribute: String,
}

/// A user and group Chromium runs as ([`BrowserOptions::run_as`]), with a profile folder and a
/// `HOME` of its own (owner-only, removed after it) and its downloads folders made its own.
/// Switching user needs the right to (root); the launch fails naming it otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunAs {
    /// The user id (`nobody` is 65534).
    pub uid: u32,
    /// The group id.
    pub gid: u32,
}

impl Default for BrowserOptions {
    fn default() -> Self {
        BrowserOptions {
            executable: None,
            headless: true,
            viewport: (1280, 800),
            args: Vec::new(),
            launch_timeout: Duration::from_secs(20),
            reuse_tabs: true,
            env: None,
            cdp_url: None,
            reuse_context: false,
            run_as: None,
            testid_attribute: "data-testid".to_string(),
        }
    }
}

/// Flags for a quiet, fast, automation-friendly Chromium. Written without leading dashes, like
/// [`BrowserOptions::args`].
const CHROMIUM_FLAGS: &[&str] = &[
    "disable-background-networking",
    "disable-background-timer-throttling",
    "disable-backgrounding-occluded-windows",
    "disable-breakpad",
    "disable-client-side-phishing-detection",
    "disable-component-extensions-with-background-pages",
    "disable-component-update",
    "disable-default-apps",
    "disable-dev-shm-usage",
    "disable-domain-reliability",
    "disable-hang-monitor",
    "disable-ipc-flooding-protection",
    "disable-popup-blocking",
    "disable-prompt-on-repost",
    "disable-renderer-backgrounding",
    "disable-sync",
    "disable-gpu",
    "disable-search-engine-choice-screen",
    "no-default-browser-check",
    // Keeps cross-site iframes in the page's process and session, where the in-page engine runs
    // in each through an isolated world (`frames.rs`) with no extra process or target per frame.
    "disable-site-isolation-trials",
    "disable-features=TranslateUI,IsolateOrigins,site-per-process,OptimizationHints,MediaRouter,DialMediaRouteProvider,CalculateNativeWinOcclusion,InterestFeedContentSuggestions,AutofillServerCommunication,CertificateTransparencyComponentUpdater",
    "force-color-profile=srgb",
    "metrics-recording-only",
    "no-first-run",
    "password-store=basic",
    "use-mock-keychain",
    "enable-automation",
    "no-service-autorun",
];

/// Where distributions install Chromium's headless shell (Debian's `chromium-headless-shell`
/// package; its `/usr/bin` wrapper script does not `exec`, so the binary itself is preferred).
const HEADLESS_SHELLS: &[&str] = &[
    "/usr/lib/chromium/chromium-headless-shell",
    "chromium-headless-shell",
    "chrome-headless-shell",
    "headless_shell",
];

/// Full Chromium or Chrome, by the names distributions give it.
const FULL_BROWSERS: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome-stable",
    "google-chrome",
    "chrome",
];

/// Finds Chromium: the configured path, `WINDUP_CHROMIUM`, then, for a headless run, Chromium's
/// headless shell when it is installed, then the full browser by its usual names on PATH.
///
/// The headless shell is the same Blink and V8 without the browser's own UI (tab strip, window
/// compositor), which in `--headless=new` repaints on every navigation: per scenario it spends
/// about a third of the browser's CPU time (see bench/README.md). Playwright uses it for headless
/// runs for the same reason. A headed run needs the full browser.
pub fn find_chromium(configured: Option<&PathBuf>, headless: bool) -> Option<PathBuf> {
    if let Some(p) = configured {
        return Some(p.clone());
    }
    if let Some(p) = std::env::var_os("WINDUP_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let shells = if headless { HEADLESS_SHELLS } else { &[] };
    shells
        .iter()
        .chain(FULL_BROWSERS)
        .find_map(|name| on_path(name))
}

/// `name` itself when it is a path to a file, else the first file of that name on PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    let direct = Path::new(name);
    if direct.is_absolute() {
        return direct.is_file().then(|| direct.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// Kills a process by id (SIGKILL).
pub fn kill_pid(pid: u32) {
    let _ = std::process::Command::new("kill")
        .arg("-9")
        .arg(pid.to_string())
        .status();
}

/// The command line: our flags, the caller's, then what this client needs.
fn command_line(options: &BrowserOptions, profile: &Path) -> Vec<String> {
    let (width, height) = options.viewport;
    let mut args: Vec<String> = CHROMIUM_FLAGS
        .iter()
        .copied()
        .chain(options.args.iter().map(|a| a.trim_start_matches('-')))
        .map(|a| format!("--{a}"))
        .collect();
    args.extend([
        "--remote-debugging-pipe".to_string(),
        "--disable-extensions".to_string(),
        format!("--user-data-dir={}", profile.display()),
        format!("--window-size={width},{height}"),
        "--no-sandbox".to_string(),
        "--disable-setuid-sandbox".to_string(),
    ]);
    if options.headless {
        args.extend(["--headless=new", "--hide-scrollbars", "--mute-audio"].map(str::to_string));
    }
    // The start-up tab (see `Instance::initial_unused`): the headless shell opens none
    // without a URL, and the full browser's would be its new-tab page.
    args.push("about:blank".to_string());
    args
}

impl RunAs {
    /// Makes `folder` this user's, with `mode`: Chromium's profile (0700, its alone), or a
    /// folder it writes downloads into (0755, so later steps can read them).
    pub(super) fn own(&self, folder: &Path, mode: u32) -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        std::os::unix::fs::chown(folder, Some(self.uid), Some(self.gid))?;
        std::fs::set_permissions(folder, std::fs::Permissions::from_mode(mode))
    }
}

/// The last lines Chromium wrote to stderr, for the message when it will not start.
pub(super) type StderrTail = Arc<Mutex<VecDeque<String>>>;

/// Reads Chromium's stderr to the end (a full pipe would block it), keeping the last lines.
/// The task ends when Chromium does.
pub(super) fn drain_stderr(stderr: tokio::process::ChildStderr) -> (StderrTail, JoinHandle<()>) {
    let tail: StderrTail = Arc::new(Mutex::new(VecDeque::new()));
    let keep = tail.clone();
    let task = tokio::spawn(async move {
        let mut lines = BufReader::new(stderr).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            tracing::trace!("chromium: {line}");
            let mut tail = keep.lock().expect("stderr lock");
            if tail.len() == 20 {
                tail.pop_front();
            }
            tail.push_back(line);
        }
    });
    (tail, task)
}

/// A Chromium that answered its first command.
pub(super) struct Launched {
    pub conn: Arc<Connection>,
    /// The connection's reader task: it ends when the browser does.
    pub reader: JoinHandle<()>,
    pub child: tokio::process::Child,
    pub pid: Option<u32>,
    /// Its throwaway profile folder, removed when dropped.
    pub profile: Profile,
}

/// Starts Chromium in a throwaway profile and waits for it to answer.
pub(super) async fn launch(options: &BrowserOptions) -> Result<Launched, BrowserError> {
    let executable = find_chromium(options.executable.as_ref(), options.headless)
        .ok_or(BrowserError::NotFound)?;
    let failed = |detail: String| BrowserError::Launch {
        path: executable.display().to_string(),
        detail,
    };
    let profile =
        Profile::new().map_err(|e| failed(format!("could not create a profile folder: {e}")))?;
    if let Some(user) = options.run_as {
        user.own(profile.path(), 0o700).map_err(|e| {
            failed(format!(
                "could not give the profile folder to uid {}: {e}",
                user.uid
            ))
        })?;
    }

    // Chromium reads commands from fd 3 and writes answers and events to fd 4.
    let (commands_in, commands_out) =
        std::io::pipe().map_err(|e| failed(format!("could not create a pipe: {e}")))?;
    let (answers_in, answers_out) =
        std::io::pipe().map_err(|e| failed(format!("could not create a pipe: {e}")))?;
    let child_reads = commands_in.as_raw_fd();
    let child_writes = answers_out.as_raw_fd();
    let mut command = tokio::process::Command::new(&executable);
    if let Some(env) = &options.env {
        env.apply(command.as_std_mut());
    }
    if let Some(RunAs { uid, gid }) = options.run_as {
        // Its HOME is its profile folder: the caller's is neither its own nor writable by it
        // (std drops the supplementary groups too when switching from root).
        command.env("HOME", profile.path()).uid(uid).gid(gid);
    }
    command
        .args(command_line(options, profile.path()))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    // SAFETY: between fork and exec only async-signal-safe calls (fcntl, dup2) on
    // descriptors the child inherited; no allocation, no locks.
    #[expect(
        unsafe_code,
        reason = "pre_exec moves the pipe's ends to fds 3 and 4, where Chromium's --remote-debugging-pipe reads them"
    )]
    unsafe {
        command.pre_exec(move || {
            // Copies above 4 first (close-on-exec, so they do not leak into Chromium), so
            // that neither dup2 can overwrite the other end.
            let reads = libc::fcntl(child_reads, libc::F_DUPFD_CLOEXEC, 10);
            let writes = libc::fcntl(child_writes, libc::F_DUPFD_CLOEXEC, 10);
            if reads < 0 || writes < 0 || libc::dup2(reads, 3) < 0 || libc::dup2(writes, 4) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command.spawn().map_err(|e| match options.run_as {
        Some(user) if e.kind() == std::io::ErrorKind::PermissionDenied => failed(format!(
            "could not run it as uid {}: {e} (switching user needs root; and the executable and the folders above it must be readable by that user)",
            user.uid
        )),
        _ => failed(format!("could not run it: {e}")),
    })?;
    // Only Chromium may hold these ends, or its exit would never close the pipe.
    drop(commands_in);
    drop(answers_out);
    let pid = child.id();
    let stderr = child.stderr.take().map(drain_stderr);
    let to_browser = pipe::Sender::from_owned_fd(OwnedFd::from(commands_out))
        .map_err(|e| failed(format!("could not use the pipe: {e}")))?;
    let from_browser = pipe::Receiver::from_owned_fd(OwnedFd::from(answers_in))
        .map_err(|e| failed(format!("could not use the pipe: {e}")))?;
    let (conn, reader) = Connection::start(Transport::Pipe {
        to_browser,
        from_browser,
    });

    // The first answer says the browser is up; discovery reports the tabs pages open.
    let ready = tokio::time::timeout(
        options.launch_timeout,
        conn.send(None, &SetDiscoverTargets { discover: true }),
    )
    .await;
    let why = match ready {
        Ok(Ok(_)) => None,
        Ok(Err(_)) => Some("it exited before answering".to_string()),
        Err(_) => Some(format!(
            "it did not answer within {} s",
            options.launch_timeout.as_secs()
        )),
    };
    if let Some(why) = why {
        let _ = child.start_kill();
        reader.abort();
        let mut said = String::new();
        if let Some((tail, task)) = stderr {
            // Its stderr ends with it: read to the end for what it said on the way out.
            let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
            said = Vec::from(tail.lock().expect("stderr lock").clone()).join("\n");
        }
        return Err(failed(if said.is_empty() {
            why
        } else {
            format!("{why}; it said:\n{said}")
        }));
    }
    Ok(Launched {
        conn,
        reader,
        child,
        pid,
        profile,
    })
}
