//! Setup scenarios' saved browser storage: cookies and localStorage, captured when a setup
//! passes and loaded into the contexts of the scenarios that need it (like Playwright's setup
//! projects). The files hold session tokens: they live in `e2e/.windup/storage/` (git-ignored by
//! `windup init`), readable by the owner only, and never enter a report or a log.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::browser::{BrowserError, Session};
use crate::project::Layout;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageState {
    /// As CDP's `Network.getAllCookies` reports them.
    pub cookies: Vec<Value>,
    pub origins: Vec<OriginStorage>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OriginStorage {
    pub origin: String,
    pub local_storage: Vec<(String, String)>,
}

/// The session's cookies and its current origin's localStorage.
pub async fn capture(session: &Session) -> Result<StorageState, BrowserError> {
    let all = session.cdp("Network.getAllCookies", json!({})).await?;
    let cookies = all["cookies"].as_array().cloned().unwrap_or_default();
    let (origin, local_storage): (String, Vec<(String, String)>) = session
        .eval("[location.origin, Object.entries(localStorage)]")
        .await?;
    let origins = if origin == "null" || local_storage.is_empty() {
        Vec::new()
    } else {
        vec![OriginStorage {
            origin,
            local_storage,
        }]
    };
    Ok(StorageState { cookies, origins })
}

/// Loads saved storage into a fresh session before its first navigation.
pub async fn apply(session: &Session, state: &StorageState) -> Result<(), BrowserError> {
    if !state.cookies.is_empty() {
        // Only the fields `Network.setCookies` takes.
        let cookies: Vec<Value> = state
            .cookies
            .iter()
            .map(|c| {
                let mut p = serde_json::Map::new();
                for key in [
                    "name",
                    "value",
                    "domain",
                    "path",
                    "secure",
                    "httpOnly",
                    "sameSite",
                    "priority",
                    "sourceScheme",
                    "sourcePort",
                ] {
                    if let Some(v) = c.get(key) {
                        p.insert(key.to_string(), v.clone());
                    }
                }
                if c.get("session").and_then(Value::as_bool) != Some(true)
                    && let Some(e) = c.get("expires")
                {
                    p.insert("expires".into(), e.clone());
                }
                Value::Object(p)
            })
            .collect();
        session
            .cdp("Network.setCookies", json!({ "cookies": cookies }))
            .await?;
    }
    for o in &state.origins {
        // Data only: the saved entries, written once per tab before the page's own scripts.
        let source = format!(
            "(() => {{ const origin = {}; const entries = {}; try {{ if (location.origin === origin && !sessionStorage.getItem('__windup_storage')) {{ sessionStorage.setItem('__windup_storage', '1'); for (const [k, v] of entries) localStorage.setItem(k, v); }} }} catch (e) {{}} }})()",
            serde_json::to_string(&o.origin).expect("string"),
            serde_json::to_string(&o.local_storage).expect("entries")
        );
        session.add_init_script(&source).await?;
    }
    Ok(())
}

/// Writes a setup's storage, readable by the owner only.
pub fn save(root: &Path, setup_id: &str, state: &StorageState) -> std::io::Result<()> {
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
