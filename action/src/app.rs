//! `start-command` and `wait-for`: the app under test started inside the Action's container,
//! waited for, and stopped (with everything it started) when the run ends.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long the app may take to answer at `wait-for`.
pub const WAIT_TIMEOUT: Duration = Duration::from_secs(120);

/// The app's process group; dropping it stops the app.
pub struct App {
    child: Child,
}

#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error("start-command could not be started: {0}")]
    Spawn(std::io::Error),
    #[error("start-command exited before the app answered ({0})")]
    Exited(String),
    #[error("the app did not answer at {0} within {secs} s", secs = WAIT_TIMEOUT.as_secs())]
    Timeout(String),
}

impl App {
    /// Runs `command` with `sh -c` in `dir`, in its own process group, its output going to the
    /// step's log; then waits until `wait_for` answers HTTP.
    pub fn start(command: &str, dir: &Path, wait_for: &url::Url) -> Result<App, AppError> {
        let child = Command::new("sh")
            .arg("-c")
            .arg(command)
            .current_dir(dir)
            .stdin(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(AppError::Spawn)?;
        let mut app = App { child };
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
        let err = App::start("exit 3", Path::new("."), &url)
            .err()
            .expect("no app");
        assert!(err.to_string().contains("exited"), "{err}");
    }
}
