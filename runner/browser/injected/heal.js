// heal.js: What a selector that found nothing usable may have meant: `diagnose` (match counts and
// the nearest accessible names, by edit distance and shared words) and `heal` (candidates by the
// healing rules: renamed, moved).
// Uses: dom.js, visibility.js (isVisible, isInAriaHiddenSubtree), roles.js (roleOf, canonicalRole,
// inputType), names.js (accessibleName), text.js (normText, isButtonLikeInput, NON_TEXT_TAGS),
// selectors.js (resolve, searchTop, searchScoped, splitVisible, isLabelTarget, labelTexts,
// testIdAttribute),
// interactive.js (buildIndex, selectorFor); document.js's stillFor, declared after it.

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
        collect((el) => el.hasAttribute(testIdAttribute));
        keysOf = (el) => [el.getAttribute(testIdAttribute)];
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
      const none = { rule: null, total: 0, candidates: [], still_ms: 0 };
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
      return { rule, total: pool.length, candidates, still_ms: stillFor() };
    }
