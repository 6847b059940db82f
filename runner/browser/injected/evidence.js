// evidence.js: Failure evidence from the page itself: uncaught errors, unhandled rejections and
// console.error lines, capped, recorded by listeners installed when the script runs (before the
// page's scripts); `failures`.
// Uses: prelude.js only.

    // Installed at document start, before page scripts: uncaught errors, unhandled rejections
    // and console.error calls, capped. Listeners are passive; console.error still does what
    // the page's console.error did.
    const pageErrors = [];
    const noteError = (text) => {
      if (pageErrors.length < 50) pageErrors.push(String(text).slice(0, 500));
    };
    try {
      window.addEventListener('error', (e) => {
        if (e && e.message) {
          noteError(e.message + (e.filename ? ' (' + e.filename + ':' + e.lineno + ')' : ''));
        } else if (e && e.target && e.target !== window && (e.target.src || e.target.href)) {
          noteError('failed to load ' + (e.target.src || e.target.href));
        }
      }, true);
      window.addEventListener('unhandledrejection', (e) => {
        const r = e && e.reason;
        noteError('unhandled rejection: ' + (r && r.message ? r.message : String(r)));
      });
      const consoleError = window.console && window.console.error;
      if (typeof consoleError === 'function') {
        window.console.error = function (...args) {
          noteError(args.map((a) => (a && a.message ? a.message : String(a))).join(' '));
          return consoleError.apply(this, args);
        };
      }
    } catch (e) {
      // A page that forbids these hooks simply gives no console evidence.
    }

    // Failed requests come from the browser's Network events (browser/network_log.rs), which
    // also see refused and aborted requests.
    function failures() {
      return { console: pageErrors.slice() };
    }
