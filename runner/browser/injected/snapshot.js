// snapshot.js: The ARIA snapshot (Playwright-like YAML) a failure's evidence shows: the tree of
// roles, names and states, normalised and cut to a size.
// Uses: dom.js, visibility.js (isHiddenForAria, isSubtreeHidden, NON_CONTENT_TAGS), roles.js
// (roleOf, inputType), states.js (every state), pseudo.js (pseudoText), names.js (accessibleName),
// selectors.js (WIDGET_ROLES).

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
