// Frame times of the viewer in headless Chromium (software GL), for
// docs/viewer.md: the largest sample map with each set of layers, and the
// 158-part library, each orbiting at 1280 x 800, as while dragging (half
// resolution on a software renderer) and at full resolution. Three interleaved rounds
// of 3 s per case; the best round is the machine's capability, the median
// what contention left of it. Prints a Markdown table and the load.
//   node tests/web/frametime.mjs
import { loadavg, cpus } from 'node:os';
import { SAMPLES, startServer, launchBrowser, openViewer } from './lib.mjs';

const ALL = ['hull', 'cells', 'cell-spheres', 'tri-spheres', 'failures'];
const cases = [
  ['$DD89A110', ['hull']],
  ['$DD89A110', ['hull', 'cells']],
  ['$DD89A110', ALL],
  ['CollisionSet_Tutorial', ['hull']],
];
const server = await startServer([SAMPLES]);
const browser = await launchBrowser();
const times = cases.map(() => []);
const load = [loadavg()[0]];
try {
  const pages = {};
  for (const name of new Set(cases.map((c) => c[0]))) pages[name] = await openViewer(browser, server.url, name);
  for (let round = 0; round < 3; round++) {
    for (const [k, [name, layers]] of cases.entries()) {
      const page = pages[name];
      await page.bringToFront();
      for (const l of ALL) await page.evaluate(([n, on]) => window.sylcol.setLayer(n, on), [l, layers.includes(l)]);
      const moving = await page.evaluate(() => window.sylcol.measure(3000));
      const full = await page.evaluate(() => window.sylcol.measure(3000, true));
      times[k].push([moving.frame_ms, full.frame_ms]);
    }
  }
  load.push(loadavg()[0]);
} finally {
  await browser.close();
  await server.stop();
}
console.log('| object | layers | moving: best (median) | fps | full resolution: best (median) | fps |');
console.log('|---|---|---|---|---|---|');
const ms = (t) => `${t.toFixed(1)} ms`;
for (const [k, [name, layers]] of cases.entries()) {
  const moving = times[k].map((t) => t[0]).sort((a, b) => a - b);
  const full = times[k].map((t) => t[1]).sort((a, b) => a - b);
  const label = layers.length === ALL.length ? 'all' : layers.join(', ');
  console.log(`| ${name} | ${label} | ${ms(moving[0])} (${ms(moving[1])}) | ${(1000 / moving[0]).toFixed(0)} `
    + `| ${ms(full[0])} (${ms(full[1])}) | ${(1000 / full[0]).toFixed(0)} |`);
}
console.log(`\n${cpus().length} cores, load average ${load.map((l) => l.toFixed(1)).join(' -> ')}`);
