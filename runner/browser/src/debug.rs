//! A debug Chrome to work in (`windup browser`): the full Chromium with a persistent profile of
//! the project's own (`e2e/.windup/profile/`, owner-only), so the developer signs in once and
//! keeps it, and its debugging port on loopback, so `--cdp-url` runs and agents attach to it.
//!
//! It never uses the user's everyday profile (current Chrome refuses remote debugging there
//! anyway), and it refuses to start rather than start wrong: a port already taken (Chromium
//! would run without its debugging port) or a profile a running Chromium holds (Chromium would
//! hand the window to that one and exit) are named, as bad input, before anything starts.

use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::time::Duration;

use super::attach::json_version;
use super::launch::{StderrTail, drain_stderr, find_chromium};

/// How to start the debug browser.
#[derive(Debug, Clone)]
pub struct DebugOptions {
    /// The Chromium to run (`[browser] executable`); else the full browser found as
    /// [`find_chromium`] finds it for a headed run.
    pub executable: Option<PathBuf>,
    /// The profile folder, created owner-only (0700) when missing, tightened when not.
    pub profile: PathBuf,
    /// The debugging port on 127.0.0.1; 0 lets Chromium pick a free one.
    pub port: u16,
    /// Without a window (`--headless`, for tests and machines without a display).
    pub headless: bool,
    /// Extra Chromium flags, without leading dashes (`[browser] args`).
    pub args: Vec<String>,
    /// The page it opens (the project's base URL); `about:blank` when none.
    pub start_url: Option<url::Url>,
    /// How long Chromium may take to open its debugging port.
    pub launch_timeout: Duration,
}

/// Why the debug browser did not start.
#[derive(Debug, thiserror::Error)]
pub enum DebugError {
    /// Something already listens on the port.
    #[error(
        "port {port} on 127.0.0.1 is taken ({detail}); pass --port with another port (or --port 0 for any free one), or stop what listens there (a debug browser already running?)"
    )]
    PortTaken {
        /// The port asked for.
        port: u16,
        /// What binding it said.
        detail: String,
    },
    /// A running Chromium holds the profile (its `SingletonLock`).
    #[error(
        "the profile {profile} is in use by a running Chromium ({holder}); use that browser (its CDP URL is in the terminal that started it), or close it first"
    )]
    ProfileLocked {
        /// The profile folder.
        profile: String,
        /// Who holds it, as the lock names it (`host-pid`).
        holder: String,
    },
    /// The profile folder cannot be made or made private.
    #[error("cannot prepare the profile folder {profile}: {detail}")]
    Profile {
        /// The profile folder.
        profile: String,
        /// The I/O error.
        detail: String,
    },
    /// No full Chromium on this machine.
    #[error(
        "no Chromium found; install it (`apt-get install chromium`) or set `[browser] executable` in windup.toml or WINDUP_CHROMIUM"
    )]
    NotFound,
    /// Chromium did not start or did not open its debugging port.
    #[error("the browser at {path} did not start: {detail}")]
    Launch {
        /// The executable.
        path: String,
        /// Why, with the last lines it wrote to stderr.
        detail: String,
    },
}

impl DebugError {
    /// Whether the user can fix it by what they pass or stop (exit 2), rather than by
    /// installing or repairing something (exit 3).
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            DebugError::PortTaken { .. } | DebugError::ProfileLocked { .. }
        )
    }
}

/// The running debug browser.
pub struct DebugBrowser {
    child: tokio::process::Child,
    port: u16,
    stderr: Option<StderrTail>,
}

