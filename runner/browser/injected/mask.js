// mask.js: Covering credentials for a screenshot: `documentId`, `textRuns` (the text the page
// shows, for the engine to find credentials in), `mask` (opaque boxes over the runs and fields it
// names, fail closed) and `unmask`.
// Uses: dom.js (newCtx, frame helpers), roles.js (inputType), selectors.js (resolve, firstVisible),
// actionability.js (viewportSize).

    // The page is never given a credential: `textRuns` hands the engine the
    // text the page shows and the values its fields show, the engine finds
    // the credentials in them, and `mask` covers the runs it names together
    // with the fields typed from a credential. Fail closed: `mask` reports a
    // field it cannot find, a run that left the document and a box that does
    // not end up on top of what it covers, and then leaves nothing drawn.

    const MASK_ATTR = 'data-windup-mask';
    const docIds = new WeakMap();
    // The nodes of the last textRuns(), by run index, until unmask().
    let scanned = [];
    // Elements whose text is not shown (or not as text).
    const NO_TEXT = new Set(['script', 'style', 'noscript', 'template', 'head', 'title']);
    // Inputs whose value is not shown as text: password fields show bullets (and their values
    // are never read), the others show no text at all.
    const VALUE_NOT_SHOWN = new Set(['password', 'hidden', 'checkbox', 'radio', 'file', 'range', 'color', 'image']);

    /** An id of the current document, the same on every call while it lives. */
    function documentId() {
      let id = docIds.get(document);
      if (!id) {
        id = Math.random().toString(36).slice(2) + '.' + Math.floor(perfNow()).toString(36);
        docIds.set(document, id);
      }
      return id;
    }

    /**
     * The text the page shows, as runs in document order: each text node (through open
     * shadow roots and same-origin frames) and each field's shown value, placeholder or
     * selected option (`field: true`: a run of its own, never joined to its neighbours).
     * Stops at `maxChars` (`complete: false`).
     */
    function textRuns(maxChars) {
      scanned = [];
      const runs = [];
      let chars = 0;
      let complete = true;
      const add = (node, text, field) => {
        if (!complete || !text || !text.trim()) return;
        if (chars + text.length > maxChars) {
          complete = false;
          return;
        }
        chars += text.length;
        scanned.push(node);
        runs.push({ text, field });
      };
      const visit = (node) => {
        if (!complete) return;
        if (node.nodeType === TEXT_NODE) {
          add(node, node.data, false);
          return;
        }
        if (node.nodeType !== ELEMENT_NODE) return;
        const tag = node.namespaceURI === HTML_NS ? node.localName : '';
        if (NO_TEXT.has(tag)) return;
        if (tag === 'input') {
          if (!VALUE_NOT_SHOWN.has(inputType(node))) {
            add(node, node.value, true);
            add(node, node.getAttribute('placeholder'), true);
          }
          return;
        }
        if (tag === 'textarea') {
          add(node, node.value, true);
          add(node, node.getAttribute('placeholder'), true);
          return;
        }
        if (tag === 'select') {
          for (const o of Array.from(node.options)) add(node, o.label || o.text, true);
          return;
        }
        const sr = node.shadowRoot;
        if (sr) for (let c = sr.firstChild; c; c = c.nextSibling) visit(c);
        for (let c = node.firstChild; c; c = c.nextSibling) visit(c);
        if (isFrameElement(node)) {
          const d = frameDocument(node);
          if (d) visit(d.documentElement);
        }
      };
      if (document.documentElement) visit(document.documentElement);
      return { runs, complete };
    }

    /** Where a node's document sits in the top viewport: the offsets of its frames. */
    function frameOffset(node) {
      let x = 0;
      let y = 0;
      let win = node.ownerDocument.defaultView;
      while (win && win !== topWindow) {
        let fe = null;
        try {
          fe = win.frameElement;
        } catch (e) {
          fe = null;
        }
        if (!fe) break;
        const fr = fe.getBoundingClientRect();
        x += fr.left + fe.clientLeft;
        y += fr.top + fe.clientTop;
        win = fe.ownerDocument.defaultView;
      }
      return { x, y };
    }

    /** A node's non-empty boxes in the top viewport, each grown by 2px on every side. */
    function coverRects(node, out) {
      let rects;
      if (node.nodeType === TEXT_NODE) {
        const range = node.ownerDocument.createRange();
        range.selectNodeContents(node);
        rects = Array.from(range.getClientRects());
      } else {
        rects = [node.getBoundingClientRect()];
      }
      const o = frameOffset(node);
      for (const r of rects) {
        if (r.width <= 0 || r.height <= 0) continue;
        out.push({ left: r.left + o.x - 2, top: r.top + o.y - 2, width: r.width + 4, height: r.height + 4 });
      }
    }

    function important(el, styles) {
      for (const k of Object.keys(styles)) el.style.setProperty(k, styles[k], 'important');
    }

    function removeBoxes() {
      for (const el of Array.from(document.querySelectorAll('[' + MASK_ATTR + ']'))) el.remove();
    }

    /**
     * Draws an opaque box over each rect, in one layer put in the top layer (a popover), so
     * that it is above everything the page shows, modal dialogs included, whatever the page's
     * styles and transforms; returns how many boxes are not where they should be or not on
     * top at their visible centre.
     */
    function drawBoxes(rects) {
      const layer = document.createElement('div');
      layer.setAttribute(MASK_ATTR, '');
      important(layer, {
        position: 'fixed', inset: '0', width: '100vw', height: '100vh', margin: '0', padding: '0',
        border: '0', background: 'transparent', overflow: 'visible', 'pointer-events': 'none',
        'z-index': '2147483647', display: 'block', opacity: '1', visibility: 'visible',
        transform: 'none', filter: 'none', 'clip-path': 'none', 'max-width': 'none', 'max-height': 'none',
      });
      const boxes = rects.map((r) => {
        const box = document.createElement('div');
        box.setAttribute(MASK_ATTR, '');
        important(box, {
          position: 'absolute', left: r.left + 'px', top: r.top + 'px', width: r.width + 'px',
          height: r.height + 'px', margin: '0', padding: '0', border: '0', background: '#111',
          display: 'block', opacity: '1', visibility: 'visible', 'pointer-events': 'auto',
        });
        layer.appendChild(box);
        return box;
      });
      (document.body || document.documentElement).appendChild(layer);
      let inTopLayer = false;
      if (typeof layer.showPopover === 'function') {
        layer.setAttribute('popover', 'manual');
        try {
          layer.showPopover();
          inTopLayer = layer.matches(':popover-open');
        } catch (e) {
          // Stays a fixed layer at the top z-index; the checks below say whether that covers.
        }
      }
      const { w, h } = viewportSize(document);
      let uncovered = 0;
      rects.forEach((r, i) => {
        const b = boxes[i].getBoundingClientRect();
        const placed =
          b.left <= r.left + 0.5 && b.top <= r.top + 0.5 &&
          b.right >= r.left + r.width - 0.5 && b.bottom >= r.top + r.height - 0.5;
        // Opened last in the top layer, the layer is above everything else; otherwise the box
        // must be what the page shows at the centre of its visible part (any of our boxes will
        // do: they are all opaque, and may overlap).
        let onTop = inTopLayer;
        if (!onTop) {
          const left = Math.max(r.left, 0);
          const top = Math.max(r.top, 0);
          const right = Math.min(r.left + r.width, w);
          const bottom = Math.min(r.top + r.height, h);
          const hit = right > left && bottom > top
            ? document.elementFromPoint((left + right) / 2, (top + bottom) / 2)
            : boxes[i];
          onTop = hit !== null && hit.hasAttribute(MASK_ATTR);
        }
        if (!placed || !onTop) uncovered++;
      });
      return uncovered;
    }

    /**
     * Covers, for a screenshot, the first visible match of each of `partsList` (the fields
     * typed from a credential in this document) and the runs of the last textRuns() listed
     * in `runIndices`. Returns {missing: [indices of fields with no visible match], lost:
     * runs whose node left the document, uncovered: boxes not on top of what they cover};
     * when any is not empty, nothing stays drawn.
     */
    function mask(partsList, runIndices) {
      removeBoxes();
      const ctx = newCtx();
      const rects = [];
      const missing = [];
      (partsList || []).forEach((parts, i) => {
        const el = firstVisible(resolve(parts, ctx), ctx);
        if (el) coverRects(el, rects);
        else missing.push(i);
      });
      let lost = 0;
      for (const i of runIndices || []) {
        const node = scanned[i];
        if (node && node.isConnected) coverRects(node, rects);
        else lost++;
      }
      let uncovered = 0;
      if (!missing.length && !lost && rects.length) uncovered = drawBoxes(rects);
      if (missing.length || lost || uncovered) removeBoxes();
      return { missing, lost, uncovered };
    }

    /** Removes the boxes of mask() and forgets the nodes of textRuns(). */
    function unmask() {
      removeBoxes();
      scanned = [];
      return true;
    }
