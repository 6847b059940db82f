//! Watching a page: its lifecycle, dialogs (accepted and recorded), failed requests and crash,
//! its console and requests once asked for (`traffic`),
//! and the tabs it opens, from its CDP events; and setting a newly attached page up with only
//! what a [`super::Session`] uses, sent at once rather than one command after another. Each
//! event is handed to the state of its concern: the documents (`navigation`), the log and the
//! origins a reset clears (`network_log`, `page`), the hold (`guard`), the frames
//! (`remote_frames`), and the tabs the page opened ([`Opened`]).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::task::JoinHandle;

use super::cdp::Event;
use super::cdp::emulation::{
    ScreenOrientation, SetDeviceMetricsOverride, SetFocusEmulationEnabled,
};
use super::cdp::fetch::RequestPaused;
use super::cdp::inspector::TargetCrashed;
use super::cdp::network::{
    self, LoadingFailed, LoadingFinished, RequestWillBeSent, ResponseReceived,
};
use super::cdp::page::{
    self, AddScriptToEvaluateOnNewDocument, FrameNavigated, HandleJavaScriptDialog,
    JavascriptDialogOpening, LifecycleEvent, SetLifecycleEventsEnabled,
};
use super::cdp::runtime::{self, ConsoleApiCalled, ExceptionThrown};
use super::cdp::target::{TargetCreated, TargetInfoChanged};
use super::error::BrowserError;
use super::guard::{self, Decision, Guard};
use super::navigation::Documents;
use super::network_log::InFlight;
use super::page::Page;
use super::remote_frames::{self, Subframes};

/// The tabs a session's pages opened: those not yet followed, and every tab of the session
/// (its first, and those its pages opened), which, in an attached browser's default context,
/// are what the session closes when it ends.
pub(super) struct Opened {
    popups: Mutex<VecDeque<String>>,
    tabs: Mutex<Vec<String>>,
}

impl Opened {
    /// The tabs of a session whose first tab is `first`.
    pub(super) fn new(first: &str) -> Opened {
        Opened {
            popups: Mutex::new(VecDeque::new()),
            tabs: Mutex::new(vec![first.to_string()]),
        }
    }

    /// A tab the page opened, one of the session's from now on.
    fn note(&self, target: &str) {
        self.tabs
            .lock()
            .expect("opened lock")
            .push(target.to_string());
    }

    /// A tab the page opened, for the session to follow.
    fn offer(&self, target: &str) {
        self.popups
            .lock()
            .expect("popups lock")
            .push_back(target.to_string());
    }

    /// The oldest tab the page opened that the session has not followed.
    pub(super) fn next_popup(&self) -> Option<String> {
        self.popups.lock().expect("popups lock").pop_front()
    }

    /// Whether the page opened a tab the session did not follow.
    pub(super) fn any_popup(&self) -> bool {
        !self.popups.lock().expect("popups lock").is_empty()
    }

    /// Forgets the tabs not followed (a reset tab).
    pub(super) fn clear_popups(&self) {
        self.popups.lock().expect("popups lock").clear();
    }

    /// Takes every tab of the session, to close them.
    pub(super) fn take_tabs(&self) -> Vec<String> {
        std::mem::take(&mut *self.tabs.lock().expect("opened lock"))
    }
}

