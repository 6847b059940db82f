//! How a test reaches a page beside the typed API: raw CDP, page JavaScript, an init script.
//! Only with the `test-access` feature, which the test builds turn on and no shipped binary
//! does: the engine and every door reach Chromium through the typed API alone, and that is the
//! compiler's rule, not a convention.

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::evaluate::eval_in;
use crate::{BrowserError, Realm, Session};

impl Session {
    /// Sends an untyped command to the current page, for tests that read what the engine itself
    /// never needs (Chromium's accessibility tree).
    pub async fn send_raw(&self, method: &str, params: Value) -> Result<Value, BrowserError> {
        let page = self.page();
        page.check_alive()?;
        page.instance
            .conn
            .send_raw(Some(&page.session_id), method, &params)
            .await
    }

    /// Evaluates an expression in the page's main world and returns its JSON value.
    pub async fn eval<T: DeserializeOwned>(&self, expression: &str) -> Result<T, BrowserError> {
        eval_in(self.page(), &Realm::top(), expression).await
    }

    /// Adds a script that runs in every new document before the page's own, until the session
    /// ends (a reset removes it).
    pub async fn add_init_script(&self, source: &str) -> Result<(), BrowserError> {
        self.page().install_init_script(source).await
    }
}
