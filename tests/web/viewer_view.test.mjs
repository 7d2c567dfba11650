// What the viewer shows around the objects (issue 35, "The viewer"), in
// headless Chromium against `sylcol serve` and a `sylcol view` file: REGN
// point clouds, the axes and the scale bar, the library framed with its
// families, the view kept in the URL's hash, the info panel as a table in
// the dark theme, and the names harvested beside an archive.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { SAMPLES, sylcol, startServer, launchBrowser, openViewer, nextFrame, canvasPixels, changedCells } from './lib.mjs';

const MAP = '$DD89A110';
let browser, server;
before(async () => {
  browser = await launchBrowser();
  server = await startServer([SAMPLES]);
});
after(async () => {
  await server?.stop();
  await browser?.close();
});

/** The REGN entries of the sample archive, as `pak list --json` lists them. */
function regnEntries(pak = SAMPLES) {
  return JSON.parse(sylcol(['pak', 'list', pak, '--json'])).entries.filter((e) => e.magic === 'REGN');
}

/** How many vertices `sylcol export` writes for REGN `entry` (PLY header). */
function plyVertices(entry) {
  const out = join(mkdtempSync(join(tmpdir(), 'sylcol-ply-')), 'p.ply');
  sylcol(['export', `${SAMPLES}+${entry}`, '-o', out]);
  return Number(/element vertex (\d+)/.exec(readFileSync(out, 'utf8'))[1]);
}

async function drawnShare(page) {
  const shot = await canvasPixels(page);
  return shot.differ / shot.total;
}

async function pointCloudIsDrawn(page, name, vertices) {
  assert.equal(await page.evaluate(() => document.querySelector('#status').textContent), `${name}: ${vertices} points`);
  const on = await drawnShare(page);
  await page.evaluate(() => window.sylcol.setLayer('points', false));
  await nextFrame(page);
  // (The axes, scale bar and status over the canvas stay.)
  const off = await drawnShare(page);
  assert.ok(on > off + 0.002, `the points are drawn: ${on} of the canvas, ${off} without them`);
}

test('REGN objects are point clouds, served and in a view file', async () => {
  const objects = await (await fetch(`${server.url}api/objects`)).json();
  const clouds = objects.filter((o) => o.kind === 'points');
  const entries = regnEntries();
  assert.equal(clouds.flatMap((o) => [o.path, ...o.aliases]).length, entries.length, 'every REGN entry is listed');
  const box = clouds.find((o) => o.path.endsWith('+mapmesh_box_500km.rgn'));
  const vertices = plyVertices('mapmesh_box_500km.rgn');
  assert.equal(box.points, vertices);
  const page = await openViewer(browser, server.url, box.name);
  await pointCloudIsDrawn(page, box.name, vertices);
  await page.evaluate(() => window.sylcol.castRay([0, 0, 0], [1, 0, 0]));
  assert.match(await page.locator('#ray .body').textContent(), /no triangles/);
  assert.deepEqual(page.errors, []);

  const html = join(mkdtempSync(join(tmpdir(), 'sylcol-view-')), 'view.html');
  sylcol(['view', SAMPLES, '-o', html]);
  const offline = await openViewer(browser, pathToFileURL(html).href, box.name);
  await pointCloudIsDrawn(offline, box.name, vertices);
  assert.deepEqual(offline.errors, []);
});

test('the axes turn with the camera and the scale bar measures the game units', async () => {
  const page = await openViewer(browser, server.url, MAP);
  await page.evaluate(() => window.sylcol.view([0, 0, 1])); // on +z, looking down -z
  await nextFrame(page);
  const axis = (a) => page.evaluate((n) => document.querySelector(`#axes line[data-axis="${n}"]`).dataset.screen.split(',').map(Number), a);
  const near = (got, want) => got.every((v, k) => Math.abs(v - want[k]) < 1e-3);
  assert.ok(near(await axis('x'), [1, 0]), `x points right: ${await axis('x')}`);
  assert.ok(near(await axis('y'), [0, 1]), `y points up: ${await axis('y')}`);
  assert.ok(near(await axis('z'), [0, 0]), `z points at the eye: ${await axis('z')}`);
  await page.evaluate(() => window.sylcol.view([1, 0, 0]));
  await nextFrame(page);
  assert.ok(near(await axis('z'), [-1, 0]), `seen from +x, z points left: ${await axis('z')}`);

  const measure = async () => {
    const bar = await page.evaluate(() => ({ ...document.querySelector('#scale').dataset, text: document.querySelector('#scale').textContent }));
    const units = Number(bar.units), px = Number(bar.px);
    assert.match(bar.text, / units$/);
    assert.equal(Number(bar.text.replace(/[\s\u2009]|units/g, '')), units, bar.text);
    assert.ok(/^[125]0*$/.test(String(units).replace('.', '').replace(/^0+/, '')), `a round length: ${units}`);
    // The bar is as long as `units` at the orbit centre, across the screen.
    const ends = await page.evaluate((u) => {
      const t = window.sylcol.cameraTarget();
      return [window.sylcol.toScreen(t), window.sylcol.toScreen([t[0], t[1], t[2] - u])];
    }, units);
    const onScreen = Math.hypot(ends[1].x - ends[0].x, ends[1].y - ends[0].y);
    assert.ok(Math.abs(onScreen - px) < 0.01 * px, `${units} units: ${onScreen} px on screen, bar ${px} px`);
    return px / units;
  };
  const before = await measure();
  await page.evaluate(() => window.sylcol.zoom(4));
  await nextFrame(page);
  const after = await measure();
  assert.ok(Math.abs(after * 4 - before) < 1e-3 * before, `four times as far, a quarter of the pixels a unit: ${before} -> ${after}`);
  assert.deepEqual(page.errors, []);
});

