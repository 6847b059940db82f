//! Sign-in's defences against guessing and against exhausting the server: failures counted per
//! account and per address (429 past a threshold), and a gate that lets at most one argon2
//! verification per core run at once, with a bounded queue (503 beyond it).

mod gate;
mod guard;
mod throttle;

pub use gate::{Busy, Gate, Pass};
pub use guard::{ClientAddress, SignInGuard, SignInLimits, account_key};
pub use throttle::{Attempt, Throttle, Window};
