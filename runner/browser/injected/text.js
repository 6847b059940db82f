// text.js: Element text for the `text=` and `has-text=` engines and for values: text content
// through shadow trees and slots, normalised and lower-cased, cached per call.
// Uses: dom.js (norm, htmlTag, parentOrHost, shadowHosts, forEachFlatChild, sourceList), roles.js
// (inputType).

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

    function flatChildElements(el, cb) {
      if (isButtonLikeInput(el)) return;
      forEachFlatChild(el, (n) => {
        if (n.nodeType === ELEMENT_NODE) cb(n);
      });
    }
