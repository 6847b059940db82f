// document.js: The document itself, read at call time: its URL, the HTTP status it came with, a
// setup's localStorage (captured, and restored before the page's scripts), and whether it has
// settled (how long it has been unchanged, what it marks busy).
// Uses: prelude.js, dom.js (newCtx), visibility.js (isVisible).

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

    /** When this document last changed, as the observer `stillFor` sets up saw it. */
    let documentChangedAt = null;

    /**
     * How long this document has been unchanged (no node added, removed or edited, no attribute
     * or text changed), in milliseconds. The observer that measures it is set up when the engine
     * is installed (before the page's own scripts, on a new document) or, failing that, by the
     * first call, which answers 0. A page that stopped changing around a missing target offers
     * its heal candidate for good; a page is read for planning once it stopped changing.
     */
    function stillFor() {
      const now = perfNow();
      if (documentChangedAt === null) {
        documentChangedAt = now;
        try {
          new MutationObserver(() => { documentChangedAt = perfNow(); })
            .observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
        } catch (e) {
          documentChangedAt = null; // no document to watch yet: the next call tries again
        }
        return 0;
      }
      return Math.max(0, Math.round(now - documentChangedAt));
    }
    stillFor();

    /**
     * What says whether the document has settled: how long it has been unchanged
     * (stillFor), how many shown elements say `aria-busy="true"` (a region still loading),
     * and its ready state.
     */
    function settledState() {
      const ctx = newCtx();
      let busy = 0;
      for (const el of document.querySelectorAll('[aria-busy="true" i]')) {
        if (isVisible(el, ctx)) busy++;
      }
      return { still_ms: stillFor(), busy, ready: document.readyState };
    }
