// The TodoMVC flow of runner/engine/tests/plans/todomvc.json, written as a plain playwright-core
// script on the same Chromium with the same flags: the reference a `windup replay` is compared to.
// Usage: node todomvc.mjs BASE_URL START_PATH [--warm N]
import { createRequire } from 'node:module';
const require = createRequire(process.env.PLAYWRIGHT_CORE_DIR + '/package.json');
const { chromium } = require(process.env.PLAYWRIGHT_CORE_DIR);

const [base, start] = process.argv.slice(2);
const warmIdx = process.argv.indexOf('--warm');
const warm = warmIdx > 0 ? Number(process.argv[warmIdx + 1]) : 0;

async function flow(browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(new URL(start, base).href, { waitUntil: 'load' });
  const input = page.getByPlaceholder('What needs to be done?', { exact: true });
  await input.fill('Buy milk');
  await input.press('Enter');
  await page.getByRole('listitem').getByText('Buy milk', { exact: true }).waitFor({ state: 'visible' });
  await input.fill('Walk dog');
  await page.keyboard.press('Enter');
  await waitCount(page, 2);
  await page.locator('#todo-list li').filter({ hasText: 'Buy milk' }).getByRole('checkbox').check();
  await page.getByRole('link', { name: 'Active', exact: true }).click();
  await page.waitForURL(/index\.html#\/active$/);
  await page.getByText('Walk dog', { exact: true }).waitFor({ state: 'visible' });
  await page.getByText('Buy milk', { exact: true }).waitFor({ state: 'hidden' });
  await waitCount(page, 1);
  await context.close();
}

async function waitCount(page, n) {
  const items = page.locator('#todo-list li:visible');
  for (let i = 0; i < 200; i++) {
    if ((await items.count()) === n) return;
    await page.waitForTimeout(10);
  }
  throw new Error(`expected ${n} visible items`);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
         '--disable-sync', '--no-first-run'],
});
if (warm > 0) {
  const times = [];
  for (let i = 0; i < warm; i++) {
    const t = performance.now();
    await flow(browser);
    times.push(performance.now() - t);
  }
  console.log(JSON.stringify(times));
} else {
  await flow(browser);
}
await browser.close();
