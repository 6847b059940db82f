//! Engine test helpers: the shared Chromium, event recorders, plan runners; the rest comes
//! from windup-testkit.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use windup_engine::browser::{Browser, BrowserOptions, Session};
use windup_engine::events::{Event, EventSink};
use windup_engine::executor::{ExecContext, Execution, execute, execute_steps};
use windup_engine::fragments::Fragments;
use windup_engine::secrets::SecretSource;
use windup_engine::timeouts::Timeouts;
use windup_model::Plan;

pub(crate) use windup_testkit::*;

pub(crate) fn browser_options() -> BrowserOptions {
    BrowserOptions::default()
}

static SHARED_PID: AtomicU32 = AtomicU32::new(0);

/// A static is never dropped, so the shared Chromium is killed when the process exits.
#[expect(
    unsafe_code,
    reason = "kill(2) from an atexit hook, where no runtime is left"
)]
extern "C" fn kill_shared_browser() {
    let pid = SHARED_PID.load(Ordering::SeqCst);
    if pid != 0 {
        // SAFETY: kill(2) with a pid we started; no memory is touched.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGKILL);
        }
    }
}

/// The Chromium shared by the tests of this binary.
#[expect(
    unsafe_code,
    reason = "atexit(3): the only hook that runs when a test binary exits"
)]
pub(crate) fn browser() -> &'static Browser {
    static BROWSER: OnceLock<Browser> = OnceLock::new();
    BROWSER.get_or_init(|| {
        // SAFETY: registers a plain extern "C" function once.
        unsafe {
            libc::atexit(kill_shared_browser);
        }
        Browser::new(browser_options())
    })
}

/// Notes the shared browser's pid (it may have been restarted) for the exit hook.
pub(crate) async fn note_pid(browser: &Browser) {
    if std::ptr::eq(browser, crate::support::browser())
        && let Some(pid) = browser.pid().await
    {
        SHARED_PID.store(pid, Ordering::SeqCst);
    }
}

pub(crate) fn engine_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Collects every event, for assertions.
#[derive(Default)]
pub(crate) struct Recorder(pub Mutex<Vec<Event>>);

impl EventSink for Recorder {
    fn on_event(&self, event: &Event) {
        self.0.lock().unwrap().push(event.clone());
    }
}

/// Secrets from a fixed map, so tests never touch the process environment.
pub(crate) struct MapSecrets(pub HashMap<String, String>);

impl SecretSource for MapSecrets {
    fn resolve(&self, name: &str) -> Option<String> {
        self.0.get(name).cloned()
    }
}

pub(crate) fn plan_from_str(text: &str) -> Plan {
    windup_model::validate::plan_from_json("test plan", text).unwrap_or_else(|p| panic!("{p}"))
}

pub(crate) fn load_plan(rel: &str) -> Plan {
    let path = engine_dir().join("tests/plans").join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    windup_model::validate::plan_from_json(&path.display().to_string(), &text)
        .unwrap_or_else(|p| panic!("{p}"))
}

/// Options for one execution in tests.
pub(crate) struct Run<'a> {
    pub base: &'a url::Url,
    pub timeouts: Timeouts,
    pub scenario_timeout: Duration,
    pub secrets: HashMap<String, String>,
    /// The sign-on origins the secrets' account lists besides the app's.
    pub account_origins: Vec<String>,
    pub events: Option<&'a dyn EventSink>,
    /// Whether each step leaves a trace frame.
    pub trace: windup_engine::executor::Trace,
    /// The widest a frame's picture is.
    pub trace_width: u32,
    /// The project root uploads read from (`e2e/files/`) and downloads go under; none for a
    /// plan without either.
    pub transfers_root: Option<PathBuf>,
}

impl<'a> Run<'a> {
    pub(crate) fn new(base: &'a url::Url) -> Self {
        Run {
            base,
            timeouts: Timeouts {
                action: Duration::from_millis(3_000),
                navigation: Duration::from_millis(10_000),
                scenario: Duration::from_millis(30_000),
            },
            scenario_timeout: Duration::from_secs(30),
            secrets: HashMap::new(),
            account_origins: Vec::new(),
            events: None,
            trace: Default::default(),
            trace_width: windup_engine::executor::FRAME_WIDTH,
            transfers_root: None,
        }
    }

    pub(crate) fn action_timeout(mut self, ms: u64) -> Self {
        self.timeouts.action = Duration::from_millis(ms);
        self
    }

    /// The base URL's origin, with the run's secrets declared as one account's credentials.
    pub(crate) fn boundary(&self) -> windup_engine::boundary::Boundary {
        let mut manifest = windup_engine::secrets::Manifest::default();
        let mut account = windup_engine::secrets::Account {
            origins: self.account_origins.clone(),
            ..Default::default()
        };
        for name in self.secrets.keys() {
            account
                .fields
                .insert(name.to_lowercase(), name.clone().into());
        }
        manifest.accounts.insert("test".into(), account);
        windup_engine::boundary::Boundary::new(self.base, &[], &manifest)
    }

    /// Opens the plan's start URL and runs it in a fresh session of `browser`.
    pub(crate) async fn exec(&self, browser: &Browser, plan: &Plan) -> Execution {
        let mut session = browser.acquire_session().await.expect("session");
        note_pid(browser).await;
        let x = self.exec_in(&mut session, plan, true).await;
        session.close().await;
        x
    }

    /// Runs the plan in an existing session; `open` says whether to open its start URL first.
    pub(crate) async fn exec_in(
        &self,
        session: &mut Session,
        plan: &Plan,
        open: bool,
    ) -> Execution {
        let fragments = Fragments::default();
        let secrets = MapSecrets(self.secrets.clone());
        let no_events = windup_engine::events::NoEvents;
        let boundary = self.boundary();
        let cx = ExecContext {
            early_heal: false,
            baseline: false,
            scenario_id: &plan.scenario_id,
            boundary: &boundary,
            timeouts: self.timeouts,
            scenario_timeout: self.scenario_timeout,
            fragments: &fragments,
            secrets: &secrets,
            events: self.events.unwrap_or(&no_events),
            screenshots: Default::default(),
            trace: self.trace,
            trace_width: self.trace_width,
            // Most tests here neither upload nor download (the CLI's `transfers` tests do).
            transfers: windup_engine::executor::Transfers {
                root: self
                    .transfers_root
                    .clone()
                    .unwrap_or_else(|| std::env::temp_dir().join("windup-it-no-transfers")),
                run_id: "it".into(),
            },
        };
        if open {
            execute(session, plan, &cx).await
        } else {
            execute_steps(session, plan, &cx).await
        }
    }
}

/// Asserts a passed execution, printing the failure otherwise.
#[track_caller]
pub(crate) fn assert_passed(x: &Execution, what: &str) {
    assert!(
        x.passed(),
        "{what} failed: {:?}\nactions: {:#?}",
        x.failure,
        x.actions
    );
}

/// The RGB of one pixel of a PNG screenshot.
pub(crate) fn pixel(png_bytes: &[u8], x: u32, y: u32) -> [u8; 3] {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let at = (y as usize * info.width as usize + x as usize) * channels;
    [buf[at], buf[at + 1], buf[at + 2]]
}
