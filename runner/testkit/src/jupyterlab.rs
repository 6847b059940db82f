//! A real JupyterLab (the PyPI registry fixture) on a free loopback port, with a fresh root
//! folder and fresh Jupyter config, data, runtime, settings and workspace folders, so nothing of
//! the machine's user leaks in; stopped with its kernels when dropped, or when the test process
//! dies.
//!
//! Configured as JupyterLab's own browser tests configure it (galata's
//! `configure_jupyter_server`: no token, no password, no XSRF check) and with everything that
//! would reach the internet off: the news feed and update check (`LabApp.news_url`,
//! `check_for_updates_class`, the `notification` settings), and the extension manager
//! (`readonly`, which never asks PyPI). Its REST API is the tests' oracle: what JupyterLab itself
//! says exists, not what Windup reported.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Starts JupyterLab in-process with the arguments its browser tests use, and stops it
/// (SIGTERM: the server shuts its kernels down) when its stdin reaches end of file: when the test
/// drops the server, or when the test process dies, whatever killed it. Shared with the benches.
const LAUNCHER: &str = include_str!("jupyterlab_launch.py");

/// How long a start may take on a loaded machine before the test gives up (infrastructure, not
/// an assertion: a healthy start takes 3 to 10 s).
const START_LIMIT: Duration = Duration::from_secs(120);

/// A running JupyterLab; dropping it stops the server and its kernels.
pub struct JupyterLab {
    /// `http://127.0.0.1:<port>/`.
    pub base: url::Url,
    /// The server's `root_dir`: what its file browser and contents API show.
    pub root: PathBuf,
    child: Child,
    stdin: Option<ChildStdin>,
    dir: tempfile::TempDir,
}

impl JupyterLab {
    /// Starts a fresh server and waits until its API answers.
    pub fn start() -> JupyterLab {
        let python = &crate::fixtures().jupyterlab_python;
        let dir = tempfile::tempdir().expect("temp dir");
        let at = |name: &str| {
            let path = dir.path().join(name);
            std::fs::create_dir_all(&path).expect("create dir");
            path
        };
        let root = at("root");
        let runtime = at("runtime");
        let settings = at("settings");
        // Never ask whether to fetch the news, never check for updates (each a web request).
        let notification = at("settings/@jupyterlab/apputils-extension");
        std::fs::write(
            notification.join("notification.jupyterlab-settings"),
            r#"{"fetchNews": "false", "checkForUpdates": false}"#,
        )
        .expect("write settings");
        let log = std::fs::File::create(dir.path().join("server.log")).expect("log file");
        let mut child = Command::new(python)
            .arg("-c")
            .arg(LAUNCHER)
            .arg(format!("--ServerApp.root_dir={}", root.display()))
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("LANG", "C.UTF-8")
            .env("HOME", at("home"))
            .env("JUPYTER_CONFIG_DIR", at("config"))
            .env("JUPYTER_DATA_DIR", at("data"))
            .env("JUPYTER_RUNTIME_DIR", &runtime)
            .env("JUPYTER_PLATFORM_DIRS", "1")
            .env("IPYTHONDIR", at("ipython"))
            .env("JUPYTERLAB_SETTINGS_DIR", &settings)
            .env("JUPYTERLAB_WORKSPACES_DIR", at("workspaces"))
            .stdin(Stdio::piped())
            .stdout(log.try_clone().expect("log file"))
            .stderr(log)
            .spawn()
            .expect("start JupyterLab (the fixture's venv python)");
        let stdin = child.stdin.take();
        let mut lab = JupyterLab {
            base: url::Url::parse("http://127.0.0.1/").expect("url"),
            root,
            child,
            stdin,
            dir,
        };
        let port = lab.wait_for_port(&runtime);
        lab.base = url::Url::parse(&format!("http://127.0.0.1:{port}/")).expect("url");
        let started = Instant::now();
        while lab.get("api/status").0 != 200 {
            lab.check_alive(started, "its API to answer");
            std::thread::sleep(Duration::from_millis(100));
        }
        lab
    }

