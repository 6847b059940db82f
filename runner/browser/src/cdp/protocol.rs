//! What every typed CDP message has in common: a command names its method and the type of its
//! answer; an event names its method.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// A CDP command: its parameters serialise to the message's `params`.
pub(crate) trait Command: Serialize {
    /// `Domain.method`.
    const METHOD: &'static str;
    /// The answer's `result`. Unknown fields are ignored, so a newer Chromium still fits.
    type Response: DeserializeOwned;
}

/// A CDP event: its `params` deserialise to the implementing type.
pub(crate) trait Event: DeserializeOwned {
    /// `Domain.event`.
    const METHOD: &'static str;
}

/// The answer of a command whose result nobody reads (most answer `{}`).
pub(crate) type Ignored = serde::de::IgnoredAny;
