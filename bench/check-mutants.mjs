// Checks that each TodoMVC mutant of bench/oracle_server.py blocks its effect, and only it, on every
// app of the bench: the same actions through playwright-core on the app and on each mutant, then
// the app's own state (its visible list items, the .todo-count text, the URL hash).
//
//   app              add "Buy milk": 1 item; tick it: 0 left; add "Walk dog", click Active: 1 shown
//   mutant-add       add "Buy milk": no item (the typed text stays in the field)
//   mutant-complete  add works; tick it: still 1 left (the checkbox is ticked in the DOM all the same)
//   mutant-filter    add and complete work; click Active: both items shown, the hash unchanged
//                    (the router's own start hash, "#/" on some apps)
//
// Starts its own oracle servers on the installed TodoMVC (scripts/fetch-fixtures.sh). Exit 1 when a
// mutant does not block its effect (or blocks another) on some app; --json FILE writes the rows.
// Usage: node bench/check-mutants.mjs [--json FILE] [APP...]
import { createRequire } from 'node:module';
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const BENCH = path.dirname(fileURLToPath(import.meta.url));
const fixtures = Object.fromEntries(execFileSync('bash', [path.join(BENCH, '../scripts/fetch-fixtures.sh')],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).split('\n').filter((l) => l.includes('='))
  .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
const require = createRequire(fixtures.PLAYWRIGHT_CORE + '/package.json');
const { chromium } = require(fixtures.PLAYWRIGHT_CORE);

const APPS = ['vanillajs', 'backbone', 'react', 'vue', 'angularjs', 'knockoutjs', 'emberjs', 'mithril'];
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run'];
const MODES = ['app', 'mutant-add', 'mutant-complete', 'mutant-filter'];
const SETTLE_MS = 1000; // how long a blocked effect is given to show up anyway

const args = process.argv.slice(2);
const jsonAt = args.indexOf('--json');
const jsonFile = jsonAt >= 0 ? args.splice(jsonAt, 2)[1] : null;
const apps = args.length ? args : APPS;

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
  });
}

