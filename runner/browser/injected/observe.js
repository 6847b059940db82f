// observe.js: `observe`: the page as the planner sees it, its visible controls and texts in
// document order with selectors, contexts, states and role counts (the task's and the viewport's
// first when over the limit), file inputs hidden behind their labels included.
// Uses: dom.js, visibility.js (isVisible, isSubtreeHidden), roles.js (roleOf, inputType), states.js
// (checkedState, expandedState, selectedState, isDisabled, isNativeCheckable), names.js
// (accessibleName), text.js (normText, isButtonLikeInput, NON_TEXT_TAGS), selectors.js (resolve,
// labelTexts, testIdAttribute), actionability.js (frameElementOf, isCheckable, viewportSize), interactive.js
// (selectorFor, buildIndex, isInteractive, cssPath…); document.js's documentUrl, declared after it.

    // Roles that give the elements inside them their context in an observation.
    const CONTEXT_ROLES = new Set([
      'listitem', 'row', 'article', 'treeitem', 'dialog', 'alertdialog', 'form', 'tabpanel', 'group',
      'navigation', 'main', 'banner', 'contentinfo', 'complementary', 'search', 'region',
    ]);
    // Roles whose item is named by its first text rather than an accessible name.
    const TEXT_NAMED = new Set(['listitem', 'row', 'article', 'treeitem']);
    // Roles counted in an observation, so a step's effect on them becomes a fact.
    const COUNTED_ROLES = ['listitem', 'row', 'option', 'treeitem', 'tab', 'dialog', 'alert', 'article', 'checkbox', 'radio'];

    /** Every element of the document and its same-origin frames, frames after the document. */
    function eachElement(cb) {
      const visitDoc = (doc) => {
        const frames = [];
        walk(doc, (el) => cb(el), frames);
        for (const fe of frames) {
          const d = frameDocument(fe);
          if (d) visitDoc(d);
        }
      };
      visitDoc(document);
    }

    /** `listitem "Buy milk"`: the nearest named container of `el`, or null. */
    function contextOf(el, ctx) {
      let a = el;
      for (let depth = 0; depth < 12; depth++) {
        a = parentOrHost(a) || frameElementOf(a.ownerDocument);
        if (!a || a.nodeType !== ELEMENT_NODE) return null;
        const tag = htmlTag(a);
        if (tag === 'html' || tag === 'body') continue;
        const role = roleOf(a, ctx);
        if (!CONTEXT_ROLES.has(role)) continue;
        let name = accessibleName(a, ctx);
        if (!name && TEXT_NAMED.has(role)) name = leafTexts(a, el, ctx, 1)[0] || normText(a, ctx);
        if (name) return role + ' ' + quoteValue(truncate(name, 60));
        if (role === 'dialog' || role === 'alertdialog') return role;
      }
      return null;
    }

    /**
     * The short visible text just before field `el` in its container (`Username` of
     * `<p><label>Username</label><input></p>`, a label not tied to it): the siblings before it,
     * then its parent's, up to three levels, never past a list item or a table row; null when
     * there is none within 40 characters.
     */
    function textBefore(el, ctx) {
      let at = el;
      for (let depth = 0; depth < 3 && at; depth++) {
        for (let s = at.previousSibling; s; s = s.previousSibling) {
          let t = '';
          if (s.nodeType === TEXT_NODE) t = norm(s.data);
          else if (s.nodeType === ELEMENT_NODE && !NON_TEXT_TAGS.has(htmlTag(s)) && isVisible(s, ctx)) t = normText(s, ctx);
          if (!t) continue;
          return t.length <= 40 ? t : null;
        }
        // Never past the item of a list or the row of a table: the text before those is the
        // previous item's.
        const tag = htmlTag(at);
        if (tag === 'li' || tag === 'tr') return null;
        at = parentOrHost(at);
        const up = at && htmlTag(at);
        if (!at || up === 'body' || up === 'form' || up === 'html') return null;
      }
      return null;
    }

    /** Whether `el` has its own, non-blank text (not only its children's). */
    function hasOwnText(el) {
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === TEXT_NODE && c.data.trim()) return true;
      }
      return false;
    }

    /**
     * The page as a planner or an agent sees it: the visible controls and texts (and the
     * file inputs an upload sets unseen) in document order, each with its role, name, state, context and a selector that
     * resolves to it alone; at most `limit`, those in the viewport and those whose
     * words the task uses first. Also the number of visible elements of a few roles.
     */
    /** Whether `el`'s box lies wholly above or left of its document, where no scroll reaches. */
    function isOffCanvas(el) {
      const win = el.ownerDocument.defaultView;
      const r = el.getBoundingClientRect();
      const x = win ? win.scrollX : 0;
      const y = win ? win.scrollY : 0;
      return r.width > 0 && r.height > 0 && (r.right + x <= 0 || r.bottom + y <= 0);
    }

    function observe(opts) {
      const o = opts || {};
      const limit = o.limit || 150;
      const words = new Set((o.words || []).map((w) => String(w).toLowerCase()));
      const ctx = newCtx();
      const view = viewportSize(document);
      const counts = {};
      for (const r of COUNTED_ROLES) counts[r] = 0;
      counts['checkbox[checked=true]'] = 0;
      counts['radio[checked=true]'] = 0;
      const origins = o.origins && o.origins.length ? new Set(o.origins) : null;
      const leavesApp = (el) => {
        if (!origins || (htmlTag(el) !== 'a' && htmlTag(el) !== 'area') || !el.hasAttribute('href')) return false;
        let u;
        try {
          u = new URL(el.getAttribute('href'), el.baseURI);
        } catch (e) {
          return false;
        }
        return (u.protocol === 'http:' || u.protocol === 'https:') && !origins.has(u.origin);
      };
      const found = [];
      let block = null;
      let control = null;
      eachElement((el) => {
        if (NON_TEXT_TAGS.has(htmlTag(el))) return false;
        if (!isVisible(el, ctx)) {
          // A file input hidden with no visible label to stand for it (a drop zone's, opened by
          // a script): listed all the same, since an upload sets it unseen.
          if (htmlTag(el) === 'input' && inputType(el) === 'file' && !Array.prototype.some.call(el.labels || [], (l) => isVisible(l, ctx))) {
            found.push({ el, control: true, unseen: true });
          }
          // Hidden elements may still hold visible children (visibility: visible), but the
          // subtrees a person cannot see hold none.
          return isSubtreeHidden(el, ctx) ? false : undefined;
        }
        const role = roleOf(el, ctx);
        if (role && counts[role] !== undefined) {
          counts[role]++;
          if ((role === 'checkbox' || role === 'radio') && checkedState(el, ctx) === true) counts[role + '[checked=true]']++;
        }
        if (control && composedContains(control, el)) return;
        // Parked where no scroll reaches (a skip link above the page until it has the focus):
        // nobody can click it, so it is not offered (Playwright's click fails on it too).
        if (isOffCanvas(el)) return;
        if (isInteractive(el, ctx)) {
          control = el;
          // A link off the app's origins cannot be followed: it is left out.
          if (!leavesApp(el)) found.push({ el, control: true });
          return;
        }
        // An element the page styles as clickable (a span or div with a click listener, which
        // no attribute shows) where its parent is not: listed as a control a step can click.
        if (pointerStart(el)) {
          control = el;
          found.push({ el, control: true, clickable: true });
          return;
        }
        if (block && composedContains(block, el)) return;
        // A file input hidden behind its styled label is listed as the input, where the label
        // is: the label is what a person clicks, the input what an upload sets.
        if (htmlTag(el) === 'label' && isHiddenFileInput(el.control, ctx)) {
          control = el;
          found.push({ el: el.control, control: true, label: el });
          return;
        }
        if (!hasOwnText(el)) return;
        if (htmlTag(el) === 'label' && el.control) return; // its control carries the words
        // A click on a text holding a link off the app would follow it: such texts are left out.
        if (origins && Array.prototype.some.call(el.querySelectorAll('a[href], area[href]'), leavesApp)) return;
        const text = normText(el, ctx);
        if (!text || text.length > 300) return;
        block = el;
        found.push({ el, control: false, text });
      });
      const inView = (el) => {
        const r = el.getBoundingClientRect();
        return r.bottom > 0 && r.right > 0 && r.top < view.h && r.left < view.w;
      };
      const overlap = (s) => {
        if (!words.size || !s) return 0;
        let n = 0;
        for (const w of s.toLowerCase().split(/[^\p{L}\p{N}]+/u)) if (w.length > 2 && words.has(w)) n++;
        return n;
      };
      found.forEach((f, i) => {
        f.index = i;
        f.role = roleOf(f.el, ctx);
        f.name = f.control ? accessibleName(f.el, ctx) : f.text;
        if (f.clickable && !f.name) f.name = normText(f.el, ctx);
        if (f.label && !f.name) f.name = normText(f.label, ctx);
        f.context = contextOf(f.label || f.el, ctx);
        f.score = (inView(f.label || f.el) ? 4 : 0) + (f.control ? 2 : 0) + 3 * overlap(f.name + ' ' + (f.context || ''));
      });
      let chosen = found;
      if (found.length > limit) {
        chosen = found.slice().sort((a, b) => b.score - a.score || a.index - b.index).slice(0, limit);
        chosen.sort((a, b) => a.index - b.index);
      }
      const index = buildIndex(ctx);
      const started = perfNow();
      const budget = { ok: () => perfNow() - started < 1500 };
      const items = chosen.map((f) => {
        const el = f.el;
        const tag = htmlTag(el);
        const selector = f.label ? hiddenFileSelector(el, f.label, ctx, index, budget)
          : f.unseen ? unseenFileSelector(el, ctx) : selectorFor(el, ctx, index, budget);
        const item = { role: f.role || null, name: truncate(f.name || '', f.control ? 120 : 100), tag: el.localName, control: f.control, score: f.score, selector };
        if (f.context) item.context = f.context;
        if (!f.control) return item;
        if (tag === 'a' && el.href) item.href = String(el.href);
        if (tag === 'input') item.type = inputType(el);
        // A text field's: a checkbox's or a radio's label follows it, and the text before one
        // is another item's.
        if (!item.name && ((tag === 'input' && !isNativeCheckable(el) && !isButtonLikeInput(el)) || tag === 'textarea' || tag === 'select')) {
          const near = textBefore(el, ctx);
          if (near) item.near = near;
        }
        if ((tag === 'input' && !isNativeCheckable(el) && !isButtonLikeInput(el) && inputType(el) !== 'password' && inputType(el) !== 'file') ||
            tag === 'textarea' || tag === 'select') {
          item.value = truncate(String(el.value), 120);
        }
        const checked = isCheckable(el, ctx) ? checkedState(el, ctx) : null;
        if (checked !== null) item.checked = checked;
        if (isDisabled(el)) item.disabled = true;
        // Something else takes a click at its centre (an overlay, a page that ended its task):
        // in view, yet nothing can act on it as the page is.
        if (!f.unseen) {
          const shown = f.label || el;
          const point = clickPoint(shown);
          const why = point ? hitTest(shown, point) : null;
          if (why && why.startsWith('element is covered')) item.covered = true;
        }
        const expanded = expandedState(el);
        if (expanded !== null && expanded !== undefined) item.expanded = expanded;
        const selected = selectedState(el, ctx);
        if (selected === true) item.selected = true;
        return item;
      });
      return { url: documentUrl(), title: document.title || '', items, counts, total: found.length };
    }

    /**
     * Whether `el` starts a region the page's CSS shows as clickable (`cursor: pointer`) with
     * no other sign of it: not a label (its control carries it), not inside a pointer region.
     */
    function pointerStart(el) {
      const tag = htmlTag(el);
      if (tag === 'label' || tag === 'body' || tag === 'html') return false;
      const cursor = (e) => {
        try {
          return getComputedStyle(e).cursor;
        } catch (x) {
          return '';
        }
      };
      if (cursor(el) !== 'pointer') return false;
      const parent = el.parentElement;
      return !parent || cursor(parent) !== 'pointer';
    }

    /** Whether `el` is an `<input type=file>` a person cannot see (behind its label). */
    function isHiddenFileInput(el, ctx) {
      return !!el && htmlTag(el) === 'input' && inputType(el) === 'file' && !isVisible(el, ctx);
    }

    /**
     * A selector for a hidden file input that `fileInput` resolves to it: `label="…"` when
     * that matches it alone, else its visible label's own selector (a label stands for its
     * control there).
     */
    function hiddenFileSelector(input, label, ctx, index, budget) {
      for (const lt of labelTexts(input, ctx)) {
        if (matchesAlone([{ kind: 'label', value: lt, exact: true }], input, ctx)) return 'label=' + quoteValue(lt);
      }
      return selectorFor(label, ctx, index, budget);
    }

    /** Whether `parts` match `el` and nothing else, hidden elements included. */
    function matchesAlone(parts, el, ctx) {
      const all = resolve(parts, ctx);
      return all.length === 1 && all[0] === el;
    }

    /**
     * A selector for a file input no one can see and no label stands for. `fileInput` takes the
     * first match when none is visible, so the selector matches this input alone among every
     * element, hidden ones included: its test id, its id, its name, else its CSS path.
     */
    function unseenFileSelector(input, ctx) {
      const testid = input.getAttribute(testIdAttribute);
      const byTestId = testid && testIdSel(testid);
      if (byTestId && matchesAlone(byTestId.parts, input, ctx)) return byTestId.sel;
      const css = [];
      if (input.id && isStableId(input.id)) css.push('#' + CSS.escape(input.id));
      if (input.name) css.push('input[type="file"][name=' + JSON.stringify(input.name) + ']');
      for (const sel of css) if (matchesAlone([{ kind: 'css', value: sel }], input, ctx)) return 'css=' + sel;
      return 'css=' + cssPath(input);
    }
