//! The single browser boundary: Chromium driven over the Chrome DevTools Protocol by a small
//! client of our own.
//!
//! Chromium is started with `--remote-debugging-pipe`: commands go to its fd 3 and answers and
//! events come back on its fd 4, as NUL-terminated JSON, so there is no port to discover and no
//! websocket. Sessions are flat (`flatten: true`): one reader task hands each answer to its
//! command by id and each event to its session's subscribers by session id. A page is set up
//! with only what [`Session`] uses (the Page domain with lifecycle events, Network events for
//! the failed requests of the evidence, the in-page engine for new documents, the viewport),
//! sent at once rather than one command after another.
//!
//! One lazily started Chromium per process; a fresh, isolated browser context per scenario
//! ([`Session`]); trusted input through the Input domain. Everything CDP-specific stays in this
//! module.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::JoinHandle;
use windup_model::keys::Chord;

/// How long a command may go unanswered before the browser counts as hung.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// A CDP event: its method and parameters.
#[derive(Debug)]
struct CdpEvent {
    method: String,
    params: Value,
}

/// Who receives events: those of one session, or the browser's own (`session` None).
struct Subscriber {
    session: Option<String>,
    events: mpsc::UnboundedSender<CdpEvent>,
}

/// A message from Chromium: an answer (`id`) or an event (`method`).
#[derive(serde::Deserialize)]
struct Incoming {
    id: Option<u64>,
    result: Option<Value>,
    error: Option<ProtocolError>,
    method: Option<String>,
    params: Option<Value>,
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

#[derive(serde::Deserialize)]
struct ProtocolError {
    code: i64,
    message: String,
}

type Reply = oneshot::Sender<Result<Value, BrowserError>>;

/// The connection to one Chromium over its debugging pipe.
struct Connection {
    /// Whole messages for the writer task: a command is never half-written, even when the
    /// caller gives up on it.
    outgoing: mpsc::UnboundedSender<Vec<u8>>,
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, Reply>>,
    subscribers: Mutex<Vec<Subscriber>>,
    /// False once the pipe has closed: Chromium exited or was killed.
    alive: AtomicBool,
}

/// Forgets a command's reply slot when its caller stops waiting.
struct PendingGuard<'a> {
    conn: &'a Connection,
    id: u64,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        self.conn
            .pending
            .lock()
            .expect("pending lock")
            .remove(&self.id);
    }
}

impl Connection {
    /// Starts the writer and reader tasks over the two pipe ends. The reader task ends when
    /// Chromium closes its end.
    fn start(
        to_browser: pipe::Sender,
        from_browser: pipe::Receiver,
    ) -> (Arc<Self>, JoinHandle<()>) {
        let (outgoing, mut queue) = mpsc::unbounded_channel::<Vec<u8>>();
        let conn = Arc::new(Connection {
            outgoing,
            next_id: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            subscribers: Mutex::new(Vec::new()),
            alive: AtomicBool::new(true),
        });
        tokio::spawn(async move {
            let mut to_browser = to_browser;
            while let Some(message) = queue.recv().await {
                if let Err(e) = to_browser.write_all(&message).await {
                    tracing::debug!("browser pipe closed for writing: {e}");
                    break;
                }
            }
        });
        let reader = conn.clone();
        let handle = tokio::spawn(async move {
            let mut from_browser = BufReader::with_capacity(64 * 1024, from_browser);
            let mut buf = Vec::with_capacity(64 * 1024);
            loop {
                buf.clear();
                match from_browser.read_until(0, &mut buf).await {
                    Ok(0) => break,
                    Ok(_) => {
                        if buf.last() == Some(&0) {
                            buf.pop();
                        }
                        reader.dispatch(&buf);
                    }
                    Err(e) => {
                        tracing::debug!("browser pipe closed for reading: {e}");
                        break;
                    }
                }
            }
            reader.shut_down();
        });
        (conn, handle)
    }

    fn dispatch(&self, raw: &[u8]) {
        let message: Incoming = match serde_json::from_slice(raw) {
            Ok(m) => m,
            Err(e) => {
                tracing::debug!("unreadable message from the browser: {e}");
                return;
            }
        };
        if let Some(id) = message.id {
            let reply = self.pending.lock().expect("pending lock").remove(&id);
            if let Some(reply) = reply {
                let outcome = match message.error {
                    Some(e) => Err(protocol_error(e.code, &e.message)),
                    None => Ok(message.result.unwrap_or(Value::Null)),
                };
                let _ = reply.send(outcome);
            }
            return;
        }
        let Some(method) = message.method else {
            return;
        };
        tracing::trace!("cdp event {method}");
        let params = message.params.unwrap_or(Value::Null);
        let mut subscribers = self.subscribers.lock().expect("subscribers lock");
        let count = subscribers
            .iter()
            .filter(|s| s.session == message.session_id)
            .count();
        // Most events have one subscriber, which then gets the params without a copy.
        let mut params = Some(params);
        let mut seen = 0;
        subscribers.retain(|s| {
            if s.session != message.session_id {
                return true;
            }
            seen += 1;
            let params = if seen == count {
                params.take()
            } else {
                params.clone()
            };
            let event = CdpEvent {
                method: method.clone(),
                params: params.unwrap_or(Value::Null),
            };
            // A closed receiver means its session is gone.
            s.events.send(event).is_ok()
        });
    }

    /// Marks the browser gone, fails every waiting command and ends every subscription.
    fn shut_down(&self) {
        // Before draining: a command registered after the drain sees the flag and gives up.
        self.alive.store(false, Ordering::SeqCst);
        let pending = std::mem::take(&mut *self.pending.lock().expect("pending lock"));
        for (_, reply) in pending {
            let _ = reply.send(Err(BrowserError::Crashed(
                "the browser connection closed".into(),
            )));
        }
        self.subscribers.lock().expect("subscribers lock").clear();
    }

    fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// Events of `session` (None: the browser's own) from now on, until the receiver is
    /// dropped or the browser goes away.
    fn subscribe(&self, session: Option<&str>) -> mpsc::UnboundedReceiver<CdpEvent> {
        let (events, receiver) = mpsc::unbounded_channel();
        // Checked under the lock that `shut_down` clears under, so no subscriber outlives it.
        let mut subscribers = self.subscribers.lock().expect("subscribers lock");
        if self.is_alive() {
            subscribers.push(Subscriber {
                session: session.map(str::to_string),
                events,
            });
        }
        receiver
    }