/// Listens to `page`'s lifecycle, dialogs, failed requests and crashes (and, in its own task,
/// its frames out of process), then sets the page up: the Page domain with lifecycle events,
/// the Network domain (events only), the in-page engine for every new document, and the
/// viewport. The set-up commands go out together; Chromium runs them in order. The listeners
/// are pushed onto `tasks` as they start.
pub(super) async fn watch_page(
    page: &Page,
    docs: &Arc<Documents>,
    guard: &Arc<Guard>,
    frames: &Arc<Subframes>,
    tasks: &mut Vec<JoinHandle<()>>,
) -> Result<(), BrowserError> {
    let conn = page.instance.conn.clone();
    let mut events = conn.subscribe(Some(&page.session_id));
    let (log, footprint) = (page.log.clone(), page.footprint.clone());
    let traffic = page.traffic.clone();
    let (docs, hold, subframes) = (docs.clone(), guard.clone(), frames.clone());
    let main_frame = page.target.clone();
    let session = page.session_id.clone();
    tasks.push(tokio::spawn(async move {
        let mut in_flight = InFlight::default();
        while let Some(event) = events.recv().await {
            match event.method.as_str() {
                LifecycleEvent::METHOD => {
                    let Some(lifecycle) = event.parse::<LifecycleEvent>() else {
                        continue;
                    };
                    if lifecycle.frame_id != main_frame {
                        continue;
                    }
                    docs.on_lifecycle(lifecycle);
                }
                JavascriptDialogOpening::METHOD => {
                    // Every dialog is accepted, even one whose details do not parse: an
                    // open dialog would block the page.
                    let dialog = event.parse::<JavascriptDialogOpening>().unwrap_or_default();
                    log.lock().expect("log lock").dialogs.push((
                        dialog.kind.unwrap_or_else(|| "alert".to_string()),
                        dialog.message.unwrap_or_default(),
                    ));
                    let accept = HandleJavaScriptDialog {
                        accept: true,
                        prompt_text: dialog.default_prompt,
                    };
                    let conn = conn.clone();
                    let session = session.clone();
                    tokio::spawn(async move {
                        let _ = conn.send(Some(&session), &accept).await;
                    });
                }
                // Failed requests for the evidence. Network events arrive anyway once the
                // domain is on; keeping them costs no round trip on the passing path.
                RequestWillBeSent::METHOD => {
                    if let Some(request) = event.parse::<RequestWillBeSent>() {
                        traffic.on_request(&request);
                        in_flight.on_request(request, &footprint.origins, &log);
                    }
                }
                ResponseReceived::METHOD => {
                    if let Some(response) = event.parse::<ResponseReceived>() {
                        traffic.on_response(&response);
                        in_flight.on_response(response, &log);
                    }
                }
                LoadingFinished::METHOD => {
                    if let Some(finished) = event.parse::<LoadingFinished>() {
                        in_flight.on_finished(finished, &log);
                    }
                }
                LoadingFailed::METHOD => {
                    if let Some(failed) = event.parse::<LoadingFailed>() {
                        traffic.on_failed(&failed);
                        in_flight.on_failed(failed, &log);
                    }
                }
                // Every top-level document is checked as it commits too: a tab the page
                // opened loads its first one before it can be held.
                FrameNavigated::METHOD => {
                    let Some(FrameNavigated { frame }) = event.parse::<FrameNavigated>() else {
                        continue;
                    };
                    if frame.parent_id.is_some() {
                        subframes.committed();
                    } else if frame.id == main_frame {
                        hold.on_commit(&frame.url);
                        in_flight.on_main_commit(frame.loader_id.as_deref(), &log);
                    }
                }
                RequestPaused::METHOD => {
                    // Every paused request must be answered, or the page waits for ever.
                    let Some(paused) = event.parse::<RequestPaused>() else {
                        continue;
                    };
                    let conn = conn.clone();
                    let session = session.clone();
                    match hold.decide(&main_frame, paused) {
                        Decision::Continue(go) => tokio::spawn(async move {
                            let _ = conn.send(Some(&session), &go).await;
                        }),
                        Decision::Fail(stop) => tokio::spawn(async move {
                            let _ = conn.send(Some(&session), &stop).await;
                        }),
                    };
                }
                // Only once the session records its traffic (the Runtime domain is on).
                ConsoleApiCalled::METHOD => {
                    if let Some(call) = event.parse::<ConsoleApiCalled>() {
                        traffic.on_console(call);
                    }
                }
                ExceptionThrown::METHOD => {
                    if let Some(thrown) = event.parse::<ExceptionThrown>() {
                        traffic.on_exception(thrown);
                    }
                }
                TargetCrashed::METHOD => {
                    log.lock().expect("log lock").crashed = true;
                    docs.wake();
                }
                _ => {}
            }
        }
        // The browser is gone: whoever waits for a lifecycle event finds out now.
        docs.wake();
    }));

    tasks.push(remote_frames::watch_page(
        page.instance.conn.clone(),
        frames.clone(),
        page.session_id.clone(),
    ));
    let (width, height) = page.instance.viewport;
    let mut setup = vec![
        page.queued(page::Enable {}),
        page.queued(SetLifecycleEventsEnabled { enabled: true }),
        // For failed requests in the evidence. No response bodies are kept: nothing reads them.
        page.queued(network::Enable {
            max_total_buffer_size: 0,
            max_resource_buffer_size: 0,
        }),
        page.queued(AddScriptToEvaluateOnNewDocument {
            source: page.instance.engine_script.clone(),
        }),
        page.queued(SetDeviceMetricsOverride {
            width,
            height,
            device_scale_factor: 1.0,
            mobile: false,
            screen_orientation: ScreenOrientation {
                kind: "portraitPrimary",
                angle: 0,
            },
        }),
        page.queued(SetFocusEmulationEnabled { enabled: true }),
    ];
    // A tab the page opened is recorded like the page that opened it.
    if page.traffic.is_on() {
        setup.push(page.queued(runtime::Enable {}));
    }
    // A tab the page opened is held like the page that opened it.
    if guard.is_held() {
        setup.push(page.queued(guard::enable()));
    }
    // Frames in a process of their own (an attached browser's site isolation).
    setup.push(page.queued(remote_frames::auto_attach()));
    Page::batch(setup).await
}

/// Records pages opened by `page` (`target=_blank`, `window.open`), and checks each URL they
/// commit against the hold.
pub(super) fn watch_popups(
    page: &Page,
    opened: &Arc<Opened>,
    guard: &Arc<Guard>,
) -> JoinHandle<()> {
    let mut created = page.instance.conn.subscribe(None);
    let (opened, guard) = (opened.clone(), guard.clone());
    let opener = page.target.clone();
    // In an attached browser's default context, the tabs to close when Windup detaches.
    let default_tabs = page
        .instance
        .in_default_context()
        .then(|| page.instance.default_tabs.clone());
    tokio::spawn(async move {
        let mut ours: Vec<String> = Vec::new();
        while let Some(event) = created.recv().await {
            let info = match event.method.as_str() {
                TargetCreated::METHOD => match event.parse::<TargetCreated>() {
                    Some(TargetCreated { target_info: info })
                        if info.is_page() && info.opener_id.as_deref() == Some(opener.as_str()) =>
                    {
                        ours.push(info.target_id.clone());
                        opened.note(&info.target_id);
                        if let Some(tabs) = &default_tabs {
                            tabs.lock()
                                .expect("tabs lock")
                                .insert(info.target_id.clone());
                        }
                        opened.offer(&info.target_id);
                        info
                    }
                    _ => continue,
                },
                TargetInfoChanged::METHOD => match event.parse::<TargetInfoChanged>() {
                    Some(TargetInfoChanged { target_info: info })
                        if ours.contains(&info.target_id) =>
                    {
                        info
                    }
                    _ => continue,
                },
                _ => continue,
            };
            if !info.url.is_empty() {
                guard.on_commit(&info.url);
            }
        }
    })
}
