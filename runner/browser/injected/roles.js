// roles.js: Roles: WAI-ARIA 1.2 explicit roles with presentational conflict resolution and HTML-AAM
// implicit roles, as Chromium computes them; focusability and native disabled-ness, which roles
// depend on.
// Uses: dom.js (htmlTag, isSvg, idRefs, parentOrHost, styleOf), visibility.js (closestSelect).

    const VALID_ROLES = new Set((
      'alert alertdialog application article banner blockquote button caption cell checkbox code ' +
      'columnheader combobox comment complementary contentinfo definition deletion dialog directory ' +
      'document emphasis feed figure form generic grid gridcell group heading image img insertion ' +
      'link list listbox listitem log main mark marquee math menu menubar menuitem menuitemcheckbox ' +
      'menuitemradio meter navigation none note option paragraph presentation progressbar radio ' +
      'radiogroup region row rowgroup rowheader scrollbar search searchbox sectionfooter sectionheader ' +
      'separator slider spinbutton status strong subscript suggestion superscript switch tab table ' +
      'tablist tabpanel term textbox time timer toolbar tooltip tree treegrid treeitem ' +
      'graphics-document graphics-object graphics-symbol ' +
      'doc-abstract doc-acknowledgments doc-afterword doc-appendix doc-backlink doc-biblioentry ' +
      'doc-bibliography doc-biblioref doc-chapter doc-colophon doc-conclusion doc-cover doc-credit ' +
      'doc-credits doc-dedication doc-endnote doc-endnotes doc-epigraph doc-epilogue doc-errata ' +
      'doc-example doc-footnote doc-foreword doc-glossary doc-glossref doc-index doc-introduction ' +
      'doc-noteref doc-notice doc-pagebreak doc-pagefooter doc-pageheader doc-pagelist doc-part ' +
      'doc-preface doc-prologue doc-pullquote doc-qna doc-subtitle doc-tip doc-toc'
    ).split(' '));

    // Synonyms are folded so that callers and our tables see one spelling.
    const ROLE_SYNONYMS = { image: 'img', presentation: 'none' };

    function canonicalRole(r) {
      return ROLE_SYNONYMS[r] || r;
    }

    function explicitRole(el) {
      const attr = el.getAttribute('role');
      if (!attr) return null;
      for (const tok of attr.trim().toLowerCase().split(/\s+/)) {
        if (VALID_ROLES.has(tok)) return canonicalRole(tok);
      }
      return null;
    }

    // aria-* attributes that are global (apply to every role) in ARIA 1.2 and
    // therefore defeat role=none / role=presentation (conflict resolution).
    const GLOBAL_ARIA_ATTRS = [
      'aria-atomic', 'aria-busy', 'aria-controls', 'aria-current', 'aria-describedby',
      'aria-description', 'aria-details', 'aria-dropeffect', 'aria-flowto', 'aria-grabbed',
      'aria-keyshortcuts', 'aria-label', 'aria-labelledby', 'aria-live', 'aria-owns',
      'aria-relevant', 'aria-roledescription',
    ];

    function hasGlobalAriaAttribute(el) {
      for (const a of GLOBAL_ARIA_ATTRS) if (el.hasAttribute(a)) return true;
      return false;
    }

    function hasValidTabIndex(el) {
      const v = el.getAttribute('tabindex');
      return v !== null && /^\s*[+-]?\d+/.test(v);
    }

    const TEXT_INPUT_TYPES = new Set(['text', 'search', 'url', 'tel', 'email', 'password', 'number']);

    function inputType(el) {
      // `.type` normalises unknown values to "text"; read it defensively for
      // elements that are not real inputs (e.g. in documents without a window).
      const t = typeof el.type === 'string' ? el.type : (el.getAttribute('type') || 'text');
      return t.toLowerCase();
    }

    function isNativelyDisabled(el) {
      const t = htmlTag(el);
      if (t === 'button' || t === 'input' || t === 'select' || t === 'textarea' ||
          t === 'option' || t === 'optgroup' || t === 'fieldset') {
        // :disabled implements the fieldset/first-legend and optgroup rules natively.
        try {
          if (el.matches(':disabled')) return true;
        } catch (e) { /* ignore */ }
        if (t === 'option') {
          const sel = closestSelect(el);
          if (sel && sel.matches(':disabled')) return true;
        }
        return false;
      }
      // Form-associated custom elements also honour :disabled.
      if (el.localName.includes('-')) {
        try {
          return el.matches(':disabled');
        } catch (e) {
          return false;
        }
      }
      return false;
    }

    function isFocusable(el) {
      if (isNativelyDisabled(el)) return false;
      if (hasValidTabIndex(el)) return true;
      const t = htmlTag(el);
      switch (t) {
        case 'button': case 'select': case 'textarea': case 'iframe':
          return true;
        case 'input':
          return inputType(el) !== 'hidden';
        case 'a': case 'area':
          return el.hasAttribute('href');
        case 'summary':
          return !!el.parentElement && htmlTag(el.parentElement) === 'details' &&
            el.parentElement.querySelector(':scope > summary') === el;
        case 'audio': case 'video':
          return el.hasAttribute('controls');
      }
      return !!el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable);
    }

    /** Is el inside sectioning content (article, aside, nav, section) or main? */
    function inSectioningOrMain(el, ctx) {
      for (let p = parentOrHost(el); p; p = parentOrHost(p)) {
        const t = htmlTag(p);
        if (t === 'article' || t === 'aside' || t === 'nav' || t === 'section' || t === 'main') return true;
        const r = explicitRole(p);
        if (r === 'article' || r === 'complementary' || r === 'navigation' || r === 'region' || r === 'main') return true;
        if (t === 'body') return false;
      }
      return false;
    }

    function hasAuthorName(el) {
      const al = el.getAttribute('aria-label');
      if (al && al.trim()) return true;
      if (idRefs(el, 'aria-labelledby').length) return true;
      const title = el.getAttribute('title');
      return !!(title && title.trim());
    }

    /** Role of a <th>: Chromium decides from scope, then from its neighbours. */
    function thRole(el) {
      const scope = (el.getAttribute('scope') || '').toLowerCase();
      if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
      if (scope === 'col' || scope === 'colgroup') return 'columnheader';
      const row = el.parentElement;
      if (row && row.parentElement && htmlTag(row.parentElement) === 'thead') return 'columnheader';
      // A header cell in a row that also holds data cells labels that row.
      if (row) {
        for (let c = row.firstElementChild; c; c = c.nextElementSibling) {
          if (htmlTag(c) === 'td') return 'rowheader';
        }
      }
      return 'columnheader';
    }

    function closestTable(el) {
      for (let p = el.parentElement; p; p = p.parentElement) {
        if (htmlTag(p) === 'table') return p;
      }
      return null;
    }

    function implicitRole(el, ctx) {
      if (isSvg(el)) {
        const ln = el.localName;
        // An <svg> is an image, unless it holds meaningful parts of its own
        // (then Chromium exposes a container without an ARIA role).
        if (ln === 'svg') return svgHasSemanticParts(el) ? null : 'img';
        if (ln === 'a' && (el.hasAttribute('href') || el.hasAttribute('xlink:href'))) return 'link';
        if ((ln === 'g' || ln === 'use' || ln === 'image' || ln === 'text') && svgIsNamed(el)) return ln === 'g' ? 'group' : null;
        if (SVG_SHAPES.has(ln)) return 'graphics-symbol';
        return null;
      }
      const t = htmlTag(el);
      switch (t) {
        case 'a': case 'area':
          if (el.hasAttribute('href')) return 'link';
          // Chromium makes an anchor with a click listener a link. Listeners
          // are invisible from here; an onclick or a pointer cursor stands in.
          if (t === 'a' && (el.hasAttribute('onclick') || typeof el.onclick === 'function' || cursorIsPointer(el, ctx))) return 'link';
          return 'generic';
        case 'address': case 'details': case 'fieldset': case 'hgroup': case 'optgroup':
          return 'group';
        case 'article': return 'article';
        case 'aside':
          return !inSectioningOrMain(el, ctx) || hasAuthorName(el) ? 'complementary' : 'generic';
        case 'b': case 'bdi': case 'bdo': case 'body': case 'data': case 'div': case 'i':
        case 'pre': case 'q': case 'samp': case 'small': case 'span': case 'u':
          if (t === 'body') return null;
          // `content: url(…)` on the element itself makes it a replaced image.
          // Only childless elements are checked, to spare style lookups.
          if (!el.firstChild && isCssReplacedImage(el, ctx)) return 'img';
          return 'generic';
        case 'blockquote': return 'blockquote';
        case 'button': return 'button';
        case 'caption': return 'caption';
        case 'code': return 'code';
        case 'datalist': return 'listbox';
        case 'dd': return 'definition';
        case 'del': case 's': return 'deletion';
        case 'dfn': case 'dt': return 'term';
        case 'dialog': return 'dialog';
        case 'em': return 'emphasis';
        case 'figure': return 'figure';
        case 'footer':
          return inSectioningOrMain(el, ctx) ? 'sectionfooter' : 'contentinfo';
        case 'header':
          return inSectioningOrMain(el, ctx) ? 'sectionheader' : 'banner';
        case 'form': return 'form';
        case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6':
          return 'heading';
        case 'hr': return 'separator';
        case 'html': return 'document';
        case 'img': {
          // alt="" means decorative unless something makes it interesting.
          if (el.getAttribute('alt') === '' && !hasGlobalAriaAttribute(el) && !hasValidTabIndex(el) &&
              !(el.getAttribute('title') || '').trim()) return 'none';
          return 'img';
        }
        case 'input': return inputRole(el);
        case 'ins': return 'insertion';
        case 'li': return 'listitem';
        case 'main': return 'main';
        case 'mark': return 'mark';
        case 'math': return 'math';
        case 'menu': case 'ol': case 'ul': return 'list';
        case 'meter': return 'meter';
        case 'nav': return 'navigation';
        case 'option': return 'option';
        case 'output': return 'status';
        case 'p': return 'paragraph';
        case 'progress': return 'progressbar';
        case 'search': return 'search';
        case 'section': return hasAuthorName(el) || el.hasAttribute('title') ? 'region' : 'generic';
        case 'select': {
          const size = parseInt(el.getAttribute('size') || '0', 10);
          return el.hasAttribute('multiple') || size > 1 ? 'listbox' : 'combobox';
        }
        case 'strong': return 'strong';
        case 'sub': return 'subscript';
        case 'sup': return 'superscript';
        case 'table': return 'table';
        case 'tbody': case 'thead': case 'tfoot': return 'rowgroup';
        case 'td': {
          const table = closestTable(el);
          const tr = table ? explicitRole(table) : null;
          return tr === 'grid' || tr === 'treegrid' ? 'gridcell' : 'cell';
        }
        case 'th': return thRole(el);
        case 'textarea': return 'textbox';
        case 'time': return 'time';
        case 'tr': return 'row';
      }
      return null;
    }

    const SVG_SHAPES = new Set(['circle', 'ellipse', 'line', 'path', 'polygon', 'polyline', 'rect']);

    function svgIsNamed(el) {
      if (hasAuthorName(el)) return true;
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) {
        if (isSvg(c) && c.localName === 'title' && (c.textContent || '').trim()) return true;
      }
      return false;
    }

    function svgHasSemanticParts(svg) {
      for (const d of svg.querySelectorAll('g, a, text, [role], [aria-label], [aria-labelledby]')) {
        if (d.localName === 'a' || d.localName === 'text' || d.hasAttribute('role') || svgIsNamed(d)) return true;
      }
      return false;
    }

    function cursorIsPointer(el, ctx) {
      const s = styleOf(el, ctx);
      return !!s && s.cursor === 'pointer';
    }

    function isCssReplacedImage(el, ctx) {
      const s = styleOf(el, ctx);
      return !!s && /^(url|image-set|-webkit-image-set)\(/.test(s.content);
    }

    function inputRole(el) {
      const type = inputType(el);
      switch (type) {
        case 'button': case 'image': case 'reset': case 'submit': case 'file':
          return 'button';
        case 'checkbox': return 'checkbox';
        case 'radio': return 'radio';
        case 'range': return 'slider';
        case 'number': return 'spinbutton';
        case 'hidden': return null;
        // No ARIA role: Chromium exposes its own ColorWell/Date/InputTime.
        case 'color': case 'date': case 'datetime-local': case 'month': case 'time': case 'week':
          return null;
      }
      const hasList = el.hasAttribute('list') && idRefs(el, 'list').some((l) => htmlTag(l) === 'datalist');
      if (type === 'search') return hasList ? 'combobox' : 'searchbox';
      return hasList ? 'combobox' : 'textbox';
    }

    // Elements that must be owned by a specific parent; when that parent is
    // presentational (and not rescued by conflict resolution) they lose their
    // role as well. Chromium turns cells of a presentational table into generic.
    const REQUIRED_PARENTS = {
      li: ['ul', 'ol', 'menu'],
      dt: ['dl', 'div'],
      dd: ['dl', 'div'],
      tr: ['table', 'thead', 'tbody', 'tfoot'],
      thead: ['table'],
      tbody: ['table'],
      tfoot: ['table'],
      td: ['tr'],
      th: ['tr'],
    };

    function inheritsPresentation(el) {
      let cur = el;
      for (;;) {
        const parents = REQUIRED_PARENTS[htmlTag(cur)];
        const p = cur.parentElement;
        if (!parents || !p || !parents.includes(htmlTag(p))) return null;
        const pr = explicitRole(p);
        if (pr === 'none' && !hasGlobalAriaAttribute(p) && !isFocusable(p)) {
          return htmlTag(el) === 'td' || htmlTag(el) === 'th' ? 'generic' : 'none';
        }
        if (pr) return null;
        cur = p;
      }
    }

    function roleOf(el, ctx) {
      let r = ctx.roles.get(el);
      if (r !== undefined) return r;
      r = computeRole(el, ctx);
      ctx.roles.set(el, r);
      return r;
    }

    function computeRole(el, ctx) {
      const explicit = explicitRole(el);
      if (explicit && explicit !== 'none') return explicit;
      if (explicit === 'none') {
        // ARIA 1.2 §9.3: focusable elements and elements with global ARIA
        // attributes keep their native role.
        if (hasGlobalAriaAttribute(el) || isFocusable(el)) return implicitRole(el, ctx);
        return 'none';
      }
      const inherited = inheritsPresentation(el);
      if (inherited) return inherited;
      return implicitRole(el, ctx);
    }
