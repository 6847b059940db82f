// pseudo.js: CSS generated content: the text of ::before/::after, with a per-document index of the
// style sheets' pseudo-element rules so that most elements are ruled out without computing a style.
// Uses: dom.js (shadowHosts).

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
