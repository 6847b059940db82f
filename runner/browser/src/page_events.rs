//! Watching a page: its lifecycle, dialogs (accepted and recorded), failed requests and crash,
//! and the tabs it opens, from its CDP events; and setting a newly attached page up with only
//! what [`Session`] uses, sent at once rather than one command after another.

use std::sync::atomic::Ordering;

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
use super::cdp::target::{TargetCreated, TargetInfoChanged};
use super::error::BrowserError;
use super::guard::{self, Decision};
use super::navigation::DocState;
use super::network_log::InFlight;
use super::session::Session;

impl Session {
    /// Listens to the current page's lifecycle, dialogs, failed requests and crashes, then sets
    /// the page up: the Page domain with lifecycle events, the Network domain (events only), the
    /// in-page engine for every new document, and the viewport. The set-up commands go out
    /// together; Chromium runs them in order.
    pub(super) async fn watch_page(&mut self) -> Result<(), BrowserError> {
        let conn = self.instance.conn.clone();
        let mut events = conn.subscribe(Some(&self.cdp_session_id));
        let shared = self.shared.clone();
        let main_frame = self.target.clone();
        let session = self.cdp_session_id.clone();
        self.tasks.push(tokio::spawn(async move {
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
                        shared.doc.lock().expect("doc lock").on_lifecycle(lifecycle);
                        shared.doc_changed.notify_waiters();
                    }
                    JavascriptDialogOpening::METHOD => {
                        // Every dialog is accepted, even one whose details do not parse: an
                        // open dialog would block the page.
                        let dialog = event.parse::<JavascriptDialogOpening>().unwrap_or_default();
                        shared.log.lock().expect("log lock").dialogs.push((
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
                            in_flight.on_request(request, &shared.origins, &shared.log);
                        }
                    }
                    ResponseReceived::METHOD => {
                        if let Some(response) = event.parse::<ResponseReceived>() {
                            in_flight.on_response(response, &shared.log);
                        }
                    }
                    LoadingFinished::METHOD => {
                        if let Some(finished) = event.parse::<LoadingFinished>() {
                            in_flight.on_finished(finished, &shared.log);
                        }
                    }
                    LoadingFailed::METHOD => {
                        if let Some(failed) = event.parse::<LoadingFailed>() {
                            in_flight.on_failed(failed, &shared.log);
                        }
                    }
                    // Every top-level document is checked as it commits too: a tab the page
                    // opened loads its first one before it can be held.
                    FrameNavigated::METHOD => {
                        let Some(FrameNavigated { frame }) = event.parse::<FrameNavigated>() else {
                            continue;
                        };
                        if frame.parent_id.is_some() {
                            shared.subframes.store(true, Ordering::SeqCst);
                        } else if frame.id == main_frame {
                            guard::on_commit(&shared, &frame.url);
                        }
                    }
                    RequestPaused::METHOD => {
                        // Every paused request must be answered, or the page waits for ever.
                        let Some(paused) = event.parse::<RequestPaused>() else {
                            continue;
                        };
                        let conn = conn.clone();
                        let session = session.clone();
                        match guard::decide(&shared, &main_frame, paused) {
                            Decision::Continue(go) => tokio::spawn(async move {
                                let _ = conn.send(Some(&session), &go).await;
                            }),
                            Decision::Fail(stop) => tokio::spawn(async move {
                                let _ = conn.send(Some(&session), &stop).await;
                            }),
                        };
                    }
                    TargetCrashed::METHOD => {
                        shared.log.lock().expect("log lock").crashed = true;
                        shared.doc_changed.notify_waiters();
                    }
                    _ => {}
                }
            }
            // The browser is gone: whoever waits for a lifecycle event finds out now.
            shared.doc_changed.notify_waiters();
        }));

        self.watch_remote_frames();
        let (width, height) = self.instance.viewport;
        let mut setup = vec![
            self.queued(page::Enable {}),
            self.queued(SetLifecycleEventsEnabled { enabled: true }),
            // For failed requests in the evidence. No response bodies are kept: nothing reads them.
            self.queued(network::Enable {
                max_total_buffer_size: 0,
                max_resource_buffer_size: 0,
            }),
            self.queued(AddScriptToEvaluateOnNewDocument {
                source: self.instance.engine_script.clone(),
            }),
            self.queued(SetDeviceMetricsOverride {
                width,
                height,
                device_scale_factor: 1.0,
                mobile: false,
                screen_orientation: ScreenOrientation {
                    kind: "portraitPrimary",
                    angle: 0,
                },
            }),
            self.queued(SetFocusEmulationEnabled { enabled: true }),
        ];
        // A tab the page opened is held like the page that opened it.
        setup.extend(self.hold_command());
        // Frames in a process of their own (an attached browser's site isolation).
        setup.push(self.auto_attach_command());
        Self::page_batch(setup).await
    }

    /// Records pages opened by the current page (`target=_blank`, `window.open`), and checks
    /// each URL they commit against the hold.
    pub(super) fn watch_popups(&mut self) {
        let mut created = self.instance.conn.subscribe(None);
        let shared = self.shared.clone();
        let opener = self.target.clone();
        // In an attached browser's default context, the tabs to close when Windup detaches.
        let default_tabs = self
            .instance
            .in_default_context()
            .then(|| self.instance.default_tabs.clone());
        self.tasks.push(tokio::spawn(async move {
            let mut ours: Vec<String> = Vec::new();
            while let Some(event) = created.recv().await {
                let info = match event.method.as_str() {
                    TargetCreated::METHOD => match event.parse::<TargetCreated>() {
                        Some(TargetCreated { target_info: info })
                            if info.is_page()
                                && info.opener_id.as_deref() == Some(opener.as_str()) =>
                        {
                            ours.push(info.target_id.clone());
                            shared
                                .opened
                                .lock()
                                .expect("opened lock")
                                .push(info.target_id.clone());
                            if let Some(tabs) = &default_tabs {
                                tabs.lock()
                                    .expect("tabs lock")
                                    .insert(info.target_id.clone());
                            }
                            shared
                                .popups
                                .lock()
                                .expect("popups lock")
                                .push_back(info.target_id.clone());
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
                    guard::on_commit(&shared, &info.url);
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
        let cdp_session_id = match Self::attach(&self.instance, &target).await {
            Ok(id) => id,
            Err(e @ BrowserError::Crashed(_)) => return Err(e),
            Err(e) => {
                tracing::warn!("a new tab opened but could not be attached: {e}");
                return Ok(false);
            }
        };
        self.stop_watching();
        self.tasks.clear();
        *self.shared.doc.lock().expect("doc lock") = DocState::default();
        self.target = target;
        self.cdp_session_id = cdp_session_id;
        self.followed_popup = true;
        self.watch_page().await?;
        self.watch_popups();
        // A document the tab committed before it was watched is checked now; later ones are
        // checked as they commit.
        if let Err(e @ BrowserError::Crashed(_)) = self.check_hold().await {
            return Err(e);
        }
        Ok(true)
    }
}
