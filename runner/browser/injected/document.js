// document.js: The document itself, read at call time: its URL, the HTTP status it came with, and a
// setup's localStorage (captured, and restored before the page's scripts).
// Uses: prelude.js only.

    // The document itself: its address, title, the HTTP status it came with, its storage.
    // Read at call time, never cached: they change under us.
    function documentUrl() {
      return location.href;
    }

    /** The status of the response the document came with; null when there was none (about:blank). */
    function navigationStatus() {
      return performance.getEntriesByType('navigation')[0]?.responseStatus ?? null;
    }

    /** A setup's saved storage is captured from here. Throws where storage is not allowed. */
    function localStorageEntries() {
      return { origin: location.origin, entries: Object.entries(localStorage) };
    }

    /**
     * Writes a setup's saved localStorage entries for `origin`, run as a script for new
     * documents (before the page's own): only on that origin, and once per tab session
     * (a sessionStorage flag), so the page's own later changes are kept across navigations.
     * Data only: `entries` is [[key, value], …]. Never throws.
     */
    function restoreLocalStorage(origin, entries) {
      try {
        if (location.origin === origin && !sessionStorage.getItem('__windup_storage')) {
          sessionStorage.setItem('__windup_storage', '1');
          for (const [k, v] of entries) localStorage.setItem(k, v);
        }
      } catch (e) {
        // Storage the page may not use (sandboxed, opaque origin): nothing to restore.
      }
    }
