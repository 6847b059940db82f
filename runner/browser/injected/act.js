// act.js: Entry points on one target: `query` (match counts), `locate` (for a click, check or
// uncheck, arming the check of where the click lands), `select` (an option chosen,
// input and change fired), `check` (postconditions), `frameOwner`, `isChecked`, `mute` (a target
// deaf to the page, for `windup bench`) and `fileInput` (an upload's <input type=file>).
// Uses: dom.js, roles.js (isNativelyDisabled), states.js (checkedState), selectors.js (resolve,
// firstVisible, splitVisible), navigation.js (isLeaving), actionability.js (locateImpl, actionable,
// retarget, describeElement), intercept.js (watchHits).

    function query(parts) {
      const ctx = newCtx();
      return splitVisible(resolve(parts, ctx), ctx);
    }

    // The pointer actions whose click is checked where it lands (intercept.js).
    const WATCHED_ACTIONS = new Set(['click', 'check', 'uncheck']);

    async function locate(parts, action) {
      const kind = String(action || '');
      const { res, el } = await actionable(parts, kind);
      if (res.status === 'ok' && WATCHED_ACTIONS.has(kind)) watchHits(el);
      return res;
    }

    async function select(parts, value) {
      const { res, subject: el } = await actionable(parts, 'select');
      if (res.status !== 'ok') return res;
      const want = String(value);
      const wantNorm = norm(want);
      const options = Array.from(el.options);
      let chosen = options.find((o) => o.value === want);
      if (!chosen) chosen = options.find((o) => norm(o.label) === wantNorm || norm(o.textContent) === wantNorm);
      if (!chosen) {
        const names = options.map((o) => norm(o.label || o.textContent) || o.value);
        const list = truncate(names.join(', '), 200);
        return { status: 'not_actionable', reason: 'no option with value or label ' + JSON.stringify(want) + ' (options: ' + list + ')' };
      }
      if (isNativelyDisabled(chosen)) return { status: 'not_actionable', reason: 'option ' + JSON.stringify(want) + ' is disabled' };
      if (el.multiple) {
        for (const o of options) o.selected = o === chosen;
      } else {
        chosen.selected = true;
      }
      const win = el.ownerDocument.defaultView || topWindow;
      el.dispatchEvent(new win.Event('input', { bubbles: true, composed: true }));
      el.dispatchEvent(new win.Event('change', { bubbles: true }));
      // The located result (x, y, describe): the engine reads it as a `Located`.
      return res;
    }

    function valueOf(el, ctx) {
      const tag = htmlTag(el);
      if (tag === 'input' || tag === 'textarea' || tag === 'select') return String(el.value);
      return norm(el.textContent);
    }

    function check(spec) {
      const ctx = newCtx();
      const out = { url: location.href };
      if (spec.visible) out.visible = !!firstVisible(resolve(spec.visible, ctx), ctx);
      if (spec.hidden) out.hidden = !firstVisible(resolve(spec.hidden, ctx), ctx);
      if (spec.value) {
        const el = firstVisible(resolve(spec.value.parts, ctx), ctx);
        const actual = el ? valueOf(el, ctx) : null;
        out.value = { ok: actual !== null && actual === String(spec.value.equals), actual };
      }
      if (spec.count) {
        const actual = splitVisible(resolve(spec.count.parts, ctx), ctx).visible;
        out.count = { ok: actual === Number(spec.count.equals), actual };
      }
      out.navigating = isLeaving();
      return out;
    }

    /** The first visible frame element matching `parts` (ending in a `frame=` step), or null. */
    function frameOwner(parts) {
      const ctx = newCtx();
      const el = firstVisible(resolve(parts, ctx), ctx);
      return el && isFrameElement(el) ? el : null;
    }

    function isChecked(parts) {
      const ctx = newCtx();
      const el = firstVisible(resolve(parts, ctx), ctx);
      if (!el) return null;
      return checkedState(retarget(el, 'check', ctx).subject, ctx);
    }

    // The events a person's input on an element fires, which mute() keeps from the page.
    const MUTED_EVENTS = [
      'pointerdown', 'pointerup', 'pointerover', 'pointerenter', 'mousedown', 'mouseup',
      'mouseover', 'mouseenter', 'click', 'dblclick', 'auxclick', 'contextmenu', 'keydown',
      'keypress', 'keyup', 'beforeinput', 'input', 'change', 'submit', 'focusin', 'focusout',
    ];

    /**
     * Makes the first visible match of parts deaf to the page, until the document goes: the
     * events input on it fires, and its form's submit, stop before any of the page's listeners
     * hear them; a click on a link loses its navigation and a submit its submission. What the
     * browser does by itself stays: text still lands in a field, a box still ticks. This is the
     * mutant `windup bench` breaks an app with: a plan still passing has not proven the step.
     * Returns whether a match was muted.
     */
    function mute(parts) {
      const ctx = newCtx();
      const el = firstVisible(resolve(parts, ctx), ctx);
      if (!el) return false;
      const form = el.form || (el.closest ? el.closest('form') : null);
      const link = el.closest ? el.closest('a[href], area[href]') : null;
      const stop = (e) => {
        const onIt = e.composedPath().includes(el);
        const onForm = e.type === 'submit' && form && e.target === form;
        if (!onIt && !onForm) return;
        if (e.type === 'submit' || (e.type === 'click' && link)) e.preventDefault();
        e.stopImmediatePropagation();
      };
      for (const type of MUTED_EVENTS) el.ownerDocument.defaultView.addEventListener(type, stop, true);
      return true;
    }

    /**
     * The `<input type=file>` a selector names, for `upload`: the element itself, whose files
     * the engine sets through CDP. A visible match first, else the first match (file inputs
     * are often hidden behind a styled label or button); a label stands for its control.
     * When there is none, a string: `navigating`, `not_found`, or `not_actionable: <why>`.
     */
    function fileInput(parts, count) {
      if (isLeaving()) return 'navigating';
      const ctx = newCtx();
      const all = resolve(parts, ctx);
      let el = firstVisible(all, ctx) || all[0];
      if (!el) return 'not_found';
      if (htmlTag(el) === 'label' && el.control) el = el.control;
      if (htmlTag(el) !== 'input' || String(el.type).toLowerCase() !== 'file') {
        return 'not_actionable: ' + describeElement(el, ctx) + ' is not an <input type=file>';
      }
      if (el.disabled) return 'not_actionable: the file input is disabled';
      if (count > 1 && !el.multiple) return 'not_actionable: the file input takes one file (it has no `multiple`)';
      return el;
    }