    /// The port of the server's info file (`jpserver-<pid>.json`), written once it listens.
    fn wait_for_port(&mut self, runtime: &Path) -> u16 {
        let file = runtime.join(format!("jpserver-{}.json", self.child.id()));
        let started = Instant::now();
        loop {
            if let Ok(text) = std::fs::read_to_string(&file)
                && let Ok(info) = serde_json::from_str::<Value>(&text)
                && let Some(port) = info["port"].as_u64()
            {
                return u16::try_from(port).expect("port");
            }
            self.check_alive(started, "its info file");
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn check_alive(&mut self, started: Instant, what: &str) {
        let exited = self.child.try_wait().ok().flatten();
        assert!(
            exited.is_none() && started.elapsed() < START_LIMIT,
            "JupyterLab did not start ({}; waiting for {what}):\n{}",
            exited.map_or("still starting".to_string(), |s| s.to_string()),
            self.log()
        );
    }

    /// What the server has logged so far.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server.log")).unwrap_or_default()
    }

    /// The folder holding everything of this server (its runtime files name it, so its kernels'
    /// command lines do too).
    pub fn home(&self) -> &Path {
        self.dir.path()
    }

    /// `GET /api/contents/<path>` with its content: the file or folder as JupyterLab sees it,
    /// or None when it says there is none (404).
    pub fn contents(&self, path: &str) -> Option<Value> {
        match self.get(&format!("api/contents/{}?content=1", encode_path(path))) {
            (200, body) => Some(body),
            (404, _) => None,
            (status, body) => panic!("GET /api/contents/{path}: {status} {body}"),
        }
    }

    /// The names in a folder, sorted (`/api/contents/<folder>`).
    pub fn names(&self, folder: &str) -> Vec<String> {
        let listing = self
            .contents(folder)
            .unwrap_or_else(|| panic!("JupyterLab has no folder {folder}"));
        let mut names: Vec<String> = listing["content"]
            .as_array()
            .expect("a folder's content")
            .iter()
            .map(|e| e["name"].as_str().unwrap_or_default().to_string())
            .collect();
        names.sort();
        names
    }

    /// Creates a folder through the contents API, as galata's `tmpPath` fixture does.
    pub fn mkdir(&self, path: &str) {
        let (status, body) = self.request(
            "PUT",
            &format!("api/contents/{}", encode_path(path)),
            Some(r#"{"type": "directory"}"#),
        );
        assert!(
            status == 201 || status == 200,
            "mkdir {path}: {status} {body}"
        );
    }

    /// `GET /api/sessions`: the open documents with their kernels.
    pub fn sessions(&self) -> Vec<Value> {
        match self.get("api/sessions") {
            (200, Value::Array(sessions)) => sessions,
            (status, body) => panic!("GET /api/sessions: {status} {body}"),
        }
    }

    /// Shuts every session (and its kernel) down, so a flow run again starts as the first did.
    pub fn close_sessions(&self) {
        for session in self.sessions() {
            let id = session["id"].as_str().expect("session id");
            let (status, body) = self.request("DELETE", &format!("api/sessions/{id}"), None);
            assert_eq!(status, 204, "DELETE session {id}: {body}");
        }
    }

    /// A GET of a path under the base URL: status and JSON body (Null when not JSON).
    pub fn get(&self, path: &str) -> (u16, Value) {
        self.request("GET", path, None)
    }

    fn request(&self, method: &str, path: &str, body: Option<&str>) -> (u16, Value) {
        let port = self.base.port().expect("port");
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
            return (0, Value::Null);
        };
        let body = body.unwrap_or_default();
        // HTTP/1.0: one response, never chunked, then the server closes.
        let head = format!(
            "{method} /{path} HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        let mut raw = Vec::new();
        if stream.write_all(head.as_bytes()).is_err()
            || stream.write_all(body.as_bytes()).is_err()
            || stream.read_to_end(&mut raw).is_err()
        {
            return (0, Value::Null);
        }
        let text = String::from_utf8_lossy(&raw);
        let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
        let status = head
            .split_whitespace()
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        (status, serde_json::from_str(body).unwrap_or(Value::Null))
    }
}

impl Drop for JupyterLab {
    /// Closing stdin makes the server shut down its kernels and exit; it is killed if it has
    /// not after a while.
    fn drop(&mut self) {
        drop(self.stdin.take());
        let asked = Instant::now();
        while asked.elapsed() < Duration::from_secs(20) {
            if self.child.try_wait().ok().flatten().is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Percent-encodes a contents path, keeping its slashes.
fn encode_path(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
