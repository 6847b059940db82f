// Windup in-page runtime: prelude.js, the first of its modules.
//
// The engine assembles the modules listed in browser/injected.rs (`MODULES`, beside the tests
// that cover each) into one script, `INJECTED_JS`, in that order: this prelude opens the
// install guard and the IIFE, each module adds its declarations inside it
// (one function body, so modules share one scope; they are not ES modules), and epilogue.js
// returns the API object and closes both. Function declarations hoist, `const` and `let` do
// not: a module's top-level code and constants may use only what modules before it declare.
//
// The assembled script is evaluated in the page's main world twice over: via
// Page.addScriptToEvaluateOnNewDocument (every frame, before page scripts) and via
// Runtime.evaluate (pages that were already loaded). It must therefore be idempotent, and it
// is a plain statement so that both paths accept it.
//
// Realm-agnostic by design: the same functions are applied to nodes of
// same-origin iframes, whose constructors differ from ours, so nothing here
// uses `instanceof HTMLElement` & co; node kinds are told apart by nodeType,
// namespaceURI and localName, and styles come from the node's own window.
//
// Reference algorithms: WAI-ARIA 1.2 (roles, presentational conflict
// resolution), HTML-AAM (implicit roles, native names) and accname 1.2, each
// as Chromium 156 computes them where Chromium differs from the letter of the
// spec (calibrated against Chromium's own accessibility tree, CDP
// Accessibility.getFullAXTree, on the fixtures and on real-world apps).
//
// The JS never parses selector strings: the Rust side sends an array of parts
// (see `compilePart`). Every public entry point creates a fresh cache context
// (`newCtx`), because the DOM may change between calls but not during one.
//
// API (window.__windup; every result is plain JSON):
//   configure({testIdAttribute}) → sets the attribute `testid=` reads (default data-testid), once
//                                  per document, right after the engine is installed
//   query(parts)                → {visible, hidden}
//   locate(parts, action)       → Promise<{status:"ok", x, y, describe, box, origin, checked?, field?}
//                                  | {status:"not_found", hidden} | {status:"not_actionable", reason}
//                                  | {status:"navigating"}>   action: click|check|uncheck|fill|select|press|hover
//                                  (click, check, uncheck: arms the check of where the click lands)
//   hitResult()                 → {landed: true} | {landed: false, on: "<tag …>"}: where the click
//                                  after `locate` landed (its events stopped when not on the target)
//   select(parts, value)        → Promise<{status:"ok", x, y, describe} | same failures as locate>
//   check(spec)                 → {url, visible?, hidden?, value?:{ok, actual}, count?:{ok, actual}, navigating}
//   isChecked(parts)            → true | false | "mixed" | null
//   mute(parts)                 → whether the first visible match was made deaf to the page (its
//                                  input events stop before the page's listeners; `windup bench`)
//   focusOn(parts, strict)      → {status: "ok" | "elsewhere", took?} | {status: "not_found"}: whether
//                                  keystrokes sent now land in the fill target (strict: it has
//                                  the focus; else its document still has it)
//   setValue(parts, text, facts)→ {status: "ok" | "changed" | "not_found" | "malformed", field?, value?}:
//                                  the value set on the fill target itself, with input and
//                                  change, when the target is still the field `facts` describes
//                                  (a credential; a date, time, color or range input's value,
//                                  "malformed" when that input did not take it)
//   frameOwner(parts)           → the first visible frame element of parts (ending in a frame
//                                  step), as a handle for DOM.describeNode; installed() → true
//   snapshot(maxChars)          → ARIA snapshot text (Playwright-like YAML)
//   observe({limit, words, origins}) → {url, title, items: [{selector, role, name, tag, control, score,
//                                  context?, near?, type?, value?, checked?, disabled?, expanded?, selected?}],
//                                  counts: {role: n}, total}: visible controls and texts in document
//                                  order, the task's and the viewport's first when over the limit; a file input hidden
//                                  behind its visible label is listed as the input, where the label is; one hidden
//                                  with no visible label (a drop zone's) is listed where it is
//   signature()                 → ["tag|role|type", …]
//   inventory(limit)            → {tokens: signature(), controls: [[role, name], …] (≤ limit), title}
//   diagnose(parts)             → {visible, hidden, nearest: [names]}
//   heal(parts)                 → {rule: "renamed"|"moved"|null, total, candidates: [{selector, role,
//                                  name, type}]}: what a target that is gone may have become
//   failures()                  → {console: [text]} (failure evidence)
//   documentId()                → an id of the current document (which document a field was typed in)
//   textRuns(maxChars)          → {runs: [{text, field}], complete}: the text the page shows and
//                                  its fields' shown values (never a password field's), in order
//   mask(partsList, runIndices) → {missing, lost, uncovered}: covers the first visible match of
//                                  each (credential fields) and the named runs of textRuns() with
//                                  opaque boxes in the top layer for a screenshot; draws nothing
//                                  unless all are covered. unmask() removes the boxes
//   url()                       → location.href
//   navigationStatus()          → the document's HTTP status | null
//   localStorage()              → {origin, entries: [[key, value], …]} (a setup's saved storage)
//   restoreLocalStorage(origin, entries) → writes them once per tab on that origin (run as a
//                                  script for new documents, before the page's own)
//   accessibleName(el), role(el), elements(parts), firstVisible(parts) (tests), isLeaving()
//
// Selector parts: {kind:"css", value} | {kind:"role", role, name:null|{value, exact},
// checked:null|bool, level:null|N} | {kind:"text"|"label"|"placeholder", value, exact}
// | {kind:"testid", value} | {kind:"has_text", value} (filter) | {kind:"nth", index} (filter)
// | {kind:"frame", by:"title"|"name"|"css", value} (frame elements; the next part searches
// their documents).
// Searches run over the top document (composed order, open shadow roots at
// their host's position), then same-origin frames depth first; later parts
// search below each previous match (a frame element's scope is its document).
if (!window.__windup) {
  window.__windup = (() => {
    'use strict';

    const HTML_NS = 'http://www.w3.org/1999/xhtml';
    const SVG_NS = 'http://www.w3.org/2000/svg';
    const ELEMENT_NODE = 1;
    const TEXT_NODE = 3;
    const DOCUMENT_NODE = 9;
    const FRAGMENT_NODE = 11;

    // Page scripts run after us when installed on a new document; keep
    // private references to the globals whose replacement would break us.
    const { Map, Set, WeakMap, Object, Array, JSON, Math, Number, String, Promise, Error, RegExp, CSS } = window;
    const perfNow = performance.now.bind(performance);
    const topWindow = window;
    const setTimeoutFn = window.setTimeout.bind(window);
    const clearTimeoutFn = window.clearTimeout.bind(window);
