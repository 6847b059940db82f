//! Tabs kept between scenarios. A closed session's tab is reset in the background and handed
//! to a later scenario, because a new context costs a renderer process and cold caches, the
//! largest fixed cost of a replay; a tab that cannot be reset cleanly is disposed of instead
//! (`Session::close`). [`TabPool`] keeps the count of tabs in use and being reset, and the
//! ready ones, and decides when a scenario waits for a reset rather than opening a new tab; it
//! knows nothing else of a tab.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

/// How long a closed tab's reset may take before the next scenario opens a new context.
pub(super) const TAB_RESET_TIMEOUT: Duration = Duration::from_secs(5);

/// Tabs kept between scenarios, of one browser.
pub(super) struct TabPool<T> {
    kept: Mutex<Kept<T>>,
    changed: Notify,
}

struct Kept<T> {
    ready: Vec<T>,
    resetting: usize,
    /// Tabs handed out and not yet closed (see [`InUse`]).
    in_use: usize,
}

impl<T> Default for TabPool<T> {
    fn default() -> Self {
        TabPool {
            kept: Mutex::new(Kept {
                ready: Vec::new(),
                resetting: 0,
                in_use: 0,
            }),
            changed: Notify::new(),
        }
    }
}

/// Counts a tab as in use from [`super::Browser::acquire_session`] until its session is closed
/// or dropped.
pub(super) struct InUse<T>(Arc<TabPool<T>>);

impl<T> InUse<T> {
    pub(super) fn new(pool: &Arc<TabPool<T>>) -> InUse<T> {
        pool.lock().in_use += 1;
        InUse(pool.clone())
    }
}

impl<T> Drop for InUse<T> {
    fn drop(&mut self) {
        self.0.lock().in_use -= 1;
    }
}

impl<T> TabPool<T> {
    fn lock(&self) -> std::sync::MutexGuard<'_, Kept<T>> {
        self.kept.lock().expect("tabs lock")
    }

    /// A reset tab from an earlier scenario (one `alive` accepts), else none (the caller opens
    /// a new tab) when no tab is being reset, or when one is while other scenarios run: then the
    /// reset overlaps the next scenario instead of holding up a job slot (a reset takes about a
    /// third of a short scenario). A new tab is opened so only while at most one is idle and
    /// another is in use, so a run keeps at most one tab more than it runs scenarios at once,
    /// and one scenario at a time (`-j 1`) keeps a single tab: a spare renderer costs about as
    /// much memory as the one in use, which the suite benchmark counts. Otherwise it waits for
    /// the reset.
    pub(super) async fn take_ready(&self, alive: impl Fn(&T) -> bool) -> Option<T> {
        let deadline = tokio::time::Instant::now() + TAB_RESET_TIMEOUT;
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            {
                let mut tabs = self.lock();
                while let Some(tab) = tabs.ready.pop() {
                    if alive(&tab) {
                        return Some(tab);
                    }
                }
                if tabs.resetting == 0 || (tabs.resetting == 1 && tabs.in_use > 0) {
                    return None;
                }
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return None;
            }
        }
    }

    /// Waits until no tab is being reset (each reset is bounded by [`TAB_RESET_TIMEOUT`]), then
    /// takes out every tab kept for the next scenario: closing the browser, none may still hold
    /// it, or its profile outlives it.
    pub(super) async fn drain(&self) -> Vec<T> {
        let deadline = tokio::time::Instant::now() + TAB_RESET_TIMEOUT;
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            {
                let mut tabs = self.lock();
                if tabs.resetting == 0 {
                    return std::mem::take(&mut tabs.ready);
                }
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return std::mem::take(&mut self.lock().ready);
            }
        }
    }

    /// Drops every ready tab (their browser died).
    pub(super) fn clear(&self) {
        self.lock().ready.clear();
    }

    /// A closed tab's reset begins.
    pub(super) fn reset_begins(&self) {
        self.lock().resetting += 1;
    }

    /// A reset ended: with the tab, ready for the next scenario; without, the tab is being
    /// disposed of. [`TabPool::notify`] tells the waiting scenarios afterwards.
    pub(super) fn reset_ends(&self, tab: Option<T>) {
        let mut tabs = self.lock();
        tabs.resetting -= 1;
        tabs.ready.extend(tab);
    }

    /// Wakes whoever waits for a reset to end.
    pub(super) fn notify(&self) {
        self.changed.notify_waiters();
    }
}