test('the library opens with every family in view and labelled; each family frames', async () => {
  const page = await openViewer(browser, server.url, 'CollisionSet_Tutorial');
  const families = await page.evaluate(() => window.sylcol.families());
  for (const f of ['rou_', 'mob_', 'rob_', 'asteroid']) assert.ok(families[f], `family ${f}`);
  const canvas = await page.locator('#canvas').boundingBox();
  const projected = (f) => page.evaluate(({ min, max }) => [0, 1, 2, 3, 4, 5, 6, 7].map((i) => window.sylcol.toScreen([
    i & 1 ? max[0] : min[0], i & 2 ? max[1] : min[1], i & 4 ? max[2] : min[2]])), f);
  const inView = (pts) => pts.every((p) => p.front && p.x >= canvas.x && p.x <= canvas.x + canvas.width
    && p.y >= canvas.y && p.y <= canvas.y + canvas.height);
  for (const [name, f] of Object.entries(families)) {
    assert.ok(inView(await projected(f)), `${name} is in view when the library opens`);
  }
  const labels = await page.locator('#labels div').evaluateAll((ds) => ds.map((d) => ({ family: d.dataset.family, hidden: d.hidden, ...d.getBoundingClientRect().toJSON() })));
  assert.deepEqual(labels.map((l) => l.family).sort(), Object.keys(families).sort());
  for (const a of labels) {
    assert.ok(!a.hidden && a.left >= canvas.x && a.right <= canvas.x + canvas.width + 60, `label ${a.family} shows`);
    for (const b of labels) {
      if (a === b) continue;
      const overlap = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      assert.ok(!overlap, `labels ${a.family} and ${b.family} overlap`);
    }
  }
  // The ships: their own frame shows them large.
  for (const family of ['rou_', 'asteroid']) {
    await page.locator(`#frames button[data-frame="${family}"]`).click();
    await nextFrame(page);
    const pts = await projected(families[family]);
    assert.ok(inView(pts), `${family} framed: all of it in view`);
    const w = Math.max(...pts.map((p) => p.x)) - Math.min(...pts.map((p) => p.x));
    const h = Math.max(...pts.map((p) => p.y)) - Math.min(...pts.map((p) => p.y));
    assert.ok(w > 0.5 * canvas.width || h > 0.5 * canvas.height, `${family} framed fills the view: ${w} x ${h}`);
    assert.ok(await drawnShare(page) > 0.02, `${family} framed: its parts are drawn`);
  }
  await page.locator('#frames button[data-frame=""]').click();
  await nextFrame(page);
  assert.ok(inView(await projected(families.asteroid)) && inView(await projected(families.rou_)));
  assert.deepEqual(page.errors, []);
});

/** Waits for the page to write its current view into the hash; returns it. */
async function keptHash(page) {
  await page.waitForFunction(() => location.hash === window.sylcol.viewHash());
  return page.evaluate(() => location.hash);
}

