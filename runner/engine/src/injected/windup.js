// Windup in-page runtime.
//
// Embedded by the engine with include_str! and evaluated in the page's main
// world twice over: via Page.addScriptToEvaluateOnNewDocument (every frame, before
// page scripts) and via Runtime.evaluate (pages that were already loaded). It
// must therefore be idempotent, and it is a plain statement so that both
// paths accept it.
//
// Realm-agnostic by design: the same functions are applied to nodes of
// same-origin iframes, whose constructors differ from ours, so nothing here
// uses `instanceof HTMLElement` & co; node kinds are told apart by nodeType,
// namespaceURI and localName, and styles come from the node's own window.
//
// Reference algorithms: WAI-ARIA 1.2 (roles, presentational conflict
// resolution), HTML-AAM (implicit roles, native names) and accname 1.2, each
// as Chromium 156 computes them where Chromium differs from the letter of the
// spec (calibrated against Chromium's own accessibility tree, CDP
// Accessibility.getFullAXTree, on the fixtures and on real-world apps).
//
// The JS never parses selector strings: the Rust side sends an array of parts
// (see `compilePart`). Every public entry point creates a fresh cache context
// (`newCtx`), because the DOM may change between calls but not during one.
//
// API (window.__windup; every result is plain JSON):
//   query(parts)                → {visible, hidden}
//   locate(parts, action)       → Promise<{status:"ok", x, y, describe, box, origin, checked?, field?}
//                                  | {status:"not_found", hidden} | {status:"not_actionable", reason}
//                                  | {status:"navigating"}>   action: click|check|uncheck|fill|select|press|hover
//   select(parts, value)        → Promise<{status:"ok", x, y, describe} | same failures as locate>
//   check(spec)                 → {url, visible?, hidden?, value?:{ok, actual}, count?:{ok, actual}, navigating}
//   isChecked(parts)            → true | false | "mixed" | null
//   mute(parts)                 → whether the first visible match was made deaf to the page (its
//                                  input events stop before the page's listeners; `windup bench`)
//   focusOn(parts, strict)      → {status: "ok" | "elsewhere", took?} | {status: "not_found"}: whether
//                                  keystrokes sent now land in the fill target (strict: it has
//                                  the focus; else its document still has it)
//   setValue(parts, text, facts)→ {status: "ok" | "changed" | "not_found", field?}: the value set on
//                                  the fill target itself, with input and change, when the
//                                  target is still the field `facts` describes (a credential)
//   frameOwner(parts)           → the first visible frame element of parts (ending in a frame
//                                  step), as a handle for DOM.describeNode; installed() → true
//   snapshot(maxChars)          → ARIA snapshot text (Playwright-like YAML)
//   observe({limit, words, origins}) → {url, title, items: [{selector, role, name, tag, control, score,
//                                  context?, type?, value?, checked?, disabled?, expanded?, selected?}],
//                                  counts: {role: n}, total}: visible controls and texts in document
//                                  order, the task's and the viewport's first when over the limit; a file input hidden
//                                  behind its visible label is listed as the input, where the label is; one hidden
//                                  with no visible label (a drop zone's) is listed where it is
//   signature()                 → ["tag|role|type", …]
//   inventory(limit)            → {tokens: signature(), controls: [[role, name], …] (≤ limit), title}
//   diagnose(parts)             → {visible, hidden, nearest: [names]}
//   heal(parts)                 → {rule: "renamed"|"moved"|null, total, candidates: [{selector, role,
//                                  name, type}]}: what a target that is gone may have become
//   failures()                  → {console: [text]} (failure evidence)
//   documentId()                → an id of the current document (which document a field was typed in)
//   textRuns(maxChars)          → {runs: [{text, field}], complete}: the text the page shows and
//                                  its fields' shown values (never a password field's), in order
//   mask(partsList, runIndices) → {missing, lost, uncovered}: covers the first visible match of
//                                  each (credential fields) and the named runs of textRuns() with
//                                  opaque boxes in the top layer for a screenshot; draws nothing
//                                  unless all are covered. unmask() removes the boxes
//   url()                       → location.href
//   navigationStatus()          → the document's HTTP status | null
//   localStorage()              → {origin, entries: [[key, value], …]} (a setup's saved storage)
//   restoreLocalStorage(origin, entries) → writes them once per tab on that origin (run as a
//                                  script for new documents, before the page's own)
//   accessibleName(el), role(el), elements(parts) (tests), isLeaving()
//
// Selector parts: {kind:"css", value} | {kind:"role", role, name:null|{value, exact},
// checked:null|bool, level:null|N} | {kind:"text"|"label"|"placeholder", value, exact}
// | {kind:"testid", value} | {kind:"has_text", value} (filter) | {kind:"nth", index} (filter)
// | {kind:"frame", by:"title"|"name"|"css", value} (frame elements; the next part searches
// their documents).
// Searches run over the top document (composed order, open shadow roots at
// their host's position), then same-origin frames depth first; later parts
// search below each previous match (a frame element's scope is its document).
if (!window.__windup) {
  window.__windup = (() => {
    'use strict';

    const HTML_NS = 'http://www.w3.org/1999/xhtml';
    const SVG_NS = 'http://www.w3.org/2000/svg';
    const ELEMENT_NODE = 1;
    const TEXT_NODE = 3;
    const DOCUMENT_NODE = 9;
    const FRAGMENT_NODE = 11;

    // Page scripts run after us when installed on a new document; keep
    // private references to the globals whose replacement would break us.
    const { Map, Set, WeakMap, Object, Array, JSON, Math, Number, String, Promise, Error, RegExp, CSS } = window;
    const perfNow = performance.now.bind(performance);
    const topWindow = window;
    const setTimeoutFn = window.setTimeout.bind(window);
    const clearTimeoutFn = window.clearTimeout.bind(window);

    // ------------------------------------------------------------------
    // Small helpers
    // ------------------------------------------------------------------

    /** Collapse runs of whitespace, drop zero-width spaces, trim. */
    function norm(s) {
      if (!s) return '';
      return String(s).replace(/\u200b/g, '').replace(/\s+/g, ' ').trim();
    }

    function truncate(s, n) {
      return s.length > n ? s.slice(0, n - 1) + '…' : s;
    }

    /** localName for HTML elements, '' for everything else (SVG, MathML…). */
    function htmlTag(el) {
      return el.namespaceURI === HTML_NS ? el.localName : '';
    }

    function isSvg(el) {
      return el.namespaceURI === SVG_NS;
    }

    function newCtx() {
      return {
        styles: new Map(),
        pseudo: new Map(),
        roles: new Map(),
        names: new Map(),
        rawText: new Map(),
        normText: new Map(),
        lowerText: new Map(),
        hidden: new Map(), // hidden for ARIA (display/visibility/aria-hidden)
        subtreeHidden: new Map(),
        ariaHiddenAttr: new Map(),
        visible: new Map(),
        labelMaps: new Map(), // tree scope -> Map(control -> [label])
        hosts: new Map(), // document -> open shadow hosts in it (any depth)
        complex: new Map(), // document -> Set of elements whose flat text is not textContent
        pseudoScopes: new Map(), // document -> pseudoInfo (which elements may have ::before/::after)
      };
    }

    function styleOf(el, ctx) {
      let s = ctx.styles.get(el);
      if (s === undefined) {
        const win = el.ownerDocument && el.ownerDocument.defaultView;
        s = win ? win.getComputedStyle(el) : null;
        ctx.styles.set(el, s);
      }
      return s;
    }

    /** Parent in the tree that includes shadow hosts (light tree + host hops). */
    function parentOrHost(n) {
      if (n.parentElement) return n.parentElement;
      const p = n.parentNode;
      return p && p.nodeType === FRAGMENT_NODE && p.host ? p.host : null;
    }

    /**
     * Parent in the flat (rendered) tree: a slotted node's parent is its slot.
     * Used for everything that depends on rendering (hidden-ness, text).
     */
    function flatParent(n) {
      const slot = n.assignedSlot;
      if (slot) return slot;
      return parentOrHost(n);
    }

    /** Is `inner` a composed-tree descendant of (or equal to) `outer`? */
    function composedContains(outer, inner) {
      for (let n = inner; n; ) {
        if (n === outer) return true;
        const p = n.parentNode;
        n = p && p.nodeType === FRAGMENT_NODE && p.host ? p.host : p;
      }
      return false;
    }

    /**
     * Calls cb(node) for every child of `el` in the flat tree: the shadow
     * root's children for a host, the assigned nodes (or fallback content)
     * for a slot, the light children otherwise.
     */
    function forEachFlatChild(el, cb) {
      const sr = el.shadowRoot;
      if (sr) {
        for (let c = sr.firstChild; c; c = c.nextSibling) cb(c);
        return;
      }
      if (el.localName === 'slot' && typeof el.assignedNodes === 'function') {
        const assigned = el.assignedNodes();
        if (assigned.length) {
          for (const c of assigned) cb(c);
          return;
        }
      }
      for (let c = el.firstChild; c; c = c.nextSibling) cb(c);
    }

    /** Elements referenced by an IDREF list, resolved in el's tree scope. */
    function idRefs(el, attr) {
      const v = el.getAttribute(attr);
      if (!v) return [];
      const root = el.getRootNode();
      if (!root || typeof root.getElementById !== 'function') return [];
      const out = [];
      for (const id of v.split(/\s+/)) {
        if (!id) continue;
        const r = root.getElementById(id);
        if (r && !out.includes(r)) out.push(r);
      }
      return out;
    }

    function frameDocument(frameEl) {
      try {
        const d = frameEl.contentDocument; // null when cross-origin
        return d && d.documentElement ? d : null;
      } catch (e) {
        return null;
      }
    }

    function isFrameElement(el) {
      const t = htmlTag(el);
      return t === 'iframe' || t === 'frame';
    }

    /**
     * Visits every element below `root` (a Document, ShadowRoot or Element,
     * the element itself excluded) in composed order: an element, then its
     * open shadow tree, then its light children. `cb` returning false skips
     * the element's subtree. Frame elements met on the way are appended to
     * `frames` when given; `onShadow` sees each shadow root before its content.
     */
    function walk(root, cb, frames, onShadow) {
      // Frames are collected per tree scope with the native selector engine
      // (checking every element's tag would cost more than the walk itself);
      // frames inside shadow trees therefore come after the scope's others.
      const scope = (r) => {
        if (frames) frameElementsIn(r, frames);
      };
      const visit = (el) => {
        if (cb(el) === false) return;
        const sr = el.shadowRoot;
        if (sr) {
          if (onShadow) onShadow(sr);
          scope(sr);
          for (let c = sr.firstElementChild; c; c = c.nextElementSibling) visit(c);
        }
        for (let c = el.firstElementChild; c; c = c.nextElementSibling) visit(c);
      };
      scope(root);
      if (root.nodeType === ELEMENT_NODE) {
        const sr = root.shadowRoot;
        if (sr) {
          if (onShadow) onShadow(sr);
          scope(sr);
          for (let c = sr.firstElementChild; c; c = c.nextElementSibling) visit(c);
        }
      }
      for (let c = root.firstElementChild; c; c = c.nextElementSibling) visit(c);
    }

    /** Open shadow hosts of a document, nested ones included (one bare walk). */
    function shadowHosts(doc, ctx) {
      let hosts = ctx.hosts.get(doc);
      if (hosts) return hosts;
      hosts = [];
      const visit = (el) => {
        const sr = el.shadowRoot;
        if (sr) {
          hosts.push(el);
          for (let c = sr.firstElementChild; c; c = c.nextElementSibling) visit(c);
        }
        for (let c = el.firstElementChild; c; c = c.nextElementSibling) visit(c);
      };
      for (let c = doc.firstElementChild; c; c = c.nextElementSibling) visit(c);
      ctx.hosts.set(doc, hosts);
      return hosts;
    }

    function ownerDocumentOf(n) {
      return n.nodeType === DOCUMENT_NODE ? n : n.ownerDocument;
    }

    // ------------------------------------------------------------------
    // Hidden-ness (for ARIA) and visibility (for actions)
    // ------------------------------------------------------------------

    // Elements whose content is never text for locators or names.
    const NON_CONTENT_TAGS = new Set(['script', 'style', 'noscript', 'template']);

    function isAriaHiddenTrue(el) {
      const v = el.getAttribute('aria-hidden');
      return v !== null && v.toLowerCase() === 'true';
    }

    /** display:none / aria-hidden=true on el or a flat-tree ancestor, or not slotted. */
    function isSubtreeHidden(el, ctx) {
      let r = ctx.subtreeHidden.get(el);
      if (r !== undefined) return r;
      const style = styleOf(el, ctx);
      r = !style || style.display === 'none' || isAriaHiddenTrue(el);
      if (!r) {
        const lp = el.parentElement;
        // A light child of an (open) shadow host that no slot takes is not rendered.
        if (lp && lp.shadowRoot && !el.assignedSlot) r = true;
        // The content of a closed <details> sits in a hidden user-agent slot,
        // which no author-visible style reveals.
        else if (lp && htmlTag(lp) === 'details' && !lp.open && !(htmlTag(el) === 'summary' && firstChildTagged(lp, 'summary') === el)) r = true;
      }
      if (!r) {
        const p = flatParent(el);
        if (p) r = isSubtreeHidden(p, ctx);
      }
      ctx.subtreeHidden.set(el, r);
      return r;
    }

    /** Excluded from the accessibility tree (accname "hidden"). */
    function isHiddenForAria(el, ctx) {
      let r = ctx.hidden.get(el);
      if (r !== undefined) return r;
      if (NON_CONTENT_TAGS.has(htmlTag(el))) {
        r = true;
      } else if (isSubtreeHidden(el, ctx)) {
        r = true;
      } else {
        const style = styleOf(el, ctx);
        // Options of a <select> are exposed whatever their own visibility.
        r = style.visibility !== 'visible' && !isOptionInSelect(el);
      }
      ctx.hidden.set(el, r);
      return r;
    }

    /** aria-hidden=true on el or an ancestor (the explicit opt-out of the a11y tree). */
    function isInAriaHiddenSubtree(el, ctx) {
      let r = ctx.ariaHiddenAttr.get(el);
      if (r !== undefined) return r;
      r = isAriaHiddenTrue(el);
      if (!r) {
        const p = flatParent(el);
        if (p) r = isInAriaHiddenSubtree(p, ctx);
      }
      ctx.ariaHiddenAttr.set(el, r);
      return r;
    }

    function isOptionInSelect(el) {
      const t = htmlTag(el);
      return (t === 'option' || t === 'optgroup') && !!closestSelect(el);
    }

    function closestSelect(el) {
      for (let p = el.parentElement; p; p = p.parentElement) {
        const t = htmlTag(p);
        if (t === 'select') return p;
        if (t !== 'optgroup' && t !== 'hr' && t !== 'div') return null;
      }
      return null;
    }

    function isVisibleTextNode(node) {
      const range = node.ownerDocument.createRange();
      range.selectNode(node);
      const rect = range.getBoundingClientRect();
      return rect.width > 0 && rect.height > 0;
    }

    /**
     * Playwright's definition: a non-empty box, not visibility:hidden /
     * collapse, and checkVisibility(); display:contents is visible when any
     * child is. Inside a frame the frame element must be visible too.
     */
    function isVisible(el, ctx) {
      let r = ctx.visible.get(el);
      if (r !== undefined) return r;
      r = computeVisible(el, ctx);
      if (r) {
        const win = el.ownerDocument.defaultView;
        let fe = null;
        try {
          fe = win && win !== topWindow ? win.frameElement : null;
        } catch (e) {
          fe = null;
        }
        if (fe) r = isVisible(fe, ctx);
      }
      ctx.visible.set(el, r);
      return r;
    }

    function computeVisible(el, ctx) {
      if (isOptionInSelect(el)) {
        const sel = closestSelect(el);
        return isVisible(sel, ctx);
      }
      const style = styleOf(el, ctx);
      if (!style) return false;
      if (style.display === 'contents') {
        for (let c = el.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === ELEMENT_NODE && isVisible(c, ctx)) return true;
          if (c.nodeType === TEXT_NODE && isVisibleTextNode(c)) return true;
        }
        const sr = el.shadowRoot;
        if (sr) {
          for (let c = sr.firstChild; c; c = c.nextSibling) {
            if (c.nodeType === ELEMENT_NODE && isVisible(c, ctx)) return true;
            if (c.nodeType === TEXT_NODE && isVisibleTextNode(c)) return true;
          }
        }
        return false;
      }
      if (style.visibility !== 'visible') return false;
      if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return false;
      const rect = el.getBoundingClientRect();
      return rect.width > 0 && rect.height > 0;
    }

    // ------------------------------------------------------------------
    // Roles (WAI-ARIA 1.2 + HTML-AAM, Chromium flavour)
    // ------------------------------------------------------------------

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

    // ------------------------------------------------------------------
    // States
    // ------------------------------------------------------------------

    const CHECKABLE_ROLES = new Set(['checkbox', 'radio', 'switch', 'menuitemcheckbox', 'menuitemradio']);

    function isNativeCheckable(el) {
      if (htmlTag(el) !== 'input') return false;
      const t = inputType(el);
      return t === 'checkbox' || t === 'radio';
    }

    /** true | false | 'mixed' | null (not checkable). */
    function checkedState(el, ctx) {
      if (isNativeCheckable(el)) {
        if (inputType(el) === 'checkbox' && el.indeterminate) return 'mixed';
        return !!el.checked;
      }
      const role = roleOf(el, ctx);
      const attr = (el.getAttribute('aria-checked') || '').toLowerCase();
      if (CHECKABLE_ROLES.has(role) || ((role === 'option' || role === 'treeitem') && attr)) {
        if (attr === 'true') return true;
        if (attr === 'mixed' && (role === 'checkbox' || role === 'menuitemcheckbox')) return 'mixed';
        return false;
      }
      return null;
    }

    function levelOf(el, ctx) {
      const role = roleOf(el, ctx);
      const attr = parseInt(el.getAttribute('aria-level') || '', 10);
      const valid = Number.isInteger(attr) && attr >= 1;
      if (role === 'heading') {
        if (valid) return attr; // Chromium lets aria-level override h1..h6
        const m = /^h([1-6])$/.exec(htmlTag(el));
        return m ? Number(m[1]) : 2; // ARIA default for role=heading
      }
      if ((role === 'listitem' || role === 'treeitem' || role === 'row') && valid) return attr;
      return null;
    }

    /** aria-disabled=true on el or an ancestor (composed tree). */
    function hasAriaDisabled(el) {
      for (let n = el; n; n = parentOrHost(n)) {
        const v = n.getAttribute('aria-disabled');
        if (v !== null && v.toLowerCase() === 'true') return true;
      }
      return false;
    }

    function isDisabled(el) {
      return isNativelyDisabled(el) || hasAriaDisabled(el);
    }

    function selectedState(el, ctx) {
      if (htmlTag(el) === 'option') return !!el.selected;
      const role = roleOf(el, ctx);
      if (['option', 'tab', 'row', 'gridcell', 'treeitem', 'columnheader', 'rowheader'].includes(role)) {
        return (el.getAttribute('aria-selected') || '').toLowerCase() === 'true';
      }
      return false;
    }

    function expandedState(el) {
      if (htmlTag(el) === 'details') return !!el.open;
      const v = el.getAttribute('aria-expanded');
      if (v === null) return null;
      return v.toLowerCase() === 'true';
    }

    function pressedState(el, ctx) {
      if (roleOf(el, ctx) !== 'button') return null;
      const v = (el.getAttribute('aria-pressed') || '').toLowerCase();
      if (v === 'true') return true;
      if (v === 'mixed') return 'mixed';
      return null;
    }

    // ------------------------------------------------------------------
    // Accessible name (accname 1.2 + HTML-AAM, as Chromium computes it)
    // ------------------------------------------------------------------

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

    /** Splits a selector list on top-level commas. */
    function splitSelectorList(text) {
      const out = [];
      let depth = 0;
      let quote = '';
      let cur = '';
      for (let i = 0; i < text.length; i++) {
        const ch = text[i];
        if (quote) {
          if (ch === '\\') { cur += ch + (text[++i] || ''); continue; }
          if (ch === quote) quote = '';
        } else if (ch === '"' || ch === "'") {
          quote = ch;
        } else if (ch === '(' || ch === '[') {
          depth++;
        } else if (ch === ')' || ch === ']') {
          depth--;
        } else if (ch === ',' && depth === 0) {
          out.push(cur);
          cur = '';
          continue;
        }
        cur += ch;
      }
      out.push(cur);
      return out;
    }

    /**
     * Which elements may carry ::before/::after content? Computing a
     * pseudo-element style costs several microseconds, so the style sheets
     * of every tree scope of the document (the document and its open shadow
     * roots) are read once, and each rule styling ::before/::after yields a
     * key from its subject compound: a class, an id or a tag. An element can
     * only have generated content if it carries one of the keys (icon-font
     * sheets with thousands of `.icon-x:before` rules stay cheap). Whenever
     * a sheet cannot be read, a rule has no such key, or it reaches across
     * scopes (::part, ::slotted, nesting), every element is a candidate.
     */
    function pseudoInfo(doc, ctx) {
      let info = ctx.pseudoScopes.get(doc);
      if (info) return info;
      info = { all: false, classes: new Set(), ids: new Set(), tags: new Set(['q']), hosts: new Set() };
      try {
        const addKey = (selector, root) => {
          // The subject compound: the part after the last combinator.
          const compound = lastCompound(selector);
          if (/^:host\b/.test(compound)) {
            if (root.host) info.hosts.add(root.host);
            return;
          }
          const m = /^([a-zA-Z][\w-]*)?((?:[.#][\w-]+|\[[^\]]*\]|:[\w-]+(?:\([^)]*\))?)*)$/.exec(compound);
          if (!m) throw new Error('unkeyed');
          // Keys inside :is()/:not()/… arguments do not constrain the subject.
          const own = m[2].replace(/\([^)]*\)/g, '');
          const id = /#([\w-]+)/.exec(own);
          const cls = /\.([\w-]+)/.exec(own);
          if (id) info.ids.add(id[1]);
          else if (cls) info.classes.add(cls[1]);
          else if (m[1]) info.tags.add(m[1].toLowerCase());
          else throw new Error('unkeyed');
        };
        const collect = (rules, root) => {
          for (const rule of rules) {
            const sel = rule.selectorText;
            if (typeof sel === 'string') {
              if (/:(before|after)\b/i.test(sel)) {
                if (/&|::part|::slotted/i.test(sel)) throw new Error('cross-scope');
                for (const one of splitSelectorList(sel)) {
                  if (!/:(before|after)\b/i.test(one)) continue;
                  addKey(one.replace(/::?(before|after)\b/gi, '').trim(), root);
                }
              }
              if (rule.cssRules && rule.cssRules.length) collect(rule.cssRules, root); // nested rules
            } else if (rule.styleSheet) {
              collect(rule.styleSheet.cssRules, root); // @import (throws when cross-origin)
            } else if (rule.cssRules) {
              collect(rule.cssRules, root); // @media, @supports, @layer, @container…
            }
          }
        };
        const scanScope = (root) => {
          const sheets = Array.from(root.styleSheets || []).concat(Array.from(root.adoptedStyleSheets || []));
          for (const sheet of sheets) collect(sheet.cssRules, root);
        };
        scanScope(doc);
        for (const h of shadowHosts(doc, ctx)) scanScope(h.shadowRoot);
      } catch (e) {
        info = { all: true };
      }
      ctx.pseudoScopes.set(doc, info);
      return info;
    }

    /** The last compound selector of a complex selector (outside brackets). */
    function lastCompound(selector) {
      let depth = 0;
      let start = 0;
      for (let i = 0; i < selector.length; i++) {
        const ch = selector[i];
        if (ch === '(' || ch === '[') depth++;
        else if (ch === ')' || ch === ']') depth--;
        else if (depth === 0 && (ch === ' ' || ch === '>' || ch === '+' || ch === '~')) start = i + 1;
      }
      return selector.slice(start).trim();
    }

    /** May el have generated content (false = certainly none)? */
    function mayHavePseudo(el, ctx) {
      const info = pseudoInfo(el.ownerDocument, ctx);
      if (info.all) return true;
      if (info.tags.has(el.localName) || info.hosts.has(el)) return true;
      if (info.ids.size && el.id && info.ids.has(el.id)) return true;
      if (info.classes.size) {
        const cl = el.classList;
        for (let i = 0; i < cl.length; i++) if (info.classes.has(cl[i])) return true;
      }
      return false;
    }

    function pseudoText(el, which, ctx) {
      if (!mayHavePseudo(el, ctx)) return '';
      const key = which === '::before' ? 0 : 1;
      let m = ctx.pseudo.get(el);
      if (m && m[key] !== undefined) return m[key];
      if (!m) {
        m = [undefined, undefined];
        ctx.pseudo.set(el, m);
      }
      let out = '';
      const win = el.ownerDocument.defaultView;
      const st = win ? win.getComputedStyle(el, which) : null;
      if (st && st.display !== 'none' && st.visibility !== 'hidden') {
        out = parseCssContent(st.content);
        if (out && st.display !== 'inline') out = ' ' + out + ' ';
      }
      m[key] = out;
      return out;
    }

    /**
     * Extracts the text of a computed `content` value: the concatenated
     * string tokens, or the alternative text after "/" when there is one
     * (content: "★" / "Favourite").
     */
    function parseCssContent(content) {
      if (!content || content === 'none' || content === 'normal') return '';
      const strings = [];
      let alt = null;
      let i = 0;
      while (i < content.length) {
        const ch = content[i];
        if (ch === '"' || ch === "'") {
          let s = '';
          i++;
          while (i < content.length && content[i] !== ch) {
            if (content[i] === '\\' && i + 1 < content.length) {
              const hex = /^[0-9a-fA-F]{1,6} ?/.exec(content.slice(i + 1));
              if (hex) {
                s += String.fromCodePoint(parseInt(hex[0], 16));
                i += 1 + hex[0].length;
                continue;
              }
              s += content[i + 1];
              i += 2;
              continue;
            }
            s += content[i++];
          }
          i++;
          if (alt) alt.push(s);
          else strings.push(s);
        } else if (ch === '/') {
          alt = [];
          i++;
        } else {
          i++;
        }
      }
      return (alt || strings).join('');
    }

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

    function firstChildTagged(el, tag) {
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (htmlTag(c) === tag) return c;
      return null;
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
          // Text inherits visibility and text-transform from its parent element.
          const pe = n.parentElement;
          const ps = pe ? styleOf(pe, ctx) : null;
          if (!st.includeHidden && !st.hiddenRef && ps && ps.visibility !== 'visible') return;
          out += ps ? transformText(n.data, ps.textTransform) : n.data;
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

    /** Chromium names use the rendered (transformed) text. */
    function transformText(text, tt) {
      if (!tt || tt === 'none') return text;
      if (tt === 'uppercase') return text.toUpperCase();
      if (tt === 'lowercase') return text.toLowerCase();
      if (tt === 'capitalize') return text.replace(/(^|[\s\-(\[{"'])(\p{L})/gu, (m, pre, ch) => pre + ch.toUpperCase());
      return text;
    }

    // ------------------------------------------------------------------
    // Element text (text= / has-text= / value)
    // ------------------------------------------------------------------

    // The text engine treats <head> like script: nothing in it is content.
    const NON_TEXT_TAGS = new Set(['script', 'style', 'noscript', 'template', 'head']);

    function isButtonLikeInput(el) {
      if (htmlTag(el) !== 'input') return false;
      const t = inputType(el);
      return t === 'button' || t === 'submit' || t === 'reset';
    }

    /** Concatenated flat-tree text (un-normalised), memoised per element. */
    function rawText(el, ctx) {
      let t = ctx.rawText.get(el);
      if (t !== undefined) return t;
      t = '';
      if (NON_TEXT_TAGS.has(htmlTag(el))) {
        t = '';
      } else if (isButtonLikeInput(el)) {
        t = el.value || '';
      } else if (!complexTextSet(el.ownerDocument, ctx).has(el)) {
        t = el.textContent || ''; // nothing special below: the native text is the flat text
      } else {
        forEachFlatChild(el, (n) => {
          if (n.nodeType === TEXT_NODE) t += n.data;
          else if (n.nodeType === ELEMENT_NODE) t += rawText(n, ctx);
        });
      }
      ctx.rawText.set(el, t);
      return t;
    }

    // Elements whose text differs from their textContent: they hold script-
    // like content, slots, shadow trees or button inputs (value as text).
    const COMPLEX_TEXT_TAGS = ['head', 'script', 'style', 'noscript', 'template', 'slot', 'input'];

    /** The elements (with their ancestors) for which rawText must recurse. */
    function complexTextSet(doc, ctx) {
      let set = ctx.complex.get(doc);
      if (set) return set;
      set = new Set();
      const mark = (n) => {
        // Marking always climbs to the root, so a marked element's ancestors are marked.
        for (let e = n; e && !set.has(e); e = parentOrHost(e)) set.add(e);
      };
      const scan = (root) => {
        for (const tag of COMPLEX_TEXT_TAGS) {
          const list = sourceList(root, tag);
          for (let i = 0; i < list.length; i++) {
            if (tag !== 'input' || isButtonLikeInput(list[i])) mark(list[i]);
          }
        }
      };
      scan(doc);
      for (const h of shadowHosts(doc, ctx)) {
        mark(h);
        scan(h.shadowRoot);
      }
      ctx.complex.set(doc, set);
      return set;
    }

    function normText(el, ctx) {
      let t = ctx.normText.get(el);
      if (t === undefined) {
        t = norm(rawText(el, ctx));
        ctx.normText.set(el, t);
      }
      return t;
    }

    function lowerText(el, ctx) {
      let t = ctx.lowerText.get(el);
      if (t === undefined) {
        t = normText(el, ctx).toLowerCase();
        ctx.lowerText.set(el, t);
      }
      return t;
    }

    /** Text like rawText, but skipping form controls (for a label's own words). */
    function textSkippingControls(el, ctx) {
      let t = '';
      forEachFlatChild(el, (n) => {
        if (n.nodeType === TEXT_NODE) t += n.data;
        else if (n.nodeType === ELEMENT_NODE) {
          const tag = htmlTag(n);
          if (tag === 'input' || tag === 'select' || tag === 'textarea') return;
          t += textSkippingControls(n, ctx);
        }
      });
      return NON_TEXT_TAGS.has(htmlTag(el)) ? '' : t;
    }

    function flatChildElements(el, cb) {
      if (isButtonLikeInput(el)) return;
      forEachFlatChild(el, (n) => {
        if (n.nodeType === ELEMENT_NODE) cb(n);
      });
    }

    // ------------------------------------------------------------------
    // Selector engines
    // ------------------------------------------------------------------

    function stringMatcher(value, exact) {
      const v = norm(value);
      if (exact) return (s) => s === v;
      const lv = v.toLowerCase();
      return (s) => s.toLowerCase().includes(lv);
    }

    // Roles for which the `label=` engine considers an element a control.
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

    /** All label texts of a control (normalised): labelledby, aria-label, <label>s. */
    function labelTexts(el, ctx) {
      const out = [];
      const refs = idRefs(el, 'aria-labelledby');
      if (refs.length) out.push(norm(refs.map((r) => rawText(r, ctx)).join(' ')));
      const al = el.getAttribute('aria-label');
      if (al && al.trim()) out.push(norm(al));
      for (const label of labelsOf(el, ctx)) {
        const plain = plainText(label, el, ctx);
        out.push(norm(plain !== null ? plain : textSkippingControls(label, ctx)));
      }
      return out.filter((s) => s);
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
      const rawHasWord = (raw) => raw.indexOf('\u200b') >= 0 || (exact ? raw.includes(word) : raw.toLowerCase().includes(word));
      // An element can only hold the needle if its ancestors do: the walk
      // skips every subtree whose text lacks it (`prune`), which confines
      // the work to the few branches that contain the text.
      const mayContain = (el) => !NON_TEXT_TAGS.has(htmlTag(el)) && rawHasWord(rawText(el, ctx)) && textOf(el).includes(needle);
      return {
        sources: null,
        prune: (el) => !mayContain(el),
        pred: (el) => {
          const tag = htmlTag(el);
          // Whole-page containers never match, even when the text spans blocks.
          if (tag === 'html' || tag === 'body' || !full(textOf(el))) return false;
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
          const checked = part.checked === undefined ? null : part.checked;
          const level = part.level === undefined ? null : part.level;
          const tags = ROLE_CANDIDATES[want];
          return { sources: tags ? tags.concat(['[role]']) : null, pred: (el) => {
            if (roleOf(el, ctx) !== want) return false;
            // aria-hidden opts an element out of the role tree; CSS-hidden
            // elements stay (they are reported as hidden matches).
            if (isInAriaHiddenSubtree(el, ctx)) return false;
            if (checked !== null && checkedState(el, ctx) !== checked) return false;
            if (level !== null && levelOf(el, ctx) !== level) return false;
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
          return { sources: LABEL_TARGET_SOURCES, pred: (el) => isLabelTarget(el, ctx) && labelTexts(el, ctx).some(m) };
        }
        case 'placeholder': {
          const m = stringMatcher(part.value, !!part.exact);
          return { sources: ['input', 'textarea'], pred: (el) => {
            const tag = htmlTag(el);
            if (tag !== 'input' && tag !== 'textarea') return false;
            const ph = el.getAttribute('placeholder');
            return ph !== null && m(norm(ph));
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
          return { sources: ['[data-testid="' + CSS.escape(v) + '"]'], pred: (el) => el.getAttribute('data-testid') === v };
        }
        default:
          throw new Error('windup: unknown selector part ' + JSON.stringify(part.kind));
      }
    }

    /**
     * A matcher is { pred, sources?, prune? }: `sources` are simple
     * selectors whose union holds every possible match (a native
     * pre-filter), `prune(el)` true skips el's subtree. A bare function is
     * a pred over every element.
     */
    function asMatcher(m) {
      return typeof m === 'function' ? { sources: null, pred: m } : m;
    }

    function addAll(set, list) {
      for (let i = 0; i < list.length; i++) set.add(list[i]);
    }

    const BARE_TAG = /^[a-z][a-z0-9-]*$/;

    /**
     * The elements selected by one source below `root`, in document order.
     * Blink keeps getElementsByTagName collections cached, which makes tag
     * sources nearly free; single simple selectors take qSA's fast paths.
     */
    function sourceList(root, source) {
      if (BARE_TAG.test(source) && typeof root.getElementsByTagName === 'function') return root.getElementsByTagName(source);
      return root.querySelectorAll(source);
    }

    function frameElementsIn(root, out) {
      for (const tag of ['iframe', 'frame']) {
        const list = sourceList(root, tag);
        for (let i = 0; i < list.length; i++) out.push(list[i]);
      }
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
      walk(root, (el) => {
        if (prune && prune(el)) return false; // its frames were collected up front
        if ((cands === null || cands.has(el)) && pred(el)) out.push(el);
        return true;
      }, frames, onShadow);
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

    // ------------------------------------------------------------------
    // Navigation tracking ("is this document being left?")
    // ------------------------------------------------------------------

    const LEAVE_WINDOW_MS = 10000;
    const nav = { pending: null, beforeUnload: null, pageHidden: false };

    try {
      const navigation = window.navigation;
      if (navigation && typeof navigation.addEventListener === 'function') {
        navigation.addEventListener('navigate', (e) => {
          // Same-document navigations (hash changes, pushState, traversals
          // within the document) do not leave; nor do downloads.
          if (e.hashChange || (e.destination && e.destination.sameDocument)) return;
          if (e.downloadRequest !== null && e.downloadRequest !== undefined) return;
          const rec = { at: perfNow(), event: e, intercepted: false };
          // A router listening after us may intercept() the navigation and
          // turn it into a same-document one: notice that by wrapping the
          // method on this very event object.
          try {
            const orig = e.intercept;
            if (typeof orig === 'function') {
              Object.defineProperty(e, 'intercept', {
                configurable: true,
                value: function (...args) {
                  rec.intercepted = true;
                  return orig.apply(this, args);
                },
              });
            }
          } catch (err) { /* ignore */ }
          nav.pending = rec;
        });
        navigation.addEventListener('navigateerror', () => {
          nav.pending = null;
        });
      }
      window.addEventListener('beforeunload', (e) => {
        nav.beforeUnload = { at: perfNow(), event: e };
      });
      window.addEventListener('pagehide', () => {
        nav.pageHidden = true;
      });
      window.addEventListener('pageshow', () => {
        // Back from the back/forward cache: this document is current again.
        nav.pageHidden = false;
        nav.pending = null;
        nav.beforeUnload = null;
      });
    } catch (e) { /* navigation tracking is best effort */ }

    // The last form submission the user's (trusted) input started in this window: its
    // navigation is a task of its own, so a step right after it waits for that navigation to
    // start (see locateImpl). A submission the app prevented (a single-page app's form) starts
    // none.
    const SUBMIT_SETTLE_MS = 500;
    let lastSubmit = null;
    try {
      window.addEventListener('submit', (e) => {
        if (e.isTrusted) lastSubmit = { at: perfNow(), event: e };
      }, true);
    } catch (e) { /* best effort, as navigation tracking */ }

    function submitPending() {
      const s = lastSubmit;
      return !!s && !s.event.defaultPrevented && perfNow() - s.at < SUBMIT_SETTLE_MS;
    }

    function isLeaving() {
      if (nav.pageHidden) return true;
      const now = perfNow();
      const p = nav.pending;
      if (p && !p.intercepted && !p.event.defaultPrevented && now - p.at < LEAVE_WINDOW_MS) return true;
      const b = nav.beforeUnload;
      if (b && !b.event.defaultPrevented && now - b.at < LEAVE_WINDOW_MS) return true;
      return false;
    }

    // ------------------------------------------------------------------
    // Actionability
    // ------------------------------------------------------------------

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
      // One animation frame, or ~100 ms when rAF is throttled (background tab).
      return () => new Promise((resolve) => {
        let done = false;
        let id = 0;
        const finish = () => {
          if (done) return;
          done = true;
          resolve();
        };
        const timer = setTimeoutFn(() => {
          if (!done && id) {
            try {
              win.cancelAnimationFrame(id);
            } catch (e) { /* ignore */ }
          }
          finish();
        }, 100);
        try {
          id = win.requestAnimationFrame(() => {
            clearTimeoutFn(timer);
            finish();
          });
        } catch (e) { /* keep the timer */ }
      });
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
        const nextFrame = frameWaitFactory(el.ownerDocument.defaultView || topWindow);
        const r1 = rectKey(el.getBoundingClientRect());
        await nextFrame();
        if (isLeaving()) return { status: 'navigating' };
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

    // ------------------------------------------------------------------
    // Public API
    // ------------------------------------------------------------------

    function query(parts) {
      const ctx = newCtx();
      return splitVisible(resolve(parts, ctx), ctx);
    }

    async function locate(parts, action) {
      return locateImpl(parts, String(action || ''));
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

    // ---------------- typing bound to its target ----------------

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
      el.dispatchEvent(new win.InputEvent('input', { bubbles: true, composed: true, inputType: 'insertText' }));
      el.dispatchEvent(new win.Event('change', { bubbles: true }));
      return { status: 'ok' };
    }

    // ---------------- accessibility snapshot ----------------

    // ARIA "Children Presentational: True": their content is their name.
    const CHILDREN_PRESENTATIONAL = new Set([
      'button', 'checkbox', 'img', 'math', 'menuitemcheckbox', 'menuitemradio', 'meter', 'option',
      'progressbar', 'radio', 'scrollbar', 'separator', 'slider', 'switch', 'tab',
    ]);

    // Roles that never show up as snapshot nodes: their children are hoisted.
    const SNAPSHOT_TRANSPARENT = new Set(['generic', 'none', 'sectionheader', 'sectionfooter', 'graphics-symbol']);

    function buildSnapshotTree(ctx, maxChars) {
      const root = { role: 'fragment', name: '', children: [], props: '', truncated: false };
      // Stop collecting once clearly more than maxChars worth was gathered.
      let gathered = 0;
      const enough = maxChars * 1.5 + 500;
      const visitNode = (node, parent) => {
        if (gathered > enough) {
          root.truncated = true;
          return;
        }
        if (node.nodeType === TEXT_NODE) {
          gathered += node.data.length;
          const pe = node.parentElement;
          const s = pe ? styleOf(pe, ctx) : null;
          if (!s || s.visibility === 'visible') parent.children.push(node.data);
          return;
        }
        if (node.nodeType !== ELEMENT_NODE) return;
        const el = node;
        if (NON_CONTENT_TAGS.has(htmlTag(el)) || isSubtreeHidden(el, ctx)) return;
        const style = styleOf(el, ctx);
        if (isHiddenForAria(el, ctx)) {
          // visibility:hidden: the element is out, a visible descendant is not.
          forEachFlatChild(el, (c) => { if (c.nodeType === ELEMENT_NODE) visitNode(c, parent); });
          return;
        }
        const tag = htmlTag(el);
        const role = roleOf(el, ctx);
        const block = style && style.display !== 'inline' && style.display !== 'contents' || tag === 'br';
        if (isFrameElement(el)) {
          const fnode = { role: 'iframe', name: norm(el.getAttribute('title') || ''), children: [], props: '' };
          parent.children.push(fnode);
          const d = frameDocument(el);
          if (d && d.body) visitElementChildren(d.body, fnode);
          return;
        }
        const named = role && !SNAPSHOT_TRANSPARENT.has(role);
        let target = parent;
        if (named) {
          target = { role, name: accessibleName(el, ctx), children: [], props: snapshotProps(el, role, ctx) };
          gathered += role.length + target.name.length + target.props.length + 8;
          parent.children.push(target);
        }
        if (block) target.children.push(' ');
        if (named && (role === 'textbox' || role === 'searchbox' || (role === 'combobox' && tag === 'input') ||
            role === 'spinbutton' || role === 'slider')) {
          // Form fields show their value, not their content.
          const v = tag === 'input' || tag === 'textarea'
            ? (tag === 'input' && inputType(el) === 'password' && el.value ? '••••' : el.value)
            : norm(el.textContent);
          if (v) target.children.push(v);
        } else if (!(named && (CHILDREN_PRESENTATIONAL.has(role) || tag === 'input'))) {
          visitElementChildren(el, target);
        }
        if (block) target.children.push(' ');
      };
      const visitElementChildren = (el, target) => {
        target.children.push(pseudoText(el, '::before', ctx));
        forEachFlatChild(el, (c) => visitNode(c, target));
        target.children.push(pseudoText(el, '::after', ctx));
      };
      const body = document.body || document.documentElement;
      if (body) visitElementChildren(body, root);
      normalizeSnapshot(root);
      return root;
    }

    function snapshotProps(el, role, ctx) {
      let s = '';
      const checked = checkedState(el, ctx);
      if (checked === 'mixed') s += ' [checked=mixed]';
      else if (checked === true) s += ' [checked]';
      if ((WIDGET_ROLES.has(role) || role === 'group' || role === 'listbox' || role === 'combobox') && isDisabled(el)) s += ' [disabled]';
      if (expandedState(el) === true) s += ' [expanded]';
      const level = levelOf(el, ctx);
      if (level) s += ' [level=' + level + ']';
      const pressed = pressedState(el, ctx);
      if (pressed === 'mixed') s += ' [pressed=mixed]';
      else if (pressed === true) s += ' [pressed]';
      if (selectedState(el, ctx)) s += ' [selected]';
      return s;
    }

    function normalizeSnapshot(node) {
      const out = [];
      let buf = '';
      const flush = () => {
        const t = norm(buf);
        if (t) out.push(t);
        buf = '';
      };
      for (const c of node.children) {
        if (typeof c === 'string') {
          buf += c;
        } else {
          flush();
          normalizeSnapshot(c);
          out.push(c);
        }
      }
      flush();
      // Drop text that only repeats a name: a legend/caption echoing its
      // parent's name, or a label next to the control it names.
      node.children = out.filter((c, i) => {
        if (typeof c !== 'string') return true;
        if (i === 0 && c === node.name && out.length > 1) return false;
        const next = out[i + 1];
        const prev = out[i - 1];
        return !((next && typeof next !== 'string' && next.name === c) || (prev && typeof prev !== 'string' && prev.name === c));
      });
      if (node.children.length === 1 && typeof node.children[0] === 'string' && node.children[0] === node.name) node.children = [];
    }

    function yamlText(s) {
      // Quote what YAML would otherwise misread.
      if (/^[\s\-?:,[\]{}#&*!|>'"%@`]|: |\s#|:$|^(true|false|null|yes|no|~|[-+]?\d[\d.eE+-]*)$/i.test(s) || s.includes('\n')) {
        return JSON.stringify(s);
      }
      return s;
    }

    function renderSnapshot(root, maxChars) {
      const marker = '- … (truncated)';
      const lines = [];
      const visit = (n, indent) => {
        if (typeof n === 'string') {
          lines.push(indent + '- text: ' + yamlText(n));
          return;
        }
        let key = n.role;
        if (n.name) key += ' ' + JSON.stringify(truncate(n.name, 900));
        key += n.props;
        if (!n.children.length) {
          lines.push(indent + '- ' + key);
        } else if (n.children.length === 1 && typeof n.children[0] === 'string') {
          lines.push(indent + '- ' + key + ': ' + yamlText(n.children[0]));
        } else {
          lines.push(indent + '- ' + key + ':');
          for (const c of n.children) visit(c, indent + '  ');
        }
      };
      for (const c of root.children) visit(c, '');
      const limit = Math.max(0, Number(maxChars) || 0);
      let out = '';
      for (let i = 0; i < lines.length; i++) {
        const add = (out ? '\n' : '') + lines[i];
        const rest = i + 1 < lines.length;
        if (out.length + add.length + (rest ? marker.length + 1 : 0) > limit) {
          return out + (out ? '\n' : '') + marker;
        }
        out += add;
      }
      if (root.truncated) return out + (out ? '\n' : '') + marker;
      return out;
    }

    function snapshot(maxChars) {
      const ctx = newCtx();
      const limit = maxChars === undefined || maxChars === null ? 20000 : Math.max(0, Number(maxChars) || 0);
      return renderSnapshot(buildSnapshotTree(ctx, limit), limit);
    }

    // ---------------- interactive elements ----------------

    const INTERACTIVE_ROLES = new Set([
      'button', 'link', 'checkbox', 'radio', 'switch', 'tab', 'menuitem', 'menuitemcheckbox',
      'menuitemradio', 'option', 'combobox', 'listbox', 'textbox', 'searchbox', 'slider',
      'spinbutton', 'treeitem',
    ]);

    function isInteractive(el, ctx) {
      const tag = htmlTag(el);
      switch (tag) {
        case 'a': case 'area':
          if (el.hasAttribute('href')) return true;
          break;
        case 'button': case 'select': case 'textarea':
          return true;
        case 'input':
          return inputType(el) !== 'hidden';
        case 'option':
          return false; // the <select> is the control
        case 'summary':
          if (isFocusable(el)) return true;
          break;
      }
      const role = roleOf(el, ctx);
      if (INTERACTIVE_ROLES.has(role)) return true;
      if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
      const ti = el.getAttribute('tabindex');
      if (ti !== null && parseInt(ti, 10) >= 0) return true;
      // Listeners added with addEventListener are invisible from here.
      return el.hasAttribute('onclick');
    }

    // Everything isInteractive can accept (a pre-filter for the native engine).
    const INTERACTIVE_SOURCES = ['a', 'area', 'button', 'input', 'select', 'textarea', 'summary', '[role]', '[tabindex]', '[onclick]', '[contenteditable]'];

    function visibleInteractive(ctx, limit) {
      const max = limit === undefined || limit === null ? Infinity : Number(limit);
      const all = searchTop({ sources: INTERACTIVE_SOURCES, pred: (el) => isInteractive(el, ctx) }, ctx);
      const out = [];
      for (const el of all) {
        if (out.length >= max) break;
        if (isVisible(el, ctx)) out.push(el);
      }
      return out;
    }

    function quoteValue(v) {
      return JSON.stringify(v);
    }

    // Looks generated by a framework or a counter rather than written by hand.
    function isStableId(id) {
      if (!id || id.length > 40) return false;
      if (/\d{3,}|[:]|^[-_\d]|[0-9a-f]{8,}|^(ember|react|radix|headlessui|mui|rc-|__)/i.test(id)) return false;
      return /^[A-Za-z][\w-]*$/.test(id);
    }

    function cssPath(el) {
      const root = el.getRootNode();
      const segs = [];
      for (let n = el; n && n.nodeType === ELEMENT_NODE; n = n.parentElement) {
        if (n.id && isStableId(n.id) && root.querySelectorAll('#' + CSS.escape(n.id)).length === 1) {
          segs.unshift('#' + CSS.escape(n.id));
          break;
        }
        let seg = CSS.escape(n.localName);
        const parent = n.parentElement;
        if (parent) {
          let idx = 0;
          let count = 0;
          for (let c = parent.firstElementChild; c; c = c.nextElementSibling) {
            if (c.localName === n.localName) {
              count++;
              if (c === n) idx = count;
            }
          }
          if (count > 1) seg += ':nth-of-type(' + idx + ')';
        }
        segs.unshift(seg);
        if (!parent || htmlTag(n) === 'body') break;
      }
      return segs.join(' > ');
    }

    const rolePart = (role, name) => ({ kind: 'role', role, name: name === null ? null : { value: name, exact: true }, checked: null, level: null });

    function roleSel(role, name) {
      return { sel: 'role=' + role + (name === null ? '' : '[name=' + quoteValue(name) + ']'), parts: [rolePart(role, name)] };
    }

    function testIdSel(t) {
      return { sel: 'testid=' + (/^[\w.:-]+$/.test(t) ? t : quoteValue(t)), parts: [{ kind: 'testid', value: t }] };
    }

    /** Visible matches of `parts`, as the first-visible/nth rules see them. */
    function visibleMatches(parts, ctx) {
      return resolve(parts, ctx).filter((e) => isVisible(e, ctx));
    }

    /** Short texts inside `a` (outside `el`) that a has-text filter can use. */
    function leafTexts(a, el, ctx, max) {
      const out = [];
      walk(a, (d) => {
        if (out.length >= max || composedContains(el, d) || NON_TEXT_TAGS.has(htmlTag(d))) return;
        for (let c = d.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === TEXT_NODE && c.data.trim()) {
            const t = normText(d, ctx);
            if (t && t.length <= 60 && !out.includes(t) && isVisible(d, ctx)) out.push(t);
            return;
          }
        }
      }, null);
      return out;
    }

    /** Selectors that may pick out ancestor `a` (a scope for el's own selector). */
    function ancestorSelectors(a, el, ctx) {
      const out = [];
      const tid = a.getAttribute('data-testid');
      if (tid) out.push(testIdSel(tid));
      if (isFrameElement(a)) {
        if (a.id && isStableId(a.id)) out.push({ sel: 'css=#' + CSS.escape(a.id), parts: [{ kind: 'css', value: '#' + CSS.escape(a.id) }] });
        const title = a.getAttribute('title');
        if (title) {
          const css = a.localName + '[title=' + JSON.stringify(title) + ']';
          out.push({ sel: 'css=' + css, parts: [{ kind: 'css', value: css }] });
        }
        return out;
      }
      const role = roleOf(a, ctx);
      if (role && role !== 'generic' && role !== 'none' && !SNAPSHOT_TRANSPARENT.has(role)) {
        const name = accessibleName(a, ctx);
        if (name && name.length <= 80) out.push(roleSel(role, name));
        for (const t of leafTexts(a, el, ctx, 2)) {
          const base = roleSel(role, null);
          out.push({ sel: base.sel + ' >> has-text=' + quoteValue(t), parts: base.parts.concat([{ kind: 'has_text', value: t }]) });
        }
      } else if (a.id && isStableId(a.id)) {
        out.push({ sel: 'css=#' + CSS.escape(a.id), parts: [{ kind: 'css', value: '#' + CSS.escape(a.id) }] });
      }
      return out;
    }

    /** `<scope> >> <inner>` where the scope is a nearby distinguishable ancestor. */
    function scopedSelector(el, inner, ctx, budget) {
      let a = el;
      for (let depth = 0; depth < 8 && budget.ok(); depth++) {
        let next = parentOrHost(a);
        if (!next) next = frameElementOf(a.ownerDocument);
        if (!next) return null;
        a = next;
        const tag = htmlTag(a);
        if (tag === 'html' || tag === 'body') continue;
        for (const p of ancestorSelectors(a, el, ctx)) {
          if (!budget.ok()) return null;
          const parts = p.parts.concat(inner.parts);
          const list = visibleMatches(parts, ctx);
          if (list.length === 1 && list[0] === el) return p.sel + ' >> ' + inner.sel;
        }
      }
      return null;
    }

    /**
     * Builds a selector for `el`: the first unique of testid, role+name,
     * label, placeholder, text; then a scoped form (`scope >> own`); then
     * CSS (stable id, else a structural path); else the best candidate plus
     * `>> nth=K`. `index` groups visible elements by the exact key each
     * engine would match, so most uniqueness checks are lookups; the text,
     * scoped and CSS forms are verified by running the query.
     */
    function selectorFor(el, ctx, index, budget) {
      const candidates = [];
      const role = roleOf(el, ctx);
      const hasRole = role && role !== 'generic' && role !== 'none' && !isInAriaHiddenSubtree(el, ctx);
      const name = hasRole ? accessibleName(el, ctx) : '';
      // Lists are computed lazily: the first unique candidate wins.
      // A test id is the app's own promise of a stable handle: it comes first.
      const testid = el.getAttribute('data-testid');
      if (testid) candidates.push(Object.assign(testIdSel(testid), { lazy: () => index.byTestId(testid) }));
      if (hasRole && name) candidates.push(Object.assign(roleSel(role, name), { lazy: () => index.byRoleName(role, name) }));
      if (isLabelTarget(el, ctx)) {
        for (const lt of labelTexts(el, ctx)) {
          candidates.push({ sel: 'label=' + quoteValue(lt), parts: [{ kind: 'label', value: lt, exact: true }], lazy: () => index.byLabel(lt) });
        }
      }
      const tag = htmlTag(el);
      const ph = tag === 'input' || tag === 'textarea' ? norm(el.getAttribute('placeholder')) : '';
      if (ph) candidates.push({ sel: 'placeholder=' + quoteValue(ph), parts: [{ kind: 'placeholder', value: ph, exact: true }], lazy: () => index.byPlaceholder(ph) });
      for (const c of candidates) {
        c.list = c.lazy();
        if (c.list.length === 1 && c.list[0] === el) return c.sel;
      }
      // Text identifies buttons and links, not fields (a <select>'s text is its options).
      const isField = (tag === 'input' && !isButtonLikeInput(el)) || tag === 'select' || tag === 'textarea';
      const text = isField ? '' : normText(el, ctx);
      if (text && text.length <= 80 && budget.ok()) {
        const parts = [{ kind: 'text', value: text, exact: true }];
        const list = visibleMatches(parts, ctx);
        if (list.length === 1 && list[0] === el) return 'text=' + quoteValue(text);
        candidates.push({ sel: 'text=' + quoteValue(text), parts, list });
      }
      const inner = candidates.length ? candidates[0] : hasRole ? roleSel(role, null) : null;
      if (inner && budget.ok()) {
        const scoped = scopedSelector(el, inner, ctx, budget);
        if (scoped) return scoped;
      }
      if (el.id && isStableId(el.id)) {
        const sel = '#' + CSS.escape(el.id);
        const list = visibleMatches([{ kind: 'css', value: sel }], ctx);
        if (list.length === 1 && list[0] === el) return 'css=' + sel;
      }
      const path = cssPath(el);
      const plist = visibleMatches([{ kind: 'css', value: path }], ctx);
      if (plist.length === 1 && plist[0] === el) return 'css=' + path;
      candidates.push({ sel: 'css=' + path, list: plist });
      // Nothing unique: the first candidate that finds el at all, plus nth.
      for (const c of candidates) {
        const k = c.list.indexOf(el);
        if (k >= 0) return c.sel + ' >> nth=' + k;
      }
      return 'css=' + path;
    }

    /**
     * Groups visible elements by the exact key each engine matches (role +
     * name, test id, label text, placeholder), built lazily per key type
     * from the engines' own pre-filters.
     */
    function buildIndex(ctx) {
      const lazy = (fn) => {
        let m = null;
        return () => (m || (m = fn()));
      };
      const group = (matcher, keysOf) => {
        const m = new Map();
        for (const el of searchTop(matcher, ctx)) {
          if (!isVisible(el, ctx)) continue;
          for (const k of keysOf(el)) {
            let l = m.get(k);
            if (!l) m.set(k, (l = []));
            if (l[l.length - 1] !== el) l.push(el);
          }
        }
        return m;
      };
      const roleMaps = new Map();
      const testIds = lazy(() => group({ sources: ['[data-testid]'], pred: () => true }, (el) => [el.getAttribute('data-testid')]));
      const labels = lazy(() => group({ sources: LABEL_TARGET_SOURCES, pred: (el) => isLabelTarget(el, ctx) }, (el) => labelTexts(el, ctx)));
      const placeholders = lazy(() => group({ sources: ['input', 'textarea'], pred: () => true }, (el) => {
        const ph = norm(el.getAttribute('placeholder'));
        return ph ? [ph] : [];
      }));
      return {
        byRoleName(role, name) {
          let m = roleMaps.get(role);
          if (!m) {
            m = group(compilePart({ kind: 'role', role, name: null }, ctx), (el) => [accessibleName(el, ctx)]);
            roleMaps.set(role, m);
          }
          return m.get(name) || [];
        },
        byTestId: (t) => testIds().get(t) || [],
        byLabel: (t) => labels().get(t) || [],
        byPlaceholder: (t) => placeholders().get(t) || [],
      };
    }

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
        if ((tag === 'input' && !isNativeCheckable(el) && !isButtonLikeInput(el) && inputType(el) !== 'password' && inputType(el) !== 'file') ||
            tag === 'textarea' || tag === 'select') {
          item.value = truncate(String(el.value), 120);
        }
        const checked = isCheckable(el, ctx) ? checkedState(el, ctx) : null;
        if (checked !== null) item.checked = checked;
        if (isDisabled(el)) item.disabled = true;
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
      const testid = input.getAttribute('data-testid');
      const byTestId = testid && testIdSel(testid);
      if (byTestId && matchesAlone(byTestId.parts, input, ctx)) return byTestId.sel;
      const css = [];
      if (input.id && isStableId(input.id)) css.push('#' + CSS.escape(input.id));
      if (input.name) css.push('input[type="file"][name=' + JSON.stringify(input.name) + ']');
      for (const sel of css) if (matchesAlone([{ kind: 'css', value: sel }], input, ctx)) return 'css=' + sel;
      return 'css=' + cssPath(input);
    }

    function signature() {
      const ctx = newCtx();
      return visibleInteractive(ctx).map((el) => {
        const type = htmlTag(el) === 'input' ? inputType(el) : '';
        return el.localName + '|' + (roleOf(el, ctx) || '') + '|' + type;
      });
    }

    /** What the site map keeps of a page, in one walk: its signature, controls and title. */
    function inventory(limit) {
      const ctx = newCtx();
      const tokens = [];
      const controls = [];
      for (const el of visibleInteractive(ctx)) {
        const role = roleOf(el, ctx) || '';
        tokens.push(el.localName + '|' + role + '|' + (htmlTag(el) === 'input' ? inputType(el) : ''));
        if (controls.length < limit && role) controls.push([role, accessibleName(el, ctx).slice(0, 80)]);
      }
      return { tokens, controls, title: String(document.title || '').slice(0, 200) };
    }

    // ---------------- diagnose ----------------

    function editDistance(a, b) {
      if (a === b) return 0;
      if (!a.length) return b.length;
      if (!b.length) return a.length;
      let prev = new Array(b.length + 1);
      let cur = new Array(b.length + 1);
      for (let j = 0; j <= b.length; j++) prev[j] = j;
      for (let i = 1; i <= a.length; i++) {
        cur[0] = i;
        for (let j = 1; j <= b.length; j++) {
          const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
          cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
        }
        [prev, cur] = [cur, prev];
      }
      return prev[b.length];
    }

    /** 0 (identical) … 1 (unrelated): edit distance blended with word overlap. */
    function dissimilarity(want, got) {
      const a = want.toLowerCase();
      const b = got.toLowerCase();
      if (b.includes(a) || a.includes(b)) return 0.1 * (1 - Math.min(a.length, b.length) / Math.max(a.length, b.length, 1));
      const ed = editDistance(a.slice(0, 200), b.slice(0, 200)) / Math.max(a.length, b.length, 1);
      const ta = new Set(a.split(/\W+/).filter(Boolean));
      const tb = new Set(b.split(/\W+/).filter(Boolean));
      let common = 0;
      for (const t of ta) if (tb.has(t)) common++;
      const overlap = ta.size && tb.size ? common / Math.max(ta.size, tb.size) : 0;
      return Math.min(ed, 1 - overlap);
    }

    function diagnose(parts) {
      const ctx = newCtx();
      const trace = [];
      const all = resolve(parts, ctx, trace);
      const counts = splitVisible(all, ctx);
      // The step that lost the last visible match is the one to explain.
      let k = 0;
      while (k < trace.length && trace[k].some((el) => isVisible(el, ctx))) k++;
      if (k >= parts.length) k = parts.length - 1;
      const part = parts[k];
      const scope = k > 0 ? trace[k - 1] : null;
      const pool = [];
      const collect = (pred) => {
        const els = scope === null ? searchTop(pred, ctx) : searchScoped(scope, pred, ctx);
        for (const el of els) if (isVisible(el, ctx)) pool.push(el);
      };
      let wanted = '';
      let keysOf = null;
      if (part.kind === 'role') {
        const role = canonicalRole(String(part.role).toLowerCase());
        wanted = part.name ? String(part.name.value) : '';
        collect((el) => roleOf(el, ctx) === role && !isInAriaHiddenSubtree(el, ctx));
        keysOf = (el) => [accessibleName(el, ctx)];
      } else if (part.kind === 'text' || part.kind === 'has_text') {
        wanted = String(part.value);
        // Elements that hold text directly are the candidates a human reads.
        collect((el) => {
          for (let c = el.firstChild; c; c = c.nextSibling) if (c.nodeType === TEXT_NODE && c.data.trim()) return !NON_TEXT_TAGS.has(htmlTag(el));
          return isButtonLikeInput(el);
        });
        keysOf = (el) => [normText(el, ctx)];
      } else if (part.kind === 'label') {
        wanted = String(part.value);
        collect((el) => isLabelTarget(el, ctx));
        keysOf = (el) => labelTexts(el, ctx);
      } else if (part.kind === 'placeholder') {
        wanted = String(part.value);
        collect((el) => (htmlTag(el) === 'input' || htmlTag(el) === 'textarea') && el.hasAttribute('placeholder'));
        keysOf = (el) => [norm(el.getAttribute('placeholder'))];
      } else if (part.kind === 'testid') {
        wanted = String(part.value);
        collect((el) => el.hasAttribute('data-testid'));
        keysOf = (el) => [el.getAttribute('data-testid')];
      }
      const nearest = [];
      if (keysOf && wanted) {
        const seen = new Set();
        const scored = [];
        for (const el of pool) {
          for (const key of keysOf(el)) {
            if (!key || seen.has(key) || key.length > 300) continue;
            seen.add(key);
            scored.push({ key, d: dissimilarity(norm(wanted), key) });
          }
        }
        scored.sort((x, y) => x.d - y.d);
        for (const s of scored.slice(0, 3)) if (s.d < 0.9) nearest.push(s.key);
      }
      return { visible: counts.visible, hidden: counts.hidden, nearest };
    }

    // ---------------- heal ----------------

    /** Names at most this dissimilar (0 … 1) are close enough for a renamed target. */
    const HEAL_CLOSE = 0.5;

    /**
     * What a target that is gone may have become, by the healing rules (the Rust side decides
     * whether to heal): `renamed`, visible elements of the last part's role, under the same
     * container parts, with a close name; `moved`, visible matches of a last `testid=`,
     * `label=` or `placeholder=` part searched on the whole page (its container is gone).
     * Nothing when the selector still matches an element, hidden or not: the target is there.
     */
    function heal(parts) {
      const ctx = newCtx();
      const none = { rule: null, total: 0, candidates: [] };
      if (resolve(parts, ctx).length) return none;
      const last = parts[parts.length - 1];
      let rule = null;
      const pool = [];
      if (last.kind === 'role' && last.name && last.name.value) {
        rule = 'renamed';
        const role = canonicalRole(String(last.role).toLowerCase());
        const pred = (el) => roleOf(el, ctx) === role && !isInAriaHiddenSubtree(el, ctx);
        const scopeParts = parts.slice(0, -1);
        let els;
        if (scopeParts.length) {
          const scope = resolve(scopeParts, ctx).filter((el) => isVisible(el, ctx));
          if (!scope.length) return none;
          els = searchScoped(scope, pred, ctx);
        } else {
          els = searchTop(pred, ctx);
        }
        const want = norm(String(last.name.value));
        for (const el of els) {
          if (!isVisible(el, ctx) || pool.includes(el)) continue;
          const name = accessibleName(el, ctx);
          if (name && dissimilarity(want, name) <= HEAL_CLOSE) pool.push(el);
        }
      } else if ((last.kind === 'testid' || last.kind === 'label' || last.kind === 'placeholder') && parts.length > 1) {
        rule = 'moved';
        for (const el of resolve([last], ctx)) if (isVisible(el, ctx) && !pool.includes(el)) pool.push(el);
      }
      if (!rule) return none;
      const index = buildIndex(ctx);
      const started = perfNow();
      const budget = { ok: () => perfNow() - started < 1500 };
      const candidates = pool.slice(0, 3).map((el) => ({
        selector: selectorFor(el, ctx, index, budget),
        role: roleOf(el, ctx) || null,
        name: truncate(accessibleName(el, ctx) || '', 120),
        type: htmlTag(el) === 'input' ? inputType(el) : null,
      }));
      return { rule, total: pool.length, candidates };
    }

    // ------------------------------------------------------------------
    // Failure evidence
    // ------------------------------------------------------------------

    // Installed at document start, before page scripts: uncaught errors, unhandled rejections
    // and console.error calls, capped. Listeners are passive; console.error still does what
    // the page's console.error did.
    const pageErrors = [];
    const noteError = (text) => {
      if (pageErrors.length < 50) pageErrors.push(String(text).slice(0, 500));
    };
    try {
      window.addEventListener('error', (e) => {
        if (e && e.message) {
          noteError(e.message + (e.filename ? ' (' + e.filename + ':' + e.lineno + ')' : ''));
        } else if (e && e.target && e.target !== window && (e.target.src || e.target.href)) {
          noteError('failed to load ' + (e.target.src || e.target.href));
        }
      }, true);
      window.addEventListener('unhandledrejection', (e) => {
        const r = e && e.reason;
        noteError('unhandled rejection: ' + (r && r.message ? r.message : String(r)));
      });
      const consoleError = window.console && window.console.error;
      if (typeof consoleError === 'function') {
        window.console.error = function (...args) {
          noteError(args.map((a) => (a && a.message ? a.message : String(a))).join(' '));
          return consoleError.apply(this, args);
        };
      }
    } catch (e) {
      // A page that forbids these hooks simply gives no console evidence.
    }

    // Failed requests come from the browser's Network events (browser/network_log.rs), which
    // also see refused and aborted requests.
    function failures() {
      return { console: pageErrors.slice() };
    }

    // The document itself: its address, title, the HTTP status it came with, its storage.
    // Read at call time, never cached: they change under us.
    function documentUrl() {
      return location.href;
    }

    /** The status of the response the document came with; null when there was none (about:blank). */
    function navigationStatus() {
      return performance.getEntriesByType('navigation')[0]?.responseStatus ?? null;
    }

    /** A setup's saved storage is captured from here. Throws where storage is not allowed. */
    function localStorageEntries() {
      return { origin: location.origin, entries: Object.entries(localStorage) };
    }

    /**
     * Writes a setup's saved localStorage entries for `origin`, run as a script for new
     * documents (before the page's own): only on that origin, and once per tab session
     * (a sessionStorage flag), so the page's own later changes are kept across navigations.
     * Data only: `entries` is [[key, value], …]. Never throws.
     */
    function restoreLocalStorage(origin, entries) {
      try {
        if (location.origin === origin && !sessionStorage.getItem('__windup_storage')) {
          sessionStorage.setItem('__windup_storage', '1');
          for (const [k, v] of entries) localStorage.setItem(k, v);
        }
      } catch (e) {
        // Storage the page may not use (sandboxed, opaque origin): nothing to restore.
      }
    }

    // ------------------------------------------------------------------
    // Covering credentials for a screenshot
    // ------------------------------------------------------------------
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

    /**
     * A navigation that turned into a download (a `Content-Disposition: attachment` response)
     * left nothing: the engine saw the download begin, so the document stays current.
     */
    function downloadStarted() {
      if (!nav.pageHidden) {
        nav.pending = null;
        nav.beforeUnload = null;
      }
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

    /** Removes the boxes of mask() and forgets the nodes of textRuns(). */
    function unmask() {
      removeBoxes();
      scanned = [];
      return true;
    }

    return Object.freeze({
      version: 1,
      query,
      locate,
      select,
      check,
      isChecked,
      mute,
      focusOn,
      setValue,
      frameOwner,
      installed: () => true,
      snapshot,
      observe,
      signature,
      inventory,
      diagnose,
      heal,
      failures,
      documentId,
      textRuns,
      mask,
      unmask,
      url: documentUrl,
      navigationStatus,
      localStorage: localStorageEntries,
      restoreLocalStorage,
      fileInput,
      downloadStarted,
      accessibleName: (el) => accessibleName(el, newCtx()),
      role: (el) => roleOf(el, newCtx()),
      // For tests: the matched nodes themselves (visible and hidden, in order).
      elements: (parts) => resolve(parts, newCtx()),
      isLeaving,
    });
  })();
}
