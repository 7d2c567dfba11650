// Frame times of the viewer in headless Chromium (software GL), for
// benches/README.md: the largest sample map with each set of layers, and the
// 158-part library, each orbiting at 1280 x 800, at full resolution and as
// while dragging (half resolution on a software renderer). Interleaved
// rounds of 3 s per case; per case the best and the median round of:
//   - frame: the mean time between frames (the page's own rate);
//   - cpu: CPU time Chromium's processes spent per frame (from /proc;
//     Linux only) - what a frame costs, little moved by other load;
//   - gl: one frame's draw and GL work, to a pixel read back (no page
//     compositing), and what it drew (draw calls, triangles, lines).
// Prints a Markdown table, the load average and the machine.
//   node tests/web/frametime.mjs [--rounds N] [--compare DIR]
// --compare DIR also measures the page files in DIR (index.html, app.js,
// ..., vendor/; e.g. an older viewer from git) in the same rounds.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { ROOT, SAMPLES, startServer, launchBrowser } from './lib.mjs';

const ALL = ['hull', 'cells', 'cell-spheres', 'tri-spheres', 'failures'];
const CASES = [
  ['$DD89A110', ['hull']],
  ['$DD89A110', ['hull', 'cells']],
  ['$DD89A110', ALL],
  ['CollisionSet_Tutorial', ['hull']],
];
const arg = (name, fallback) => {
  const k = process.argv.indexOf(name);
  return k > 0 ? process.argv[k + 1] : fallback;
};
const ROUNDS = Number(arg('--rounds', 3));
const compare = arg('--compare', null);

/** CPU milliseconds (user + system) of this process's Chromium children. */
function chromiumCpuMs() {
  if (!existsSync('/proc/self/stat')) return NaN;
  const parent = new Map();
  const ticks = new Map();
  for (const d of readdirSync('/proc').filter((x) => /^\d+$/.test(x))) {
    try {
      const st = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(d), Number(f[1]));
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('chrom')) ticks.set(Number(d), Number(f[11]) + Number(f[12]));
    } catch { /* the process ended */ }
  }
  const mine = (pid) => { for (let p = pid; p; p = parent.get(p)) if (p === process.pid) return true; return false; };
  let total = 0;
  for (const [pid, t] of ticks) if (mine(pid)) total += t;
  return total * 10; // USER_HZ = 100
}

/** Serves the page files of `dir` to `page` instead of the server's. */
async function servePageFrom(page, url, dir) {
  const types = { html: 'text/html', js: 'text/javascript', css: 'text/css' };
  await page.route((u) => u.origin === new URL(url).origin && !u.pathname.startsWith('/api/'), (r) => {
    let p = new URL(r.request().url()).pathname;
    if (p === '/') p = '/index.html';
    const file = join(dir, p);
    if (!existsSync(file)) return r.fulfill({ status: 404, body: '' });
    return r.fulfill({ contentType: types[p.split('.').pop()], body: readFileSync(file, 'utf8') });
  });
}

const server = await startServer([SAMPLES]);
const browser = await launchBrowser();
const load = [loadavg()[0]];
const viewers = compare ? [['now', null], ['compared', compare]] : [['now', null]];
const runs = [];
try {
  for (const [viewer, dir] of viewers) {
    for (const [name, layers] of CASES) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      if (dir) await servePageFrom(page, server.url, dir);
      await page.goto(`${server.url}?object=${encodeURIComponent(name)}`);
      await page.waitForFunction(() => document.body.dataset.loaded && Number(document.body.dataset.frames) > 0
        || document.body.dataset.error, null, { timeout: 60_000 });
      for (const l of ALL) await page.evaluate(([n, on]) => window.sylcol.setLayer(n, on), [l, layers.includes(l)]);
      runs.push({ viewer, name, layers, page, full: [], moving: [], gl: null });
    }
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (const run of runs) {
      await run.page.bringToFront();
      for (const mode of ['full', 'moving']) {
        const c0 = chromiumCpuMs();
        const m = await run.page.evaluate((full) => window.sylcol.measure(3000, full), mode === 'full');
        run[mode].push({ ...m, cpu: (chromiumCpuMs() - c0) / Math.max(m.frames, 1) });
      }
    }
  }
  for (const run of runs) {
    const has = await run.page.evaluate(() => typeof window.sylcol.profile === 'function');
    if (has) run.gl = await run.page.evaluate(() => window.sylcol.profile(15, true));
  }
  load.push(loadavg()[0]);
} finally {
  await browser.close();
  await server.stop();
}
const best = (xs, key) => Math.min(...xs.map((x) => x[key]));
const median = (xs, key) => xs.map((x) => x[key]).sort((a, b) => a - b)[xs.length >> 1];
const ms = (t) => (Number.isFinite(t) ? `${t.toFixed(1)}` : '-');
console.log('| viewer | object | layers | full res: frame ms best (median) | fps | cpu ms/frame | moving: frame ms best (median) | fps | gl ms | draws, triangles, lines |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of runs) {
  const label = r.layers.length === ALL.length ? 'all five' : r.layers.join(', ');
  const gl = r.gl ? `${ms(r.gl.gl_ms)}` : '-';
  const counts = r.gl ? `${r.gl.calls}, ${r.gl.triangles}, ${r.gl.lines}` : `${r.full[0].calls ?? '-'}, ${r.full[0].triangles ?? '-'}, ${r.full[0].lines ?? '-'}`;
  console.log(`| ${r.viewer} | ${r.name} | ${label} | ${ms(best(r.full, 'frame_ms'))} (${ms(median(r.full, 'frame_ms'))}) | ${(1000 / best(r.full, 'frame_ms')).toFixed(0)} `
    + `| ${ms(best(r.full, 'cpu'))} (${ms(median(r.full, 'cpu'))}) | ${ms(best(r.moving, 'frame_ms'))} (${ms(median(r.moving, 'frame_ms'))}) `
    + `| ${(1000 / best(r.moving, 'frame_ms')).toFixed(0)} | ${gl} | ${counts} |`);
}
console.log(`\n${cpus().length} cores (${cpus()[0].model}), load average ${load.map((l) => l.toFixed(1)).join(' -> ')}, ${new Date().toISOString()}`);
