//! The environment a started Chromium gets, in place of the one it would inherit.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

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
