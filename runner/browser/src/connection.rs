//! The CDP client over one transport: numbers each command, hands each answer to its command
//! by id and each event to its session's subscribers by session id (flat sessions). One reader
//! task does the dispatch; it ends, failing every waiting command, when the browser goes away.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::cdp::{Command, Event};
use super::error::{BrowserError, protocol_error};
use super::transport::Transport;

/// How long a command may go unanswered before the browser counts as hung.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// A CDP event as it arrived: its method and parameters.
#[derive(Debug)]
pub(super) struct CdpEvent {
    pub method: String,
    pub params: Value,
}

impl CdpEvent {
    /// The parameters as `E`, when this is an `E` event and they fit (an event that does not
    /// fit is skipped, as one that lacks what its reader needs).
    pub(super) fn parse<E: Event>(self) -> Option<E> {
        if self.method != E::METHOD {
            return None;
        }
        serde_json::from_value(self.params)
            .inspect_err(|e| tracing::debug!("an unreadable {} event: {e}", E::METHOD))
            .ok()
    }
}

/// Who receives events: those of one session, or the browser's own (`session` None).
struct Subscriber {
    session: Option<String>,
    events: mpsc::UnboundedSender<CdpEvent>,
}

/// A message from Chromium: an answer (`id`) or an event (`method`).
#[derive(Deserialize)]
struct Incoming {
    id: Option<u64>,
    result: Option<Value>,
    error: Option<ProtocolError>,
    method: Option<String>,
    params: Option<Value>,
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

#[derive(Deserialize)]
struct ProtocolError {
    code: i64,
    message: String,
}

/// A command as it goes out.
#[derive(Serialize)]
struct Outgoing<'a, P: Serialize> {
    id: u64,
    method: &'a str,
    params: &'a P,
    #[serde(rename = "sessionId", skip_serializing_if = "Option::is_none")]
    session_id: Option<&'a str>,
}

type Reply = oneshot::Sender<Result<Value, BrowserError>>;

/// The connection to one Chromium.
pub(super) struct Connection {
    /// Whole messages for the transport's writer; taken when the connection detaches, which
    /// ends the writer.
    outgoing: Mutex<Option<mpsc::UnboundedSender<Vec<u8>>>>,
    next_id: AtomicU64,
    pending: Mutex<HashMap<u64, Reply>>,
    subscribers: Mutex<Vec<Subscriber>>,
    /// False once the transport has closed: Chromium exited or was killed.
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
    /// Starts the writer and reader tasks over the transport. The returned reader task ends
    /// when the browser closes its end.
    pub(super) fn start(transport: Transport) -> (Arc<Self>, JoinHandle<()>) {
        let (writer, reader) = transport.split();
        let (outgoing, queue) = mpsc::unbounded_channel::<Vec<u8>>();
        let conn = Arc::new(Connection {
            outgoing: Mutex::new(Some(outgoing)),
            next_id: AtomicU64::new(1),
            pending: Mutex::new(HashMap::new()),
            subscribers: Mutex::new(Vec::new()),
            alive: AtomicBool::new(true),
        });
        tokio::spawn(writer.run(queue));
        let dispatcher = conn.clone();
        let handle = tokio::spawn(async move {
            reader.run(|message| dispatcher.dispatch(message)).await;
            dispatcher.shut_down();
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

    pub(super) fn is_alive(&self) -> bool {
        self.alive.load(Ordering::SeqCst)
    }

    /// Counts the browser as gone, before the reader notices (it did not answer in time).
    pub(super) fn mark_dead(&self) {
        self.alive.store(false, Ordering::SeqCst);
    }

    /// Leaves the browser running and lets go of it: no command goes out any more, and the
    /// writer closes the transport once what is queued has gone (a WebSocket with a close
    /// frame), after which the reader ends too.
    pub(super) fn detach(&self) {
        self.alive.store(false, Ordering::SeqCst);
        self.outgoing.lock().expect("outgoing lock").take();
    }

    /// Events of `session` (None: the browser's own) from now on, until the receiver is
    /// dropped or the browser goes away.
    pub(super) fn subscribe(&self, session: Option<&str>) -> mpsc::UnboundedReceiver<CdpEvent> {
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
    pub(super) async fn send<C: Command>(
        &self,
        session: Option<&str>,
        command: &C,
    ) -> Result<C::Response, BrowserError> {
        let answer = self.request(session, C::METHOD, command).await?;
        serde_json::from_value(answer).map_err(|e| {
            BrowserError::Protocol(format!(
                "the browser's answer to {} does not fit: {e}",
                C::METHOD
            ))
        })
    }

    /// Sends an untyped command; for tests that read what the engine itself never needs.
    #[cfg(feature = "test-access")]
    pub(super) async fn send_raw(
        &self,
        session: Option<&str>,
        method: &str,
        params: &Value,
    ) -> Result<Value, BrowserError> {
        self.request(session, method, params).await
    }

    async fn request(
        &self,
        session: Option<&str>,
        method: &str,
        params: &impl Serialize,
    ) -> Result<Value, BrowserError> {
        let gone = || BrowserError::Crashed("the browser process is gone".into());
        if !self.is_alive() {
            return Err(gone());
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = serde_json::to_vec(&Outgoing {
            id,
            method,
            params,
            session_id: session,
        })
        .map_err(|e| BrowserError::Protocol(e.to_string()))?;
        let (reply, answer) = oneshot::channel();
        self.pending.lock().expect("pending lock").insert(id, reply);
        let _guard = PendingGuard { conn: self, id };
        let sent = match &*self.outgoing.lock().expect("outgoing lock") {
            Some(outgoing) => outgoing.send(message).is_ok(),
            None => false,
        };
        if !self.is_alive() || !sent {
            return Err(gone());
        }
        let sent_at = std::time::Instant::now();
        match tokio::time::timeout(COMMAND_TIMEOUT, answer).await {
            Ok(Ok(outcome)) => {
                tracing::trace!(
                    "cdp command {id} {method} answered in {:?}",
                    sent_at.elapsed()
                );
                outcome
            }
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
