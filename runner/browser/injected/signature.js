// signature.js: What the site map keeps of a page: its `signature` (`tag|role|type` of its visible
// interactive elements) and its `inventory` (that, its named controls and its title) in one walk.
// Uses: dom.js (newCtx, htmlTag), roles.js (roleOf, inputType), names.js (accessibleName),
// interactive.js (visibleInteractive).

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
