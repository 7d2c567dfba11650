// The viewer in a real browser (Debian's headless Chromium, driven by
// playwright-core): `sylcol serve` and a `sylcol view` file, each loaded,
// screenshot, clicked, ray-cast and layer-toggled; answers are compared
// with the `sylcol` command line. Frame times are printed, not asserted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import {
  SAMPLES, sylcol, startServer, launchBrowser, openViewer, nextFrame, canvasPixels, changedCells, visibleTriangle, holedMap,
} from './lib.mjs';

const MAP = '$DD89A110'; // the largest sample map
const MAP_FILE = `${SAMPLES}+${MAP}`;
let browser;
before(async () => { browser = await launchBrowser(); });
after(async () => { await browser?.close(); });

/** The cells of `map` whose lists hold triangle `t`, from the exported
 *  GLB's cells layer (independent of the page). */
function cellsListing(t) {
  const dir = mkdtempSync(join(tmpdir(), 'sylcol-cells-'));
  const out = join(dir, 'cells.gltf');
  sylcol(['export', MAP_FILE, '-o', out, '--layers', 'cells']);
  const doc = JSON.parse(readFileSync(out, 'utf8'));
  const cells = doc.nodes.find((n) => n.extras && n.extras.sylcol_layer === 'cells').extras.lists;
  return cells.filter((c) => c.triangles.includes(t)).map((c) => c.cell.join(','));
}

/** The canvas is not blank: at least `share` of its pixels are drawn,
 *  and the middle of the view (where the hull is framed) is among them. */
async function checkDrawn(page, share, middle = true) {
  const shot = await canvasPixels(page);
  assert.ok(shot.differ > shot.total * share, `the canvas is nearly blank: ${shot.differ} of ${shot.total} pixels drawn`);
  const bg = shot.grid.slice(0, 3);
  const mid = (20 * 64 + 32) * 3;
  const d = [0, 1, 2].reduce((s, j) => s + Math.abs(shot.grid[mid + j] - bg[j]), 0);
  assert.ok(!middle || d > 20, `nothing drawn at the middle of the view (${shot.grid.slice(mid, mid + 3)} vs ${bg})`);
  return shot;
}

async function pickTriangle(page, file) {
  const { triangle, x, y } = await visibleTriangle(page, file);
  await page.mouse.click(x, y);
  await page.waitForFunction(() => document.querySelector('#pick .body').dataset.triangle !== undefined);
  const shown = await page.locator('#pick-index').textContent();
  assert.equal(Number(shown), triangle, 'the panel names the clicked triangle');
  return triangle;
}

async function dragRay(page) {
  await page.locator('input[name=tool][value=ray]').check();
  const box = await page.locator('#canvas').boundingBox();
  const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
  await page.evaluate(() => { document.querySelector('#ray .body').dataset.answer = ''; });
  await page.mouse.move(cx - 40, cy + 10);
  await page.mouse.down();
  await page.mouse.move(cx + 60, cy - 20, { steps: 5 });
  await page.mouse.move(cx + 160, cy - 50, { steps: 5 });
  await page.mouse.up();
  await page.waitForFunction(() => document.querySelector('#ray .body').dataset.answer, null, { timeout: 30_000 });
  const [query, answer] = await page.evaluate(() => {
    const b = document.querySelector('#ray .body');
    return [b.dataset.query, JSON.parse(b.dataset.answer)];
  });
  const m = /^ray (\S+) (\S+)$/.exec(query);
  assert.ok(m, query);
  const cli = JSON.parse(sylcol(['query', MAP_FILE, '--json', 'ray', '--origin', m[1], '--dir', m[2]]));
  return { query, answer, cli };
}

const LAYERS = ['hull', 'cells', 'cell-spheres', 'tri-spheres', 'failures'];

/** Prints (never asserts) the frame times of `page` orbiting for 3 s at
 *  full resolution and 3 s as while dragging, with what a frame draws. */
