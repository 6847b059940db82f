// reference.mjs: the conformance set's reference, Playwright itself. Reads a job on stdin
// ({ executablePath, pages: [{ url, testIdAttribute, cases: [{ id, locator, actedOn }] }] },
// where `locator` is the expression `windup export` writes for every match of the case's
// selector and `actedOn` the one for the element a step acts on, on the variable `page`), opens
// each page in the given Chromium with playwright-core, and prints one JSON object: for each
// case id, { paths, acted_on } (the elements each locator matches, in Playwright's order, as
// path.js writes them) or { error }.
//
// Run by runner/engine/tests/it/conformance.rs; needs WINDUP_NODE_MODULES, the folder that holds
// playwright-core (the fixtures' node_modules).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(process.env.WINDUP_NODE_MODULES, 'noop.js'));
const { chromium, selectors } = require('playwright-core');
const pathOf = readFileSync(join(here, 'path.js'), 'utf8').replace(/^\/\/.*\n/gm, '');

/** The elements a locator expression matches, as paths. */
async function pathsOf(page, expression) {
  const locator = new Function('page', 'return ' + expression)(page);
  return locator.evaluateAll((els, src) => els.map((0, eval)(src)), pathOf);
}

const job = JSON.parse(readFileSync(0, 'utf8'));
const browser = await chromium.launch({ executablePath: job.executablePath });
const out = {};
try {
  let page = null;
  let testIdAttribute = null;
  for (const p of job.pages) {
    // getByTestId reads the attribute set when its page was made: a new page for another one.
    if (!page || p.testIdAttribute !== testIdAttribute) {
      if (page) await page.context().close();
      testIdAttribute = p.testIdAttribute;
      selectors.setTestIdAttribute(testIdAttribute);
      page = await browser.newPage();
    }
    await page.goto(p.url);
    for (const c of p.cases) {
      try {
        const paths = await pathsOf(page, c.locator);
        const acted_on = await pathsOf(page, c.actedOn);
        out[c.id] = { paths, acted_on };
      } catch (e) {
        out[c.id] = { error: String(e.message || e).split('\n')[0] };
      }
    }
  }
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(out));
