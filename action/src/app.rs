//! `start-command` and `wait-for`: the app under test started inside the Action's container,
//! waited for, and stopped (with everything it started) when the run ends.
//!
//! The app is the pull request's code, so it gets nothing of the Action's: an environment
//! without tokens or keys (`environment`), its own process group, and, when the Action runs as
//! root (GitHub runs Docker actions as root), the user `nobody` (65534:65534) with a private
//! `HOME`. As `nobody` it cannot read the Action's `/proc/PID/environ`, signal it, or write
//! the runner's workflow-command files; it reads the workspace as any other user can
//! (actions/checkout leaves it readable), and writes only its `HOME` and `/tmp`. Run as
//! another user, the Action keeps that user for the app: it cannot switch, and is not root.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use windup_engine::env::ChildEnv;

/// How long the app may take to answer at `wait-for`.
pub const WAIT_TIMEOUT: Duration = Duration::from_secs(120);

/// Who runs start-command and Chromium when the Action is root: `nobody` (uid, gid), who owns
/// nothing in the container. Numeric, so no passwd entry is needed (Debian's image has one).
pub const NOBODY: (u32, u32) = (65534, 65534);

/// The user start-command (and Chromium) runs as, for an Action running as `euid`: `nobody`
/// for root, else the current user (`None`).
pub fn app_user(euid: u32) -> Option<(u32, u32)> {
    (euid == 0).then_some(NOBODY)
}

/// The app's process group; dropping it stops the app.
pub struct App {
    child: Child,
    /// The private `HOME` of an app run as `nobody`, removed after it.
    _home: Option<tempfile::TempDir>,
}

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("start-command could not be started: {0}")]
    Spawn(String),
    #[error("start-command exited before the app answered ({0})")]
    Exited(String),
    #[error("the app did not answer at {0} within {secs} s", secs = WAIT_TIMEOUT.as_secs())]
    Timeout(String),
}

impl App {
    /// Runs `command` with `sh -c` in `dir`, in its own process group, with exactly `env`, as
    /// [`app_user`], its output going to the step's log; then waits until `wait_for` answers
    /// HTTP.
    pub fn start(
        command: &str,
        dir: &Path,
        wait_for: &url::Url,
        env: &ChildEnv,
    ) -> Result<App, AppError> {
        // By path: the cleared environment may have no PATH to find it on.
        let mut sh = Command::new("/bin/sh");
        sh.arg("-c")
            .arg(command)
            .current_dir(dir)
            .stdin(Stdio::null())
            .process_group(0);
        env.apply(&mut sh);
        let user = app_user(euid());
        let home = match user {
            Some((uid, gid)) => {
                let home = private_home(uid, gid)
                    .map_err(|e| AppError::Spawn(format!("no private HOME for uid {uid}: {e}")))?;
                sh.env("HOME", home.path()).uid(uid).gid(gid);
                Some(home)
            }
            None => None,
        };
        let child = sh.spawn().map_err(|e| match user {
            Some((uid, _)) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                AppError::Spawn(format!(
                    "{e}: it runs as uid {uid} (nobody), not root, so `{}` and the folders above it must be readable by others (as actions/checkout leaves them)",
                    dir.display()
                ))
            }
            _ => AppError::Spawn(e.to_string()),
        })?;
        let mut app = App { child, _home: home };
        let deadline = Instant::now() + WAIT_TIMEOUT;
        loop {
            if answers(wait_for) {
                return Ok(app);
            }
            if let Ok(Some(status)) = app.child.try_wait() {
                return Err(AppError::Exited(status.to_string()));
            }
            if Instant::now() >= deadline {
                return Err(AppError::Timeout(wait_for.to_string()));
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Stops the whole process group: TERM, then KILL after five seconds.
    pub fn stop(mut self) {
        self.stop_group();
    }

    #[expect(
        unsafe_code,
        reason = "kill(2) on the process group: std can signal a child, not its group"
    )]
    fn stop_group(&mut self) {
        if let Ok(Some(_)) = self.child.try_wait() {
            return;
        }
        let group = self.child.id() as libc::pid_t;
        // SAFETY: kill(2) with a negative pid signals the process group we created with
        // process_group(0); it touches no memory.
        unsafe { libc::kill(-group, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                // The shell is gone; make sure nothing it started lingers.
                // SAFETY: as above.
                unsafe { libc::kill(-group, libc::SIGKILL) };
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        // SAFETY: as above.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

impl Drop for App {
    fn drop(&mut self) {
        self.stop_group();
    }
}

/// A fresh `HOME` for the app (caches such as npm's go there), owned by the app's user and
/// closed to everyone else.
fn private_home(uid: u32, gid: u32) -> std::io::Result<tempfile::TempDir> {
    let home = tempfile::Builder::new()
        .prefix("windup-app-home-")
        .tempdir()?;
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o700))?;
    std::os::unix::fs::chown(home.path(), Some(uid), Some(gid))?;
    Ok(home)
}

/// The effective user the Action runs as.
#[expect(
    unsafe_code,
    reason = "geteuid(2): std does not say who the process runs as"
)]
pub fn euid() -> u32 {
    // SAFETY: geteuid(2) takes no arguments, always succeeds and touches no memory.
    unsafe { libc::geteuid() }
}

/// Whether anything answers HTTP at `url` (any status: a 404 still means the server is up).
fn answers(url: &url::Url) -> bool {
    use std::io::{Read, Write};
    let Some(host) = url.host_str() else {
        return false;
    };
    let port = url.port_or_known_default().unwrap_or(80);
    let Ok(addrs) = std::net::ToSocketAddrs::to_socket_addrs(&(host, port)) else {
        return false;
    };
    for addr in addrs {
        let Ok(mut stream) = std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(2))
        else {
            continue;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
        let request = format!(
            "GET {} HTTP/1.0\r\nHost: {}\r\nConnection: close\r\n\r\n",
            &url[url::Position::BeforePath..],
            &url[url::Position::BeforeHost..url::Position::AfterPort]
        );
        if stream.write_all(request.as_bytes()).is_err() {
            continue;
        }
        let mut head = [0u8; 12];
        if stream.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/") {
            // Read the rest (bounded) before closing: a socket closed with unread data is
            // reset, and a server still writing logs the reset as an error (python3's
            // http.server prints a traceback into the step's log).
            let _ = std::io::copy(&mut (&mut stream).take(1 << 20), &mut std::io::sink());
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_that_exits_is_reported_and_nothing_is_left() {
        let url = url::Url::parse("http://127.0.0.1:9/").unwrap();
        // `/`: a folder any user may enter (as root, the test's app runs as nobody).
        let err = App::start("exit 3", Path::new("/"), &url, &ChildEnv::default())
            .err()
            .expect("no app");
        assert!(err.to_string().contains("exited"), "{err}");
    }

    #[test]
    fn root_hands_the_app_to_nobody_and_anyone_else_keeps_itself() {
        assert_eq!(app_user(0), Some((65534, 65534)));
        assert_eq!(app_user(1001), None);
    }
}
