// selectors.js: Selector engines: each part (css, role, text, label, placeholder, testid, frame;
// the has-text and nth filters) compiled into a matcher with native pre-filters, searched over the
// top document, open shadow roots (after the tree that hosts them, as Playwright orders matches)
// and same-origin frames; `resolve`, `splitVisible`, `firstVisible`.
// Uses: dom.js (sourceList, frameElementsIn, frames and shadow helpers), visibility.js
// (isVisible, isHiddenForRole), roles.js (roleOf, canonicalRole, inputType), states.js
// (selectedState, roleChecked, rolePressed, roleExpanded, roleLevel, roleDisabled), pseudo.js
// (mayHavePseudo, pseudoInfo), names.js (accessibleName, NAME_FROM_CONTENT, LABELABLE_TAGS),
// names_native.js (labelsOf), text.js (the text functions).

    // The attribute `testid=` reads: `data-testid` unless the project configures another
    // (`[browser] testid_attribute`, Playwright's testIdAttribute), set by `configure` when the
    // engine is installed in a document.
    let testIdAttribute = 'data-testid';

    function configure(options) {
      const a = options && options.testIdAttribute;
      if (typeof a === 'string' && /^[A-Za-z_][\w.:-]*$/.test(a)) testIdAttribute = a;
    }

    function stringMatcher(value, exact) {
      const v = norm(value);
      if (exact) return (s) => s === v;
      const lv = v.toLowerCase();
      return (s) => s.toLowerCase().includes(lv);
    }

    // Roles for which an element is a control that selectors are made for by its label
    // (`selectorFor`, heal); the `label=` engine itself matches any labelled element.
    const WIDGET_ROLES = new Set([
      'button', 'checkbox', 'combobox', 'gridcell', 'link', 'listbox', 'menuitem', 'menuitemcheckbox',
      'menuitemradio', 'option', 'radio', 'scrollbar', 'searchbox', 'separator', 'slider',
      'spinbutton', 'switch', 'tab', 'textbox', 'treeitem',
    ]);

    function isLabelTarget(el, ctx) {
      const tag = htmlTag(el);
      if (tag === 'input') return inputType(el) !== 'hidden';
      if (LABELABLE_TAGS.has(tag)) return true;
      if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
      return WIDGET_ROLES.has(roleOf(el, ctx));
    }

    /**
     * The label texts of an element (normalised), as Playwright's getByLabel reads them: each
     * element its aria-labelledby references (one label each, not joined), else its aria-label,
     * else the text of each <label> of a labelable element. Any element can be labelled so (a
     * toast with role=alert and an aria-label), not only form controls.
     */
    function labelTexts(el, ctx) {
      const refs = idRefs(el, 'aria-labelledby');
      if (refs.length) return refs.map((r) => normText(r, ctx));
      const al = el.getAttribute('aria-label');
      if (al && al.trim()) return [norm(al)];
      if (htmlTag(el) === 'input' && inputType(el) === 'hidden') return [];
      return labelsOf(el, ctx).map((l) => normText(l, ctx));
    }

    /**
     * Text of an element made of text nodes only (optionally beside the one
     * element `skip`), or null when anything else could contribute to a name.
     */
    function plainText(el, skip, ctx) {
      if (el.shadowRoot || mayHavePseudo(el, ctx)) return null;
      let t = '';
      for (let c = el.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === TEXT_NODE) t += c.data;
        else if (c.nodeType === ELEMENT_NODE && c !== skip) return null;
      }
      return t;
    }

    /**
     * Cheap, exact test that an element's name cannot contain `needle`
     * (lower case, whitespace removed), for the common simple shapes: a
     * control named by one plain-text label or by attributes, or an element
     * named from plain-text content. Every source the name could come from
     * is collected, so a miss in all of them is a definite "no". Returns
     * false ("unknown") for anything more complex.
     */
    function quickNameRejects(el, role, needle, ctx) {
      if (el.hasAttribute('aria-labelledby') || el.hasAttribute('aria-owns')) return false;
      const tag = htmlTag(el);
      const sources = [];
      const attr = (n) => {
        const v = el.getAttribute(n);
        if (v) sources.push(v);
      };
      if (tag === 'input' || tag === 'textarea' || tag === 'select') {
        if (tag === 'input') {
          const t = inputType(el);
          if (t === 'button' || t === 'submit' || t === 'reset' || t === 'image' || t === 'file') return false;
        }
        const labels = labelsOf(el, ctx);
        if (labels.length > 1) return false;
        if (labels.length === 1) {
          const t = plainText(labels[0], el, ctx);
          if (t === null) return false;
          sources.push(t);
        }
        attr('aria-label');
        attr('title');
        attr('placeholder');
        attr('aria-placeholder');
      } else if (NAME_FROM_CONTENT.has(role)) {
        // Elements with native names of their own (alt, label, xlink:title…) are not simple.
        if (!tag || tag === 'img' || tag === 'area' || tag === 'slot' || tag === 'option' || labelsOf(el, ctx).length) return false;
        const t = plainText(el, null, ctx);
        if (t !== null) {
          sources.push(t);
        } else {
          // Richer content: the name is the text content minus hidden parts
          // (so the needle must be a subsequence of it), unless something
          // below can add text of its own.
          if (el.shadowRoot || complexTextSet(el.ownerDocument, ctx).has(el) || el.querySelector(NAMING_DESCENDANTS_CSS)) return false;
          if (mayHavePseudo(el, ctx) || pseudoInfo(el.ownerDocument, ctx).all) return false;
          const all = el.getElementsByTagName('*');
          for (let i = 0; i < all.length; i++) if (mayHavePseudo(all[i], ctx)) return false;
          const title = el.getAttribute('title');
          const label = el.getAttribute('aria-label');
          if ((title && norm(title).toLowerCase().replace(/\s+/g, '').includes(needle)) ||
              (label && norm(label).toLowerCase().replace(/\s+/g, '').includes(needle))) return false;
          return !isSubsequence(needle, (el.textContent || '').toLowerCase().replace(/\s+/g, ''));
        }
        attr('aria-label');
        attr('title');
      } else {
        return false;
      }
      for (const src of sources) {
        if (src.toLowerCase().replace(/\s+/g, '').includes(needle)) return false;
      }
      return true;
    }

    // Descendants that can put text into a name that is not their text content.
    const NAMING_DESCENDANTS_CSS = '[aria-label], [aria-labelledby], [aria-owns], [title], [alt], [role], ' +
      '[aria-valuetext], [aria-valuenow], img, svg, math, input, select, textarea, button, meter, progress, ' +
      'output, object, embed, iframe, area, slot, script, style, template';

    function isSubsequence(needle, hay) {
      let j = 0;
      for (let i = 0; i < hay.length && j < needle.length; i++) if (hay.charCodeAt(i) === needle.charCodeAt(j)) j++;
      return j === needle.length;
    }

    function textPredicate(value, exact, ctx) {
      const needle = exact ? norm(value) : norm(value).toLowerCase();
      const textOf = exact ? (el) => normText(el, ctx) : (el) => lowerText(el, ctx);
      const full = exact ? (t) => t === needle : (t) => t.includes(needle);
      // Before normalising an element's text, check that the raw text holds
      // the needle's longest word (words survive whitespace normalisation).
      const word = needle.split(' ').reduce((a, b) => (b.length > a.length ? b : a), '');
      const rawHasWord = (raw) => raw.indexOf('\u200b') >= 0 || raw.indexOf('\u00ad') >= 0 ||
        (exact ? raw.includes(word) : raw.toLowerCase().includes(word));
      // An element can only hold the needle if its ancestors do: the walk
      // skips every subtree whose text lacks it (`prune`), which confines
      // the work to the few branches that contain the text.
      const mayContain = (el) => !NON_TEXT_TAGS.has(htmlTag(el)) && rawHasWord(rawText(el, ctx)) && textOf(el).includes(needle);
      return {
        sources: null,
        // As Playwright's getByText, a chained text= also tries the scope element itself.
        self: true,
        prune: (el) => !mayContain(el),
        pred: (el) => {
          // <body> too, when it holds the text itself (Playwright's getByText).
          if (!full(textOf(el))) return false;
          let childMatches = false;
          flatChildElements(el, (c) => {
            if (!childMatches && mayContain(c) && full(textOf(c))) childMatches = true;
          });
          return !childMatches;
        },
      };
    }

    // Native pre-filters, as lists of simple selectors ("sources"): the tags
    // whose implicit role can be the key (elements with a role attribute are
    // always candidates). Roles missing here are searched without
    // pre-filter. Must stay in sync with implicitRole.
    const GENERIC_TAGS = ['b', 'bdi', 'bdo', 'data', 'div', 'i', 'pre', 'q', 'samp', 'small', 'span', 'u'];
    const ROLE_CANDIDATES = {
      button: ['button', 'input'], link: ['a', 'area'],
      checkbox: ['input'], radio: ['input'], slider: ['input'], spinbutton: ['input'], searchbox: ['input'],
      textbox: ['input', 'textarea'], combobox: ['input', 'select'], listbox: ['select', 'datalist'],
      option: ['option'], heading: ['h1', 'h2', 'h3', 'h4', 'h5', 'h6'], list: ['ul', 'ol', 'menu'],
      listitem: ['li'], img: ['img', 'svg'].concat(GENERIC_TAGS),
      table: ['table'], row: ['tr'], cell: ['td'], gridcell: ['td'], columnheader: ['th'], rowheader: ['th'],
      rowgroup: ['thead', 'tbody', 'tfoot'], navigation: ['nav'], main: ['main'], banner: ['header'],
      contentinfo: ['footer'], sectionheader: ['header'], sectionfooter: ['footer'], complementary: ['aside'],
      region: ['section'], form: ['form'], search: ['search'], article: ['article'], dialog: ['dialog'],
      group: ['details', 'fieldset', 'optgroup', 'address', 'hgroup', 'g'], figure: ['figure'],
      paragraph: ['p'], separator: ['hr'], progressbar: ['progress'], meter: ['meter'], status: ['output'],
      term: ['dfn', 'dt'], definition: ['dd'], blockquote: ['blockquote'], caption: ['caption'],
      code: ['code'], deletion: ['del', 's'], insertion: ['ins'], emphasis: ['em'], strong: ['strong'],
      subscript: ['sub'], superscript: ['sup'], time: ['time'], mark: ['mark'], math: ['math'],
      document: ['html'], 'graphics-symbol': ['circle', 'ellipse', 'line', 'path', 'polygon', 'polyline', 'rect'],
    };

    // Only labelable elements have <label>s; anything else is labelled by attributes.
    const LABEL_TARGET_SOURCES = ['input', 'textarea', 'select', 'button', 'meter', 'output', 'progress', '[aria-label]', '[aria-labelledby]'];

    function compilePart(part, ctx) {
      switch (part.kind) {
        case 'css': {
          const sel = String(part.value);
          try {
            document.createDocumentFragment().querySelector(sel);
          } catch (e) {
            throw new Error('windup: invalid CSS selector ' + JSON.stringify(sel));
          }
          return { sources: [sel], pred: () => true };
        }
        case 'role': {
          const want = canonicalRole(String(part.role).toLowerCase());
          const name = part.name ? stringMatcher(part.name.value, !!part.name.exact) : null;
          const needle = part.name ? norm(part.name.value).toLowerCase().replace(/\s+/g, '') : '';
          const given = (v) => (v === undefined || v === null ? null : v);
          const checked = given(part.checked);
          const level = given(part.level);
          const pressed = given(part.pressed);
          const expanded = given(part.expanded);
          const selected = given(part.selected);
          const disabled = given(part.disabled);
          const includeHidden = !!part.include_hidden;
          const tags = ROLE_CANDIDATES[want];
          return { sources: tags ? tags.concat(['[role]']) : null, pred: (el) => {
            if (roleOf(el, ctx) !== want) return false;
            // States as Playwright's getByRole reads them (states.js).
            if (selected !== null && selectedState(el, ctx) !== selected) return false;
            if (checked !== null && roleChecked(el, ctx) !== checked) return false;
            if (pressed !== null && rolePressed(el, ctx) !== pressed) return false;
            if (expanded !== null && roleExpanded(el, ctx) !== expanded) return false;
            if (level !== null && roleLevel(el, ctx) !== level) return false;
            if (disabled !== null && roleDisabled(el, ctx) !== disabled) return false;
            // Hidden for ARIA (display:none, visibility, aria-hidden…) is no match at all.
            if (!includeHidden && isHiddenForRole(el, ctx)) return false;
            if (name) {
              const quick = quickNameRejects(el, want, needle, ctx);
              if (quick || !name(accessibleName(el, ctx))) return false;
            }
            return true;
          } };
        }
        case 'text':
          return textPredicate(part.value, !!part.exact, ctx);
        case 'label': {
          const m = stringMatcher(part.value, !!part.exact);
          return { sources: LABEL_TARGET_SOURCES, pred: (el) => labelTexts(el, ctx).some(m) };
        }
        case 'placeholder': {
          const m = stringMatcher(part.value, !!part.exact);
          // Any element with the attribute, compared as written (Playwright's getByPlaceholder).
          return { sources: ['[placeholder]'], pred: (el) => {
            const ph = el.getAttribute('placeholder');
            return ph !== null && m(ph);
          } };
        }
        case 'frame': {
          // A frame element; the next part searches its document (the engine of the frame's
          // own realm does, for a frame of another origin: see browser/frames.rs).
          const v = String(part.value);
          if (part.by === 'css') {
            try {
              document.createDocumentFragment().querySelector(v);
            } catch (e) {
              throw new Error('windup: invalid CSS selector ' + JSON.stringify(v));
            }
            return { sources: [v], pred: isFrameElement };
          }
          const attr = part.by === 'name' ? 'name' : 'title';
          return { sources: ['iframe', 'frame'], pred: (el) => el.getAttribute(attr) === v };
        }
        case 'testid': {
          const v = String(part.value);
          return { sources: ['[' + testIdAttribute + '="' + CSS.escape(v) + '"]'], pred: (el) => el.getAttribute(testIdAttribute) === v };
        }
        default:
          throw new Error('windup: unknown selector part ' + JSON.stringify(part.kind));
      }
    }

    /**
     * A matcher is { pred, sources?, prune?, self? }: `sources` are simple
     * selectors whose union holds every possible match (a native
     * pre-filter), `prune(el)` true skips el's subtree, `self` makes a
     * scope element itself a candidate. A bare function is a pred over
     * every element.
     */
    function asMatcher(m) {
      return typeof m === 'function' ? { sources: null, pred: m } : m;
    }

    function addAll(set, list) {
      for (let i = 0; i < list.length; i++) set.add(list[i]);
    }

    function byDocumentOrder(a, b) {
      return a === b ? 0 : a.compareDocumentPosition(b) & 4 ? -1 : 1; // 4: b follows a
    }

    /**
     * Puts elements of one tree into document order. compareDocumentPosition
     * is linear in the number of siblings in Blink, so sorting is kept for
     * small lists; larger ones are ordered by a walk that stops once every
     * element was seen.
     */
    function inDocumentOrder(root, els) {
      if (els.length <= 16) return els.sort(byDocumentOrder);
      const wanted = new Set(els);
      const out = [];
      const visit = (el) => {
        if (wanted.has(el)) out.push(el);
        for (let c = el.firstElementChild; c && out.length < wanted.size; c = c.nextElementSibling) visit(c);
      };
      for (let c = root.firstElementChild; c && out.length < wanted.size; c = c.nextElementSibling) visit(c);
      return out;
    }

    /**
     * Matches below `root` (Document or Element) in composed order. With
     * sources, the JS predicate only sees the natively pre-filtered
     * candidates; without shadow trees in the document not even a walk is
     * needed (document order within one tree is a sort away).
     */
    function searchRoot(root, m, out, frames, ctx) {
      const pred = m.pred;
      const sources = m.sources;
      if (sources && !m.prune && !shadowHosts(ownerDocumentOf(root), ctx).length) {
        const found = [];
        let nonEmpty = 0;
        const seen = sources.length > 1 ? new Set() : null;
        for (const src of sources) {
          const list = sourceList(root, src);
          const before = found.length;
          for (let i = 0; i < list.length; i++) {
            const el = list[i];
            if (seen) {
              if (seen.has(el)) continue;
              seen.add(el);
            }
            if (pred(el)) found.push(el);
          }
          if (found.length > before) nonEmpty++;
        }
        for (const el of nonEmpty > 1 ? inDocumentOrder(root, found) : found) out.push(el);
        if (frames) frameElementsIn(root, frames);
        return;
      }
      let cands = null;
      let onShadow = null;
      if (sources) {
        cands = new Set();
        const gather = (r) => {
          for (const src of sources) addAll(cands, sourceList(r, src));
        };
        gather(root);
        onShadow = gather;
      }
      const prune = m.prune;
      walkTrees(root, (el) => {
        if (prune && prune(el)) return false; // its frames were collected up front
        if ((cands === null || cands.has(el)) && pred(el)) out.push(el);
        return true;
      }, frames, onShadow);
    }

    /**
     * Visits every element below `root` (the element itself excluded) in Playwright's match
     * order: a tree's own elements in document order first, then the open shadow tree of
     * `root` and of each host met, in that order, each the same way. `cb` returning false
     * skips the element's subtree, its shadow tree included. Frame elements of every tree
     * visited are appended to `frames` when given; `onShadow` sees each shadow root first.
     */
    function walkTrees(root, cb, frames, onShadow) {
      if (frames) frameElementsIn(root, frames);
      const hosts = [];
      if (root.nodeType === ELEMENT_NODE && root.shadowRoot) hosts.push(root);
      const visit = (el) => {
        if (cb(el) === false) return;
        if (el.shadowRoot) hosts.push(el);
        for (let c = el.firstElementChild; c; c = c.nextElementSibling) visit(c);
      };
      for (let c = root.firstElementChild; c; c = c.nextElementSibling) visit(c);
      for (const h of hosts) {
        if (onShadow) onShadow(h.shadowRoot);
        walkTrees(h.shadowRoot, cb, frames, onShadow);
      }
    }

    /** Search from the top document, then same-origin frames (depth first). */
    function searchTop(matcher, ctx) {
      const out = [];
      searchDocument(document, asMatcher(matcher), out, ctx);
      return out;
    }

    function searchDocument(doc, m, out, ctx) {
      const frames = [];
      searchRoot(doc, m, out, frames, ctx);
      for (const f of frames) {
        const d = frameDocument(f);
        if (d) searchDocument(d, m, out, ctx);
      }
    }

    /**
     * Search below each scope. Scopes arrive in document order, so skipping
     * scopes nested in the previous one keeps results ordered and unique.
     * A frame element as scope is searched through its document.
     */
    function searchScoped(scopes, matcher, ctx) {
      const m = asMatcher(matcher);
      const out = [];
      let last = null;
      for (const s of scopes) {
        if (last && composedContains(last, s)) continue;
        last = s;
        if (m.self && s.nodeType === ELEMENT_NODE && !m.prune(s) && m.pred(s)) out.push(s);
        searchRoot(s, m, out, null, ctx);
        if (isFrameElement(s)) {
          const d = frameDocument(s);
          if (d) searchDocument(d, m, out, ctx);
        }
      }
      return out;
    }

    function applyFilter(list, part, ctx) {
      if (part.kind === 'has_text') {
        const needle = norm(part.value).toLowerCase();
        return list.filter((el) => lowerText(el, ctx).includes(needle));
      }
      if (part.kind === 'nth') {
        const vis = list.filter((el) => isVisible(el, ctx));
        let i = Number(part.index);
        if (i < 0) i = vis.length + i;
        return i >= 0 && i < vis.length ? [vis[i]] : [];
      }
      return null;
    }

    /**
     * All matches (visible and hidden) of a selector, in order. With
     * `trace`, records the match list after every part (for diagnose).
     */
    function resolve(parts, ctx, trace) {
      if (!Array.isArray(parts) || !parts.length) throw new Error('windup: empty selector');
      let current = null;
      for (const part of parts) {
        const filtered = current === null && (part.kind === 'has_text' || part.kind === 'nth')
          ? applyFilter(searchTop(() => true, ctx), part, ctx)
          : current !== null ? applyFilter(current, part, ctx) : null;
        if (filtered !== null) {
          current = filtered;
        } else {
          const matcher = compilePart(part, ctx);
          current = current === null ? searchTop(matcher, ctx) : searchScoped(current, matcher, ctx);
        }
        if (trace) trace.push(current);
      }
      return current;
    }

    function splitVisible(list, ctx) {
      let visible = 0;
      for (const el of list) if (isVisible(el, ctx)) visible++;
      return { visible, hidden: list.length - visible };
    }

    function firstVisible(list, ctx) {
      for (const el of list) if (isVisible(el, ctx)) return el;
      return null;
    }
