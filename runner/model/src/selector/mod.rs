//! Windup's selector syntax, parsed into parts that the in-page engine evaluates.
//!
//! ```text
//! role=button[name="Save"]        role=heading[name*="docs"][level=2]   role=checkbox[checked=true]
//! role=button[pressed=true][disabled=false]   role=tab[selected=true]   role=button[include-hidden=true]
//! text="Exact text"   text=substring   label="Email"   placeholder="Search"   testid=submit
//! css=form > button   (no prefix is CSS too)
//! role=listitem >> has-text="Buy milk" >> role=checkbox      … >> nth=0
//! frame=title="Card" >> label="Card number"   frame=name="pay" >> …   frame=css=iframe.card >> …
//! ```
//! Quotes inside values are escaped JSON-style (`\"`, `\\`).
//!
//! `frame=` picks an `<iframe>` (or `<frame>`) element by its exact `title`, its exact `name`
//! attribute or CSS, and the parts after it search that frame's document, whatever its origin.
//! Elements in frames are found without it too (every frame is searched after the main
//! document); it is for the cases where the same control is in more than one frame.

mod parse;
mod part;

pub use part::{FrameBy, NameMatch, Part, Selector, SelectorError};
