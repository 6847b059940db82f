// states.js: States: checked (true, false, "mixed"), heading level, disabled, selected, expanded,
// pressed; and the same states as `role=` filters on them, Playwright's getByRole's way.
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

    // The states `role=` filters on, read as Playwright's getByRole reads them, which differs
    // from Chromium's accessibility tree (above) in places: a native heading level wins over
    // aria-level and role=heading has none by default, a missing aria-pressed is false, an
    // aria-disabled="false" stops the inherited one.
    const ROLE_CHECKED_ROLES = new Set(['checkbox', 'menuitemcheckbox', 'option', 'radio', 'switch', 'menuitemradio', 'treeitem']);
    const ROLE_EXPANDED_ROLES = new Set(['application', 'button', 'checkbox', 'combobox', 'gridcell', 'link', 'listbox',
      'menuitem', 'row', 'rowheader', 'tab', 'treeitem', 'columnheader', 'menuitemcheckbox', 'menuitemradio', 'switch']);
    const ROLE_LEVEL_ROLES = new Set(['heading', 'listitem', 'row', 'treeitem']);
    const ROLE_DISABLED_ROLES = new Set(['application', 'button', 'composite', 'gridcell', 'group', 'input', 'link',
      'menuitem', 'scrollbar', 'separator', 'tab', 'checkbox', 'columnheader', 'combobox', 'grid', 'listbox', 'menu',
      'menubar', 'menuitemcheckbox', 'menuitemradio', 'option', 'radio', 'radiogroup', 'row', 'rowheader', 'searchbox',
      'select', 'slider', 'spinbutton', 'switch', 'tablist', 'textbox', 'toolbar', 'tree', 'treegrid', 'treeitem']);
    const NATIVE_DISABLE_TAGS = new Set(['button', 'input', 'select', 'textarea', 'option', 'optgroup']);

    /** true | false | 'mixed'. */
    function roleChecked(el, ctx) {
      if (htmlTag(el) === 'input' && el.indeterminate) return 'mixed';
      if (isNativeCheckable(el)) return !!el.checked;
      if (ROLE_CHECKED_ROLES.has(roleOf(el, ctx))) {
        const v = (el.getAttribute('aria-checked') || '').toLowerCase();
        if (v === 'true') return true;
        if (v === 'mixed') return 'mixed';
      }
      return false;
    }

    /** true | false | 'mixed'. */
    function rolePressed(el, ctx) {
      if (roleOf(el, ctx) === 'button') {
        const v = (el.getAttribute('aria-pressed') || '').toLowerCase();
        if (v === 'true') return true;
        if (v === 'mixed') return 'mixed';
      }
      return false;
    }

    /** true | false | undefined (no aria-expanded). */
    function roleExpanded(el, ctx) {
      if (htmlTag(el) === 'details') return !!el.open;
      if (!ROLE_EXPANDED_ROLES.has(roleOf(el, ctx))) return undefined;
      const v = el.getAttribute('aria-expanded');
      return v === null ? undefined : v.toLowerCase() === 'true';
    }

    /** The level, 0 for none. */
    function roleLevel(el, ctx) {
      const m = /^h([1-6])$/.exec(htmlTag(el));
      if (m) return Number(m[1]);
      if (ROLE_LEVEL_ROLES.has(roleOf(el, ctx))) {
        const attr = el.getAttribute('aria-level');
        const v = attr === null ? NaN : Number(attr);
        if (Number.isInteger(v) && v >= 1) return v;
      }
      return 0;
    }

    function roleDisabled(el, ctx) {
      const t = htmlTag(el);
      if (NATIVE_DISABLE_TAGS.has(t)) {
        if (el.hasAttribute('disabled')) return true;
        if (t === 'option' && el.closest('optgroup[disabled]')) return true;
        const fs = el.closest('fieldset[disabled]');
        if (fs) {
          const legend = fs.querySelector(':scope > legend');
          if (!legend || !legend.contains(el)) return true;
        }
      }
      if (!ROLE_DISABLED_ROLES.has(roleOf(el, ctx))) return false;
      for (let n = el; n; n = parentOrHost(n)) {
        const v = (n.getAttribute('aria-disabled') || '').toLowerCase();
        if (v === 'true') return true;
        if (v === 'false') return false;
      }
      return false;
    }