    /// Sends a command (to a page's session, or to the browser when `session` is None) and
    /// waits for its answer.
    async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, BrowserError> {
        let gone = || BrowserError::Crashed("the browser process is gone".into());
        if !self.is_alive() {
            return Err(gone());
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut message = match session {
            Some(s) => serde_json::to_vec(
                &json!({"id": id, "method": method, "params": params, "sessionId": s}),
            ),
            None => serde_json::to_vec(&json!({"id": id, "method": method, "params": params})),
        }
        .map_err(|e| BrowserError::Protocol(e.to_string()))?;
        message.push(0);
        let (reply, answer) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(id, reply);
        let _guard = PendingGuard { conn: self, id };
        if !self.is_alive() || self.outgoing.send(message).is_err() {
            return Err(gone());
        }
        tracing::trace!("cdp command {id} {method}");
        match tokio::time::timeout(COMMAND_TIMEOUT, answer).await {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(_)) => Err(BrowserError::Crashed(
                "the browser connection closed".into(),
            )),
            Err(_) => Err(BrowserError::Crashed(format!(
                "the browser did not answer {method} within {} s",
                COMMAND_TIMEOUT.as_secs()
            ))),
        }
    }
}

/// A CDP error answer, worded as before: `Error <code>: <message>`.
fn protocol_error(code: i64, message: &str) -> BrowserError {
    if is_context_lost(message) {
        BrowserError::ContextLost
    } else {
        BrowserError::Protocol(format!("Error {code}: {message}"))
    }
}

fn string_field(value: &Value, field: &str) -> Result<String, BrowserError> {
    value
        .get(field)
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| BrowserError::Protocol(format!("the browser's answer has no `{field}`")))
}

/// The in-page engine: locators, actionability, snapshots. Plain data in, plain data out.
pub const INJECTED_JS: &str = include_str!("injected/windup.js");

/// Errors at the browser boundary.
#[derive(Debug, Clone, thiserror::Error)]
pub enum BrowserError {
    #[error(
        "no Chromium found; install it (`apt-get install chromium`) or set `[browser] executable` in windup.toml or WINDUP_CHROMIUM"
    )]
    NotFound,
    #[error("the browser at {path} would not start: {detail}")]
    Launch { path: String, detail: String },
    #[error("the browser crashed or stopped answering: {0}")]
    Crashed(String),
    #[error("the page's document was replaced while it was being read")]
    ContextLost,
    #[error("a script in the page failed: {0}")]
    Script(String),
    #[error("{0}")]
    Protocol(String),
}

fn is_context_lost(text: &str) -> bool {
    text.contains("Execution context was destroyed")
        || text.contains("Cannot find context")
        || text.contains("Inspected target navigated or closed")
        || text.contains("Cannot find default execution context")
}

