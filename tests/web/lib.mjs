// Shared helpers of the web tests: the sylcol binary, the samples, free
// ports, a server started and stopped per test, and Chromium.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const SAMPLES = join(ROOT, 'samples/MiscBin.pak');

/** The sylcol binary: $SYLCOL_BIN, else target/debug (then release). */
export const SYLCOL = (() => {
  if (process.env.SYLCOL_BIN) return process.env.SYLCOL_BIN;
  for (const p of ['target/debug/sylcol', 'target/release/sylcol']) {
    if (existsSync(join(ROOT, p))) return join(ROOT, p);
  }
  throw new Error('build sylcol first (cargo build -p sylcol-cli) or set SYLCOL_BIN');
})();

/** Runs sylcol, returns stdout (throws on a non-zero exit). */
export function sylcol(args) {
  return execFileSync(SYLCOL, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Starts `sylcol serve ARGS --port 0`; resolves to {url, proc, stop}. */
export function startServer(args) {
  return new Promise((resolveStart, reject) => {
    const proc = spawn(SYLCOL, ['serve', ...args, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    const timer = setTimeout(() => { proc.kill(); reject(new Error(`serve did not start:\n${err}`)); }, 60_000);
    proc.stdout.on('data', (d) => {
      out += d;
      const m = /http:\/\/(127\.0\.0\.1:\d+)\//.exec(out);
      if (m) {
        clearTimeout(timer);
        const exited = new Promise((r) => proc.on('exit', (code, signal) => r({ code, signal })));
        resolveStart({
          url: `http://${m[1]}/`,
          proc,
          stderr: () => err,
          stop: async () => { proc.kill('SIGINT'); return exited; },
        });
      }
    });
    proc.stderr.on('data', (d) => { err += d; });
    proc.on('exit', (code) => { clearTimeout(timer); reject(new Error(`serve exited ${code}:\n${err}`)); });
  });
}

/** Headless Chromium from Debian, driven by playwright-core. */
export async function launchBrowser() {
  const { chromium } = await import('playwright-core');
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    ],
  });
}

/** A page of `browser` at 1280x800 with the viewer loaded from `url` and
 *  its first object drawn. */
export async function openViewer(browser, url, object) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  const target = object ? `${url}${url.includes('?') ? '&' : '?'}object=${encodeURIComponent(object)}` : url;
  await page.goto(target);
  await page.waitForFunction(() => document.body.dataset.loaded && Number(document.body.dataset.frames) > 0
    || document.body.dataset.error, null, { timeout: 60_000 });
  const error = await page.evaluate(() => document.body.dataset.error);
  if (error) throw new Error(`viewer: ${error}`);
  page.errors = errors;
  return page;
}

/** Waits two animation frames: whatever changed has been drawn (the
 *  viewer draws pending changes in its animation-frame callback). */
export async function nextFrame(page) {
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

/** Pixel statistics of a PNG screenshot of the canvas, computed in the
 *  page: how many pixels differ from the background (the top-left pixel),
 *  and the mean colour of each cell of a 64 x 40 grid. */
export async function canvasPixels(page) {
  const png = await page.locator('#canvas').screenshot();
  const stats = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width; c.height = img.height;
    const g = c.getContext('2d');
    g.drawImage(img, 0, 0);
    const d = g.getImageData(0, 0, c.width, c.height).data;
    const [W, H] = [64, 40];
    const grid = new Float64Array(W * H * 3), count = new Float64Array(W * H);
    let differ = 0;
    for (let y = 0; y < c.height; y++) {
      for (let x = 0; x < c.width; x++) {
        const i = 4 * (y * c.width + x);
        if (Math.abs(d[i] - d[0]) + Math.abs(d[i + 1] - d[1]) + Math.abs(d[i + 2] - d[2]) > 24) differ++;
        const k = Math.floor((y * H) / c.height) * W + Math.floor((x * W) / c.width);
        grid[3 * k] += d[i]; grid[3 * k + 1] += d[i + 1]; grid[3 * k + 2] += d[i + 2]; count[k]++;
      }
    }
    for (let k = 0; k < W * H; k++) for (let j = 0; j < 3; j++) grid[3 * k + j] /= Math.max(count[k], 1);
    return { differ, total: c.width * c.height, grid: Array.from(grid) };
  }, png.toString('base64'));
  return { png, ...stats };
}

