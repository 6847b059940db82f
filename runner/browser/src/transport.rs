//! How whole CDP messages travel, by one of two roads: Chromium's debugging pipe
//! (`--remote-debugging-pipe`) for a browser Windup starts, where commands go to its fd 3 and
//! answers and events come back on its fd 4, each message JSON followed by a NUL byte; or the
//! WebSocket of a browser Windup attaches to (`--cdp-url`), one text message per CDP message.
//! Only the framing lives here; what a message means is `connection.rs`'s business, the same
//! over either road.

use futures::{SinkExt, StreamExt};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

/// A connected CDP WebSocket (`ws://…/devtools/browser/<id>`).
pub(super) type WebSocket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// The road CDP messages take.
pub(super) enum Transport {
    /// Our ends of the two pipes a launched Chromium was started with.
    Pipe {
        to_browser: pipe::Sender,
        from_browser: pipe::Receiver,
    },
    /// The debugging WebSocket of a browser someone else started (boxed: it is large, and
    /// the enum lives for a moment only).
    WebSocket(Box<WebSocket>),
}

impl Transport {
    /// Splits into the half that writes queued messages and the half that reads incoming ones.
    pub(super) fn split(self) -> (Writer, Reader) {
        match self {
            Transport::Pipe {
                to_browser,
                from_browser,
            } => (Writer::Pipe(to_browser), Reader::Pipe(from_browser)),
            Transport::WebSocket(socket) => {
                let (sink, stream) = (*socket).split();
                (Writer::WebSocket(sink), Reader::WebSocket(stream))
            }
        }
    }
}

pub(super) enum Writer {
    Pipe(pipe::Sender),
    WebSocket(futures::stream::SplitSink<WebSocket, Message>),
}

impl Writer {
    /// Writes each queued message whole until the queue or the road closes. A message is never
    /// half-written, even when its sender stopped waiting for the answer. When the queue closes
    /// (the connection detaches) a WebSocket is closed properly, so the browser sees a client
    /// that left rather than one that vanished.
    pub(super) async fn run(self, mut queue: mpsc::UnboundedReceiver<Vec<u8>>) {
        match self {
            Writer::Pipe(mut to_browser) => {
                while let Some(mut message) = queue.recv().await {
                    message.push(0);
                    if let Err(e) = to_browser.write_all(&message).await {
                        tracing::debug!("browser pipe closed for writing: {e}");
                        break;
                    }
                }
            }
            Writer::WebSocket(mut sink) => {
                while let Some(message) = queue.recv().await {
                    // Our own serde_json output: always UTF-8.
                    let text = String::from_utf8_lossy(&message).into_owned();
                    if let Err(e) = sink.send(Message::text(text)).await {
                        tracing::debug!("browser WebSocket closed for writing: {e}");
                        return;
                    }
                }
                let _ = sink.close().await;
            }
        }
    }
}

pub(super) enum Reader {
    Pipe(pipe::Receiver),
    WebSocket(futures::stream::SplitStream<WebSocket>),
}

impl Reader {
    /// Hands each incoming message to `deliver`; returns when the browser closes its end.
    pub(super) async fn run(self, mut deliver: impl FnMut(&[u8])) {
        match self {
            Reader::Pipe(from_browser) => {
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
                            deliver(&buf);
                        }
                        Err(e) => {
                            tracing::debug!("browser pipe closed for reading: {e}");
                            break;
                        }
                    }
                }
            }
            Reader::WebSocket(mut stream) => {
                while let Some(message) = stream.next().await {
                    match message {
                        Ok(Message::Text(text)) => deliver(text.as_bytes()),
                        Ok(Message::Binary(bytes)) => deliver(&bytes),
                        Ok(Message::Close(_)) => break,
                        // Pings are answered by tungstenite itself.
                        Ok(_) => {}
                        Err(e) => {
                            tracing::debug!("browser WebSocket closed for reading: {e}");
                            break;
                        }
                    }
                }
            }
        }
    }
}
