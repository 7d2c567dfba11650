// sylcol.html (`cargo html`: the viewer with sylcol compiled to
// WebAssembly inside) opened from file:// in headless Chromium: the sample
// archives given through the file input are listed, verified, exported
// and queried in the page exactly as the `sylcol` command line does it in
// the files' own folder; damaged files give the command line's errors and
// leave the page usable; no request leaves the page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, SAMPLES, SYLCOL, launchBrowser } from './lib.mjs';

const HTML = process.env.SYLCOL_HTML || join(ROOT, 'target/sylcol.html');
const SAMPLE_FILES = ['MiscBin.pak', 'MiscBin.p00', 'Tables.pak', 'Tables.p00'];

/** Runs sylcol in `cwd`: {status, stdout, stderr} whatever the exit. */
function run(args, cwd) {
  const r = spawnSync(SYLCOL, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.error) throw r.error;
  return r;
}

/** `sylcol verify --json FILES` in `cwd`, as parsed JSON. */
function cliVerify(files, cwd) {
  const r = run(['verify', '--json', ...files], cwd);
  assert.ok(r.status !== null && r.stdout, `verify printed nothing: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** A folder holding copies of the samples and the names `names harvest`
 *  finds in them (names.txt, beside the archives). */
function sampleFolder() {
  const dir = mkdtempSync(join(tmpdir(), 'sylcol-html-'));
  for (const f of SAMPLE_FILES) copyFileSync(join(dirname(SAMPLES), f), join(dir, f));
  const r = run(['names', 'harvest', dir, '-o', join(dir, 'names.txt')], dir);
  assert.equal(r.status, 0, r.stderr);
  return dir;
}

let browser, page, dir, cli;
const requests = [];

/** Gives `files` (paths) to the page's file input and waits for the walk
 *  and, when any object is shown, for the first to be drawn. */
async function give(files) {
  await page.evaluate(() => { document.body.dataset.opened = ''; document.body.dataset.loaded = ''; });
  await page.setInputFiles('#file-input', files);
  await page.waitForFunction(() => document.body.dataset.opened, null, { timeout: 120_000 });
  const shown = Number(await page.evaluate(() => document.body.dataset.opened));
  if (shown > 0) {
    await page.waitForFunction(() => document.body.dataset.loaded || document.body.dataset.error, null, { timeout: 120_000 });
  }
  return page.evaluate(() => window.sylcolFiles);
}

async function forget() {
  await page.click('#forget');
  await page.waitForFunction(() => !document.querySelector('#files .body').textContent);
}

before(async () => {
  assert.ok(existsSync(HTML), `${HTML} is missing: build it with \`cargo html\``);
  dir = sampleFolder();
  cli = cliVerify(['MiscBin.pak', 'Tables.pak'], dir);
  browser = await launchBrowser();
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(pathToFileURL(HTML).href);
  await page.waitForFunction(() => window.sylcol && document.querySelector('#status').textContent.startsWith('drop'));
  const t0 = Date.now();
  const files = await give([...SAMPLE_FILES, 'names.txt'].map((f) => join(dir, f)));
  const ms = Date.now() - t0;
  console.log(`# drop to every object verified: ${ms} ms in all (in the module: read ${files.ms.read.toFixed(0)} ms, open ${files.ms.open.toFixed(0)} ms, verify ${files.ms.verify.toFixed(0)} ms)`);
});
after(async () => { await browser?.close(); });

test('the verify run over the dropped files is `sylcol verify --json` over them, names.txt included', async () => {
  const { run: pageRun } = await page.evaluate(() => window.sylcolFiles);
  assert.deepEqual(pageRun, cli);
  assert.ok(cli.objects.length >= 30 && cli.ok, 'the samples verify');
  assert.ok(cli.objects.some((o) => /\.rgn$/.test(o.path)), 'names.txt names the REGN entries');
  const shown = await page.evaluate(() => document.querySelector('#files .body').textContent);
  // The page's count line is the CLI's last line, distinct contents too.
  const text = run(['verify', 'MiscBin.pak', 'Tables.pak'], dir).stdout.trim().split('\n');
  const last = text[text.length - 1];
  assert.match(last, new RegExp(`^${cli.objects.length} object\\(s\\) verified: ${cli.objects.length} ok, 0 failed, 0 unreadable \\(\\d+ distinct contents\\)$`));
  assert.ok(shown.includes(last), `${shown} lacks ${last}`);
});

