// actionability.js: Actionability, per action type (Playwright's table): describing a target, the
// click point, hit testing through frames and shadow roots, stability across animation frames,
// enabled and editable; `locateImpl`, the heart of `locate` and `select`.
// Uses: dom.js, visibility.js (isVisible), roles.js (roleOf, inputType), states.js (checkedState,
// isDisabled, isNativeCheckable, CHECKABLE_ROLES), names.js (accessibleName), text.js (normText),
// selectors.js (resolve, firstVisible), navigation.js (isLeaving, submitPending); typing.js's
// fieldFacts, declared after it.

    function describeElement(el, ctx) {
      const tag = el.localName;
      let name = accessibleName(el, ctx);
      if (!name) name = normText(el, ctx);
      return name ? '<' + tag + '> ' + JSON.stringify(truncate(name, 60)) : '<' + tag + '>';
    }

    /** `<div id="x" class="a b">`, for "covered by" messages. */
    function describeTag(el) {
      let s = '<' + el.localName;
      if (el.id) s += ' id="' + truncate(el.id, 40) + '"';
      const cls = typeof el.className === 'string' ? norm(el.className) : norm(el.getAttribute('class'));
      if (cls) s += ' class="' + truncate(cls, 40) + '"';
      return s + '>';
    }

    function frameWaitFactory(win) {
      // One animation frame, or ~100 ms when rAF is throttled (background tab). Resolves with
      // whether a frame was drawn: the timer's answer says only that time passed.
      return () => new Promise((resolve) => {
        let done = false;
        let id = 0;
        const finish = (drawn) => {
          if (done) return;
          done = true;
          resolve(drawn);
        };
        const timer = setTimeoutFn(() => {
          if (!done && id) {
            try {
              win.cancelAnimationFrame(id);
            } catch (e) { /* ignore */ }
          }
          finish(false);
        }, 100);
        try {
          id = win.requestAnimationFrame(() => {
            clearTimeoutFn(timer);
            finish(true);
          });
        } catch (e) { /* keep the timer */ }
      });
    }

    /** The document's animation time: it moves only when a frame is drawn. */
    function timelineNow(win) {
      try {
        const t = win.document.timeline && win.document.timeline.currentTime;
        return typeof t === 'number' ? t : null;
      } catch (e) {
        return null;
      }
    }

    /**
     * Waits until the page has drawn a frame since `before` (its animation time moved), at most
     * ~1 s. False when it drew none in a document that is shown: under load a frame can take
     * longer than the timer, and a box read twice without a frame between reads the same twice,
     * moving or not. A hidden document draws no frames at all; there the timer's word stands.
     */
    async function frameDrawn(win, nextFrame, before) {
      for (let i = 0; i < 10; i++) {
        const drawn = await nextFrame();
        const now = timelineNow(win);
        if (drawn && (before === null || now === null || now !== before)) return true;
        let hidden = false;
        try {
          hidden = win.document.visibilityState === 'hidden';
        } catch (e) { /* a document being torn down */ }
        if (hidden) return true;
        if (isLeaving()) return true;
      }
      return false;
    }

    function rectKey(r) {
      return r.left + ',' + r.top + ',' + r.width + ',' + r.height;
    }

    function scrollIntoViewIfNeeded(el) {
      if (typeof el.scrollIntoViewIfNeeded === 'function') el.scrollIntoViewIfNeeded(true);
      else el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    }

    function viewportSize(doc) {
      const de = doc.documentElement;
      const win = doc.defaultView;
      const w = (de && de.clientWidth) || (win && win.innerWidth) || 0;
      const h = (de && de.clientHeight) || (win && win.innerHeight) || 0;
      return { w, h };
    }

    /** Centre of the visible part of the first client rect inside the viewport. */
    function clickPoint(el) {
      const { w, h } = viewportSize(el.ownerDocument);
      for (const r of el.getClientRects()) {
        const left = Math.max(r.left, 0);
        const top = Math.max(r.top, 0);
        const right = Math.min(r.right, w);
        const bottom = Math.min(r.bottom, h);
        if (right > left && bottom > top) return { x: (left + right) / 2, y: (top + bottom) / 2 };
      }
      return null;
    }

    /** elementFromPoint, descending through open shadow roots. */
    function deepElementFromPoint(doc, x, y) {
      let hit = doc.elementFromPoint(x, y);
      while (hit && hit.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(x, y);
        if (!inner || inner === hit) break;
        hit = inner;
      }
      return hit;
    }

    /** Does a pointer event at `hit` reach `target`? */
    function hitReaches(hit, target) {
      for (let n = hit; n; ) {
        if (n === target) return true;
        // A click on a <label> is forwarded to its control.
        if (n.nodeType === ELEMENT_NODE && htmlTag(n) === 'label' && n.control === target) return true;
        const p = n.parentNode;
        n = p && p.nodeType === FRAGMENT_NODE && p.host ? p.host : p;
      }
      return false;
    }

    function frameElementOf(doc) {
      try {
        const win = doc.defaultView;
        return win && win !== topWindow ? win.frameElement : null;
      } catch (e) {
        return null;
      }
    }

    /** Offset of a frame's viewport in its parent's viewport (border + padding). */
    function frameContentOffset(fe) {
      const r = fe.getBoundingClientRect();
      const win = fe.ownerDocument.defaultView;
      const s = win ? win.getComputedStyle(fe) : null;
      const pl = s ? parseFloat(s.paddingLeft) || 0 : 0;
      const pt = s ? parseFloat(s.paddingTop) || 0 : 0;
      return { x: r.left + fe.clientLeft + pl, y: r.top + fe.clientTop + pt };
    }

    /**
     * Hit-tests the point (local to el's document) in el's document and in
     * every ancestor frame. Returns null when el receives the event, else a
     * reason string.
     */
    function hitTest(el, point) {
      const doc = el.ownerDocument;
      const hit = deepElementFromPoint(doc, point.x, point.y);
      if (!hit) return 'element is not hit at the click point (outside the viewport?)';
      if (!hitReaches(hit, el)) return 'element is covered by ' + describeTag(hit) + ' at the click point';
      let x = point.x;
      let y = point.y;
      for (let fe = frameElementOf(doc); fe; fe = frameElementOf(fe.ownerDocument)) {
        const off = frameContentOffset(fe);
        x += off.x;
        y += off.y;
        const ph = deepElementFromPoint(fe.ownerDocument, x, y);
        if (ph !== fe && !(ph && composedContains(fe, ph))) {
          return 'element is covered by ' + (ph ? describeTag(ph) : 'nothing hittable') + ' (over its frame) at the click point';
        }
      }
      return null;
    }

    /** Local point → top-level viewport CSS pixels. */
    function toTopCoordinates(el, point) {
      let x = point.x;
      let y = point.y;
      for (let fe = frameElementOf(el.ownerDocument); fe; fe = frameElementOf(fe.ownerDocument)) {
        const off = frameContentOffset(fe);
        x += off.x;
        y += off.y;
      }
      return { x, y };
    }

    /** The element's border box in the top-level viewport, whole CSS pixels (for a trace). */
    function topBox(el) {
      const r = el.getBoundingClientRect();
      const corner = toTopCoordinates(el, { x: r.left, y: r.top });
      return { x: Math.round(corner.x), y: Math.round(corner.y), width: Math.round(r.width), height: Math.round(r.height) };
    }

    const FILL_EXCLUDED_TYPES = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'file', 'image', 'hidden', 'range', 'color']);
    // Playwright's actionability table (https://playwright.dev/docs/actionability), per action:
    // every action needs a visible target; stable and receives-events only for pointer actions
    // (click, check, uncheck, hover); enabled for click, check, uncheck, fill and select;
    // editable for fill; press needs nothing more (it focuses the target and sends the key).
    const STABLE_ACTIONS = new Set(['click', 'check', 'uncheck', 'hover']);
    const ENABLED_ACTIONS = new Set(['click', 'check', 'uncheck', 'fill', 'select']);
    const HIT_ACTIONS = new Set(['click', 'check', 'uncheck', 'hover']);

    function isCheckable(el, ctx) {
      return isNativeCheckable(el) || CHECKABLE_ROLES.has(roleOf(el, ctx));
    }

    /** Kind-specific precondition; null when fine, else a reason. */
    function kindProblem(el, action, ctx) {
      const tag = htmlTag(el);
      if (action === 'fill') {
        if (tag === 'input') {
          const type = inputType(el);
          if (FILL_EXCLUDED_TYPES.has(type)) return 'element is not fillable (<input type="' + type + '">)';
          if (el.readOnly || el.hasAttribute('readonly')) return 'element is not editable (readonly)';
          return null;
        }
        if (tag === 'textarea') {
          if (el.readOnly || el.hasAttribute('readonly')) return 'element is not editable (readonly)';
          return null;
        }
        if (el.isContentEditable) {
          if ((el.getAttribute('aria-readonly') || '').toLowerCase() === 'true') return 'element is not editable (aria-readonly)';
          return null;
        }
        return 'element is not an <input>, <textarea> or [contenteditable] element';
      }
      if (action === 'select' && tag !== 'select') return 'element is not a <select>';
      if ((action === 'check' || action === 'uncheck') && !isCheckable(el, ctx)) return 'element is not a checkbox or radio';
      return null;
    }

    /**
     * A <label> stands for its control when acting on form fields. Returns
     * { el, subject }: `el` receives the pointer, `subject` is checked for
     * state. A checkbox hidden behind a styled label (a common pattern) is
     * toggled by clicking the label itself.
     */
    function retarget(el, action, ctx) {
      if (htmlTag(el) === 'label' && (action === 'fill' || action === 'check' || action === 'uncheck' || action === 'select')) {
        const c = el.control;
        if (c) {
          if ((action === 'check' || action === 'uncheck') && !isVisible(c, ctx)) return { el, subject: c };
          return { el: c, subject: c };
        }
      }
      return { el, subject: el };
    }

    /** Runs the actionability steps; resolves to { res, el, subject } (el/subject only when ok). */
    async function actionable(parts, action) {
      let found = null;
      const res = await locateImpl(parts, action, (el, subject) => {
        found = { el, subject };
      });
      return res.status === 'ok' ? Object.assign({ res }, found) : { res };
    }

    async function locateImpl(parts, action, onOk) {
      if (isLeaving()) return { status: 'navigating' };
      let ctx = newCtx();
      const all = resolve(parts, ctx);
      const first = firstVisible(all, ctx);
      if (!first) return { status: 'not_found', hidden: all.length };
      const { el, subject } = retarget(first, action, ctx);

      // (a) scroll, (b) stable across two animation frames, for pointer actions only.
      try {
        scrollIntoViewIfNeeded(el);
      } catch (e) { /* detached or not scrollable */ }
      if (STABLE_ACTIONS.has(action)) {
        // The box now (the scroll above laid the page out) and one animation frame later: an
        // animation or transition moves it at every frame, a script's rAF loop too.
        const view = el.ownerDocument.defaultView || topWindow;
        const nextFrame = frameWaitFactory(view);
        const r1 = rectKey(el.getBoundingClientRect());
        const drawn = await frameDrawn(view, nextFrame, timelineNow(view));
        if (isLeaving()) return { status: 'navigating' };
        if (!drawn) return { status: 'not_actionable', reason: 'element is not stable (the page drew no frame)' };
        if (!el.isConnected) return { status: 'not_actionable', reason: 'element was detached from the DOM' };
        const r2 = rectKey(el.getBoundingClientRect());
        if (r1 !== r2) return { status: 'not_actionable', reason: 'element is not stable (still moving)' };
        ctx = newCtx(); // the page ran between frames
        if (!isVisible(el, ctx)) return { status: 'not_actionable', reason: 'element is not visible' };
      } else if (submitPending()) {
        // No stability to wait for; but right after a form was submitted the page may not have
        // started the navigation that submission scheduled, and typing must land in the
        // document that navigation brings, not in the one it leaves.
        const nextFrame = frameWaitFactory(el.ownerDocument.defaultView || topWindow);
        for (let i = 0; i < 2 && !isLeaving(); i++) await nextFrame();
        if (isLeaving()) return { status: 'navigating' };
        if (!el.isConnected) return { status: 'not_actionable', reason: 'element was detached from the DOM' };
        ctx = newCtx();
        if (!isVisible(el, ctx)) return { status: 'not_actionable', reason: 'element is not visible' };
      }

      // (c) enabled, (d) right kind of element.
      if (ENABLED_ACTIONS.has(action) && (isDisabled(el) || isDisabled(subject))) return { status: 'not_actionable', reason: 'element is disabled' };
      const kind = kindProblem(subject, action, ctx);
      if (kind) return { status: 'not_actionable', reason: kind };

      // (e) receives events.
      let point = clickPoint(el);
      if (HIT_ACTIONS.has(action)) {
        if (!point) return { status: 'not_actionable', reason: 'element is outside of the viewport' };
        const problem = hitTest(el, point);
        if (problem) return { status: 'not_actionable', reason: problem };
      } else if (!point) {
        const r = el.getBoundingClientRect();
        point = { x: r.left + r.width / 2, y: r.top + r.height / 2 };
      }

      // (f) coordinates in the top-level viewport.
      const top = toTopCoordinates(el, point);
      const win = el.ownerDocument.defaultView;
      const origin = win ? String(win.origin) : 'null';
      const result = { status: 'ok', x: top.x, y: top.y, describe: describeElement(el, ctx), box: topBox(el), origin };
      const checked = isCheckable(subject, ctx) ? checkedState(subject, ctx) : null;
      if (checked !== null) result.checked = checked;

      if (action === 'fill') {
        result.field = fieldFacts(el);
        el.focus();
        const tag = htmlTag(el);
        if (tag === 'input' || tag === 'textarea') {
          try {
            el.select();
          } catch (e) { /* some input types have no selection */ }
        } else {
          const range = el.ownerDocument.createRange();
          range.selectNodeContents(el);
          const sel = win.getSelection();
          sel.removeAllRanges();
          sel.addRange(range);
        }
      } else if (action === 'press') {
        el.focus();
      }
      if (onOk) onOk(el, subject);
      return result;
    }
