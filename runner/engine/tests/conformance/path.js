// path.js: an element's stable path in its document, the same function on both sides of the
// conformance set (reference.mjs runs it under Playwright, conformance.rs under Windup): each
// step from <html> down is `tag[i]`, i its index among its parent's element children, and an
// open shadow root is the step `#shadow`. Read-only: nothing is added to the DOM, which could
// change what a selector matches.
(el) => {
  const steps = [];
  for (let n = el; n && n !== n.ownerDocument.documentElement;) {
    const parent = n.parentNode;
    if (!parent) break;
    steps.push(n.localName + '[' + Array.prototype.indexOf.call(parent.children, n) + ']');
    if (parent.nodeType === 11) {
      steps.push('#shadow');
      n = parent.host;
    } else {
      n = parent;
    }
  }
  return steps.reverse().join('/');
}