test('every map, library and REGN is listed under the name the CLI gives it, and verified as the CLI verifies it', async () => {
  const objects = await page.evaluate(() => window.sylcol.api.objects());
  const listed = await page.evaluate(() => [...document.querySelectorAll('#objects li')].map((li) => li.dataset.name));
  assert.deepEqual(listed, objects.map((o) => o.name));
  const wanted = cli.objects.filter((o) => ['MCOL', 'CollisionSet', 'REGN'].includes(o.format)).map((o) => o.path);
  assert.deepEqual(objects.flatMap((o) => [o.path, ...o.aliases]).sort(), [...wanted].sort());
  // Eleven map entries, one of them an alias ($E084C13C holds the bytes
  // of mapmesh_box_500km).
  assert.equal(objects.filter((o) => o.kind === 'map').flatMap((o) => [o.path, ...o.aliases]).length, 11);
  // Each REGN entry is a point cloud.
  const clouds = objects.filter((o) => o.kind === 'points').flatMap((o) => [o.path, ...o.aliases]);
  assert.deepEqual(clouds.sort(), cli.objects.filter((o) => o.format === 'REGN').map((o) => o.path).sort());
  for (const o of objects) {
    // The object's name is its entry's name up to the first dot, as
    // `sylcol export` names the scene (sylcol::export::object_name),
    // then ~2 for a second object of that name (a map and its REGN).
    const last = o.path.split(/[/\\+]/).pop();
    assert.equal(o.name.replace(/~\d+$/, ''), last.split('.')[0] || last, o.path);
    const v = await page.evaluate((n) => window.sylcol.api.verify(n), o.name);
    const { name, flagged, ...report } = v;
    assert.equal(name, o.name);
    assert.deepEqual(report, cli.objects.find((c) => c.path === o.path), o.path);
  }
});

/** The sample maps, largest first (by triangles). */
async function maps() {
  const objects = await page.evaluate(() => window.sylcol.api.objects());
  return objects.filter((o) => o.kind === 'map').sort((a, b) => b.info.triangles - a.info.triangles);
}

/** Clicks download button `what` of the object shown; the saved bytes. */
async function download(what) {
  const [d] = await Promise.all([page.waitForEvent('download'), page.click(`#downloads button[data-download="${what}"]`)]);
  return readFileSync(await d.path());
}

async function showObject(name) {
  await page.evaluate((n) => window.sylcol.show(n), name);
  await page.waitForFunction((n) => document.body.dataset.loaded === n, name);
}

test('downloads equal `sylcol export` byte for byte: GLB with every layer, OBJ, and the verify JSON', async () => {
  const objects = await page.evaluate(() => window.sylcol.api.objects());
  for (const o of [(await maps())[0], objects.find((x) => x.kind === 'library')]) {
    await showObject(o.name);
    const glb = await download('glb');
    assert.equal(run(['export', o.path, '-o', 'x.glb', '--layers', 'all'], dir).status, 0);
    assert.ok(glb.equals(readFileSync(join(dir, 'x.glb'))), `${o.name}: the GLB differs from sylcol export`);
    if (o.kind === 'map') {
      const obj = await download('obj');
      assert.equal(run(['export', o.path, '-o', 'x.obj'], dir).status, 0);
      assert.ok(obj.equals(readFileSync(join(dir, 'x.obj'))), `${o.name}: the OBJ differs`);
    }
    // The object's row of `sylcol verify --json` over it and the entries
    // that share its bytes (the library's 17 other names), which its
    // `shares_content_with` lists.
    const v = JSON.parse(await download('verify'));
    assert.deepEqual(v, cliVerify([o.path, ...o.aliases], dir).objects[0]);
    assert.deepEqual(v.shares_content_with, o.aliases);
  }
});

test('a REGN is drawn as its points, with the axes and scale bar, its view kept in the hash', async () => {
  const objects = await page.evaluate(() => window.sylcol.api.objects());
  const cloud = objects.find((o) => o.kind === 'points' && o.path.endsWith('+mapmesh_box_500km.rgn'));
  const ply = run(['export', cloud.path, '-o', 'x.ply'], dir);
  assert.equal(ply.status, 0, ply.stderr);
  const vertices = Number(/element vertex (\d+)/.exec(readFileSync(join(dir, 'x.ply'), 'utf8'))[1]);
  await showObject(cloud.name);
  assert.equal(await page.locator('#status').textContent(), `${cloud.name}: ${vertices} points`);
  assert.equal(await page.locator('#axes line').count(), 3);
  assert.match(await page.locator('#scale').textContent(), /^[\d\u2009.]+ units$/);
  await page.waitForFunction(() => location.hash === window.sylcol.viewHash());
  const kept = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
  assert.deepEqual([kept.get('object'), kept.get('layers')], [cloud.name, 'points']);
  assert.equal(kept.get('camera').split(',').length, 6);
  assert.deepEqual(page.errors, []);
});

/** A seeded generator of floats in [0, 1). */
function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

