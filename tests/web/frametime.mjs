// Frame times of the viewer in headless Chromium (software GL), for
// docs/viewer.md: the largest sample map with each set of layers, and the
// 158-part library, each orbiting for 5 s at 1280 x 800. Prints a
// Markdown table and the machine's load average.
//   node tests/web/frametime.mjs
import { loadavg, cpus } from 'node:os';
import { SAMPLES, startServer, launchBrowser, openViewer } from './lib.mjs';

const cases = [
  ['$DD89A110', ['hull']],
  ['$DD89A110', ['hull', 'cells']],
  ['$DD89A110', ['hull', 'cells', 'cell-spheres', 'tri-spheres', 'failures']],
  ['CollisionSet_Tutorial', ['hull']],
];
const server = await startServer([SAMPLES]);
const browser = await launchBrowser();
const rows = [];
const load = [loadavg()[0]];
try {
  for (const [name, layers] of cases) {
    const page = await openViewer(browser, server.url, name);
    for (const l of ['hull', 'cells', 'cell-spheres', 'tri-spheres', 'failures']) {
      await page.evaluate(([n, on]) => window.sylcol.setLayer(n, on), [l, layers.includes(l)]);
    }
    const m = await page.evaluate(() => window.sylcol.measure(5000));
    rows.push(`| ${name} | ${layers.join(', ')} | ${m.frame_ms.toFixed(1)} ms | ${m.fps.toFixed(1)} |`);
    await page.close();
  }
  load.push(loadavg()[0]);
} finally {
  await browser.close();
  await server.stop();
}
console.log('| object | layers | frame time | fps |\n|---|---|---|---|');
console.log(rows.join('\n'));
console.log(`\n${cpus().length} cores, load average ${load.map((l) => l.toFixed(1)).join(' -> ')}`);
