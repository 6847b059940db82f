//! The single browser boundary: Chromium over CDP (chromiumoxide).
//!
//! One lazily started Chromium per process; a fresh, isolated browser context per scenario
//! ([`Session`]); trusted input through the Input domain. Everything CDP-specific stays in this
//! module, so a change of CDP client stays local.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use chromiumoxide::browser::{Browser as CdpBrowser, BrowserConfig};
use chromiumoxide::cdp::browser_protocol::browser::BrowserContextId;
use chromiumoxide::cdp::browser_protocol::input::{
    DispatchKeyEventParams, DispatchKeyEventType, DispatchMouseEventParams, DispatchMouseEventType,
    InsertTextParams, MouseButton,
};
use chromiumoxide::cdp::browser_protocol::inspector::EventTargetCrashed;
use chromiumoxide::cdp::browser_protocol::page::{
    AddScriptToEvaluateOnNewDocumentParams, EventJavascriptDialogOpening, EventLifecycleEvent,
    HandleJavaScriptDialogParams, NavigateParams,
};
use chromiumoxide::cdp::browser_protocol::target::{
    CreateBrowserContextParams, CreateTargetParams, EventTargetCreated, TargetId,
};
use chromiumoxide::cdp::js_protocol::runtime::EvaluateParams;
use chromiumoxide::error::CdpError;
use chromiumoxide::handler::viewport::Viewport;
use chromiumoxide::page::Page;
use futures::StreamExt;
use serde::de::DeserializeOwned;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use windup_model::keys::Chord;

/// A CDP command sent as-is, answered as JSON: for domains whose generated types lag behind
/// Chromium (Accessibility) and for anything the typed client decodes badly.
#[derive(Debug)]
struct RawCommand {
    method: String,
    params: serde_json::Value,
}

impl serde::Serialize for RawCommand {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.params.serialize(s)
    }
}

impl chromiumoxide::Method for RawCommand {
    fn identifier(&self) -> chromiumoxide::types::MethodId {
        self.method.clone().into()
    }
}

impl chromiumoxide::Command for RawCommand {
    type Response = serde_json::Value;
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

impl BrowserError {
    fn from_cdp(e: CdpError) -> Self {
        match e {
            CdpError::Ws(_)
            | CdpError::Io(_)
            | CdpError::ChannelSendError(_)
            | CdpError::NoResponse
            | CdpError::Timeout => BrowserError::Crashed(e.to_string()),
            other => {
                let text = other.to_string();
                if is_context_lost(&text) {
                    BrowserError::ContextLost
                } else {
                    BrowserError::Protocol(text)
                }
            }
        }
    }
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
}

impl Default for BrowserOptions {
    fn default() -> Self {
        BrowserOptions {
            executable: None,
            headless: true,
            viewport: (1280, 800),
            args: Vec::new(),
            launch_timeout: Duration::from_secs(20),
        }
    }
}

/// Flags for a quiet, fast, automation-friendly Chromium. Written without leading dashes:
/// chromiumoxide adds them.
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

/// Finds Chromium: the configured path, `WINDUP_CHROMIUM`, then the usual names on PATH.
pub fn find_chromium(configured: Option<&PathBuf>) -> Option<PathBuf> {
    if let Some(p) = configured {
        return Some(p.clone());
    }
    if let Some(p) = std::env::var_os("WINDUP_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    for name in [
        "chromium",
        "chromium-browser",
        "google-chrome-stable",
        "google-chrome",
        "chrome",
    ] {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join(name);
            if candidate.is_file() {
                return Some(candidate);
            }
        }
    }
    None
}

/// One running Chromium.
struct Instance {
    cdp: CdpBrowser,
    alive: Arc<AtomicBool>,
    handler: JoinHandle<()>,
    pid: Option<u32>,
    /// Whether the tab Chromium opens at start-up is still unused. The first scenario of a
    /// process takes it: in a fresh profile it is as isolated as a new context, and its
    /// renderer is already running, which saves the largest fixed cost of a replay.
    initial_unused: AtomicBool,
    _profile: tempfile::TempDir,
}