test('1 000 random rays, and inside / closest / sphere queries, answered in the page as `sylcol query ... batch` answers them', async () => {
  for (const o of (await maps()).slice(0, 3)) {
    const { name } = o;
    const [lo, hi] = [o.info.bbox_min, o.info.bbox_max];
    const rnd = random(37);
    const f32 = (x) => String(Math.fround(x));
    const point = (grow) => [0, 1, 2].map((k) => f32(lo[k] - grow * (hi[k] - lo[k]) + (1 + 2 * grow) * (hi[k] - lo[k]) * rnd()));
    const dir3 = () => [0, 1, 2].map(() => f32(2 * rnd() - 1));
    const lines = [];
    for (let i = 0; i < 1000; i++) lines.push(`ray ${point(0.2).join(',')} ${dir3().join(',')}`);
    for (let i = 0; i < 100; i++) lines.push(`inside ${point(0.1).join(',')}`);
    for (let i = 0; i < 100; i++) lines.push(`closest ${point(0.3).join(',')}`);
    const r = 0.02 * Math.max(...[0, 1, 2].map((k) => hi[k] - lo[k]));
    for (let i = 0; i < 100; i++) lines.push(`sphere ${point(0.1).join(',')} ${f32(r * rnd())} ${dir3().map((x) => f32(x * r * 20)).join(',')}`);
    writeFileSync(join(dir, 'q.txt'), `${lines.join('\n')}\n`);
    const cliRun = run(['query', o.path, 'batch', 'q.txt'], dir);
    assert.equal(cliRun.status, 0, cliRun.stderr);
    const want = cliRun.stdout.trim().split('\n').map((l) => JSON.parse(l));
    const got = await page.evaluate(async ([n, qs]) => {
      const r = await window.SylcolBackend.request('POST', '/api/query', JSON.stringify({ object: n, queries: qs }));
      return JSON.parse(new TextDecoder().decode(r.body));
    }, [name, lines]);
    assert.equal(got.length, lines.length);
    assert.deepEqual(got, want, name);
    assert.ok(want.filter((a) => a.query === 'ray' && a.hit).length > 100, 'many rays hit');
  }
});

test('the ray tool is answered by the collider in the page, with the cells its walk visited', async () => {
  const { name, path } = (await maps())[1];
  await showObject(name);
  await page.evaluate(() => window.sylcol.castRay([0, 0, 0], [1, 0.1, 0.2]));
  await page.waitForFunction(() => document.querySelector('#ray .body').dataset.answer);
  const answer = await page.evaluate(() => JSON.parse(document.querySelector('#ray .body').dataset.answer));
  const want = JSON.parse(run(['query', path, '--json', 'ray', '--origin', '0,0,0', '--dir', '1,0.1,0.2'], dir).stdout);
  const { cells, ...rest } = answer;
  assert.deepEqual(rest, want);
  assert.ok(cells.length > 0);
  assert.match(await page.locator('#ray .body').textContent(), /grid walk/);
});

/** Drops `files` (paths) on a page that has forgotten the samples; checks
 *  the run equals `sylcol verify --json NAMES` in `cwd` and the errors are
 *  shown; then the samples again, to show the page still works. */
async function damaged(files, cwd) {
  await forget();
  const { run: pageRun } = await give(files);
  const want = cliVerify(files.map((f) => f.split('/').pop()).filter((f) => !/\.p\d\d$/.test(f)), cwd);
  assert.ok(want.errors.length > 0, 'the CLI reports an error');
  assert.deepEqual(pageRun, want);
  const shown = await page.evaluate(() => JSON.parse(document.querySelector('#files .body').dataset.errors));
  assert.deepEqual(shown, want.errors.map((e) => e.message));
  await forget();
  await give([...SAMPLE_FILES, 'names.txt'].map((f) => join(dir, f)));
  const loaded = await page.evaluate(() => document.body.dataset.loaded);
  assert.ok(loaded, 'after the damaged file the samples open again');
  return want;
}

test('a truncated MCOL gives the CLI\'s error, and the page stays usable', async () => {
  const bad = mkdtempSync(join(tmpdir(), 'sylcol-html-bad-'));
  assert.equal(run(['pak', 'extract', join(dir, 'MiscBin.pak'), '-o', bad], dir).status, 0);
  const whole = readFileSync(join(bad, (await maps())[0].path.split('+')[1]));
  writeFileSync(join(bad, 'truncated.MCOL'), whole.subarray(0, whole.length >> 1));
  const want = await damaged([join(bad, 'truncated.MCOL')], bad);
  assert.match(want.errors[0].message, /^truncated\.MCOL: /);
});

test('a .pak without its .p00 gives the CLI\'s one error counting the entries, and the page stays usable', async () => {
  const bad = mkdtempSync(join(tmpdir(), 'sylcol-html-pak-'));
  copyFileSync(join(dir, 'MiscBin.pak'), join(bad, 'MiscBin.pak'));
  const want = await damaged([join(bad, 'MiscBin.pak')], bad);
  assert.equal(want.errors.length, 1);
  assert.match(want.errors[0].message, /part file MiscBin\.p00 is missing beside it: all 40 entries/);
});

test('a random 10 MB file gives the CLI\'s error, and the page stays usable', async () => {
  const bad = mkdtempSync(join(tmpdir(), 'sylcol-html-random-'));
  const rnd = random(10);
  const bytes = Buffer.alloc(10 << 20);
  for (let i = 0; i < bytes.length; i += 4) bytes.writeUInt32LE((rnd() * 2 ** 32) >>> 0, i);
  writeFileSync(join(bad, 'random.bin'), bytes);
  await damaged([join(bad, 'random.bin')], bad);
});

test('no request leaves the page, and no script error', () => {
  const page0 = pathToFileURL(HTML).href;
  const foreign = requests.filter((u) => u !== page0 && !u.startsWith('blob:') && !u.startsWith('data:'));
  assert.deepEqual(foreign, []);
  assert.deepEqual(page.errors, []);
});
