// epilogue.js: The public API object `window.__windup` is set to, frozen, and the close of the IIFE
// and of the install guard that prelude.js opened.
// Uses: the entry point of every module before it.

    return Object.freeze({
      version: 1,
      configure,
      query,
      locate,
      hitResult,
      select,
      check,
      isChecked,
      mute,
      focusOn,
      setValue,
      frameOwner,
      installed: () => true,
      snapshot,
      observe,
      signature,
      inventory,
      diagnose,
      heal,
      failures,
      documentId,
      textRuns,
      mask,
      unmask,
      url: documentUrl,
      navigationStatus,
      settled: settledState,
      localStorage: localStorageEntries,
      restoreLocalStorage,
      fileInput,
      downloadStarted,
      accessibleName: (el) => accessibleName(el, newCtx()),
      role: (el) => roleOf(el, newCtx()),
      // For tests: the matched nodes themselves (visible and hidden, in order), and the one a
      // step acts on (the first visible match, or null).
      elements: (parts) => resolve(parts, newCtx()),
      firstVisible: (parts) => {
        const ctx = newCtx();
        return firstVisible(resolve(parts, ctx), ctx);
      },
      isLeaving,
    });
  })();
}