async function startServers() {
  const servers = {};
  for (const mode of MODES) {
    const port = await freePort();
    const proc = spawn('python3', [path.join(BENCH, 'oracle_server.py'), '--root', fixtures.TODOMVC_ROOT,
      '--port', String(port), '--mode', mode], { stdio: 'ignore' });
    servers[mode] = { proc, base: `http://127.0.0.1:${port}` };
  }
  for (const { base } of Object.values(servers)) {
    for (let i = 0; ; i++) {
      try { if ((await fetch(base + '/__oracle/health')).ok) break; } catch { /* not up yet */ }
      if (i > 100) throw new Error(`oracle server ${base} did not start`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return servers;
}

// The app's state as a user sees it.
function state(page) {
  return page.evaluate(() => {
    const shown = (e) => e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
    const items = [...document.querySelectorAll('#todo-list > li, .todo-list > li')].filter(shown)
      .map((li) => li.textContent.replace(/\s+/g, ' ').trim());
    const count = document.querySelector('#todo-count, .todo-count');
    const left = count && shown(count) ? parseInt(count.textContent.trim(), 10) : null;
    const input = document.querySelector('#new-todo, .new-todo');
    const toggles = [...document.querySelectorAll('#todo-list .toggle, .todo-list .toggle')];
    return { items, left, hash: location.hash, typed: input ? input.value : null,
      ticked: toggles.filter((t) => t.checked).length };
  });
}

async function until(page, pred, ms = 5000) {
  const t = Date.now();
  let s = await state(page);
  while (!pred(s) && Date.now() - t < ms) {
    await page.waitForTimeout(50);
    s = await state(page);
  }
  return s;
}

const settled = async (page) => { await page.waitForTimeout(SETTLE_MS); return state(page); };

async function add(page, text) {
  const input = page.getByPlaceholder('What needs to be done?', { exact: true });
  await input.click();
  await input.fill(text);
  await input.press('Enter');
}

async function tick(page, text) {
  // A plain click: Playwright's check() would throw when the app re-renders the box unticked.
  await page.locator('#todo-list > li, .todo-list > li').filter({ hasText: text }).locator('.toggle').click();
}

const showActive = (page) => page.locator('#filters a, .filters a').filter({ hasText: /^\s*Active\s*$/ }).click();

// Each check: what it does, then [expected, observed] pairs; ok when every pair agrees.
const CHECKS = {
  async app(page) {
    await add(page, 'Buy milk');
    const a = await until(page, (s) => s.items.length === 1);
    await tick(page, 'Buy milk');
    const c = await until(page, (s) => s.left === 0);
    await add(page, 'Walk dog');
    await until(page, (s) => s.items.length === 2);
    await showActive(page);
    const f = await until(page, (s) => s.items.length === 1);
    return { 'added': [1, a.items.length], 'left after tick': [0, c.left],
      'shown after Active': ['Walk dog', f.items.join('|')], 'hash': ['#/active', f.hash] };
  },
  async 'mutant-add'(page) {
    await add(page, 'Buy milk');
    const a = await settled(page);
    await page.locator('body').click({ position: { x: 5, y: 5 } }); // a blur commits in no app here
    const b = await settled(page);
    return { 'items after Enter (blocked)': [0, a.items.length], 'items after blur': [0, b.items.length],
      'typed text kept': ['Buy milk', a.typed] };
  },
  async 'mutant-complete'(page) {
    await add(page, 'Buy milk');
    const a = await until(page, (s) => s.items.length === 1);
    await tick(page, 'Buy milk');
    const c = await settled(page);
    return { 'added (not blocked)': [1, a.items.length], 'left after tick (blocked)': [1, c.left],
      'box ticked in the DOM': [1, c.ticked] };
  },
  async 'mutant-filter'(page) {
    await add(page, 'Buy milk');
    await until(page, (s) => s.items.length === 1);
    await tick(page, 'Buy milk');
    const c = await until(page, (s) => s.left === 0);
    await add(page, 'Walk dog');
    const b = await until(page, (s) => s.items.length === 2);
    await showActive(page);
    const f = await settled(page);
    // The router may set its own start hash ("#/") on load: the click must not move it.
    return { 'left after tick (not blocked)': [0, c.left], 'added two (not blocked)': [2, b.items.length],
      'shown after Active (blocked)': [2, f.items.length], 'hash (unchanged)': [b.hash, f.hash] };
  },
};
// Pairs that are information, not a verdict on the mutant.
const INFO = new Set(['typed text kept', 'box ticked in the DOM']);

const servers = await startServers();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: FLAGS });
const rows = [];
try {
  for (const app of apps) {
    for (const mode of MODES) {
      const context = await browser.newContext();
      const page = await context.newPage();
      let row;
      try {
        await page.goto(`${servers[mode].base}/examples/${app}/index.html`, { waitUntil: 'load' });
        await page.getByPlaceholder('What needs to be done?', { exact: true }).waitFor();
        const pairs = await CHECKS[mode](page);
        const bad = Object.entries(pairs).filter(([k, [want, got]]) => !INFO.has(k) && want !== got);
        row = { app, mode, ok: bad.length === 0, pairs };
      } catch (e) {
        row = { app, mode, ok: false, error: String(e.message || e).split('\n')[0] };
      } finally {
        await context.close();
      }
      rows.push(row);
      const detail = row.error ?? Object.entries(row.pairs).map(([k, [w, g]]) =>
        `${k}: ${JSON.stringify(g)}${w === g ? '' : ` (want ${JSON.stringify(w)})`}`).join('; ');
      console.log(`${row.ok ? 'ok  ' : 'FAIL'} ${app.padEnd(10)} ${mode.padEnd(15)} ${detail}`);
    }
  }
} finally {
  await browser.close();
  for (const s of Object.values(servers)) s.proc.kill();
}
const failed = rows.filter((r) => !r.ok);
console.log(failed.length ? `\n${failed.length} of ${rows.length} checks failed: ${failed.map((r) => `${r.app}/${r.mode}`).join(', ')}`
  : `\nall ${rows.length} checks passed: each mutant blocks its effect, and only it, on ${apps.length} apps`);
if (jsonFile) writeFileSync(jsonFile, JSON.stringify(rows, null, 2) + '\n');
process.exit(failed.length ? 1 : 0);
