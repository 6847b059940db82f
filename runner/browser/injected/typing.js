// typing.js: Typing bound to its target: what a field is (`fieldFacts`, for the credential rule),
// `focusOn` (whether keystrokes sent now land in the field) and `setValue` (a value set on the
// field itself while it is still the one approved: a credential, or a date, time, color or range).
// Uses: dom.js, selectors.js (resolve, firstVisible), actionability.js (retarget, describeElement).

    /** Input types a fill sets the value of, as Playwright's does: they take no keystrokes. */
    const SET_VALUE_TYPES = new Set(['color', 'date', 'datetime-local', 'month', 'range', 'time', 'week']);

    /** What a field is, for the engine's rule of which fields a credential may go into. */
    function fieldFacts(el) {
      const tag = htmlTag(el) || el.localName;
      const out = { tag };
      if (tag === 'input') out.type = String(el.type || 'text').toLowerCase();
      const ac = el.getAttribute && el.getAttribute('autocomplete');
      if (ac) out.autocomplete = norm(ac).toLowerCase();
      const role = el.getAttribute && el.getAttribute('role');
      if (role) out.role = norm(role).toLowerCase();
      return out;
    }

    function sameFacts(a, b) {
      return !!b && a.tag === b.tag && (a.type || null) === (b.type || null)
        && (a.autocomplete || null) === (b.autocomplete || null) && (a.role || null) === (b.role || null);
    }

    /** The element that has the focus in `doc`, through open shadow roots. */
    function deepActive(doc) {
      let a = doc.activeElement;
      while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
      return a;
    }

    /** A frame element as a message names it: its title, and the origin it shows. */
    function frameLabel(frame) {
      let origin = '';
      try {
        origin = new URL(frame.getAttribute('src') || 'about:blank', frame.ownerDocument.baseURI).origin;
      } catch (e) { /* a src that is no URL */ }
      const title = norm(frame.getAttribute('title') || '');
      return 'a frame' + (title ? ' ' + JSON.stringify(truncate(title, 40)) : '') + (origin && origin !== 'null' ? ' of ' + origin : '');
    }

    /**
     * Null when keystrokes sent now land in `el`; else what would receive them. `strict`: the
     * target itself must have the focus (before typing); else the focus must only still be in
     * the target's document (after typing: a page may move it on, within itself).
     */
    function focusThief(el, strict, ctx) {
      const doc = el.ownerDocument;
      const active = deepActive(doc);
      if (active && isFrameElement(active)) return frameLabel(active);
      if (!doc.hasFocus()) return 'another document (this one does not have the focus)';
      if (!strict) return null;
      if (active === el || (active && el.isContentEditable && active.contains(el)) || (active && el.contains(active))) return null;
      return active && active !== doc.body ? describeElement(active, ctx) : 'nothing (the page has no focused element)';
    }

    /** The first visible match of parts as a fill takes it (a label stands for its field). */
    function fillSubject(parts, ctx) {
      const first = firstVisible(resolve(parts, ctx), ctx);
      return first ? retarget(first, 'fill', ctx).el : null;
    }

    /**
     * Whether keystrokes sent now land in the fill target of parts: {status: "ok"}, or
     * {status: "elsewhere", took} naming what would receive them, or {status: "not_found"}.
     */
    function focusOn(parts, strict) {
      const ctx = newCtx();
      const el = fillSubject(parts, ctx);
      if (!el) return { status: 'not_found' };
      const took = focusThief(el, !!strict, ctx);
      return took ? { status: 'elsewhere', took } : { status: 'ok' };
    }

    /**
     * Sets `text` as the value of the fill target of parts, in the target's own realm, with the
     * input events typing fires: no keystroke goes to whatever has the focus. Only when the
     * target is still the field the engine approved (`facts`, from locate): else
     * {status: "changed", field}. A credential takes this road.
     */
    function setValue(parts, text, facts) {
      const ctx = newCtx();
      const el = fillSubject(parts, ctx);
      if (!el) return { status: 'not_found' };
      const field = fieldFacts(el);
      if (!sameFacts(field, facts)) return { status: 'changed', field };
      const tag = htmlTag(el);
      if (tag !== 'input' && tag !== 'textarea') return { status: 'changed', field };
      const win = el.ownerDocument.defaultView || topWindow;
      const proto = tag === 'textarea' ? win.HTMLTextAreaElement.prototype : win.HTMLInputElement.prototype;
      const desc = Object.getOwnPropertyDescriptor(proto, 'value');
      try {
        el.focus();
      } catch (e) { /* focus is a courtesy to the page's listeners, not where the value goes */ }
      desc.set.call(el, String(text));
      // A date, time, color or range input keeps only a value of its own form (as Playwright's
      // fill checks): else it would hold "" and the page would hear a change that is not one.
      if (SET_VALUE_TYPES.has(field.type) && el.value !== String(text)) return { status: 'malformed', value: String(el.value) };
      el.dispatchEvent(new win.InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText' }));
      el.dispatchEvent(new win.Event('change', { bubbles: true }));
      return { status: 'ok' };
    }
