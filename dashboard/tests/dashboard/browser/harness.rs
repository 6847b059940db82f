//! A real Chromium on the dashboard's pages: the testkit's headless browser, driven over a CDP
//! connection of the test's own (never Windup's client: the dashboard links no browser). It
//! collects what the console reports (errors, failed loads, CSP refusals, uncaught exceptions),
//! so a test can assert that a page loaded with none.

use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};
use windup_testkit::chromium::{UserChromium, debug_json};

pub(crate) struct Browser {
    _chromium: UserChromium,
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next_id: u64,
    /// Console errors, failed loads and exceptions seen since the last [`Browser::take_errors`].
    errors: Vec<String>,
}

impl Browser {
    pub(crate) fn start() -> Browser {
        let chromium = UserChromium::start("about:blank");
        let targets = debug_json(chromium.port, "/json/list");
        let ws = targets
            .as_array()
            .and_then(|t| t.iter().find(|t| t["type"] == "page"))
            .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            .expect("a page target")
            .to_string();
        let (socket, _) = tungstenite::connect(ws).expect("page websocket");
        let mut browser = Browser {
            _chromium: chromium,
            socket,
            next_id: 0,
            errors: Vec::new(),
        };
        for domain in ["Page.enable", "Runtime.enable", "Log.enable"] {
            browser.send(domain, json!({}));
        }
        browser.send(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": false}),
        );
        browser
    }

    /// One command on the page; its `result`. Events read meanwhile are collected.
    pub(crate) fn send(&mut self, method: &str, params: Value) -> Value {
        self.command(method, params)
            .unwrap_or_else(|error| panic!("{method}: {error}"))
    }

    /// One command on the page: its `result`, or the answer holding its `error`.
    fn command(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let command = json!({"id": id, "method": method, "params": params}).to_string();
        self.socket.send(Message::text(command)).expect("send");
        loop {
            let message = self.socket.read().expect("read");
            let Ok(text) = message.to_text() else {
                continue;
            };
            let Ok(value) = serde_json::from_str::<Value>(text) else {
                continue;
            };
            if value["id"] == id {
                return if value["error"].is_null() {
                    Ok(value["result"].clone())
                } else {
                    Err(value)
                };
            }
            self.observe(&value);
        }
    }

    fn observe(&mut self, event: &Value) {
        let params = &event["params"];
        match event["method"].as_str() {
            Some("Runtime.consoleAPICalled") if params["type"] == "error" => {
                self.errors
                    .push(format!("console.error: {}", params["args"]));
            }
            Some("Runtime.exceptionThrown") => {
                self.errors
                    .push(format!("exception: {}", params["exceptionDetails"]));
            }
            Some("Log.entryAdded") if params["entry"]["level"] == "error" => {
                self.errors.push(format!(
                    "{}: {} ({})",
                    params["entry"]["source"], params["entry"]["text"], params["entry"]["url"]
                ));
            }
            _ => {}
        }
    }

    /// The value of a JavaScript expression in the page (awaited when a promise).
    pub(crate) fn eval(&mut self, expression: &str) -> Value {
        let r = self.send(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(
            r["exceptionDetails"].is_null(),
            "{expression}: {}",
            r["exceptionDetails"]
        );
        r["result"]["value"].clone()
    }

    pub(crate) fn text(&mut self, expression: &str) -> String {
        self.eval(expression)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    /// Waits (up to 20 s, for a loaded machine) until `condition` is true in the page.
    pub(crate) fn wait_for(&mut self, condition: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let expression = format!("!!({condition})");
        loop {
            let evaluated = self.command(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true}),
            );
            match evaluated {
                Ok(r) if r["result"]["value"] == json!(true) => return,
                Ok(r) => assert!(r["exceptionDetails"].is_null(), "{expression}: {r}"),
                // A navigation (the one waited for, often) ended the page the look ran in: not
                // yet, look again in the next document.
                Err(e) if e["error"]["message"] == "Inspected target navigated or closed" => {}
                Err(e) => panic!("Runtime.evaluate: {e}"),
            }
            assert!(
                Instant::now() < deadline,
                "the page never showed {condition}; it is at {}: {}",
                self.text("location.href"),
                self.text("document.body ? document.body.innerText.slice(0, 2000) : ''")
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Opens `url` and waits until it has loaded, its htmx included.
    pub(crate) fn open(&mut self, url: &str) {
        self.send("Page.navigate", json!({"url": url}));
        self.wait_for(&format!(
            "location.href === {} && document.readyState === 'complete'",
            json!(url)
        ));
    }

    /// Waits for a navigation the page started (a form, a link) to finish at a URL whose path
    /// is `path`.
    pub(crate) fn landed(&mut self, path: &str) {
        self.wait_for(&format!(
            "location.pathname === {} && document.readyState === 'complete'",
            json!(path)
        ));
    }

    /// A key pressed and released on the page.
    pub(crate) fn press(&mut self, key: &str, code: &str, key_code: u32) {
        for kind in ["keyDown", "keyUp"] {
            self.send(
                "Input.dispatchKeyEvent",
                json!({"type": kind, "key": key, "code": code,
                       "windowsVirtualKeyCode": key_code, "nativeVirtualKeyCode": key_code}),
            );
        }
    }

    /// The errors collected since the last call.
    pub(crate) fn take_errors(&mut self) -> Vec<String> {
        // Events that arrived after the last command are read by a command.
        self.eval("1");
        std::mem::take(&mut self.errors)
    }

    /// Saves a PNG of the whole page to `WINDUP_SCREENSHOTS_DIR/name.png`, when that is set.
    pub(crate) fn screenshot(&mut self, name: &str) {
        let Some(dir) = std::env::var_os("WINDUP_SCREENSHOTS_DIR") else {
            return;
        };
        let shot = self.send(
            "Page.captureScreenshot",
            json!({"format": "png", "captureBeyondViewport": true}),
        );
        use base64::Engine as _;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(shot["data"].as_str().expect("png data"))
            .expect("base64");
        let dir = std::path::PathBuf::from(dir);
        std::fs::create_dir_all(&dir).expect("screenshots folder");
        std::fs::write(dir.join(format!("{name}.png")), bytes).expect("write screenshot");
    }
}