impl Instance {
    fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst) && !self.handler.is_finished()
    }
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
            dead.handler.abort();
        }
        let started = std::time::Instant::now();
        let instance = Arc::new(self.launch().await?);
        tracing::debug!("browser started in {:?}", started.elapsed());
        *state = Some(instance.clone());
        Ok(instance)
    }

    async fn launch(&self) -> Result<Instance, BrowserError> {
        let executable =
            find_chromium(self.options.executable.as_ref()).ok_or(BrowserError::NotFound)?;
        let profile = tempfile::Builder::new()
            .prefix("windup-chromium-")
            .tempdir()
            .map_err(|e| BrowserError::Launch {
                path: executable.display().to_string(),
                detail: format!("could not create a profile folder: {e}"),
            })?;
        let (width, height) = self.options.viewport;
        let mut builder = BrowserConfig::builder()
            .chrome_executable(&executable)
            .disable_default_args()
            .no_sandbox()
            .user_data_dir(profile.path())
            .window_size(width, height)
            .viewport(Viewport {
                width,
                height,
                device_scale_factor: None,
                emulating_mobile: false,
                is_landscape: false,
                has_touch: false,
            })
            .launch_timeout(self.options.launch_timeout)
            .request_timeout(Duration::from_secs(30))
            .args(CHROMIUM_FLAGS.iter().copied())
            .args(self.options.args.iter().map(|a| a.trim_start_matches('-')));
        builder = if self.options.headless {
            builder.new_headless_mode()
        } else {
            builder.with_head()
        };
        let config = builder.build().map_err(|detail| BrowserError::Launch {
            path: executable.display().to_string(),
            detail,
        })?;
        let (mut cdp, mut handler) =
            CdpBrowser::launch(config)
                .await
                .map_err(|e| BrowserError::Launch {
                    path: executable.display().to_string(),
                    detail: e.to_string(),
                })?;
        let pid = cdp.get_mut_child().and_then(|c| c.inner.id());
        let alive = Arc::new(AtomicBool::new(true));
        let flag = alive.clone();
        // The handler must be polled continuously, or every command hangs.
        let handler = tokio::spawn(async move {
            while let Some(event) = handler.next().await {
                if let Err(e) = event {
                    let text = e.to_string();
                    if matches!(e, CdpError::Ws(_) | CdpError::Io(_)) {
                        tracing::debug!("browser connection closed: {text}");
                        break;
                    }
                    tracing::trace!("cdp: {text}");
                }
            }
            flag.store(false, Ordering::SeqCst);
        });
        Ok(Instance {
            cdp,
            alive,
            handler,
            pid,
            initial_unused: AtomicBool::new(true),
            _profile: profile,
        })
    }

    /// The Chromium process id, when one is running (tests use it to kill the browser).
    pub async fn pid(&self) -> Option<u32> {
        self.state.lock().await.as_ref().and_then(|i| i.pid)
    }

    /// Opens an isolated context with one page in it.
    pub async fn new_session(&self) -> Result<Session, BrowserError> {
        let instance = self.instance().await?;
        match Session::open(instance.clone()).await {
            Err(BrowserError::Crashed(reason)) => {
                // The handler may not have noticed the death yet: mark it, start afresh once.
                tracing::warn!("the browser did not answer ({reason}); restarting it");
                instance.alive.store(false, Ordering::SeqCst);
                if let Some(pid) = instance.pid {
                    kill_pid(pid);
                }
                Session::open(self.instance().await?).await
            }
            other => other,
        }
    }

    /// Closes the browser and waits for it to exit.
    pub async fn close(&self) {
        let Some(instance) = self.state.lock().await.take() else {
            return;
        };
        match Arc::try_unwrap(instance) {
            Ok(mut inst) => {
                let t = std::time::Instant::now();
                // The profile is a throwaway folder: nothing needs a graceful shutdown, and
                // Chromium's takes a few hundred milliseconds.
                let _ = tokio::time::timeout(Duration::from_secs(3), inst.cdp.kill()).await;
                let _ = tokio::time::timeout(Duration::from_secs(3), inst.cdp.wait()).await;
                inst.handler.abort();
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
}

struct Shared {
    doc: Mutex<DocState>,
    doc_changed: Notify,
    log: Mutex<SessionLog>,
    popups: Mutex<VecDeque<TargetId>>,
}

/// One scenario's browser context and its current page.
pub struct Session {
    instance: Arc<Instance>,
    /// None for the start-up tab (the default context).
    context: Option<BrowserContextId>,
    page: Page,
    target: TargetId,
    shared: Arc<Shared>,
    tasks: Vec<JoinHandle<()>>,
}

/// Result of waiting for a document to load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NavError {
    Failed(String),
    Timeout,
    Crashed(String),
}

impl Session {
    /// The start-up tab, when it is still unused and attached.
    async fn initial(instance: &Arc<Instance>) -> Option<Page> {
        if !instance.initial_unused.swap(false, Ordering::SeqCst) {
            return None;
        }
        // chromiumoxide attaches to it on its own, right after start-up.
        for _ in 0..50 {
            if let Some(page) = instance.cdp.pages().await.ok()?.into_iter().next() {
                return Some(page);
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        None
    }

    async fn open(instance: Arc<Instance>) -> Result<Session, BrowserError> {
        if let Some(page) = Self::initial(&instance).await {
            tracing::debug!("using the start-up tab");
            return Self::adopt(instance, None, page).await;
        }
        let context = instance
            .cdp
            .create_browser_context(CreateBrowserContextParams::default())
            .await
            .map_err(BrowserError::from_cdp)?;
        let params = CreateTargetParams::builder()
            .url("about:blank")
            .browser_context_id(context.clone())
            .build()
            .map_err(BrowserError::Protocol)?;
        let t = std::time::Instant::now();
        let page = tokio::time::timeout(Duration::from_secs(15), instance.cdp.new_page(params))
            .await
            .map_err(|_| BrowserError::Crashed("opening a page timed out".into()))?
            .map_err(BrowserError::from_cdp)?;
        tracing::debug!("page created in {:?}", t.elapsed());
        Self::adopt(instance, Some(context), page).await
    }

    /// `context` is None for the start-up tab, whose default context cannot be disposed.
    async fn adopt(
        instance: Arc<Instance>,
        context: Option<BrowserContextId>,
        page: Page,
    ) -> Result<Session, BrowserError> {
        let shared = Arc::new(Shared {
            doc: Mutex::new(DocState::default()),
            doc_changed: Notify::new(),
            log: Mutex::new(SessionLog::default()),
            popups: Mutex::new(VecDeque::new()),
        });
        let target = page.target_id().clone();
        let mut session = Session {
            instance,
            context,
            page,
            target,
            shared,
            tasks: Vec::new(),
        };
        session.watch_page().await?;
        session.watch_popups().await?;
        Ok(session)
    }

    /// Installs the in-page engine for every new document, and the listeners for lifecycle,
    /// dialogs and crashes of the current page.
    async fn watch_page(&mut self) -> Result<(), BrowserError> {
        let page = self.page.clone();
        page.execute(AddScriptToEvaluateOnNewDocumentParams::new(INJECTED_JS))
            .await
            .map_err(BrowserError::from_cdp)?;

        let main_frame = self.target.as_ref().to_string();
        let mut lifecycle = page
            .event_listener::<EventLifecycleEvent>()
            .await
            .map_err(BrowserError::from_cdp)?;
        let shared = self.shared.clone();
        self.tasks.push(tokio::spawn(async move {
            while let Some(ev) = lifecycle.next().await {
                if ev.frame_id.as_ref() != main_frame {
                    continue;
                }
                let loader = ev.loader_id.as_ref().to_string();
                {
                    let mut doc = shared.doc.lock().expect("doc lock");
                    if (ev.name == "init" || ev.name == "commit")
                        && doc.current.as_deref() != Some(loader.as_str())
                    {
                        doc.current = Some(loader.clone());
                        doc.commits.push(loader.clone());
                    }
                    doc.events.entry(loader).or_default().push(ev.name.clone());
                }
                shared.doc_changed.notify_waiters();
            }
        }));

        let mut dialogs = page
            .event_listener::<EventJavascriptDialogOpening>()
            .await
            .map_err(BrowserError::from_cdp)?;
        let shared = self.shared.clone();
        let dialog_page = page.clone();
        self.tasks.push(tokio::spawn(async move {
            while let Some(ev) = dialogs.next().await {
                let kind = format!("{:?}", ev.r#type).to_lowercase();
                shared
                    .log
                    .lock()
                    .expect("log lock")
                    .dialogs
                    .push((kind, ev.message.clone()));
                let mut accept = HandleJavaScriptDialogParams::new(true);
                accept.prompt_text = ev.default_prompt.clone();
                let _ = dialog_page.execute(accept).await;
            }
        }));

        let mut crashes = page
            .event_listener::<EventTargetCrashed>()
            .await
            .map_err(BrowserError::from_cdp)?;
        let shared = self.shared.clone();
        self.tasks.push(tokio::spawn(async move {
            if crashes.next().await.is_some() {
                shared.log.lock().expect("log lock").crashed = true;
                shared.doc_changed.notify_waiters();
            }
        }));
        Ok(())
    }

    /// Records pages opened by the current page (`target=_blank`, `window.open`).
    async fn watch_popups(&mut self) -> Result<(), BrowserError> {
        let mut created = self
            .instance
            .cdp
            .event_listener::<EventTargetCreated>()
            .await
            .map_err(BrowserError::from_cdp)?;
        let shared = self.shared.clone();
        let opener = self.target.clone();
        self.tasks.push(tokio::spawn(async move {
            while let Some(ev) = created.next().await {
                let info = &ev.target_info;
                if info.r#type == "page" && info.opener_id.as_ref() == Some(&opener) {
                    shared
                        .popups
                        .lock()
                        .expect("popups lock")
                        .push_back(info.target_id.clone());
                }
            }
        }));
        Ok(())
    }

    /// If the current page opened a new tab, moves into it. Returns whether it did.
    pub async fn follow_popup(&mut self) -> Result<bool, BrowserError> {
        let next = self.shared.popups.lock().expect("popups lock").pop_front();
        let Some(target) = next else {
            return Ok(false);
        };
        // chromiumoxide attaches to new targets on its own; wait until it has.
        let mut page = None;
        for _ in 0..100 {
            match self.instance.cdp.get_page(target.clone()).await {
                Ok(p) => {
                    page = Some(p);
                    break;
                }
                Err(CdpError::NotFound) => tokio::time::sleep(Duration::from_millis(20)).await,
                Err(e) => return Err(BrowserError::from_cdp(e)),
            }
        }
        let Some(page) = page else {
            tracing::warn!("a new tab opened but could not be attached");
            return Ok(false);
        };
        for task in self.tasks.drain(..) {
            task.abort();
        }
        *self.shared.doc.lock().expect("doc lock") = DocState::default();
        self.page = page;
        self.target = target;
        self.watch_page().await?;
        self.watch_popups().await?;
        Ok(true)
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

    /// Navigates the current page and waits for its `load` event.
    pub async fn goto(&self, url: &str, timeout: Duration) -> Result<(), NavError> {
        self.check_alive()
            .map_err(|e| NavError::Crashed(e.to_string()))?;
        let deadline = tokio::time::Instant::now() + timeout;
        let navigate = NavigateParams::new(url);
        let result = tokio::time::timeout_at(deadline, self.page.execute(navigate))
            .await
            .map_err(|_| NavError::Timeout)?
            .map_err(|e| match BrowserError::from_cdp(e) {
                BrowserError::Crashed(m) => NavError::Crashed(m),
                other => NavError::Failed(other.to_string()),
            })?
            .result;
        if let Some(error) = result.error_text.filter(|t| !t.is_empty()) {
            return Err(NavError::Failed(error));
        }
        let Some(loader) = result.loader_id.map(|l| l.as_ref().to_string()) else {
            return Ok(()); // same-document navigation: nothing to load
        };
        self.wait_lifecycle(&loader, "load", true, deadline).await?;
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
        let params = EvaluateParams::builder()
            .expression(expression)
            .return_by_value(true)
            .await_promise(true)
            .build()
            .map_err(BrowserError::Protocol)?;
        let response = tokio::time::timeout(Duration::from_secs(30), self.page.execute(params))
            .await
            .map_err(|_| BrowserError::Crashed("the page stopped answering".into()))?
            .map_err(BrowserError::from_cdp)?
            .result;
        if let Some(details) = response.exception_details {
            let text = details
                .exception
                .as_ref()
                .and_then(|e| e.description.clone())
                .unwrap_or(details.text);
            return Err(if is_context_lost(&text) {
                BrowserError::ContextLost
            } else {
                BrowserError::Script(text)
            });
        }
        let value = response.result.value.unwrap_or(serde_json::Value::Null);
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
        let command = RawCommand {
            method: method.to_string(),
            params,
        };
        Ok(self
            .page
            .execute(command)
            .await
            .map_err(BrowserError::from_cdp)?
            .result)
    }

    pub async fn url(&self) -> Result<String, BrowserError> {
        self.eval("location.href").await
    }

    async fn mouse(
        &self,
        kind: DispatchMouseEventType,
        x: f64,
        y: f64,
    ) -> Result<(), BrowserError> {
        self.check_alive()?;
        let mut params = DispatchMouseEventParams::new(kind.clone(), x, y);
        if kind != DispatchMouseEventType::MouseMoved {
            params.button = Some(MouseButton::Left);
            params.buttons = Some(1);
            params.click_count = Some(1);
        }
        self.page
            .execute(params)
            .await
            .map_err(BrowserError::from_cdp)?;
        Ok(())
    }

    /// A trusted left click at viewport coordinates.
    pub async fn click(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        self.mouse(DispatchMouseEventType::MouseMoved, x, y).await?;
        self.mouse(DispatchMouseEventType::MousePressed, x, y)
            .await?;
        self.mouse(DispatchMouseEventType::MouseReleased, x, y)
            .await
    }

    pub async fn hover(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        self.mouse(DispatchMouseEventType::MouseMoved, x, y).await
    }

    /// Types text into the focused element as one trusted insertion.
    pub async fn insert_text(&self, text: &str) -> Result<(), BrowserError> {
        self.check_alive()?;
        self.page
            .execute(InsertTextParams::new(text))
            .await
            .map_err(BrowserError::from_cdp)?;
        Ok(())
    }

    /// Presses a key chord on the focused element.
    pub async fn press(&self, chord: &Chord) -> Result<(), BrowserError> {
        self.check_alive()?;
        let send = |kind: DispatchKeyEventType, key: &windup_model::keys::KeyDef, text: bool| {
            let mut p = DispatchKeyEventParams::new(kind);
            p.key = Some(key.key.clone());
            p.code = Some(key.code.clone());
            p.windows_virtual_key_code = Some(key.key_code as i64);
            p.native_virtual_key_code = Some(key.key_code as i64);
            p.modifiers = Some(chord.modifiers as i64);
            if text && chord.modifiers & !8 == 0 {
                p.text = key.text.clone();
                p.unmodified_text = key.text.clone();
            }
            p
        };
        for m in &chord.modifier_keys {
            self.page
                .execute(send(DispatchKeyEventType::RawKeyDown, m, false))
                .await
                .map_err(BrowserError::from_cdp)?;
        }
        let down = if chord.key.text.is_some() && chord.modifiers & !8 == 0 {
            DispatchKeyEventType::KeyDown
        } else {
            DispatchKeyEventType::RawKeyDown
        };
        self.page
            .execute(send(down, &chord.key, true))
            .await
            .map_err(BrowserError::from_cdp)?;
        self.page
            .execute(send(DispatchKeyEventType::KeyUp, &chord.key, false))
            .await
            .map_err(BrowserError::from_cdp)?;
        for m in chord.modifier_keys.iter().rev() {
            self.page
                .execute(send(DispatchKeyEventType::KeyUp, m, false))
                .await
                .map_err(BrowserError::from_cdp)?;
        }
        Ok(())
    }

    /// A PNG screenshot of the viewport.
    pub async fn screenshot(&self) -> Result<Vec<u8>, BrowserError> {
        self.check_alive()?;
        self.page
            .screenshot(chromiumoxide::page::ScreenshotParams::builder().build())
            .await
            .map_err(BrowserError::from_cdp)
    }

    /// Closes the context and everything in it.
    pub async fn close(self) {
        for task in &self.tasks {
            task.abort();
        }
        if !self.instance.is_alive() {
            return;
        }
        match &self.context {
            Some(context) => {
                let _ = tokio::time::timeout(
                    Duration::from_secs(5),
                    self.instance.cdp.dispose_browser_context(context.clone()),
                )
                .await;
            }
            None => {
                // The default context cannot be disposed, and closing the last tab may end
                // the browser: leave the tab blank, where nothing of the app keeps running.
                // Nobody waits for that page, so neither do we.
                let page = self.page.clone();
                tokio::spawn(async move {
                    let _ = tokio::time::timeout(
                        Duration::from_secs(5),
                        page.execute(NavigateParams::new("about:blank")),
                    )
                    .await;
                });
            }
        }
    }
}
