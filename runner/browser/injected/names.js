// names.js: Accessible names (accname 1.2, as Chromium computes them): the name-from-content roles,
// `accessibleName` and its recursive text alternative (aria-labelledby, aria-label, embedded
// controls, content).
// Uses: dom.js (norm, htmlTag, idRefs, parentOrHost, walk), visibility.js (NON_CONTENT_TAGS,
// isHiddenForAria, isSubtreeHidden), roles.js (roleOf). Recurses with names_native.js
// (nativeTextAlternative, contentText), declared after it.

    // Roles whose own name comes from their content (accname "name from content").
    const NAME_FROM_CONTENT = new Set([
      'button', 'cell', 'checkbox', 'columnheader', 'gridcell', 'heading', 'link', 'menuitem',
      'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'rowheader', 'switch', 'tab',
      'tooltip', 'treeitem', 'term', 'comment', 'suggestion', 'math',
      'doc-backlink', 'doc-biblioref', 'doc-glossref', 'doc-noteref',
    ]);

    // Roles that are containers: when met while collecting a name from
    // content they contribute only their own (author/native) name, never
    // their descendants' text (Chromium's "no name from contents" roles).
    const NO_CONTENT_CONTRIBUTION = new Set([
      'alert', 'alertdialog', 'application', 'article', 'banner', 'blockquote', 'complementary',
      'contentinfo', 'dialog', 'document', 'feed', 'figure', 'form', 'grid', 'group', 'img',
      'listbox', 'log', 'main', 'marquee', 'math', 'menu', 'menubar', 'meter', 'navigation', 'note',
      'progressbar', 'radiogroup', 'scrollbar', 'search', 'searchbox', 'separator', 'slider',
      'spinbutton', 'status', 'tablist', 'tabpanel', 'textbox', 'timer', 'toolbar', 'tree',
      'treegrid', 'combobox', 'table',
    ]);

    const LABELABLE_TAGS = new Set(['button', 'input', 'meter', 'output', 'progress', 'select', 'textarea']);

    function accessibleName(el, ctx) {
      let n = ctx.names.get(el);
      if (n !== undefined) return n;
      // A hidden target is still named (diagnostics count hidden matches),
      // from its hidden content too, like accname's "referenced hidden" rule.
      const state = {
        ctx,
        visited: new Set(),
        includeHidden: isHiddenForAria(el, ctx),
        root: el,
        isRoot: true,
        inLabelledBy: false,
        inLabel: false,
        hiddenRef: false,
      };
      n = norm(textAlternative(el, state));
      ctx.names.set(el, n);
      return n;
    }

    function childState(st, over) {
      return Object.assign({}, st, { isRoot: false }, over);
    }

    function textAlternative(el, st) {
      const ctx = st.ctx;
      if (st.visited.has(el)) return '';
      const tag = htmlTag(el);
      if (NON_CONTENT_TAGS.has(tag)) return '';

      // 2A: hidden, unless we are inside a traversal whose root was hidden.
      if (!st.includeHidden && !st.hiddenRef) {
        if (isSubtreeHidden(el, ctx)) return '';
        // visibility:hidden hides the element itself, but a descendant may
        // turn visible again: only its children can contribute.
        if (!st.isRoot && isHiddenForAria(el, ctx)) {
          st.visited.add(el);
          return contentText(el, st);
        }
      }

      // The labelled element itself found again inside its own <label>.
      if (!st.isRoot && st.inLabel && el === st.root) return '';

      // 2B: aria-labelledby (not followed from within another labelledby).
      if (!st.inLabelledBy) {
        const refs = idRefs(el, 'aria-labelledby');
        if (refs.length) {
          const parts = refs.map((ref) => textAlternative(ref, {
            ctx,
            visited: st.visited,
            includeHidden: st.includeHidden,
            root: st.root,
            isRoot: false,
            inLabelledBy: true,
            inLabel: false,
            hiddenRef: isHiddenForAria(ref, ctx),
          }));
          const joined = parts.join(' ');
          if (joined.trim()) return joined;
        }
      }

      const role = roleOf(el, ctx);

      // 2C: an embedded control contributes its value, not its label.
      if (!st.isRoot && el !== st.root) {
        const v = embeddedControlValue(el, role, st);
        if (v !== null) return v;
      }

      // 2D: aria-label.
      const ariaLabel = el.getAttribute('aria-label');
      if (ariaLabel && ariaLabel.trim()) return ariaLabel;

      // 2E: host language (HTML-AAM) text alternatives.
      if (role !== 'none') {
        const native = nativeTextAlternative(el, tag, role, st);
        if (native !== null) return native;
      }

      // 2F/2H: name from content.
      const fromContent = st.isRoot ? NAME_FROM_CONTENT.has(role) || tag === 'summary' || (role === 'row' && isInGrid(el, ctx))
        : (st.inLabelledBy || st.inLabel || !NO_CONTENT_CONTRIBUTION.has(role));
      if (fromContent) {
        st.visited.add(el);
        const text = contentText(el, st);
        if (st.isRoot ? text.trim() : text) return text;
      }

      // 2I: tooltip. Chromium uses it for the target only, and not for generic.
      if (st.isRoot && ((role !== 'none' && role !== 'generic') || tag === 'iframe')) {
        const title = el.getAttribute('title');
        if (title && title.trim()) return title;
      }
      // Chromium falls back to aria-placeholder for custom text fields.
      if (st.isRoot && (role === 'textbox' || role === 'searchbox' || role === 'combobox')) {
        const ph = el.getAttribute('aria-placeholder');
        if (ph && ph.trim()) return ph;
      }
      return '';
    }

    /** Rows are named from content only in interactive grids (Chromium). */
    function isInGrid(el, ctx) {
      for (let p = parentOrHost(el); p; p = parentOrHost(p)) {
        const r = roleOf(p, ctx);
        if (r === 'grid' || r === 'treegrid') return true;
        if (r === 'table') return false;
      }
      return false;
    }

    /** Value of a control met inside a label or content traversal, or null. */
    function embeddedControlValue(el, role, st) {
      const tag = htmlTag(el);
      if (role === 'textbox' || role === 'searchbox') {
        st.visited.add(el);
        if (tag === 'input' || tag === 'textarea') return el.value;
        return el.textContent || '';
      }
      if (role === 'combobox' || role === 'listbox') {
        st.visited.add(el);
        if (tag === 'select') {
          let opts = Array.from(el.selectedOptions || []);
          if (!opts.length && el.options && el.options.length && role === 'combobox') opts = [el.options[0]];
          return opts.map((o) => norm(o.label || o.textContent)).join(' ');
        }
        if (tag === 'input') return el.value;
        const sel = [];
        walk(el, (d) => {
          if ((d.getAttribute('aria-selected') || '').toLowerCase() === 'true' && roleOf(d, st.ctx) === 'option') sel.push(d);
        }, null);
        return sel.map((o) => norm(o.textContent)).join(' ');
      }
      if (role === 'slider' || role === 'spinbutton' || role === 'progressbar' || role === 'scrollbar' || role === 'meter') {
        st.visited.add(el);
        const vt = el.getAttribute('aria-valuetext');
        if (vt) return vt;
        const vn = el.getAttribute('aria-valuenow');
        if (vn) return vn;
        if (tag === 'input') return el.value;
        return el.getAttribute('value') || '';
      }
      if (role === 'menu') {
        st.visited.add(el);
        return '';
      }
      return null;
    }