/// How to start Chromium.
#[derive(Debug, Clone)]
pub struct BrowserOptions {
    pub executable: Option<PathBuf>,
    pub headless: bool,
    pub viewport: (u32, u32),
    /// Extra Chromium flags, without leading dashes.
    pub args: Vec<String>,
    pub launch_timeout: Duration,
    /// Whether a closed session's tab is reset and handed to the next scenario instead of
    /// disposing of its context (see [`Session::close`]).
    pub reuse_tabs: bool,
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
    // Keeps cross-site iframes in-process, where the locator engine can reach them.
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
    let direct = std::path::Path::new(name);
    if direct.is_absolute() {
        return direct.is_file().then(|| direct.to_path_buf());
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
}

/// One running Chromium.
struct Instance {
    conn: Arc<Connection>,
    /// The reader task: it ends when the browser does.
    reader: JoinHandle<()>,
    child: tokio::sync::Mutex<tokio::process::Child>,
    pid: Option<u32>,
    viewport: (u32, u32),
    /// Whether the tab Chromium opens at start-up is still unused. The first scenario of a
    /// process takes it: in a fresh profile it is as isolated as a new context, and its
    /// renderer is already running, which saves the largest fixed cost of a replay.
    initial_unused: AtomicBool,
    /// The contexts this client made, so the start-up tab (in the default one) is told apart.
    contexts: Mutex<std::collections::HashSet<String>>,
    /// Closed sessions whose tabs are being reset, and those ready for the next scenario.
    tabs: Mutex<TabPool>,
    tabs_changed: Notify,
    reuse_tabs: bool,
    _profile: tempfile::TempDir,
}

/// Tabs kept between scenarios (see [`Session::close`]).
#[derive(Default)]
struct TabPool {
    ready: Vec<Session>,
    resetting: usize,
    /// Sessions handed out and not yet closed (see [`InUse`]).
    in_use: usize,
}

/// Counts a session as in use from [`Browser::new_session`] until it is closed or dropped.
struct InUse(Arc<Instance>);

impl InUse {
    fn new(instance: &Arc<Instance>) -> InUse {
        instance.tabs.lock().expect("tabs lock").in_use += 1;
        InUse(instance.clone())
    }
}

impl Drop for InUse {
    fn drop(&mut self) {
        self.0.tabs.lock().expect("tabs lock").in_use -= 1;
    }
}

impl Instance {
    fn is_alive(&self) -> bool {
        self.conn.is_alive() && !self.reader.is_finished()
    }
}

/// The last lines Chromium wrote to stderr, for the message when it will not start.
type StderrTail = Arc<Mutex<VecDeque<String>>>;

/// Reads Chromium's stderr to the end (a full pipe would block it), keeping the last lines.
/// The task ends when Chromium does.
fn drain_stderr(stderr: tokio::process::ChildStderr) -> (StderrTail, JoinHandle<()>) {
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

/// The process-wide browser: started on first use, restarted after a crash.
/// Cloning is cheap and shares the same Chromium.
#[derive(Clone)]
pub struct Browser {
    options: Arc<BrowserOptions>,
    state: Arc<tokio::sync::Mutex<Option<Arc<Instance>>>>,
}

impl Browser {
    pub fn new(options: BrowserOptions) -> Self {
        Browser {
            options: Arc::new(options),
            state: Arc::new(tokio::sync::Mutex::new(None)),
        }
    }

    /// Starts Chromium now, if it is not running, so start-up failures surface early.
    pub async fn ensure_started(&self) -> Result<(), BrowserError> {
        self.instance().await.map(|_| ())
    }

    async fn instance(&self) -> Result<Arc<Instance>, BrowserError> {
        let mut state = self.state.lock().await;
        if let Some(instance) = state.as_ref()
            && instance.is_alive()
        {
            return Ok(instance.clone());
        }
        if let Some(dead) = state.take() {
            tracing::warn!("the browser died; starting a new one");
            dead.reader.abort();
            dead.tabs.lock().expect("tabs lock").ready.clear();
        }
        let started = std::time::Instant::now();
        let instance = Arc::new(self.launch().await?);
        tracing::debug!("browser started in {:?}", started.elapsed());
        *state = Some(instance.clone());
        Ok(instance)
    }

    /// The command line: our flags, the caller's, then what this client needs.
    fn command_line(&self, profile: &std::path::Path) -> Vec<String> {
        let (width, height) = self.options.viewport;
        let mut args: Vec<String> = CHROMIUM_FLAGS
            .iter()
            .copied()
            .chain(self.options.args.iter().map(|a| a.trim_start_matches('-')))
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
        if self.options.headless {
            args.extend(
                ["--headless=new", "--hide-scrollbars", "--mute-audio"].map(str::to_string),
            );
        }
        // The start-up tab (see `Instance::initial_unused`): the headless shell opens none
        // without a URL, and the full browser's would be its new-tab page.
        args.push("about:blank".to_string());
        args
    }

    async fn launch(&self) -> Result<Instance, BrowserError> {
        let executable = find_chromium(self.options.executable.as_ref(), self.options.headless)
            .ok_or(BrowserError::NotFound)?;
        let failed = |detail: String| BrowserError::Launch {
            path: executable.display().to_string(),
            detail,
        };
        let profile = tempfile::Builder::new()
            .prefix("windup-chromium-")
            .tempdir()
            .map_err(|e| failed(format!("could not create a profile folder: {e}")))?;

        // Chromium reads commands from fd 3 and writes answers and events to fd 4.
        let (commands_in, commands_out) =
            std::io::pipe().map_err(|e| failed(format!("could not create a pipe: {e}")))?;
        let (answers_in, answers_out) =
            std::io::pipe().map_err(|e| failed(format!("could not create a pipe: {e}")))?;
        let child_reads = commands_in.as_raw_fd();
        let child_writes = answers_out.as_raw_fd();
        let mut command = tokio::process::Command::new(&executable);
        command
            .args(self.command_line(profile.path()))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        // SAFETY: between fork and exec only async-signal-safe calls (fcntl, dup2) on
        // descriptors the child inherited; no allocation, no locks.
        unsafe {
            command.pre_exec(move || {
                // Copies above 4 first (close-on-exec, so they do not leak into Chromium), so
                // that neither dup2 can overwrite the other end.
                let reads = libc::fcntl(child_reads, libc::F_DUPFD_CLOEXEC, 10);
                let writes = libc::fcntl(child_writes, libc::F_DUPFD_CLOEXEC, 10);
                if reads < 0 || writes < 0 || libc::dup2(reads, 3) < 0 || libc::dup2(writes, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command
            .spawn()
            .map_err(|e| failed(format!("could not run it: {e}")))?;
        // Only Chromium may hold these ends, or its exit would never close the pipe.
        drop(commands_in);
        drop(answers_out);
        let pid = child.id();
        let stderr = child.stderr.take().map(drain_stderr);
        let to_browser = pipe::Sender::from_owned_fd(OwnedFd::from(commands_out))
            .map_err(|e| failed(format!("could not use the pipe: {e}")))?;
        let from_browser = pipe::Receiver::from_owned_fd(OwnedFd::from(answers_in))
            .map_err(|e| failed(format!("could not use the pipe: {e}")))?;
        let (conn, reader) = Connection::start(to_browser, from_browser);

        // The first answer says the browser is up; discovery reports the tabs pages open.
        let ready = tokio::time::timeout(
            self.options.launch_timeout,
            conn.call(None, "Target.setDiscoverTargets", json!({"discover": true})),
        )
        .await;
        let why = match ready {
            Ok(Ok(_)) => None,
            Ok(Err(_)) => Some("it exited before answering".to_string()),
            Err(_) => Some(format!(
                "it did not answer within {} s",
                self.options.launch_timeout.as_secs()
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
        Ok(Instance {
            conn,
            reader,
            child: tokio::sync::Mutex::new(child),
            pid,
            viewport: self.options.viewport,
            initial_unused: AtomicBool::new(true),
            contexts: Mutex::default(),
            tabs: Mutex::new(TabPool::default()),
            tabs_changed: Notify::new(),
            reuse_tabs: self.options.reuse_tabs,
            _profile: profile,
        })
    }

    /// The Chromium process id, when one is running (tests use it to kill the browser).
    pub async fn pid(&self) -> Option<u32> {
        self.state.lock().await.as_ref().and_then(|i| i.pid)
    }

    /// Opens an isolated context with one page in it.
    pub async fn new_session(&self) -> Result<Session, BrowserError> {
        let mut session = self.any_session().await?;
        session.in_use = Some(InUse::new(&session.instance));
        Ok(session)
    }

    async fn any_session(&self) -> Result<Session, BrowserError> {
        let instance = self.instance().await?;
        if let Some(session) = Self::reused_tab(&instance).await {
            return Ok(session);
        }
        match Session::open(instance.clone()).await {
            Err(BrowserError::Crashed(reason)) => {
                // The reader may not have noticed the death yet: mark it, start afresh once.
                tracing::warn!("the browser did not answer ({reason}); restarting it");
                instance.conn.alive.store(false, Ordering::SeqCst);
                if let Some(pid) = instance.pid {
                    kill_pid(pid);
                }
                Session::open(self.instance().await?).await
            }
            other => other,
        }
    }

    /// A reset tab from an earlier scenario, else none (the caller opens a new tab) when no tab
    /// is being reset, or when one is while other scenarios run: then the reset overlaps the
    /// next scenario instead of holding up a job slot (a reset takes about a third of a short
    /// scenario). A new tab is opened so only while at most one is idle and another is in use,
    /// so a run keeps at most one tab more than it runs scenarios at once, and one scenario at
    /// a time (`-j 1`) keeps a single tab: a spare renderer costs about as much memory as the
    /// one in use, which the suite benchmark counts. Otherwise it waits for the reset.
    async fn reused_tab(instance: &Instance) -> Option<Session> {
        if !instance.reuse_tabs {
            return None;
        }
        let deadline = tokio::time::Instant::now() + TAB_RESET_TIMEOUT;
        loop {
            let changed = instance.tabs_changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            {
                let mut tabs = instance.tabs.lock().expect("tabs lock");
                while let Some(session) = tabs.ready.pop() {
                    if session.is_alive() {
                        return Some(session);
                    }
                }
                if tabs.resetting == 0 || (tabs.resetting == 1 && tabs.in_use > 0) {
                    return None;
                }
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return None;
            }
        }
    }

    /// Closes the browser and waits for it to exit.
    pub async fn close(&self) {
        let Some(instance) = self.state.lock().await.take() else {
            return;
        };
        // Kept tabs hold the instance: let them go (Chromium's exit takes their pages).
        let kept = std::mem::take(&mut instance.tabs.lock().expect("tabs lock").ready);
        for session in kept {
            for task in &session.tasks {
                task.abort();
            }
        }
        match Arc::try_unwrap(instance) {
            Ok(inst) => {
                let t = std::time::Instant::now();
                // The profile is a throwaway folder: nothing needs a graceful shutdown, and
                // Chromium's takes a few hundred milliseconds.
                let mut child = inst.child.lock().await;
                let _ = tokio::time::timeout(Duration::from_secs(3), child.kill()).await;
                drop(child);
                inst.reader.abort();
                tracing::debug!("browser closed in {:?}", t.elapsed());
            }
            Err(shared) => {
                // Sessions still hold it; they fail on their next command once it is gone.
                if let Some(pid) = shared.pid {
                    kill_pid(pid);
                }
            }
        }
    }
}

/// Kills a process by id (SIGKILL).
pub fn kill_pid(pid: u32) {
    let _ = std::process::Command::new("kill")
        .arg("-9")
        .arg(pid.to_string())
        .status();
}

/// Lifecycle of the main frame's documents, keyed by loader id.
#[derive(Default)]
struct DocState {
    /// The latest document's loader id (set when it commits).
    current: Option<String>,
    /// Loader ids in the order their documents committed.
    commits: Vec<String>,
    /// Lifecycle event names seen per loader.
    events: HashMap<String, Vec<String>>,
}

/// What happened in a session besides our own actions.
#[derive(Debug, Clone, Default)]
pub struct SessionLog {
    /// JavaScript dialogs, accepted automatically: `(type, message)`.
    pub dialogs: Vec<(String, String)>,
    /// The page's renderer crashed.
    pub crashed: bool,
    /// Requests that failed, oldest first, at most [`MAX_FAILED_REQUESTS`]: `STATUS URL` for an
    /// HTTP 4xx/5xx answer, `ERROR URL` for one that got none (refused, aborted, blocked), as
    /// Chromium reported them. Not masked for credentials: the runner does that.
    pub failed_requests: Vec<String>,
}

/// Failed requests kept per session: enough to see what broke, bounded for a chatty page.
pub const MAX_FAILED_REQUESTS: usize = 50;

/// Characters of a failed request's URL kept (a data: URL or a long query string).
const MAX_REQUEST_URL_CHARS: usize = 300;

/// URLs of requests still in flight, by request id, so a `Network.loadingFailed` (which has no
/// URL) can name its request. Bounded: a page that never finishes its requests cannot grow it.
#[derive(Default)]
struct InFlight {
    urls: HashMap<String, String>,
}

const MAX_IN_FLIGHT: usize = 1_000;

impl InFlight {
    fn started(&mut self, id: &str, url: &str) {
        if self.urls.len() < MAX_IN_FLIGHT && !url.starts_with("data:") {
            self.urls.insert(id.to_string(), url.to_string());
        }
    }
}

/// `scheme://host[:port]` of an http(s) URL.
fn web_origin(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    matches!(u.scheme(), "http" | "https").then(|| u.origin().ascii_serialization())
}

fn short_url(url: &str) -> String {
    if url.chars().count() <= MAX_REQUEST_URL_CHARS {
        return url.to_string();
    }
    let mut s: String = url.chars().take(MAX_REQUEST_URL_CHARS).collect();
    s.push('…');
    s
}

impl SessionLog {
    fn note_failed_request(&mut self, line: String) {
        if self.failed_requests.len() < MAX_FAILED_REQUESTS {
            self.failed_requests.push(line);
        }
    }
}

struct Shared {
    doc: Mutex<DocState>,
    doc_changed: Notify,
    log: Mutex<SessionLog>,
    popups: Mutex<VecDeque<String>>,
    /// Origins of the documents this tab loaded (frames included): whose storage a reset clears.
    origins: Mutex<BTreeSet<String>>,
    /// Scripts added for new documents besides the engine's own, removed by a reset.
    init_scripts: Mutex<Vec<String>>,
}

/// One scenario's browser context and its current page.
pub struct Session {
    instance: Arc<Instance>,
    /// None for the start-up tab (the default context).
    context: Option<String>,
    /// The current page's target id, which is also its main frame's id.
    target: String,
    /// The flat session attached to the current page.
    session: String,
    shared: Arc<Shared>,
    tasks: Vec<JoinHandle<()>>,
    /// Whether it moved into a tab the page opened (such a session is never reused).
    followed_popup: bool,
    /// Set while a scenario holds it; none while it is reset or waits in the pool.
    in_use: Option<InUse>,
}

/// How long a closed tab's reset may take before the next scenario opens a new context.
const TAB_RESET_TIMEOUT: Duration = Duration::from_secs(5);

/// Result of waiting for a document to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NavError {
    Failed(String),
    Timeout,
    Crashed(String),
}

impl Session {
    /// The start-up tab's target id, when the tab is still unused.
    async fn initial(instance: &Arc<Instance>) -> Option<String> {
        if !instance.initial_unused.swap(false, Ordering::SeqCst) {
            return None;
        }
        // It exists right after start-up, but may not be listed yet.
        for _ in 0..50 {
            let targets = instance
                .conn
                .call(None, "Target.getTargets", json!({}))
                .await
                .ok()?;
            // In the default context: a page of a context made for another scenario (opened
            // at the same time, `-j N`) is not the start-up tab.
            let page = {
                let ours = instance.contexts.lock().expect("contexts lock");
                targets
                    .get("targetInfos")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter(|t| t.get("type").and_then(Value::as_str) == Some("page"))
                    .find(|t| {
                        t.get("browserContextId")
                            .and_then(Value::as_str)
                            .is_none_or(|c| !ours.contains(c))
                    })
                    .and_then(|t| t.get("targetId").and_then(Value::as_str))
                    .map(str::to_string)
            };
            if page.is_some() {
                return page;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        None
    }

    async fn open(instance: Arc<Instance>) -> Result<Session, BrowserError> {
        let t = std::time::Instant::now();
        if let Some(target) = Self::initial(&instance).await {
            let session = Self::adopt(instance, None, target).await?;
            tracing::debug!("using the start-up tab, ready in {:?}", t.elapsed());
            return Ok(session);
        }
        let conn = &instance.conn;
        let context = string_field(
            &conn
                .call(None, "Target.createBrowserContext", json!({}))
                .await?,
            "browserContextId",
        )?;
        instance
            .contexts
            .lock()
            .expect("contexts lock")
            .insert(context.clone());
        let created = tokio::time::timeout(
            Duration::from_secs(15),
            conn.call(
                None,
                "Target.createTarget",
                json!({"url": "about:blank", "browserContextId": context}),
            ),
        )
        .await
        .map_err(|_| BrowserError::Crashed("opening a page timed out".into()))
        .and_then(|r| r)
        .and_then(|r| string_field(&r, "targetId"));
        let target = match created {
            Ok(target) => target,
            Err(e) => {
                Self::dispose_in_background(&instance, &context);
                return Err(e);
            }
        };
        match Self::adopt(instance.clone(), Some(context.clone()), target).await {
            Ok(session) => {
                tracing::debug!("context and page ready in {:?}", t.elapsed());
                Ok(session)
            }
            Err(e) => {
                Self::dispose_in_background(&instance, &context);
                Err(e)
            }
        }
    }

    fn dispose_in_background(instance: &Arc<Instance>, context: &str) {
        instance
            .contexts
            .lock()
            .expect("contexts lock")
            .remove(context);
        let conn = instance.conn.clone();
        let context = context.to_string();
        tokio::spawn(async move {
            let _ = conn
                .call(
                    None,
                    "Target.disposeBrowserContext",
                    json!({"browserContextId": context}),
                )
                .await;
        });
    }

    /// `context` is None for the start-up tab, whose default context cannot be disposed.
    async fn adopt(
        instance: Arc<Instance>,
        context: Option<String>,
        target: String,
    ) -> Result<Session, BrowserError> {
        let shared = Arc::new(Shared {
            doc: Mutex::new(DocState::default()),
            doc_changed: Notify::new(),
            log: Mutex::new(SessionLog::default()),
            popups: Mutex::new(VecDeque::new()),
            origins: Mutex::new(BTreeSet::new()),
            init_scripts: Mutex::new(Vec::new()),
        });
        let session_id = Self::attach(&instance, &target).await?;
        let mut session = Session {
            instance,
            context,
            target,
            session: session_id,
            shared,
            tasks: Vec::new(),
            followed_popup: false,
            in_use: None,
        };
        session.watch_page().await?;
        session.watch_popups();
        Ok(session)
    }

    /// Attaches a flat session to a page target.
    async fn attach(instance: &Instance, target: &str) -> Result<String, BrowserError> {
        let attached = instance
            .conn
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target, "flatten": true}),
            )
            .await?;
        string_field(&attached, "sessionId")
    }

    /// Listens to the current page's lifecycle, dialogs, failed requests and crashes, then sets
    /// the page up: the Page domain with lifecycle events, the Network domain (events only), the
    /// in-page engine for every new document, and the viewport. The set-up commands go out
    /// together; Chromium runs them in order.
    async fn watch_page(&mut self) -> Result<(), BrowserError> {
        let conn = self.instance.conn.clone();
        let mut events = conn.subscribe(Some(&self.session));
        let shared = self.shared.clone();
        let main_frame = self.target.clone();
        let session = self.session.clone();
        let dialog_conn = conn.clone();
        self.tasks.push(tokio::spawn(async move {
            let mut in_flight = InFlight::default();
            while let Some(event) = events.recv().await {
                let p = &event.params;
                let text = |field: &str| p.get(field).and_then(Value::as_str);
                match event.method.as_str() {
                    "Page.lifecycleEvent" => {
                        if text("frameId") != Some(main_frame.as_str()) {
                            continue;
                        }
                        let (Some(loader), Some(name)) = (text("loaderId"), text("name")) else {
                            continue;
                        };
                        {
                            let mut doc = shared.doc.lock().expect("doc lock");
                            if (name == "init" || name == "commit")
                                && doc.current.as_deref() != Some(loader)
                            {
                                doc.current = Some(loader.to_string());
                                doc.commits.push(loader.to_string());
                            }
                            doc.events
                                .entry(loader.to_string())
                                .or_default()
                                .push(name.to_string());
                        }
                        shared.doc_changed.notify_waiters();
                    }
                    "Page.javascriptDialogOpening" => {
                        let kind = text("type").unwrap_or("alert").to_string();
                        let message = text("message").unwrap_or_default().to_string();
                        shared
                            .log
                            .lock()
                            .expect("log lock")
                            .dialogs
                            .push((kind, message));
                        let mut accept = json!({"accept": true});
                        if let Some(prompt) = text("defaultPrompt") {
                            accept["promptText"] = json!(prompt);
                        }
                        let conn = dialog_conn.clone();
                        let session = session.clone();
                        tokio::spawn(async move {
                            let _ = conn
                                .call(Some(&session), "Page.handleJavaScriptDialog", accept)
                                .await;
                        });
                    }
                    // Failed requests for the evidence. Network events arrive anyway once the
                    // domain is on; keeping them costs no round trip on the passing path.
                    "Network.requestWillBeSent" => {
                        if let (Some(id), Some(url)) = (
                            text("requestId"),
                            p.get("request")
                                .and_then(|r| r.get("url"))
                                .and_then(Value::as_str),
                        ) {
                            in_flight.started(id, url);
                            if text("type") == Some("Document")
                                && let Some(origin) = web_origin(url)
                            {
                                shared.origins.lock().expect("origins lock").insert(origin);
                            }
                        }
                    }
                    "Network.responseReceived" => {
                        let response = p.get("response");
                        let status = response
                            .and_then(|r| r.get("status"))
                            .and_then(Value::as_u64)
                            .unwrap_or(0);
                        let url = response.and_then(|r| r.get("url")).and_then(Value::as_str);
                        if status >= 400
                            && let Some(url) = url
                        {
                            shared
                                .log
                                .lock()
                                .expect("log lock")
                                .note_failed_request(format!("{status} {}", short_url(url)));
                        }
                    }
                    "Network.loadingFinished" => {
                        if let Some(id) = text("requestId") {
                            in_flight.urls.remove(id);
                        }
                    }
                    "Network.loadingFailed" => {
                        let url = text("requestId").and_then(|id| in_flight.urls.remove(id));
                        if let Some(url) = url {
                            let error = text("errorText").filter(|e| !e.is_empty());
                            let canceled = p.get("canceled").and_then(Value::as_bool);
                            let why = match (canceled, text("blockedReason"), error) {
                                (Some(true), _, Some(e)) => format!("canceled ({e})"),
                                (Some(true), _, None) => "canceled".to_string(),
                                (_, Some(reason), _) => format!("blocked ({reason})"),
                                (_, None, Some(e)) => e.to_string(),
                                (_, None, None) => "failed".to_string(),
                            };
                            shared
                                .log
                                .lock()
                                .expect("log lock")
                                .note_failed_request(format!("{why} {}", short_url(&url)));
                        }
                    }
                    "Inspector.targetCrashed" => {
                        shared.log.lock().expect("log lock").crashed = true;
                        shared.doc_changed.notify_waiters();
                    }
                    _ => {}
                }
            }
            // The browser is gone: whoever waits for a lifecycle event finds out now.
            shared.doc_changed.notify_waiters();
        }));

        let (width, height) = self.instance.viewport;
        let setup = [
            ("Page.enable", json!({})),
            ("Page.setLifecycleEventsEnabled", json!({"enabled": true})),
            // For failed requests in the evidence. No response bodies are kept: nothing reads them.
            (
                "Network.enable",
                json!({"maxTotalBufferSize": 0, "maxResourceBufferSize": 0}),
            ),
            (
                "Page.addScriptToEvaluateOnNewDocument",
                json!({"source": INJECTED_JS}),
            ),
            (
                "Emulation.setDeviceMetricsOverride",
                json!({
                    "width": width,
                    "height": height,
                    "deviceScaleFactor": 1,
                    "mobile": false,
                    "screenOrientation": {"type": "portraitPrimary", "angle": 0},
                }),
            ),
        ];
        self.page_batch(Vec::from(setup)).await
    }

    /// Sends commands to the current page together (Chromium runs them in order) and waits for
    /// every answer.
    async fn page_batch(&self, calls: Vec<(&str, Value)>) -> Result<(), BrowserError> {
        futures::future::try_join_all(
            calls
                .into_iter()
                .map(|(method, params)| self.page_call(method, params)),
        )
        .await?;
        Ok(())
    }

    /// Records pages opened by the current page (`target=_blank`, `window.open`).
    fn watch_popups(&mut self) {
        let mut created = self.instance.conn.subscribe(None);
        let shared = self.shared.clone();
        let opener = self.target.clone();
        self.tasks.push(tokio::spawn(async move {
            while let Some(event) = created.recv().await {
                if event.method != "Target.targetCreated" {
                    continue;
                }
                let Some(info) = event.params.get("targetInfo") else {
                    continue;
                };
                let field = |name: &str| info.get(name).and_then(Value::as_str);
                if field("type") == Some("page")
                    && field("openerId") == Some(opener.as_str())
                    && let Some(id) = field("targetId")
                {
                    shared
                        .popups
                        .lock()
                        .expect("popups lock")
                        .push_back(id.to_string());
                }
            }
        }));
    }

    /// If the current page opened a new tab, moves into it. Returns whether it did.
    pub async fn follow_popup(&mut self) -> Result<bool, BrowserError> {
        let next = self.shared.popups.lock().expect("popups lock").pop_front();
        let Some(target) = next else {
            return Ok(false);
        };
        let session = match Self::attach(&self.instance, &target).await {
            Ok(session) => session,
            Err(e @ BrowserError::Crashed(_)) => return Err(e),
            Err(e) => {
                tracing::warn!("a new tab opened but could not be attached: {e}");
                return Ok(false);
            }
        };
        for task in self.tasks.drain(..) {
            task.abort();
        }
        *self.shared.doc.lock().expect("doc lock") = DocState::default();
        self.target = target;
        self.session = session;
        self.followed_popup = true;
        self.watch_page().await?;
        self.watch_popups();
        Ok(true)
    }

    /// The current page's target id: the same for a reused tab.
    pub fn target_id(&self) -> &str {
        &self.target
    }

    /// Whether the browser behind this session is still running.
    pub fn is_alive(&self) -> bool {
        self.instance.is_alive()
    }

    pub fn log(&self) -> SessionLog {
        self.shared.log.lock().expect("log lock").clone()
    }

    fn check_alive(&self) -> Result<(), BrowserError> {
        if !self.instance.is_alive() {
            return Err(BrowserError::Crashed("the browser process is gone".into()));
        }
        if self.shared.log.lock().expect("log lock").crashed {
            return Err(BrowserError::Crashed("the page's renderer crashed".into()));
        }
        Ok(())
    }

    /// A command to the current page.
    async fn page_call(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        self.instance
            .conn
            .call(Some(&self.session), method, params)
            .await
    }

    /// Navigates the current page and waits for its `load` event.
    pub async fn goto(&self, url: &str, timeout: Duration) -> Result<(), NavError> {
        self.check_alive()
            .map_err(|e| NavError::Crashed(e.to_string()))?;
        let t = std::time::Instant::now();
        let deadline = tokio::time::Instant::now() + timeout;
        let result = tokio::time::timeout_at(
            deadline,
            self.page_call("Page.navigate", json!({"url": url})),
        )
        .await
        .map_err(|_| NavError::Timeout)?
        .map_err(|e| match e {
            BrowserError::Crashed(m) => NavError::Crashed(m),
            other => NavError::Failed(other.to_string()),
        })?;
        if let Some(error) = result
            .get("errorText")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            return Err(NavError::Failed(error.to_string()));
        }
        let Some(loader) = result.get("loaderId").and_then(Value::as_str) else {
            return Ok(()); // same-document navigation: nothing to load
        };
        self.wait_lifecycle(loader, "load", true, deadline).await?;
        tracing::debug!("loaded {url} in {:?}", t.elapsed());
        // A loaded error page is still a failed navigation.
        let status: Option<u64> = self
            .eval("performance.getEntriesByType('navigation')[0]?.responseStatus ?? null")
            .await
            .unwrap_or(None);
        match status {
            Some(code) if code >= 400 => Err(NavError::Failed(format!("HTTP status {code}"))),
            _ => Ok(()),
        }
    }

    /// Waits for lifecycle event `name` of the document `loader`; with `follow`, of the
    /// document that replaced it instead (a script or meta redirect before `load` means the
    /// first document never finishes).
    async fn wait_lifecycle(
        &self,
        loader: &str,
        name: &str,
        follow: bool,
        deadline: tokio::time::Instant,
    ) -> Result<(), NavError> {
        loop {
            let notified = self.shared.doc_changed.notified();
            {
                let doc = self.shared.doc.lock().expect("doc lock");
                let target = match doc.commits.iter().position(|l| l == loader) {
                    Some(_) if follow => doc.commits.last().map(String::as_str).unwrap_or(loader),
                    _ => loader,
                };
                if doc
                    .events
                    .get(target)
                    .is_some_and(|names| names.iter().any(|n| n == name))
                {
                    return Ok(());
                }
            }
            self.check_alive()
                .map_err(|e| NavError::Crashed(e.to_string()))?;
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Err(NavError::Timeout);
            }
        }
    }

    /// Waits (up to `deadline`) until the current main document has parsed, so no action lands
    /// in a document that is being replaced.
    pub async fn wait_document_ready(&self, deadline: tokio::time::Instant) {
        let loader = self.shared.doc.lock().expect("doc lock").current.clone();
        if let Some(loader) = loader {
            let _ = self
                .wait_lifecycle(&loader, "DOMContentLoaded", false, deadline)
                .await;
        }
    }

    /// Evaluates an expression in the page and returns its JSON value.
    pub async fn eval<T: DeserializeOwned>(&self, expression: &str) -> Result<T, BrowserError> {
        self.check_alive()?;
        let response = self
            .page_call(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await
            .map_err(|e| match e {
                BrowserError::Crashed(m) if self.instance.is_alive() => {
                    BrowserError::Crashed(format!("the page stopped answering ({m})"))
                }
                other => other,
            })?;
        if let Some(details) = response.get("exceptionDetails") {
            let text = details
                .get("exception")
                .and_then(|e| e.get("description"))
                .and_then(Value::as_str)
                .or_else(|| details.get("text").and_then(Value::as_str))
                .unwrap_or("an exception without a message")
                .to_string();
            return Err(if is_context_lost(&text) {
                BrowserError::ContextLost
            } else {
                BrowserError::Script(text)
            });
        }
        let value = response
            .get("result")
            .and_then(|r| r.get("value"))
            .cloned()
            .unwrap_or(Value::Null);
        serde_json::from_value(value).map_err(|e| BrowserError::Protocol(e.to_string()))
    }

    /// Calls `window.__windup.<function>(...args)`, installing the engine first if this document
    /// has not got it (documents that existed before the session, `about:blank`).
    pub async fn call<T: DeserializeOwned>(
        &self,
        function: &str,
        args: &[serde_json::Value],
    ) -> Result<T, BrowserError> {
        let args = args
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(",");
        let call = format!(
            "window.__windup ? window.__windup.{function}({args}) : {{\"__windup_missing\": true}}"
        );
        let first: serde_json::Value = self.eval(&call).await?;
        let value = if first.get("__windup_missing").is_some() {
            self.eval::<serde_json::Value>(&format!("{INJECTED_JS};0"))
                .await?;
            self.eval::<serde_json::Value>(&call).await?
        } else {
            first
        };
        serde_json::from_value(value).map_err(|e| BrowserError::Protocol(e.to_string()))
    }

    /// Sends a raw CDP command to the current page and returns its result.
    pub async fn cdp(
        &self,
        method: &str,
        params: serde_json::Value,
    ) -> Result<serde_json::Value, BrowserError> {
        self.check_alive()?;
        self.page_call(method, params).await
    }

    pub async fn url(&self) -> Result<String, BrowserError> {
        self.eval("location.href").await
    }

    async fn mouse(&self, kind: &str, x: f64, y: f64) -> Result<(), BrowserError> {
        self.check_alive()?;
        let mut params = json!({"type": kind, "x": x, "y": y});
        if kind != "mouseMoved" {
            params["button"] = json!("left");
            params["buttons"] = json!(1);
            params["clickCount"] = json!(1);
        }
        self.page_call("Input.dispatchMouseEvent", params).await?;
        Ok(())
    }

    /// A trusted left click at viewport coordinates.
    pub async fn click(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        self.mouse("mouseMoved", x, y).await?;
        self.mouse("mousePressed", x, y).await?;
        self.mouse("mouseReleased", x, y).await
    }

    pub async fn hover(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        self.mouse("mouseMoved", x, y).await
    }

    /// Types text into the focused element as one trusted insertion.
    pub async fn insert_text(&self, text: &str) -> Result<(), BrowserError> {
        self.check_alive()?;
        self.page_call("Input.insertText", json!({"text": text}))
            .await?;
        Ok(())
    }

    /// Presses a key chord on the focused element.
    pub async fn press(&self, chord: &Chord) -> Result<(), BrowserError> {
        self.check_alive()?;
        let types_text = chord.modifiers & !8 == 0;
        let send = |kind: &str, key: &windup_model::keys::KeyDef, text: bool| {
            let mut p = json!({
                "type": kind,
                "key": key.key,
                "code": key.code,
                "windowsVirtualKeyCode": key.key_code,
                "nativeVirtualKeyCode": key.key_code,
                "modifiers": chord.modifiers,
            });
            if text
                && types_text
                && let Some(t) = &key.text
            {
                p["text"] = json!(t);
                p["unmodifiedText"] = json!(t);
            }
            self.page_call("Input.dispatchKeyEvent", p)
        };
        for m in &chord.modifier_keys {
            send("rawKeyDown", m, false).await?;
        }
        let down = if chord.key.text.is_some() && types_text {
            "keyDown"
        } else {
            "rawKeyDown"
        };
        send(down, &chord.key, true).await?;
        send("keyUp", &chord.key, false).await?;
        for m in chord.modifier_keys.iter().rev() {
            send("keyUp", m, false).await?;
        }
        Ok(())
    }

    /// A PNG screenshot of the viewport.
    pub async fn screenshot(&self) -> Result<Vec<u8>, BrowserError> {
        self.check_alive()?;
        // A tab in the background paints nothing in a headed browser.
        self.instance
            .conn
            .call(
                None,
                "Target.activateTarget",
                json!({"targetId": self.target}),
            )
            .await?;
        let shot = self
            .page_call("Page.captureScreenshot", json!({"format": "png"}))
            .await?;
        base64::engine::general_purpose::STANDARD
            .decode(string_field(&shot, "data")?)
            .map_err(|e| BrowserError::Protocol(format!("a screenshot that is not base64: {e}")))
    }

    /// Ends the session. When the browser reuses tabs ([`BrowserOptions::reuse_tabs`]), the tab
    /// is reset in the background ([`Session::reset`]) and handed to the next scenario: a new
    /// context costs a new renderer process and cold caches, the largest fixed cost of a replay.
    /// A tab that cannot be reset cleanly (a crash, a popup, an error) is disposed of instead.
    pub async fn close(mut self) {
        self.in_use = None;
        if !self.instance.reuse_tabs
            || self.followed_popup
            || !self.shared.popups.lock().expect("popups lock").is_empty()
            || !self.instance.is_alive()
            || self.shared.log.lock().expect("log lock").crashed
        {
            return self.dispose();
        }
        let instance = self.instance.clone();
        instance.tabs.lock().expect("tabs lock").resetting += 1;
        tokio::spawn(async move {
            let mut session = self;
            let reset = tokio::time::timeout(TAB_RESET_TIMEOUT, session.reset()).await;
            {
                let mut tabs = instance.tabs.lock().expect("tabs lock");
                tabs.resetting -= 1;
                match reset {
                    Ok(Ok(())) if instance.is_alive() => tabs.ready.push(session),
                    outcome => {
                        if let Ok(Err(e)) = outcome {
                            tracing::debug!("a tab could not be reset ({e}); disposing of it");
                        }
                        drop(tabs);
                        session.dispose();
                    }
                }
            }
            instance.tabs_changed.notify_waiters();
        });
    }

    /// Returns the tab to the state of a new one in a new context, for the next scenario:
    /// `about:blank` (the app's scripts stop, unload handlers run), then, for every origin it
    /// loaded, cookies, local and session storage, IndexedDB, Cache Storage, service workers
    /// and the HTTP cache cleared, permissions reset, history emptied, init scripts other than
    /// the engine's removed, the pointer moved off the page and the session's log emptied.
    /// The same steps as Playwright's context reuse; the renderer process is what is kept.
    async fn reset(&mut self) -> Result<(), BrowserError> {
        self.goto("about:blank", TAB_RESET_TIMEOUT)
            .await
            .map_err(|e| BrowserError::Protocol(format!("leaving the page: {e:?}")))?;
        {
            let mut doc = self.shared.doc.lock().expect("doc lock");
            let current = doc.current.clone();
            doc.commits.retain(|l| Some(l) == current.as_ref());
            doc.events.retain(|l, _| Some(l) == current.as_ref());
        }
        // A page it opened that is still there (unlisted as a popup) would outlive the reset.
        let targets = self
            .instance
            .conn
            .call(None, "Target.getTargets", json!({}))
            .await?;
        let infos = targets
            .get("targetInfos")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let context_of = |t: &Value| {
            t.get("browserContextId")
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let ours = infos
            .iter()
            .find(|t| t.get("targetId").and_then(Value::as_str) == Some(self.target.as_str()))
            .and_then(context_of);
        let others = infos.iter().any(|t| {
            t.get("type").and_then(Value::as_str) == Some("page")
                && t.get("targetId").and_then(Value::as_str) != Some(self.target.as_str())
                && ours.is_some()
                && context_of(t) == ours
        });
        if others {
            return Err(BrowserError::Protocol("the page opened other tabs".into()));
        }
        let origins: Vec<String> =
            std::mem::take(&mut *self.shared.origins.lock().expect("origins lock"))
                .into_iter()
                .collect();
        let scripts = std::mem::take(&mut *self.shared.init_scripts.lock().expect("scripts lock"));
        let mut calls: Vec<(&str, Value)> = vec![
            ("Network.clearBrowserCookies", json!({})),
            ("Network.clearBrowserCache", json!({})),
            ("Page.resetNavigationHistory", json!({})),
            (
                "Input.dispatchMouseEvent",
                json!({"type": "mouseMoved", "x": -1, "y": -1}),
            ),
        ];
        if !origins.is_empty() {
            calls.push((
                "Storage.clearDataForOrigin",
                json!({"origin": origins.join(","), "storageTypes": "all"}),
            ));
        }
        for id in &scripts {
            calls.push((
                "Page.removeScriptToEvaluateOnNewDocument",
                json!({"identifier": id}),
            ));
        }
        self.page_batch(calls).await?;
        let permissions = match &self.context {
            Some(context) => json!({"browserContextId": context}),
            None => json!({}),
        };
        self.instance
            .conn
            .call(None, "Browser.resetPermissions", permissions)
            .await?;
        *self.shared.log.lock().expect("log lock") = SessionLog::default();
        self.shared.popups.lock().expect("popups lock").clear();
        Ok(())
    }

    /// Adds a script that runs in every new document before the page's own, until the session
    /// ends (a reset removes it).
    pub async fn add_init_script(&self, source: &str) -> Result<(), BrowserError> {
        let added = self
            .cdp(
                "Page.addScriptToEvaluateOnNewDocument",
                json!({ "source": source }),
            )
            .await?;
        let id = string_field(&added, "identifier")?;
        self.shared
            .init_scripts
            .lock()
            .expect("scripts lock")
            .push(id);
        Ok(())
    }

    /// Closes the context and everything in it. The disposal runs in the background: the next
    /// scenario has its own context and need not wait for this one's pages to be torn down.
    fn dispose(self) {
        for task in &self.tasks {
            task.abort();
        }
        if !self.instance.is_alive() {
            return;
        }
        let conn = self.instance.conn.clone();
        match &self.context {
            Some(context) => Self::dispose_in_background(&self.instance, context),
            None => {
                // The default context cannot be disposed, and closing the last tab may end
                // the browser: leave the tab blank, where nothing of the app keeps running.
                // Nobody waits for that page, so neither do we.
                let session = self.session.clone();
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(
                        Duration::from_secs(5),
                        conn.call(
                            Some(&session),
                            "Page.navigate",
                            json!({"url": "about:blank"}),
                        ),
                    )
                    .await;
                });
            }
        }
    }
}
