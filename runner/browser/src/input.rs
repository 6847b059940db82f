//! Trusted input: mouse clicks and moves, typed text and key chords, sent through the Input
//! domain so the page sees them as the user's own.

use windup_model::keys::{Chord, KeyDef};

use super::cdp::input::{DispatchKeyEvent, DispatchMouseEvent, InsertText};
use super::error::BrowserError;
use super::page::Page;

impl Page {
    async fn mouse(&self, event: DispatchMouseEvent) -> Result<(), BrowserError> {
        self.check_alive()?;
        self.send_unchecked(&event).await?;
        Ok(())
    }

    /// A trusted left click at viewport coordinates.
    pub async fn click(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        self.check_alive()?;
        // Sent together, and run in order: a move alone is answered only at the next animation
        // frame (Chromium aligns mouse moves with frames), the press behind it flushes it at once.
        Self::batch(vec![
            self.queued(DispatchMouseEvent::moved(x, y)),
            self.queued(DispatchMouseEvent::left_button("mousePressed", x, y)),
            self.queued(DispatchMouseEvent::left_button("mouseReleased", x, y)),
        ])
        .await
    }

    /// Moves the mouse to viewport coordinates, as a trusted hover.
    pub async fn hover(&self, x: f64, y: f64) -> Result<(), BrowserError> {
        self.mouse(DispatchMouseEvent::moved(x, y)).await
    }

    /// Types text into the focused element as one trusted insertion.
    pub async fn insert_text(&self, text: &str) -> Result<(), BrowserError> {
        self.check_alive()?;
        self.send_unchecked(&InsertText {
            text: text.to_string(),
        })
        .await?;
        Ok(())
    }

    /// Presses a key chord on the focused element: its events go out as one batch, which
    /// Chromium runs in order, as the mouse events of a click.
    pub async fn press(&self, chord: &Chord) -> Result<(), BrowserError> {
        self.check_alive()?;
        // Only Shift (8) still types the key's text; other modifiers make it a shortcut.
        let types_text = chord.modifiers & !8 == 0;
        let event = |kind: &'static str, key: &KeyDef, text: bool| {
            let text = if text && types_text {
                key.text.clone()
            } else {
                None
            };
            self.queued(DispatchKeyEvent {
                kind,
                key: key.key.clone(),
                code: key.code.clone(),
                windows_virtual_key_code: key.key_code,
                native_virtual_key_code: key.key_code,
                modifiers: chord.modifiers,
                unmodified_text: text.clone(),
                text,
            })
        };
        let mut batch = Vec::new();
        for m in &chord.modifier_keys {
            batch.push(event("rawKeyDown", m, false));
        }
        let down = if chord.key.text.is_some() && types_text {
            "keyDown"
        } else {
            "rawKeyDown"
        };
        batch.push(event(down, &chord.key, true));
        batch.push(event("keyUp", &chord.key, false));
        for m in chord.modifier_keys.iter().rev() {
            batch.push(event("keyUp", m, false));
        }
        Self::batch(batch).await
    }
}
