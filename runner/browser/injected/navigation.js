// navigation.js: Navigation tracking: whether this document is being left (a navigation it started,
// beforeunload, pagehide; not a same-document one, an intercepted one or a download), a trusted
// form submission still settling, and `downloadStarted`. Installs its listeners when the script
// runs.
// Uses: prelude.js only (perfNow).

    const LEAVE_WINDOW_MS = 10000;
    const nav = { pending: null, beforeUnload: null, pageHidden: false };

    try {
      const navigation = window.navigation;
      if (navigation && typeof navigation.addEventListener === 'function') {
        navigation.addEventListener('navigate', (e) => {
          // Same-document navigations (hash changes, pushState, traversals
          // within the document) do not leave; nor do downloads.
          if (e.hashChange || (e.destination && e.destination.sameDocument)) return;
          if (e.downloadRequest !== null && e.downloadRequest !== undefined) return;
          const rec = { at: perfNow(), event: e, intercepted: false };
          // A router listening after us may intercept() the navigation and
          // turn it into a same-document one: notice that by wrapping the
          // method on this very event object.
          try {
            const orig = e.intercept;
            if (typeof orig === 'function') {
              Object.defineProperty(e, 'intercept', {
                configurable: true,
                value: function (...args) {
                  rec.intercepted = true;
                  return orig.apply(this, args);
                },
              });
            }
          } catch (err) { /* ignore */ }
          nav.pending = rec;
        });
        navigation.addEventListener('navigateerror', () => {
          nav.pending = null;
        });
      }
      window.addEventListener('beforeunload', (e) => {
        nav.beforeUnload = { at: perfNow(), event: e };
      });
      window.addEventListener('pagehide', () => {
        nav.pageHidden = true;
      });
      window.addEventListener('pageshow', () => {
        // Back from the back/forward cache: this document is current again.
        nav.pageHidden = false;
        nav.pending = null;
        nav.beforeUnload = null;
      });
    } catch (e) { /* navigation tracking is best effort */ }

    // The last form submission the user's (trusted) input started in this window: its
    // navigation is a task of its own, so a step right after it waits for that navigation to
    // start (see locateImpl). A submission the app prevented (a single-page app's form) starts
    // none.
    const SUBMIT_SETTLE_MS = 500;
    let lastSubmit = null;
    try {
      window.addEventListener('submit', (e) => {
        if (e.isTrusted) lastSubmit = { at: perfNow(), event: e };
      }, true);
    } catch (e) { /* best effort, as navigation tracking */ }

    function submitPending() {
      const s = lastSubmit;
      return !!s && !s.event.defaultPrevented && perfNow() - s.at < SUBMIT_SETTLE_MS;
    }

    function isLeaving() {
      if (nav.pageHidden) return true;
      const now = perfNow();
      const p = nav.pending;
      if (p && !p.intercepted && !p.event.defaultPrevented && now - p.at < LEAVE_WINDOW_MS) return true;
      const b = nav.beforeUnload;
      if (b && !b.event.defaultPrevented && now - b.at < LEAVE_WINDOW_MS) return true;
      return false;
    }

    /**
     * A navigation that turned into a download (a `Content-Disposition: attachment` response)
     * left nothing: the engine saw the download begin, so the document stays current.
     */
    function downloadStarted() {
      if (!nav.pageHidden) {
        nav.pending = null;
        nav.beforeUnload = null;
      }
      return true;
    }
