// visibility.js: Hidden-ness for ARIA (display:none, aria-hidden, visibility, a light child no slot
// takes, the content of a closed <details>) and visibility for actions (a non-empty box).
// Uses: dom.js (htmlTag, styleOf, flatParent, parentOrHost, firstChildTagged).

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

    /**
     * Hidden for `role=`, as Playwright's getByRole decides it (isElementHiddenForAria): a
     * script-like tag; display:contents with no shown child; visibility other than visible or
     * checkVisibility() false (a display:none ancestor, the content of a closed <details>),
     * except an <option> of a <select> and a <slot>; display:none, aria-hidden=true or not
     * slotted on the element or an ancestor. `inert` and opacity hide nothing.
     */
    function isHiddenForRole(el, ctx) {
      let r = ctx.roleHidden.get(el);
      if (r !== undefined) return r;
      r = computeHiddenForRole(el, ctx);
      ctx.roleHidden.set(el, r);
      return r;
    }

    function computeHiddenForRole(el, ctx) {
      const tag = htmlTag(el);
      if (NON_CONTENT_TAGS.has(tag)) return true;
      const style = styleOf(el, ctx);
      const isSlot = tag === 'slot';
      if (style && style.display === 'contents' && !isSlot) {
        for (let c = el.firstChild; c; c = c.nextSibling) {
          if (c.nodeType === ELEMENT_NODE && !isHiddenForRole(c, ctx)) return false;
          if (c.nodeType === TEXT_NODE && isVisibleTextNode(c)) return false;
        }
        return true;
      }
      const optionInSelect = tag === 'option' && !!el.closest('select');
      if (!optionInSelect && !isSlot && style) {
        if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) return true;
        if (style.visibility !== 'visible') return true;
      }
      return inHiddenChain(el, ctx);
    }

    /** display:none, aria-hidden=true or not slotted, on el or an ancestor (hosts included). */
    function inHiddenChain(el, ctx) {
      let r = ctx.hiddenChain.get(el);
      if (r !== undefined) return r;
      const lp = el.parentElement;
      r = !!(lp && lp.shadowRoot && !el.assignedSlot);
      if (!r) {
        const style = styleOf(el, ctx);
        r = !style || style.display === 'none' || isAriaHiddenTrue(el);
      }
      if (!r) {
        const p = parentOrHost(el);
        if (p) r = inHiddenChain(p, ctx);
      }
      ctx.hiddenChain.set(el, r);
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