impl DebugBrowser {
    /// Checks the port and the profile, starts Chromium and waits until its debugging port is
    /// open: a given port once it answers `/json/version` as Chromium's (Chromium writes no
    /// `DevToolsActivePort` for one); a port of 0 as the profile's `DevToolsActivePort` names
    /// the real one.
    pub async fn start(options: &DebugOptions) -> Result<DebugBrowser, DebugError> {
        let executable =
            find_chromium(options.executable.as_ref(), false).ok_or(DebugError::NotFound)?;
        let failed = |detail: String| DebugError::Launch {
            path: executable.display().to_string(),
            detail,
        };
        prepare_profile(&options.profile)?;
        if options.port != 0 {
            // Chromium runs on without its debugging port when the port is taken: ask first.
            std::net::TcpListener::bind(("127.0.0.1", options.port)).map_err(|e| {
                DebugError::PortTaken {
                    port: options.port,
                    detail: e.to_string(),
                }
            })?;
        }
        let active_port = options.profile.join("DevToolsActivePort");
        // Left by an earlier run; the new one is written once the port is open.
        let _ = std::fs::remove_file(&active_port);
        let mut command = tokio::process::Command::new(&executable);
        command
            .args(command_line(options))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = command
            .spawn()
            .map_err(|e| failed(format!("could not run it: {e}")))?;
        let stderr = child.stderr.take().map(drain_stderr);
        let tail = stderr.as_ref().map(|(tail, _)| tail.clone());
        let deadline = tokio::time::Instant::now() + options.launch_timeout;
        let port = loop {
            if let Some(port) = read_active_port(&active_port) {
                break port;
            }
            if options.port != 0 && answers_on(options.port).await {
                break options.port;
            }
            if let Ok(Some(status)) = child.try_wait() {
                if let Some((_, task)) = stderr {
                    let _ = tokio::time::timeout(Duration::from_secs(2), task).await;
                }
                return Err(failed(with_tail(
                    format!(
                        "it exited ({status}) before opening its debugging port (a Chromium already running with this profile takes over its window and exits)"
                    ),
                    tail.as_ref(),
                )));
            }
            if tokio::time::Instant::now() >= deadline {
                let _ = child.start_kill();
                return Err(failed(with_tail(
                    format!(
                        "it did not open its debugging port within {} s",
                        options.launch_timeout.as_secs()
                    ),
                    tail.as_ref(),
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        Ok(DebugBrowser {
            child,
            port,
            stderr: tail,
        })
    }

    /// The address to attach with: `http://127.0.0.1:PORT`.
    pub fn cdp_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The debugging port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Chromium's process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Waits until Chromium exits (the user closed it).
    pub async fn wait(&mut self) -> std::io::Result<ExitStatus> {
        self.child.wait().await
    }

    /// The last lines Chromium wrote to stderr.
    pub fn stderr_tail(&self) -> String {
        with_tail(String::new(), self.stderr.as_ref())
            .trim()
            .to_string()
    }

    /// Stops Chromium gracefully (SIGTERM: it saves the profile's cookies and closes), and
    /// kills it when it has not exited within 10 s.
    pub async fn stop(mut self) {
        if let Some(pid) = self.child.id() {
            let _ = tokio::process::Command::new("kill")
                .arg("-TERM")
                .arg(pid.to_string())
                .status()
                .await;
        }
        if tokio::time::timeout(Duration::from_secs(10), self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.kill().await;
        }
    }
}

/// The command line: the profile, the debugging port on loopback, and the start page. None of
/// the automation flags of a browser Windup drives itself: this one is the developer's, who
/// signs in to sites with it (some refuse a browser that says it is automated).
/// The caller's flags come first: Chromium takes a switch's last value, so none of them can move
/// the port off loopback or the profile elsewhere.
fn command_line(options: &DebugOptions) -> Vec<String> {
    let mut args: Vec<String> = options
        .args
        .iter()
        .map(|a| format!("--{}", a.trim_start_matches('-')))
        .collect();
    args.extend([
        format!("--user-data-dir={}", options.profile.display()),
        format!("--remote-debugging-port={}", options.port),
        "--remote-debugging-address=127.0.0.1".to_string(),
        "--no-first-run".to_string(),
        "--no-default-browser-check".to_string(),
    ]);
    if options.headless {
        args.push("--headless=new".to_string());
    }
    if running_as_root() {
        // Chromium will not start its sandbox as root (containers, CI).
        args.push("--no-sandbox".to_string());
    }
    args.push(
        options
            .start_url
            .as_ref()
            .map_or("about:blank".to_string(), |u| u.to_string()),
    );
    args
}

/// Creates the profile folder owner-only, or makes an existing one so, and refuses one that a
/// running Chromium holds.
fn prepare_profile(profile: &Path) -> Result<(), DebugError> {
    let io = |e: std::io::Error| DebugError::Profile {
        profile: profile.display().to_string(),
        detail: e.to_string(),
    };
    std::fs::create_dir_all(profile).map_err(io)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(profile, std::fs::Permissions::from_mode(0o700)).map_err(io)?;
    }
    if let Some(holder) = lock_holder(profile) {
        return Err(DebugError::ProfileLocked {
            profile: profile.display().to_string(),
            holder,
        });
    }
    Ok(())
}

/// Who holds the profile: Chromium's `SingletonLock` is a symlink to `HOST-PID`. A lock from
/// this host whose process is gone is stale (Chromium takes it over); one from another host
/// cannot be checked, so it counts as held.
fn lock_holder(profile: &Path) -> Option<String> {
    let target = std::fs::read_link(profile.join("SingletonLock")).ok()?;
    let target = target.to_string_lossy().to_string();
    let (host, pid) = target.rsplit_once('-')?;
    let this_host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_default();
    let alive = pid.parse::<u32>().is_ok() && Path::new("/proc").join(pid).exists();
    (host != this_host || alive).then(|| format!("{host}, process {pid}"))
}

/// The port in `DevToolsActivePort` (its first line), once Chromium has written it.
/// Whether Chromium's debugging port answers on `port` (its `/json/version`).
async fn answers_on(port: u16) -> bool {
    if tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        return false;
    }
    let url = url::Url::parse(&format!("http://127.0.0.1:{port}")).expect("a loopback URL");
    json_version(&url, url.as_str()).await.is_ok()
}

fn read_active_port(path: &Path) -> Option<u16> {
    let text = std::fs::read_to_string(path).ok()?;
    text.lines().next()?.trim().parse().ok().filter(|p| *p != 0)
}

/// Whether this process runs as root (the owner of `/proc/self`).
fn running_as_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

fn with_tail(why: String, tail: Option<&StderrTail>) -> String {
    let said = tail
        .map(|t| Vec::from(t.lock().expect("stderr lock").clone()).join("\n"))
        .unwrap_or_default();
    if said.is_empty() {
        why
    } else {
        format!("{why}; it said:\n{said}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_of_a_live_process_holds_the_profile() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(lock_holder(dir.path()), None);
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap();
        let lock = dir.path().join("SingletonLock");
        std::os::unix::fs::symlink(format!("{}-{}", host.trim(), std::process::id()), &lock)
            .unwrap();
        assert!(lock_holder(dir.path()).is_some(), "this process is alive");
        std::fs::remove_file(&lock).unwrap();
        // No process has the largest pid: a stale lock.
        std::os::unix::fs::symlink(format!("{}-4194304", host.trim()), &lock).unwrap();
        assert_eq!(lock_holder(dir.path()), None);
    }

    #[test]
    fn the_debugging_port_is_on_loopback_only() {
        let options = DebugOptions {
            executable: None,
            profile: PathBuf::from("/p"),
            port: 9222,
            headless: false,
            args: vec!["remote-debugging-address=0.0.0.0".into()],
            start_url: None,
            launch_timeout: Duration::from_secs(1),
        };
        let args = command_line(&options);
        let address = |a: &&String| a.starts_with("--remote-debugging-address=");
        assert_eq!(
            args.iter().rfind(address).unwrap(),
            "--remote-debugging-address=127.0.0.1",
            "the last one wins"
        );
        assert!(args.contains(&"--remote-debugging-port=9222".to_string()));
        assert!(args.contains(&"--user-data-dir=/p".to_string()));
        assert!(!args.iter().any(|a| a.contains("enable-automation")));
        assert_eq!(args.last().unwrap(), "about:blank");
    }
}
