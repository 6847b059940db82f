//! How whole CDP messages travel: Chromium's debugging pipe (`--remote-debugging-pipe`), where
//! commands go to its fd 3 and answers and events come back on its fd 4, each message JSON
//! followed by a NUL byte. Only the framing lives here; what a message means is
//! `connection.rs`'s business, so another transport (a WebSocket) can stand in for this one.

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::unix::pipe;
use tokio::sync::mpsc;

/// Our ends of the two pipes Chromium was started with.
pub(super) struct Pipe {
    pub to_browser: pipe::Sender,
    pub from_browser: pipe::Receiver,
}

impl Pipe {
    /// Splits into the half that writes queued messages and the half that reads incoming ones.
    pub(super) fn split(self) -> (PipeWriter, PipeReader) {
        (PipeWriter(self.to_browser), PipeReader(self.from_browser))
    }
}

pub(super) struct PipeWriter(pipe::Sender);

impl PipeWriter {
    /// Writes each queued message whole, then its NUL, until the queue or the pipe closes. A
    /// message is never half-written, even when its sender stopped waiting for the answer.
    pub(super) async fn run(mut self, mut queue: mpsc::UnboundedReceiver<Vec<u8>>) {
        while let Some(mut message) = queue.recv().await {
            message.push(0);
            if let Err(e) = self.0.write_all(&message).await {
                tracing::debug!("browser pipe closed for writing: {e}");
                break;
            }
        }
    }
}

pub(super) struct PipeReader(pipe::Receiver);

impl PipeReader {
    /// Hands each incoming message, without its NUL, to `deliver`; returns when Chromium
    /// closes its end.
    pub(super) async fn run(self, mut deliver: impl FnMut(&[u8])) {
        let mut from_browser = BufReader::with_capacity(64 * 1024, self.0);
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
}
