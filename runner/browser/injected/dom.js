// dom.js: Small helpers: whitespace, tag names, the per-call cache (`newCtx`), computed styles, the
// flat tree (parents through shadow roots, slotted children), id references, same-origin frames,
// the walk over a document with its open shadow roots and frames, and element lists by tag or
// simple selector.
// Uses: prelude.js only (constants, private globals). `walk` and `newCtx`'s cache serve every later
// module.

    /** Collapse runs of whitespace, drop zero-width spaces, trim. */
    function norm(s) {
      if (!s) return '';
      return String(s).replace(/[\u200b\u00ad]/g, '').replace(/\s+/g, ' ').trim();
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
        roleHidden: new Map(), // hidden for role= (Playwright's getByRole)
        hiddenChain: new Map(),
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

    function firstChildTagged(el, tag) {
      for (let c = el.firstElementChild; c; c = c.nextElementSibling) if (htmlTag(c) === tag) return c;
      return null;
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
