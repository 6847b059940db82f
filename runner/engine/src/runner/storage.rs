//! Setup scenarios' saved browser storage: cookies and localStorage, captured when a setup
//! passes and loaded into the contexts of the scenarios that need it (like Playwright's setup
//! projects). The files hold session tokens: they live in `e2e/.windup/storage/` (git-ignored by
//! `windup init`), readable by the owner only, and never enter a report or a log.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::browser::{BrowserError, Cookie, Session, injected};
use crate::project::Layout;

/// What a passed setup leaves for the scenarios that need it, saved as JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct StorageState {
    /// As CDP's `Network.getAllCookies` reports them.
    pub cookies: Vec<Cookie>,
    /// localStorage, per origin.
    pub origins: Vec<OriginStorage>,
}

/// One origin's localStorage.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct OriginStorage {
    /// The origin, such as `http://127.0.0.1:3000`.
    pub origin: String,
    /// Its entries as `(key, value)`, in the order the page listed them.
    pub local_storage: Vec<(String, String)>,
}

/// The session's cookies and its current origin's localStorage.
pub(super) async fn capture(session: &Session) -> Result<StorageState, BrowserError> {
    let cookies = session.page().cookies().await?;
    let injected::LocalStorage { origin, entries } =
        injected::local_storage(session.page()).await?;
    let origins = if origin == "null" || entries.is_empty() {
        Vec::new()
    } else {
        vec![OriginStorage {
            origin,
            local_storage: entries,
        }]
    };
    Ok(StorageState { cookies, origins })
}

/// Loads saved storage into a fresh session before its first navigation.
pub(super) async fn apply(session: &Session, state: &StorageState) -> Result<(), BrowserError> {
    session.page().set_cookies(&state.cookies).await?;
    for o in &state.origins {
        // Data only: the saved entries, written once per tab before the page's own scripts.
        injected::restore_local_storage(session.page(), &o.origin, &o.local_storage).await?;
    }
    Ok(())
}

/// Writes a setup's storage, readable by the owner only.
pub(super) fn save(root: &Path, setup_id: &str, state: &StorageState) -> std::io::Result<()> {
    let path = root
        .join(Layout::STORAGE_DIR)
        .join(format!("{setup_id}.json"));
    crate::fsutil::write_json(&path, state)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(())
}
