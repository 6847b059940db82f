// intercept.js: Hit-target interception for pointer actions, as Playwright does it. Between
// `locate` and the trusted click the page may move: a list re-rendered after a route change
// moves the link under the pointer, a framework replaces the element. `watchHits` arms a check
// of the click's first event: when it lands on something other than the target (or the label
// that forwards to it), that event and the rest of the click are stopped before the page sees
// them, and `hitResult` tells the engine, which finds the target again and clicks anew. A click
// that landed elsewhere is never a click the page acted on.
// Uses: actionability.js (deepElementFromPoint, hitReaches, describeTag); prelude.js (topWindow,
// setTimeoutFn, clearTimeoutFn).

    const HIT_EVENTS = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click', 'dblclick', 'auxclick', 'contextmenu'];
    // A watch nobody reads (the engine failed between locating and clicking) ends by itself.
    const HIT_WATCH_MS = 10000;

    /** { el, win, verdict: undefined (no event yet) | null (landed) | '<tag …>', timer, own } */
    let hitWatch = null;

    function onHitEvent(event) {
      const watch = hitWatch;
      if (!watch || !event.isTrusted || event.currentTarget !== watch.win) return;
      if (watch.verdict === undefined) {
        // The first event of the click decides; the ones after it follow it.
        const hit = deepElementFromPoint(watch.el.ownerDocument, event.clientX, event.clientY);
        watch.verdict = hit && hitReaches(hit, watch.el) ? null : hit ? describeTag(hit) : 'nothing';
      }
      if (watch.verdict !== null) {
        event.preventDefault();
        event.stopImmediatePropagation();
      }
    }

    function listenForHits(win, on) {
      for (const type of HIT_EVENTS) {
        if (on) win.addEventListener(type, onHitEvent, { capture: true, passive: false });
        else win.removeEventListener(type, onHitEvent, { capture: true });
      }
    }

    // This realm's own window listens from the start, before the page's scripts add theirs.
    listenForHits(topWindow, true);

    /** The result of the watch armed last, which it ends: {landed: true} | {landed: false, on}. */
    function hitResult() {
      const watch = hitWatch;
      if (!watch) return { landed: true };
      hitWatch = null;
      clearTimeoutFn(watch.timer);
      if (watch.win !== topWindow) listenForHits(watch.win, false);
      // No event at all (the click went to a frame over the target, or the page ate it) is
      // judged by what the click did, as Playwright does.
      return watch.verdict ? { landed: false, on: watch.verdict } : { landed: true };
    }

    /** Arms the check for the next trusted click on `el`, ending any watch before it. */
    function watchHits(el) {
      hitResult();
      const win = el.ownerDocument.defaultView;
      if (!win) return;
      // A same-origin frame's element found from the top document: its window listens now.
      if (win !== topWindow) listenForHits(win, true);
      const watch = { el, win, verdict: undefined, timer: 0 };
      watch.timer = setTimeoutFn(() => {
        if (hitWatch === watch) hitResult();
      }, HIT_WATCH_MS);
      hitWatch = watch;
    }
