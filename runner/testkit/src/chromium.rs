//! A Chromium of the user's own, as a developer starts one for `--cdp-url`: its debugging port
//! on loopback (port 0, read back from `DevToolsActivePort`), a profile of its own and a tab
//! on a page. Tests look at it from outside, through `/json/list` and a blocking CDP client of
//! their own (never Windup's), to check what an attached run left alone.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The user's Chromium; killed when dropped.
pub struct UserChromium {
    child: Child,
    /// Its debugging port on 127.0.0.1.
    pub port: u16,
    _profile: tempfile::TempDir,
}

impl Drop for UserChromium {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The full Chromium (`WINDUP_CHROMIUM`, else `/usr/bin/chromium`, else `chromium` on PATH).
pub fn full_chromium() -> PathBuf {
    if let Some(p) = std::env::var_os("WINDUP_CHROMIUM") {
        return PathBuf::from(p);
    }
    let debian = PathBuf::from("/usr/bin/chromium");
    if debian.exists() {
        debian
    } else {
        PathBuf::from("chromium")
    }
}

impl UserChromium {
    /// Starts headless Chromium with a tab on `url`, and waits until that tab is listed.
    pub fn start(url: &str) -> UserChromium {
        let profile = tempfile::tempdir().expect("profile");
        let mut command = Command::new(full_chromium());
        command
            .arg("--headless=new")
            .arg("--remote-debugging-port=0")
            .arg("--remote-debugging-address=127.0.0.1")
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args([
                "--no-first-run",
                "--no-default-browser-check",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
            ])
            .arg(url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let child = command.spawn().expect("start chromium");
        let active = profile.path().join("DevToolsActivePort");
        // A cold first start of the full browser on a loaded CI machine (fresh font caches, other
        // tests' browsers starting at once) has taken over 30 s.
        let deadline = Instant::now() + Duration::from_secs(120);
        let port = loop {
            let port = std::fs::read_to_string(&active)
                .ok()
                .and_then(|t| t.lines().next().and_then(|l| l.trim().parse::<u16>().ok()));
            if let Some(port) = port.filter(|p| *p != 0) {
                break port;
            }
            assert!(
                Instant::now() < deadline,
                "chromium opened no debugging port"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        let chromium = UserChromium {
            child,
            port,
            _profile: profile,
        };
        chromium.wait_until(|c| c.page_urls().iter().any(|u| u == url), "its tab");
        chromium
    }

    /// `http://127.0.0.1:PORT`, what `--cdp-url` takes.
    pub fn cdp_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// The browser's own WebSocket, from `/json/version`.
    pub fn ws_url(&self) -> String {
        self.get_json("/json/version")["webSocketDebuggerUrl"]
            .as_str()
            .expect("webSocketDebuggerUrl")
            .to_string()
    }

    /// Whether the process is still running.
    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The URLs of its page targets (tabs), from `/json/list`.
    pub fn page_urls(&self) -> Vec<String> {
        self.get_json("/json/list")
            .as_array()
            .expect("a list")
            .iter()
            .filter(|t| t["type"] == "page")
            .filter_map(|t| t["url"].as_str().map(str::to_string))
            .collect()
    }

    /// The cookies of its default context (`Storage.getCookies`, no context named).
    pub fn default_cookies(&self) -> Vec<Value> {
        self.cdp("Storage.getCookies", json!({}))["cookies"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// The browser contexts besides the default one (`Target.getBrowserContexts`).
    pub fn contexts(&self) -> Vec<String> {
        self.cdp("Target.getBrowserContexts", json!({}))["browserContextIds"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c.as_str().map(str::to_string))
            .collect()
    }

    /// Polls `ready` for up to 15 s.
    pub fn wait_until(&self, ready: impl Fn(&Self) -> bool, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(15);
        while !ready(self) {
            assert!(Instant::now() < deadline, "chromium never showed {what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// One browser-level CDP command on a connection of its own; its `result`.
    pub fn cdp(&self, method: &str, params: Value) -> Value {
        let (mut socket, _) = tungstenite::connect(self.ws_url()).expect("cdp websocket");
        let command = json!({"id": 1, "method": method, "params": params}).to_string();
        socket
            .send(tungstenite::Message::text(command))
            .expect("send");
        loop {
            let message = socket.read().expect("read");
            let Ok(text) = message.to_text() else {
                continue;
            };
            let Ok(value) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            if value["id"] == 1 {
                let _ = socket.close(None);
                assert!(value["error"].is_null(), "{method}: {value}");
                return value["result"].clone();
            }
        }
    }

    fn get_json(&self, path: &str) -> Value {
        debug_json(self.port, path)
    }
}

/// GETs a path of a debugging HTTP endpoint on 127.0.0.1 (`/json/version`, `/json/list`) as
/// JSON.
pub fn debug_json(port: u16, path: &str) -> Value {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .expect("timeout");
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n"
    )
    .expect("write");
    // Chromium keeps the connection open whatever the request says: read by Content-Length.
    let mut answer = Vec::new();
    let mut chunk = [0u8; 16384];
    loop {
        let text = String::from_utf8_lossy(&answer).to_string();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(usize::MAX);
            if body.len() >= length {
                return serde_json::from_str(body)
                    .unwrap_or_else(|e| panic!("{path}: {e}: {text}"));
            }
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => {
                let text = String::from_utf8_lossy(&answer).to_string();
                let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b);
                return serde_json::from_str(body)
                    .unwrap_or_else(|e| panic!("{path}: {e}: {text}"));
            }
            Ok(n) => answer.extend_from_slice(&chunk[..n]),
        }
    }
}

/// The local addresses that listen on TCP `port`, as the kernel lists them (`/proc/net/tcp`
/// and `tcp6`): `127.0.0.1`, `0.0.0.0`, `::`…
pub fn listening_addresses(port: u16) -> Vec<String> {
    let mut out = Vec::new();
    for (file, v6) in [("/proc/net/tcp", false), ("/proc/net/tcp6", true)] {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        for line in text.lines().skip(1) {
            let fields: Vec<&str> = line.split_whitespace().collect();
            // local_address is fields[1] as HEXADDR:HEXPORT; state 0A is LISTEN.
            let (Some(local), Some(state)) = (fields.get(1), fields.get(3)) else {
                continue;
            };
            let Some((addr, p)) = local.split_once(':') else {
                continue;
            };
            if *state != "0A" || u16::from_str_radix(p, 16).ok() != Some(port) {
                continue;
            }
            out.push(if v6 {
                let words: Vec<u32> = (0..4)
                    .map(|i| u32::from_str_radix(&addr[i * 8..i * 8 + 8], 16).unwrap_or(0))
                    .collect();
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
                let octets: [u8; 16] = bytes.try_into().unwrap_or([0; 16]);
                std::net::Ipv6Addr::from(octets).to_string()
            } else {
                let n = u32::from_str_radix(addr, 16).unwrap_or(0);
                std::net::Ipv4Addr::from(n.to_le_bytes()).to_string()
            });
        }
    }
    out
}

/// Processes whose command line mentions `text` (a profile folder, say).
pub fn processes_mentioning(text: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains(text))
        })
        .collect()
}
