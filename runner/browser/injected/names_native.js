// names_native.js: Accessible names, HTML-AAM's part: labels (one pass per tree scope), native text
// alternatives (alt, legend, caption, value, title, placeholder…), name from content with generated
// content.
// Uses: dom.js (htmlTag, isSvg, idRefs, styleOf, forEachFlatChild, firstChildTagged), visibility.js
// (NON_CONTENT_TAGS, isHiddenForAria), roles.js (inputType, TEXT_INPUT_TYPES), pseudo.js
// (pseudoText), names.js (textAlternative, childState, LABELABLE_TAGS).

    /**
     * The <label>s of a control. Chromium's `el.labels` scans the document on
     * first use per control (quadratic on big forms, and its cache dies with
     * every DOM change), so one pass per tree scope maps controls to labels.
     */
    function labelsOf(el, ctx) {
      if (!LABELABLE_TAGS.has(htmlTag(el))) return NO_LABELS;
      const root = el.getRootNode();
      let m = ctx.labelMaps.get(root);
      if (!m) {
        m = new Map();
        if (typeof root.querySelectorAll === 'function') {
          for (const label of root.querySelectorAll('label')) {
            const c = label.control;
            if (!c) continue;
            let l = m.get(c);
            if (!l) m.set(c, (l = []));
            l.push(label);
          }
        }
        ctx.labelMaps.set(root, m);
      }
      return m.get(el) || NO_LABELS;
    }

    const NO_LABELS = [];

    function namesFromLabels(el, st) {
      const labels = labelsOf(el, st.ctx);
      if (!labels.length) return null;
      const ctx = st.ctx;
      const parts = [];
      for (const label of labels) {
        // Chromium ignores a hidden <label> (unlike a hidden aria-labelledby target).
        if (!st.includeHidden && isHiddenForAria(label, ctx)) continue;
        const t = textAlternative(label, {
          ctx,
          visited: st.visited,
          includeHidden: st.includeHidden,
          root: st.root,
          isRoot: false,
          inLabelledBy: false,
          inLabel: true,
          hiddenRef: false,
        });
        if (t.trim()) parts.push(t);
      }
      return parts.length ? parts.join(' ') : null;
    }

    /** HTML-AAM native text alternatives; null means "fall through". */
    function nativeTextAlternative(el, tag, role, st) {
      const ctx = st.ctx;
      const title = () => (el.getAttribute('title') || '');
      if (tag === 'input') {
        const type = inputType(el);
        if (type === 'button' || type === 'submit' || type === 'reset') {
          st.visited.add(el);
          const fromLabel = st.isRoot ? namesFromLabels(el, st) : null;
          if (fromLabel) return fromLabel;
          // A value attribute, even empty, replaces the default label.
          if (el.hasAttribute('value')) return el.value || '';
          if (type === 'submit') return 'Submit';
          if (type === 'reset') return 'Reset';
          return title();
        }
        if (type === 'image') {
          st.visited.add(el);
          const fromLabel = namesFromLabels(el, st);
          if (fromLabel) return fromLabel;
          const alt = el.getAttribute('alt') || '';
          if (alt.trim()) return alt;
          if (title().trim()) return title();
          return 'Submit';
        }
        if (type === 'file' && st.isRoot) {
          const fromLabel = namesFromLabels(el, st);
          if (fromLabel) return fromLabel;
          if (title().trim()) return title();
          return el.files && el.files.length ? el.files[0].name : 'Choose File';
        }
        if (!st.isRoot) return null;
        st.visited.add(el);
        const fromLabel = namesFromLabels(el, st);
        if (fromLabel) return fromLabel;
        if (title().trim()) return title();
        if (TEXT_INPUT_TYPES.has(type)) {
          const ph = el.getAttribute('placeholder') || '';
          if (ph.trim()) return ph;
        }
        return '';
      }
      if (tag === 'textarea' || tag === 'select') {
        if (!st.isRoot) return null;
        st.visited.add(el);
        const fromLabel = namesFromLabels(el, st);
        if (fromLabel) return fromLabel;
        if (title().trim()) return title();
        if (tag === 'textarea') {
          const ph = el.getAttribute('placeholder') || '';
          if (ph.trim()) return ph;
        }
        return '';
      }
      if (LABELABLE_TAGS.has(tag) && st.isRoot) {
        // button, meter, output, progress: a <label> wins over content.
        const fromLabel = namesFromLabels(el, st);
        if (fromLabel) {
          st.visited.add(el);
          return fromLabel;
        }
        return null;
      }
      if (tag === 'img' || tag === 'area') {
        st.visited.add(el);
        const alt = el.getAttribute('alt');
        if (alt !== null) return alt.trim() ? alt : '';
        return title();
      }
      if (tag === 'fieldset') {
        const legend = firstChildTagged(el, 'legend');
        if (legend) {
          st.visited.add(el);
          const t = textAlternative(legend, childState(st, { inLabel: true, hiddenRef: isHiddenForAria(legend, ctx) }));
          if (t.trim()) return t;
        }
        return null;
      }
      if (tag === 'table') {
        const cap = firstChildTagged(el, 'caption');
        if (cap) {
          st.visited.add(el);
          const t = textAlternative(cap, childState(st, { inLabel: true, hiddenRef: isHiddenForAria(cap, ctx) }));
          if (t.trim()) return t;
        }
        const summary = el.getAttribute('summary');
        if (summary && summary.trim()) return summary;
        return null;
      }
      if (tag === 'optgroup') {
        return el.getAttribute('label') || '';
      }
      if (tag === 'option') {
        const label = el.getAttribute('label');
        if (label && label.trim()) return label;
        return null;
      }
      if (isSvg(el)) {
        for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
          if (isSvg(c) && c.localName === 'title') return c.textContent || '';
        }
        if (el.localName === 'a') {
          const xt = el.getAttribute('xlink:title');
          if (xt && xt.trim()) return xt;
        }
        return null;
      }
      return null;
    }

    /** Text collected from content: ::before, flat children, aria-owns, ::after. */
    function contentText(el, st) {
      const ctx = st.ctx;
      let out = pseudoText(el, '::before', ctx);
      const cst = childState(st, {});
      const visitNode = (n) => {
        if (n.nodeType === TEXT_NODE) {
          // Text inherits visibility from its parent element. CSS text-transform is not applied:
          // Playwright's getByRole names from the DOM text (Chromium's accessibility tree shows
          // the transformed text), and plans and exported specs must resolve alike.
          const pe = n.parentElement;
          const ps = pe ? styleOf(pe, ctx) : null;
          if (!st.includeHidden && !st.hiddenRef && ps && ps.visibility !== 'visible') return;
          out += n.data;
        } else if (n.nodeType === ELEMENT_NODE) {
          if (NON_CONTENT_TAGS.has(htmlTag(n))) return;
          const s = styleOf(n, ctx);
          const display = s ? s.display : 'inline';
          // display:none content only counts when naming a hidden target.
          if (display === 'none' && !st.includeHidden && !st.hiddenRef) return;
          let t = textAlternative(n, cst);
          // Block boundaries separate words; inline ones do not.
          if ((display !== 'inline' && display !== 'contents' && display !== 'none') || htmlTag(n) === 'br') t = ' ' + t + ' ';
          out += t;
        }
      };
      forEachFlatChild(el, visitNode);
      // Owned elements become children elsewhere in the tree: word-separated.
      for (const owned of idRefs(el, 'aria-owns')) {
        out += ' ';
        visitNode(owned);
        out += ' ';
      }
      out += pseudoText(el, '::after', ctx);
      return out;
    }
