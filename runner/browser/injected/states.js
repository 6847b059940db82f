// states.js: States: checked (true, false, "mixed"), heading level, disabled, selected, expanded,
// pressed.
// Uses: dom.js (htmlTag, parentOrHost), roles.js (roleOf, inputType, isNativelyDisabled).

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
