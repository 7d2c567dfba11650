// What a frame of the viewer draws (renderer.info, read back from the
// page): each shared cell edge once, one outline per sphere whose
// segments follow its size on screen, the library in a draw call or
// two at its level of detail, nothing drawn while nothing changes, and
// a wheel zoom drawn at half resolution until it stops.
// Counts only: frame times are printed by viewer.test.mjs, never asserted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { SAMPLES, sylcol, startServer, launchBrowser, openViewer } from './lib.mjs';

const MAP = '$DD89A110';
const LAYERS = ['hull', 'cells', 'cell-spheres', 'tri-spheres', 'failures'];
let browser, server;
before(async () => {
  browser = await launchBrowser();
  server = await startServer([SAMPLES]);
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** The extras of the map's exported layers, from `sylcol export`. */
function layerExtras(layer) {
  const out = join(mkdtempSync(join(tmpdir(), 'sylcol-draw-')), 'map.gltf');
  sylcol(['export', `${SAMPLES}+${MAP}`, '-o', out, '--layers', layer]);
  const doc = JSON.parse(readFileSync(out, 'utf8'));
  return doc.nodes.find((n) => n.extras && n.extras.sylcol_layer === layer).extras;
}

async function only(page, layers) {
  for (const l of LAYERS) await page.evaluate(([n, on]) => window.sylcol.setLayer(n, on), [l, layers.includes(l)]);
  return page.evaluate(() => window.sylcol.profile(1));
}

test('cells: every edge shared by neighbouring cells is drawn once', async () => {
  const { lists } = layerExtras('cells');
  const edges = new Set();
  for (const { cell: [x, y, z] } of lists) {
    for (const [axis, dx, dy, dz] of [[0, 0, 1, 1], [1, 1, 0, 1], [2, 1, 1, 0]]) {
      for (let a = 0; a < 2; a++) for (let b = 0; b < 2; b++) {
        const at = axis === 0 ? [x, y + a * dy, z + b * dz] : axis === 1 ? [x + a * dx, y, z + b * dz] : [x + a * dx, y + b * dy, z];
        edges.add(`${axis} ${at}`);
      }
    }
  }
  const page = await openViewer(browser, server.url, MAP);
  const drawn = await only(page, ['cells']);
  assert.equal(drawn.calls, 1);
  assert.equal(drawn.lines, edges.size, `${lists.length} cells have ${edges.size} distinct edges`);
  assert.ok(edges.size < 12 * lists.length);
  await page.close();
});

test('spheres: one outline each, from 8 segments far away to 64 close up', async () => {
  const { spheres } = layerExtras('tri-spheres');
  const page = await openViewer(browser, server.url, MAP);
  const near = await only(page, ['tri-spheres']);
  assert.equal(near.calls, 1, 'the layer is one draw call');
  assert.ok(near.lines >= 8 * spheres && near.lines <= 64 * spheres, `${near.lines} segments for ${spheres} spheres`);
  // From 20 times as far every sphere is a few pixels across: an octagon.
  await page.evaluate(() => window.sylcol.zoom(20));
  const far = await page.evaluate(() => window.sylcol.profile(1));
  assert.equal(far.lines, 8 * spheres);
  assert.ok(near.lines > far.lines, 'spheres larger on screen get more segments');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('library: a draw call per side drawn, parts at their level of detail', async () => {
  const [info] = JSON.parse(sylcol(['info', `${SAMPLES}+CollisionSet_Tutorial.bin`, '--json'])).objects;
  const total = info.meshes.reduce((n, m) => n + m.triangles, 0);
  const page = await openViewer(browser, server.url, 'CollisionSet_Tutorial');
  const whole = await page.evaluate(() => window.sylcol.profile(1));
  assert.ok(whole.calls >= 1 && whole.calls <= 3, `${whole.calls} draw calls`);
  assert.ok(whole.triangles > 0 && whole.triangles < total / 2, `${whole.triangles} of ${total} triangles drawn`);
  // Close to one part: it is drawn whole, most others are out of view.
  const part = info.meshes.find((m) => m.name === 'rou_e101_bdy_cmesh');
  await page.evaluate((p) => window.sylcol.focusPart(p), part.name);
  const close = await page.evaluate(() => window.sylcol.profile(1));
  assert.ok(close.triangles >= part.triangles, `${close.triangles} drawn, the part has ${part.triangles}`);
  assert.ok(close.triangles < whole.triangles);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('nothing runs while nothing changes: no animation frame is asked for', async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // Counts the page's own requests for an animation frame.
  await page.addInitScript(() => {
    const raf = window.requestAnimationFrame.bind(window);
    window.rafAsked = 0;
    window.requestAnimationFrame = (f) => { window.rafAsked++; return raf(f); };
  });
  await page.goto(`${server.url}?object=${encodeURIComponent(MAP)}`);
  await page.waitForFunction(() => document.body.dataset.loaded && Number(document.body.dataset.frames) > 0, null, { timeout: 60_000 });
  await page.waitForTimeout(300);
  const state = () => page.evaluate(() => [window.rafAsked, Number(document.body.dataset.frames)]);
  const [asked, frames] = await state();
  await page.waitForTimeout(500);
  assert.deepEqual(await state(), [asked, frames], 'idle: no frame asked for, none drawn');
  await page.evaluate(() => window.sylcol.setLayer('cells', true));
  await page.waitForTimeout(300);
  assert.deepEqual(await state(), [asked + 1, frames + 1], 'one change: one frame');
  await page.close();
});

test('a wheel zoom draws at half resolution, then once at full resolution', async () => {
  const page = await openViewer(browser, server.url, MAP);
  const full = await page.evaluate(() => document.getElementById('canvas').width);
  // Every drawing-buffer width the canvas takes from now on.
  await page.evaluate(() => {
    const c = document.getElementById('canvas');
    window.widths = [];
    new MutationObserver(() => window.widths.push(c.width)).observe(c, { attributes: true, attributeFilter: ['width'] });
  });
  const box = await page.locator('#canvas').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  for (let i = 0; i < 3; i++) await page.mouse.wheel(0, -120);
  await page.waitForFunction((w) => window.widths.length > 0 && window.widths.at(-1) === w, full, { timeout: 10_000 });
  const widths = await page.evaluate(() => window.widths);
  assert.deepEqual([...new Set(widths)], [full / 2, full], `drawing-buffer widths while zooming, then after: ${widths}`);
  assert.deepEqual(page.errors, []);
  await page.close();
});
