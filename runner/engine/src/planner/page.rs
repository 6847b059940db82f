//! What the planner is shown of a page: its accessibility snapshot and the interactive elements
//! with selectors that resolve on the page now. Captured by the in-page engine, so the selectors
//! are the executor's own.

use serde::{Deserialize, Serialize};

use crate::browser::{BrowserError, Session, injected};

/// One visible interactive element, as the in-page engine's `interactive()` reports it.
pub use crate::browser::injected::Element;

/// The page as the planner sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PageView {
    /// The current document's URL.
    pub url: String,
    /// The current document's title.
    pub title: String,
    /// ARIA snapshot text, trimmed to the character budget by the page script.
    pub snapshot: String,
    /// The visible interactive elements, each with a selector the plan may use as it is.
    pub elements: Vec<Element>,
}

impl PageView {
    /// Reads the current page of `session`.
    pub async fn capture(
        session: &Session,
        snapshot_chars: usize,
        max_elements: usize,
    ) -> Result<PageView, BrowserError> {
        let snapshot = injected::snapshot(session, snapshot_chars).await?;
        let elements = injected::interactive(session, max_elements).await?;
        let injected::PageInfo { url, title } = injected::page_info(session).await?;
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