async function recordFrameTimes(t, page, what) {
  for (const full of [true, false]) {
    const m = await page.evaluate((f) => window.sylcol.measure(3000, f), full);
    t.diagnostic(`frame time ${what}, ${m.width} x ${m.height} ${full ? 'full resolution' : 'while moving'}: `
      + `${m.frame_ms.toFixed(1)} ms mean (${m.fps.toFixed(1)} fps), median ${m.median_ms.toFixed(1)} ms, 90th percentile `
      + `${m.p90_ms.toFixed(1)} ms; ${m.calls} draw calls, ${m.triangles} triangles, ${m.lines} lines`);
  }
}

async function toggleChanges(page, layer) {
  const before = await canvasPixels(page);
  await page.locator(`input[data-layer="${layer}"]`).check();
  await nextFrame(page);
  const changed = changedCells(before, await canvasPixels(page));
  assert.ok(changed > 100, `turning on ${layer} changed only ${changed} of 2560 screen cells`);
}

/** A page of another site (here another port of this machine, so no
 *  private-network rule of the browser stops it first) makes the browser
 *  POST a query to the viewer's server: as text/plain, which a page may
 *  send anywhere without asking, the server refuses it unread (403, for
 *  the page's Origin); as JSON, the browser asks first and is never told
 *  yes, so the POST is not sent at all. */
async function crossSitePostIsRefused(viewerUrl) {
  const elsewhere = createServer((_, res) => {
    res.setHeader('Content-Type', 'text/html');
    res.end('<!doctype html><title>elsewhere</title>');
  });
  await new Promise((done) => elsewhere.listen(0, '127.0.0.1', done));
  const page = await browser.newPage();
  try {
    await page.goto(`http://127.0.0.1:${elsewhere.address().port}/`);
    const target = `${viewerUrl}api/query`;
    const body = JSON.stringify({ object: MAP, queries: ['ray 0,0,0 1,0,0'] });
    const answered = page.waitForResponse((r) => r.url() === target);
    await page.evaluate(([url, b]) => fetch(url, { method: 'POST', mode: 'no-cors', body: b }), [target, body]);
    const response = await answered;
    // Playwright shows only the headers the page set (the opaque answer's
    // body is not kept): text/plain; without an Origin it would be 415.
    const sent = await response.request().allHeaders();
    assert.match(sent['content-type'], /^text\/plain/);
    assert.equal(response.status(), 403, 'a text/plain POST from another site is refused for its Origin');
    const json = await page.evaluate(([url, b]) => fetch(url, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: b,
    }).then((r) => `answered ${r.status}`, (e) => `failed: ${e.message}`), [target, body]);
    assert.match(json, /^failed/, 'a JSON POST from another site is stopped by the browser');
  } finally {
    await page.close();
    elsewhere.close();
  }
}

