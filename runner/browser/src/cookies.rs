//! A context's cookies, read and written whole: what the engine saves of a passed setup
//! scenario and loads into the scenarios that need it.

use crate::BrowserError;
use crate::cdp::network::{CookieParam, GetAllCookies, SetCookies};
use crate::page::Page;

pub use crate::cdp::network::Cookie;

impl Page {
    /// Every cookie of the page's browser context, as Chromium reports it.
    pub async fn cookies(&self) -> Result<Vec<Cookie>, BrowserError> {
        Ok(self.send(&GetAllCookies {}).await?.cookies)
    }

    /// Sets `cookies` (as [`Page::cookies`] read them) in the page's browser context.
    pub async fn set_cookies(&self, cookies: &[Cookie]) -> Result<(), BrowserError> {
        if cookies.is_empty() {
            return Ok(());
        }
        let cookies = cookies.iter().map(CookieParam::from).collect();
        self.send(&SetCookies { cookies }).await?;
        Ok(())
    }
}
