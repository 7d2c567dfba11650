// `cargo xtask screenshots`: pictures of the sample maps and their layers,
// the library and the viewer, into docs/img/ (run by xtask, which builds
// sylcol and installs the npm packages first). Usage:
//   node tests/web/screenshots.mjs OUT_DIR
import { mkdirSync, mkdtempSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { SAMPLES, startServer, launchBrowser, openViewer, nextFrame, holedMap } from './lib.mjs';
import { shootHtml } from './html_screenshot.mjs';

const out = resolve(process.argv[2] || 'docs/img');
mkdirSync(out, { recursive: true });

// A map with a hole: what the failures layer and the verify panel show.
const work = mkdtempSync(join(tmpdir(), 'sylcol-shots-'));
const holed = holedMap(work);

const server = await startServer([SAMPLES, holed.mcol]);
const browser = await launchBrowser();
const shots = [];
async function shoot(page, file, { layers = ['hull'], view, canvasOnly = true } = {}) {
  for (const l of ['hull', 'cells', 'cell-spheres', 'tri-spheres', 'failures']) {
    await page.evaluate(([name, on]) => window.sylcol.setLayer(name, on), [l, layers.includes(l)]);
  }
  if (view) await page.evaluate((v) => window.sylcol.view(v), view);
  await nextFrame(page);
  const target = canvasOnly ? page.locator('#canvas') : page;
  await target.screenshot({ path: join(out, file) });
  shots.push(file);
}
try {
  const objects = await (await fetch(`${server.url}api/objects`)).json();
  const maps = objects.filter((o) => o.kind === 'map' && o.name !== 'holed');
  const page = await openViewer(browser, server.url, '$DC4B0896');
  await page.setViewportSize({ width: 1280, height: 800 });
  // The whole page: a picked triangle with the cells that list it, a ray.
  await page.evaluate(() => window.sylcol.setLayer('cells', true));
  const c = await page.evaluate(() => window.sylcol.triangleCentroid(300));
  await page.mouse.click(c.x, c.y);
  await page.evaluate(() => window.sylcol.castRay([0, 0, 0], [1, 0.35, 0.2]));
  await page.waitForFunction(() => document.querySelector('#ray .body').dataset.answer);
  await nextFrame(page);
  await page.screenshot({ path: join(out, 'viewer.png') });
  shots.push('viewer.png');
  // Every map: hull and cells.
  for (const m of maps) {
    await page.evaluate((n) => window.sylcol.show(n), m.name);
    await shoot(page, `map-${m.name.replace('$', '').toLowerCase()}.png`, { layers: ['hull', 'cells'] });
  }
  await page.evaluate(() => window.sylcol.show('$DC4B0896'));
  await shoot(page, 'layer-tri-spheres.png', { layers: ['hull', 'tri-spheres'] });
  await shoot(page, 'layer-cell-spheres.png', { layers: ['hull', 'cell-spheres'] });
  await page.evaluate(() => window.sylcol.show('holed'));
  await shoot(page, 'layer-failures.png', { layers: ['hull', 'failures'], view: [1, 0.2, 0.3] });
  await page.evaluate(() => window.sylcol.show('CollisionSet_Tutorial'));
  await shoot(page, 'library.png', { layers: ['hull'], view: [0.2, 1, 0.6] });
  await page.evaluate(() => window.sylcol.focusFamily('rou_'));
  await shoot(page, 'library-rou.png', { layers: ['hull'], view: [0.3, 0.8, 0.9] });
} finally {
  await browser.close();
  await server.stop();
}
// sylcol.html after a drop, when `cargo html` has built it.
if (await shootHtml(out)) shots.push('sylcol-html.png');
console.log(`wrote ${shots.length} pictures to ${out}: ${shots.join(', ')}`);