test('sylcol serve: load, draw, pick, ray, layers, frame time, bad requests, Ctrl-C', async (t) => {
  const server = await startServer([SAMPLES]);
  try {
    const page = await openViewer(browser, server.url, MAP);
    await checkDrawn(page, 0.05);
    const tri = await pickTriangle(page, MAP_FILE);
    const cellsText = await page.locator('#pick .body').textContent();
    for (const cell of cellsListing(tri)) {
      assert.ok(cellsText.includes(`(${cell})`), `cell ${cell} lists triangle ${tri}: ${cellsText}`);
    }
    const { answer, cli } = await dragRay(page);
    assert.equal(answer.hit, cli.hit);
    assert.ok(answer.hit, 'a ray from the middle of the arena hits its wall');
    for (const k of ['triangle', 'time_of_impact', 'point', 'normal']) {
      assert.deepEqual(answer[k], cli[k], `ray ${k}: viewer ${JSON.stringify(answer[k])}, sylcol query ${JSON.stringify(cli[k])}`);
    }
    assert.ok(answer.cells.length > 0, 'the walked cells come with the answer');
    await toggleChanges(page, 'cells');
    for (const layer of LAYERS) await page.evaluate((l) => window.sylcol.setLayer(l, true), layer);
    await recordFrameTimes(t, page, `${MAP}, every layer`);
    const lib = await openViewer(browser, server.url, 'CollisionSet_Tutorial');
    await checkDrawn(lib, 0.01, false);
    // A part of the library: the panel names the part and its triangle.
    const part = 'rou_e101_bdy_cmesh';
    await lib.evaluate((p) => window.sylcol.focusPart(p), part);
    await nextFrame(lib);
    const hit = await visibleTriangle(lib, `${SAMPLES}+CollisionSet_Tutorial.bin`, part);
    await lib.mouse.click(hit.x, hit.y);
    await lib.waitForFunction(() => document.querySelector('#pick .body').dataset.part);
    const picked = await lib.evaluate(() => ({ ...document.querySelector('#pick .body').dataset }));
    assert.deepEqual([picked.part, Number(picked.triangle)], [part, hit.triangle]);
    await lib.evaluate(() => window.sylcol.show('CollisionSet_Tutorial')); // the whole library in view
    await recordFrameTimes(t, lib, 'the library, 158 parts');
    assert.deepEqual(page.errors.concat(lib.errors), []);

    const bad = await fetch(`${server.url}api/query`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"object": 1',
    });
    assert.equal(bad.status, 400);
    assert.ok((await bad.json()).error);
    const outside = await fetch(`${server.url}..%2f..%2fCargo.toml`);
    assert.equal(outside.status, 404);
    await crossSitePostIsRefused(server.url);
  } finally {
    const exit = await server.stop();
    assert.deepEqual(exit, { code: 0, signal: null }, `Ctrl-C stops cleanly: ${server.stderr()}`);
  }
});

test('sylcol view: one offline HTML file, picking, three.js ray cast, layers', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sylcol-view-'));
  const html = join(dir, 'view.html');
  sylcol(['view', SAMPLES, '-o', html]);
  const page = await openViewer(browser, `${pathToFileURL(html).href}`, MAP);
  let requests = 0;
  page.on('request', (r) => { if (!r.url().startsWith('data:') && !r.url().startsWith('file:')) requests++; });
  await checkDrawn(page, 0.05);
  await pickTriangle(page, MAP_FILE);
  const { answer, cli } = await dragRay(page);
  assert.ok(answer.hit && cli.hit);
  assert.equal(answer.triangle, cli.triangle, 'three.js and sylcol hit the same triangle');
  const scale = Math.hypot(...cli.point);
  answer.point.forEach((p, k) => assert.ok(Math.abs(p - cli.point[k]) <= 1e-3 * scale, `point ${answer.point} vs ${cli.point}`));
  await toggleChanges(page, 'tri-spheres');
  assert.equal(requests, 0, 'the file fetches nothing');
  const loaded = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name)
    .filter((u) => !u.startsWith('data:') && !u.startsWith('file:')));
  assert.deepEqual(loaded, [], 'nor did it while loading');
  assert.deepEqual(page.errors, []);
});

test('the verify panel lists the triangles on the hole of a holed map and jumps to each', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sylcol-holed-'));
  const holed = holedMap(dir);
  assert.ok(holed.open.length > 0);
  const server = await startServer([holed.mcol]);
  try {
    const page = await openViewer(browser, server.url, 'holed');
    const box = page.locator('#verify .body');
    assert.equal(await box.getAttribute('data-ok'), 'false');
    const listed = (await page.locator('#verify button.jump[data-triangle]').evaluateAll(
      (bs) => bs.map((b) => Number(b.dataset.triangle)),
    ));
    assert.deepEqual(listed, holed.open, 'exactly the triangles on an open edge are flagged');
    const third = page.locator('#verify button.jump[data-triangle]').nth(2);
    await third.click();
    assert.equal(Number(await page.locator('#pick-index').textContent()), holed.open[2]);
    await toggleChanges(page, 'cells');
    assert.deepEqual(page.errors, []);
  } finally {
    await server.stop();
  }
});
