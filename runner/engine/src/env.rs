//! The environment as the engine reads it. Injected rather than read from the process, so a
//! caller (the Action, a test) can hand the engine a variable, such as the dashboard token,
//! without mutating the process's own environment (which is unsound once threads run). And
//! the environment the processes the engine starts (Chromium) get, when the caller gives one.
//! A leaf.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
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

/// The whole environment of a process the engine starts, in place of the one it would
/// inherit: a caller whose own environment holds secrets (the Action: `GITHUB_TOKEN`, provider
/// keys) gives a copy without them. `Debug` shows the names, never the values.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct ChildEnv(BTreeMap<OsString, OsString>);

impl ChildEnv {
    /// Exactly these variables.
    pub fn new(vars: impl IntoIterator<Item = (OsString, OsString)>) -> ChildEnv {
        ChildEnv(vars.into_iter().collect())
    }

    /// The variables, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&OsStr, &OsStr)> {
        self.0.iter().map(|(k, v)| (k.as_os_str(), v.as_os_str()))
    }

    /// A variable's value, if it is set.
    pub fn get(&self, name: &str) -> Option<&OsStr> {
        self.0.get(OsStr::new(name)).map(OsString::as_os_str)
    }

    /// Gives `command` exactly this environment: nothing of the parent's is inherited.
    pub fn apply(&self, command: &mut std::process::Command) {
        command.env_clear().envs(self.iter());
    }
}

impl std::fmt::Debug for ChildEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("ChildEnv")
            .field(&self.0.keys().collect::<Vec<_>>())
            .finish()
    }
}

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

    #[test]
    fn a_child_env_shows_names_not_values() {
        let env = ChildEnv::new([("APP_DB".into(), "postgres://u:hunter2@db/app".into())]);
        assert_eq!(format!("{env:?}"), r#"ChildEnv(["APP_DB"])"#);
        assert_eq!(
            env.get("APP_DB"),
            Some(OsStr::new("postgres://u:hunter2@db/app"))
        );
        assert_eq!(env.get("PATH"), None);
    }
}