/** Grid cells whose mean colour moved by more than `by` between two
 *  [`canvasPixels`] results. */
export function changedCells(a, b, by = 6) {
  let n = 0;
  for (let k = 0; k < a.grid.length; k += 3) {
    const d = Math.abs(a.grid[k] - b.grid[k]) + Math.abs(a.grid[k + 1] - b.grid[k + 1]) + Math.abs(a.grid[k + 2] - b.grid[k + 2]);
    if (d > by) n++;
  }
  return n;
}

/** A triangle of the viewer's current map (or of library part `part`)
 *  that a click at its centroid hits first, as sylcol itself sees it: the
 *  segment from the camera to just past the centroid first crosses that
 *  triangle (`sylcol query batch` over FILE, in the part's own frame).
 *  Returns {triangle, x, y}. */
export async function visibleTriangle(page, file, part) {
  const cam = await page.evaluate(() => window.sylcol.cameraPosition());
  const off = part ? await page.evaluate((p) => window.sylcol.partOffset(p), part) : [0, 0, 0];
  const n = await page.evaluate((p) => window.sylcol.triangleCount(p), part);
  const step = Math.max(1, Math.floor(n / 60));
  const all = await page.evaluate(([k, s, p]) => {
    const out = [];
    for (let t = 0; t < k; t += s) out.push([t, window.sylcol.triangleCentroid(t, p)]);
    return out;
  }, [n, step, part]);
  const local = (w) => w.map((x, k) => x - off[k]);
  const candidates = [];
  for (const [t, c] of all) {
    if (!c.visible) continue;
    const past = c.world.map((w, k) => w + (w - cam[k]) * 1e-3);
    candidates.push({ t, c, line: `segment ${local(cam).join(',')} ${local(past).join(',')}` });
  }
  const dir = mkdtempSync(join(tmpdir(), 'sylcol-pick-'));
  writeFileSync(join(dir, 'q.txt'), candidates.map((c) => c.line).join('\n'));
  const args = ['query', file, ...(part ? ['--mesh', part] : []), 'batch', join(dir, 'q.txt')];
  const answers = sylcol(args).trim().split('\n').map((l) => JSON.parse(l));
  const k = answers.findIndex((a, i) => a.hit && a.triangle === candidates[i].t);
  if (k < 0) throw new Error('no triangle is visible first at its centroid');
  return { triangle: candidates[k].t, x: candidates[k].c.x, y: candidates[k].c.y };
}

/** A map with a hole: $DC4B0896 with 30 of its triangles taken out,
 *  built back on its own grid into `dir`. Returns the MCOL path and the
 *  triangles (in the built map's order) that sit on an open edge, counted
 *  here from the OBJ itself. */
export function holedMap(dir) {
  const source = `${SAMPLES}+$DC4B0896`;
  sylcol(['export', source, '-o', join(dir, 'whole.obj')]);
  let face = 0;
  const lines = readFileSync(join(dir, 'whole.obj'), 'utf8').split('\n')
    .filter((l) => !l.startsWith('f ') || (face++ < 100 || face > 130));
  writeFileSync(join(dir, 'holed.obj'), lines.join('\n'));
  sylcol(['build', 'mcol', join(dir, 'holed.obj'), '--grid-from', source, '--allow-open', '-o', join(dir, 'holed.mcol')]);
  const faces = lines.filter((l) => l.startsWith('f ')).map((l) => l.split(' ').slice(1).map(Number));
  const uses = new Map();
  const key = (a, b) => (a < b ? `${a} ${b}` : `${b} ${a}`);
  for (const f of faces) for (let k = 0; k < 3; k++) {
    const e = key(f[k], f[(k + 1) % 3]);
    uses.set(e, (uses.get(e) || 0) + 1);
  }
  const open = faces.flatMap((f, t) => ([0, 1, 2].some((k) => uses.get(key(f[k], f[(k + 1) % 3])) !== 2) ? [t] : []));
  return { mcol: join(dir, 'holed.mcol'), open };
}
