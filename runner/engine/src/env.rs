//! The environment as the engine reads it. Injected rather than read from the process, so a
//! caller (the Action, a test) can hand the engine a variable, such as the dashboard token,
//! without mutating the process's own environment (which is unsound once threads run). And
//! `ChildEnv`, the browser crate's environment for the Chromium the engine starts, re-exported.
//! A leaf.

use std::collections::BTreeMap;

use std::sync::Arc;

/// A variable lookup.
type Lookup = dyn Fn(&str) -> Option<String> + Send + Sync;

/// A read-only view of environment variables. `Debug` shows no names or values.
#[derive(Clone)]
pub struct Env(Arc<Lookup>);

impl Env {
    /// The process's environment.
    pub fn process() -> Env {
        Env(Arc::new(|k| std::env::var(k).ok()))
    }

    /// Any lookup (tests script one).
    pub fn from_fn(f: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Env {
        Env(Arc::new(f))
    }

    /// This view with `vars` set on top.
    pub fn with(&self, vars: BTreeMap<String, String>) -> Env {
        let under = self.clone();
        Env(Arc::new(move |k| {
            vars.get(k).cloned().or_else(|| under.get(k))
        }))
    }

    /// The variable's value, if set (possibly empty).
    pub fn get(&self, name: &str) -> Option<String> {
        (self.0)(name)
    }

    /// The variable's value when set and not blank.
    pub fn non_blank(&self, name: &str) -> Option<String> {
        self.get(name).filter(|v| !v.trim().is_empty())
    }

    /// The lookup as a function, for the clients that take one.
    pub fn as_fn(&self) -> impl Fn(&str) -> Option<String> + '_ {
        |k| self.get(k)
    }
}

impl Default for Env {
    fn default() -> Self {
        Env::process()
    }
}

impl std::fmt::Debug for Env {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Env(..)")
    }
}

pub use windup_browser::ChildEnv;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_win_and_the_rest_falls_through() {
        let base = Env::from_fn(|k| (k == "A" || k == "B").then(|| format!("base-{k}")));
        let env = base.with(BTreeMap::from([("B".to_string(), "top".to_string())]));
        assert_eq!(env.get("A").as_deref(), Some("base-A"));
        assert_eq!(env.get("B").as_deref(), Some("top"));
        assert_eq!(env.get("C"), None);
        assert_eq!(format!("{env:?}"), "Env(..)");
    }
}