test('the object, layers and camera are kept in the URL hash, and a shared URL opens the same view', async () => {
  const page = await openViewer(browser, server.url, MAP);
  await page.evaluate(() => { window.sylcol.setLayer('cells', true); window.sylcol.zoom(0.6); window.sylcol.view([1, 0.5, 0.2]); });
  await nextFrame(page);
  const cam = await page.evaluate(() => [...window.sylcol.cameraPosition(), ...window.sylcol.cameraTarget()]);
  const hash = await keptHash(page);
  assert.match(hash, /^#object=%24DD89A110&layers=[^&]*\bcells\b[^&]*&camera=[-\d.e,]+$/);
  const shot = await canvasPixels(page);

  const shared = await openViewer(browser, `${server.url}${hash}`);
  assert.equal(await shared.evaluate(() => document.body.dataset.loaded), MAP);
  assert.equal(await shared.locator('input[data-layer="cells"]').isChecked(), true);
  assert.equal(await shared.locator('input[data-layer="tri-spheres"]').isChecked(), false);
  const got = await shared.evaluate(() => [...window.sylcol.cameraPosition(), ...window.sylcol.cameraTarget()]);
  const scale = Math.max(...cam.map(Math.abs));
  got.forEach((v, k) => assert.ok(Math.abs(v - cam[k]) <= 1e-6 * scale, `camera ${got} vs ${cam}`));
  await nextFrame(shared);
  const same = changedCells(shot, await canvasPixels(shared));
  assert.ok(same < 30, `the shared view draws the same picture (${same} of 2560 cells differ)`);

  // A hash typed by hand switches the object; the view file reads one too.
  await shared.evaluate(() => { location.hash = '#object=CollisionSet_Tutorial&layers=hull'; });
  await shared.waitForFunction(() => document.body.dataset.loaded === 'CollisionSet_Tutorial');
  assert.equal(await shared.locator('input[data-layer="families"]').isChecked(), false);
  const html = join(mkdtempSync(join(tmpdir(), 'sylcol-view-')), 'view.html');
  sylcol(['view', SAMPLES, '-o', html]);
  const offline = await openViewer(browser, `${pathToFileURL(html).href}#object=%24DC4B0896&layers=hull,tri-spheres`);
  assert.equal(await offline.evaluate(() => document.body.dataset.loaded), '$DC4B0896');
  assert.equal(await offline.locator('input[data-layer="tri-spheres"]').isChecked(), true);
  assert.deepEqual(page.errors.concat(shared.errors, offline.errors), []);
});

/** WCAG contrast ratio of two CSS colours 'rgb(r, g, b)'. */
function contrast(a, b) {
  const lum = (c) => {
    const [r, g, bl] = c.match(/\d+(\.\d+)?/g).slice(0, 3).map((x) => Number(x) / 255)
      .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}

test('the info panel is a table, readable in the dark theme', async () => {
  const page = await openViewer(browser, server.url, MAP);
  const info = (await page.evaluate(() => window.sylcol.api.objects())).find((o) => o.name === MAP).info;
  assert.equal(await page.locator('#about pre').count(), 0, 'no raw JSON');
  const cell = (key) => page.locator(`#about table.info tr[data-key="${key}"] td`).nth(1).textContent();
  assert.equal(await cell('format'), 'MCOL');
  assert.equal(Number((await cell('triangles')).replace(/\u2009/g, '')), info.triangles);
  const look = await page.evaluate(() => {
    const bg = (el) => {
      for (let e = el; e; e = e.parentElement) {
        const c = getComputedStyle(e).backgroundColor;
        if (!/rgba\(.*, 0\)|transparent/.test(c)) return c;
      }
      return 'rgb(255, 255, 255)';
    };
    const body = document.querySelector('#about .body');
    return {
      scheme: getComputedStyle(document.documentElement).colorScheme,
      scrollbar: getComputedStyle(body).scrollbarColor,
      cells: [...document.querySelectorAll('#about td, #about summary')].map((td) => [td.textContent, getComputedStyle(td).color, bg(td)]),
    };
  });
  assert.equal(look.scheme, 'dark', 'the page asks for dark scroll bars and controls');
  assert.notEqual(look.scrollbar, 'auto');
  assert.ok(look.cells.length > 10);
  for (const [text, fg, bgc] of look.cells) assert.ok(contrast(fg, bgc) >= 4.5, `${text}: ${fg} on ${bgc}`);
  assert.deepEqual(page.errors, []);
});

test('names harvested beside the archive are the names served', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sylcol-names-'));
  for (const f of ['MiscBin.pak', 'MiscBin.p00', 'Tables.pak', 'Tables.p00']) copyFileSync(join(dirname(SAMPLES), f), join(dir, f));
  const pak = join(dir, 'MiscBin.pak');
  const before = JSON.parse(sylcol(['pak', 'list', pak, '--json'])).entries;
  sylcol(['names', 'harvest', dir]);
  const named = JSON.parse(sylcol(['pak', 'list', pak, '--json'])).entries
    .filter((e) => /^(MCOL|REGN)$/.test(e.magic) && !e.entry.startsWith('$'));
  const harvested = named.filter((e) => before.find((b) => b.hash === e.hash).entry.startsWith('$'));
  assert.ok(harvested.length >= 10, `names harvest names the map and REGN entries: ${harvested.map((e) => e.entry)}`);
  const own = await startServer([pak]);
  try {
    const page = await openViewer(browser, own.url);
    const objects = await page.evaluate(() => window.sylcol.api.objects());
    const listed = await page.locator('#objects li').evaluateAll((ls) => ls.map((l) => l.textContent));
    for (const e of harvested) {
      const o = objects.find((x) => [x.path, ...x.aliases].some((p) => p.endsWith(`+${e.entry}`)));
      assert.ok(o, `${e.entry} is served by its name`);
      assert.ok(o.name.startsWith(e.entry.split('.')[0]), `${o.name} for ${e.entry}`);
      assert.ok(listed.some((l) => l.startsWith(o.name)), `${o.name} is in the list`);
    }
    assert.deepEqual(page.errors, []);
  } finally {
    await own.stop();
  }
});
