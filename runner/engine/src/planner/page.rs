//! What the planner is shown of a page: its accessibility snapshot and the interactive elements
//! with selectors that resolve on the page now. Captured by the in-page engine, so the selectors
//! are the executor's own.

use serde::{Deserialize, Serialize};

use crate::browser::{BrowserError, Session};

/// One visible interactive element, as `window.__windup.interactive()` reports it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Element {
    /// A selector that resolves to this element now (first visible match).
    pub selector: String,
    #[serde(default)]
    pub role: Option<String>,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub tag: String,
    #[serde(default, rename = "type")]
    pub input_type: Option<String>,
    /// A field's current value (never read from password fields).
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub checked: Option<serde_json::Value>,
    #[serde(default)]
    pub disabled: Option<bool>,
}

/// The page as the planner sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageView {
    pub url: String,
    pub title: String,
    /// ARIA snapshot text, trimmed to the character budget by the page script.
    pub snapshot: String,
    pub elements: Vec<Element>,
}

impl PageView {
    /// Reads the current page of `session`.
    pub async fn capture(
        session: &Session,
        snapshot_chars: usize,
        max_elements: usize,
    ) -> Result<PageView, BrowserError> {
        let snapshot: String = session
            .call("snapshot", &[serde_json::json!(snapshot_chars)])
            .await?;
        let elements: Vec<Element> = session
            .call("interactive", &[serde_json::json!(max_elements)])
            .await?;
        let (url, title): (String, String) =
            session.eval("[location.href, document.title]").await?;
        Ok(PageView {
            url,
            title,
            snapshot,
            elements,
        })
    }

    /// Whether `url` shows another page than this one: a different origin, path, query, or
    /// hash route (`#/…`, as single-page apps route). A plain anchor (`#top`) is the same page.
    pub fn is_other_page(&self, url: &str) -> bool {
        let (Ok(a), Ok(b)) = (url::Url::parse(&self.url), url::Url::parse(url)) else {
            return self.url != url;
        };
        let route = |u: &url::Url| {
            u.fragment()
                .filter(|f| f.starts_with('/') || f.starts_with("!/"))
                .map(str::to_string)
        };
        a.origin() != b.origin()
            || a.path() != b.path()
            || a.query() != b.query()
            || route(&a) != route(&b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_pages_differ_in_path_query_or_route() {
        let page = PageView {
            url: "http://h/login?next=/a#top".into(),
            ..PageView::default()
        };
        assert!(!page.is_other_page("http://h/login?next=/a"));
        assert!(page.is_other_page("http://h/projects"));
        assert!(page.is_other_page("http://h/login?next=/b"));
        assert!(page.is_other_page("http://other/login?next=/a"));
        let spa = PageView {
            url: "http://h/#/".into(),
            ..PageView::default()
        };
        assert!(spa.is_other_page("http://h/#/active"));
    }
}
