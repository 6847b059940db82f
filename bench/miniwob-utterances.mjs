// The utterance MiniWoB gives every agent for each seeded episode of the bench (the text of
// #query, as core.getUtterance() reads it), read from the served page: the MiniWoB scenarios of
// bench/real-model.sh are written from it, never hard-coded. Each page is loaded twice; a task
// whose two loads disagree (an episode the seed does not fix) is an error.
// Usage: PLAYWRIGHT_CORE_DIR=... node bench/miniwob-utterances.mjs BASE_URL SEED TASK... > utterances.json
import { createRequire } from 'node:module';
const require = createRequire(process.env.PLAYWRIGHT_CORE_DIR + '/package.json');
const { chromium } = require(process.env.PLAYWRIGHT_CORE_DIR);

const [base, seed, ...tasks] = process.argv.slice(2);
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run'];

async function utterance(browser, task) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(new URL(`/miniwob/${task}-seed${seed}.html`, base).href, { waitUntil: 'load' });
    // The episode has started (the seeded wrapper calls startEpisodeReal) and the query is drawn.
    await page.waitForFunction(() => typeof core === 'object' && core.EP_TIMER !== null &&
      document.getElementById('query') && core.getUtterance().length > 0, null, { timeout: 15000 });
    return await page.evaluate(() => core.getUtterance());
  } finally {
    await context.close();
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium', headless: true, args: FLAGS });
const out = {};
let bad = 0;
try {
  for (const task of tasks) {
    const [a, b] = [await utterance(browser, task), await utterance(browser, task)];
    if (a !== b) {
      console.error(`${task}: the seeded page gave two utterances: ${JSON.stringify(a)} and ${JSON.stringify(b)}`);
      bad++;
    }
    out[task] = a;
  }
} finally {
  await browser.close();
}
console.log(JSON.stringify(out, null, 2));
process.exit(bad ? 1 : 0);
