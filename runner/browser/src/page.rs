//! [`Page`]: the page a session is on, and the road every command to it travels: its target,
//! the flat CDP session attached to it, and the browser behind it. A command is sent only
//! while the browser runs and the page's renderer has not crashed; commands of one batch go
//! out together, and Chromium runs them in order.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use base64::Engine as _;
use futures::future::BoxFuture;

use super::cdp::Command;
use super::cdp::page::{
    AddScriptToEvaluateOnNewDocument, CaptureScreenshot, Clip, GetLayoutMetrics,
};
use super::cdp::target::ActivateTarget;
use super::error::BrowserError;
use super::instance::Instance;
use super::network_log::SessionLog;

/// What a scenario leaves in its tab besides its cookies and caches, which a reset clears: the
/// origins its documents came from (whose storage goes) and the scripts added for new
/// documents besides the engine's own. A tab the page opened and the session followed shares
/// it (such a session is never reset).
#[derive(Default)]
pub(super) struct Footprint {
    /// Origins of the documents this tab loaded (frames included).
    pub origins: Mutex<BTreeSet<String>>,
    /// Identifiers of the scripts added for new documents, removed by a reset.
    pub init_scripts: Mutex<Vec<String>>,
}

impl Footprint {
    /// Takes the origins and the scripts noted so far, for a reset.
    pub(super) fn take(&self) -> (Vec<String>, Vec<String>) {
        let origins = std::mem::take(&mut *self.origins.lock().expect("origins lock"))
            .into_iter()
            .collect();
        let scripts = std::mem::take(&mut *self.init_scripts.lock().expect("scripts lock"));
        (origins, scripts)
    }
}

/// The page a session is on: where its commands, its input and the in-page engine's calls
/// (`browser::injected`) go. A session that follows a tab its page opened is on that tab's
/// page from then on.
pub struct Page {
    pub(super) instance: Arc<Instance>,
    /// The page's target id, which is also its main frame's id.
    pub(super) target: String,
    /// Its browser context: None for a tab in the default context (the start-up tab, or a tab
    /// opened in an attached browser's default context with `reuse_context`).
    pub(super) context: Option<String>,
    /// The id of the flat CDP session attached to the page: commands to the page carry it,
    /// and its events come with it.
    pub(super) session_id: String,
    /// What happened besides our own actions (`page_events` writes it); a crash stops every
    /// command. Shared with the pages the session follows.
    pub(super) log: Arc<Mutex<SessionLog>>,
    /// What a reset clears; shared with the pages the session follows.
    pub(super) footprint: Arc<Footprint>,
    /// Console messages and requests, once asked for; shared with the pages the session
    /// follows.
    pub(super) traffic: Arc<super::traffic::Traffic>,
}

/// A small JPEG of the viewport ([`Page::frame`]) and the viewport's size in CSS pixels.
#[derive(Debug, Clone)]
pub struct Frame {
    /// The image.
    pub jpeg: Vec<u8>,
    /// The viewport's width, in CSS pixels.
    pub width: u32,
    /// The viewport's height, in CSS pixels.
    pub height: u32,
}

/// A command of a batch (see [`Page::batch`]).
pub(super) type Queued<'a> = BoxFuture<'a, Result<(), BrowserError>>;

impl Page {
    /// Whether the browser runs and the page's renderer has not crashed.
    pub(super) fn check_alive(&self) -> Result<(), BrowserError> {
        if !self.instance.is_alive() {
            return Err(BrowserError::Crashed("the browser process is gone".into()));
        }
        if self.log.lock().expect("log lock").crashed {
            return Err(BrowserError::Crashed("the page's renderer crashed".into()));
        }
        Ok(())
    }

    /// A command to the page, without first checking that it is alive.
    pub(super) async fn send_unchecked<C: Command>(
        &self,
        command: &C,
    ) -> Result<C::Response, BrowserError> {
        self.instance
            .conn
            .send(Some(&self.session_id), command)
            .await
    }

    /// Sends a command to the page and returns its answer.
    pub(super) async fn send<C: Command>(&self, command: &C) -> Result<C::Response, BrowserError> {
        self.check_alive()?;
        self.send_unchecked(command).await
    }

    /// Sends a command to one of the page's sessions: its own (None), or that of a frame out of
    /// process (`remote_frames.rs`).
    pub(super) async fn send_in<C: Command>(
        &self,
        session: Option<&str>,
        command: &C,
    ) -> Result<C::Response, BrowserError> {
        self.check_alive()?;
        let session = session.unwrap_or(&self.session_id);
        self.instance.conn.send(Some(session), command).await
    }

    /// `command` to the page, as one command of a batch.
    pub(super) fn queued<C: Command + Send + Sync + 'static>(&self, command: C) -> Queued<'_> {
        Box::pin(async move { self.send_unchecked(&command).await.map(|_| ()) })
    }

    /// Sends commands to the page together (Chromium runs them in order) and waits for every
    /// answer.
    pub(super) async fn batch(batch: Vec<Queued<'_>>) -> Result<(), BrowserError> {
        futures::future::try_join_all(batch).await?;
        Ok(())
    }

    /// Adds a script that runs in every new document before the page's own, until the session
    /// ends (a reset removes it).
    pub(super) async fn install_init_script(&self, source: &str) -> Result<(), BrowserError> {
        let added = self
            .send(&AddScriptToEvaluateOnNewDocument {
                source: source.to_string(),
            })
            .await?;
        self.footprint
            .init_scripts
            .lock()
            .expect("scripts lock")
            .push(added.identifier);
        Ok(())
    }

    /// A PNG screenshot of the viewport.
    pub async fn screenshot(&self) -> Result<Vec<u8>, BrowserError> {
        self.capture(CaptureScreenshot {
            format: "png",
            quality: None,
            clip: None,
        })
        .await
    }

    /// A small JPEG of the viewport, scaled down to at most `max_width` pixels wide, for a
    /// trace; and the viewport it shows, in CSS pixels.
    pub async fn frame(&self, max_width: u32, quality: u8) -> Result<Frame, BrowserError> {
        self.check_alive()?;
        let metrics = self.send_unchecked(&GetLayoutMetrics {}).await?;
        let v = metrics.css_visual_viewport;
        let scale = (f64::from(max_width) / v.client_width.max(1.0)).min(1.0);
        let jpeg = self
            .capture(CaptureScreenshot {
                format: "jpeg",
                quality: Some(quality),
                // The clip is in document coordinates: the visual viewport where it is now.
                clip: Some(Clip {
                    x: v.page_x,
                    y: v.page_y,
                    width: v.client_width,
                    height: v.client_height,
                    scale,
                }),
            })
            .await?;
        Ok(Frame {
            jpeg,
            width: v.client_width.round() as u32,
            height: v.client_height.round() as u32,
        })
    }

    async fn capture(&self, shot: CaptureScreenshot) -> Result<Vec<u8>, BrowserError> {
        self.check_alive()?;
        // A tab in the background paints nothing in a headed browser.
        self.instance
            .conn
            .send(
                None,
                &ActivateTarget {
                    target_id: self.target.clone(),
                },
            )
            .await?;
        let shot = self.send_unchecked(&shot).await?;
        base64::engine::general_purpose::STANDARD
            .decode(shot.data)
            .map_err(|e| BrowserError::Protocol(format!("a screenshot that is not base64: {e}")))
    }
}
