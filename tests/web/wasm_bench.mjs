// The wasm benchmark (not a test: it prints, never asserts a time):
// sylcol.html in headless Chromium against the same code natively
// (crates/sylcol-wasm/examples/native_bench.rs, built with the page's own
// profile), on samples/MiscBin.pak + .p00:
// - open + verify: the module's Page.open() and Page.verify() over the
//   dropped files, the median of 7 drops (the files' reading and the
//   first object's drawing left out), against Session::open + verify;
// - rays per second through the largest map's collider on one thread
//   (Page.castRays, the same 100 000 rays as natively), and through the
//   API's query lines (`POST /api/query`, 10 000 `ray` lines a request:
//   parsing and JSON included);
// - the size of target/sylcol.html, raw and gzipped.
//
//   cargo html && node tests/web/wasm_bench.mjs
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { ROOT, launchBrowser } from './lib.mjs';

const HTML = process.env.SYLCOL_HTML || join(ROOT, 'target/sylcol.html');
const FILES = ['MiscBin.pak', 'MiscBin.p00'].map((f) => join(ROOT, 'samples', f));
const RAYS = join(ROOT, 'target/bench-rays.bin');

const native = JSON.parse(execFileSync('cargo', [
  'run', '--quiet', '--profile', 'wasm', '-p', 'sylcol-wasm', '--example', 'native_bench', '--', RAYS, ...FILES,
], { cwd: ROOT, encoding: 'utf8' }));

const browser = await launchBrowser();
const page = await browser.newPage();
await page.goto(pathToFileURL(HTML).href);
await page.waitForFunction(() => window.sylcol && document.querySelector('#status').textContent.startsWith('drop'));
const opens = [];
for (let i = 0; i < 7; i++) {
  await page.evaluate(() => { document.body.dataset.opened = ''; });
  await page.setInputFiles('#file-input', FILES);
  await page.waitForFunction(() => document.body.dataset.opened);
  const ms = await page.evaluate(() => window.sylcolFiles.ms);
  opens.push(ms.open + ms.verify);
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
const rays = readFileSync(RAYS);
const wasm = await page.evaluate(async ([name, b64]) => {
  const bin = atob(b64);
  const f = new Float32Array(bin.length / 4);
  new Uint8Array(f.buffer).set(Uint8Array.from(bin, (c) => c.charCodeAt(0)));
  // The module's Page, reached as wasm.js made it.
  const ask = (m, u, b) => window.SylcolBackend.request(m, u, b);
  const timings = [];
  let hits = 0;
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    const out = await window.SylcolBackend.castRays(name, f);
    timings.push(performance.now() - t0);
    hits = 0;
    for (let k = 1; k < out.length; k += 2) if (out[k] >= 0) hits++;
  }
  const lines = [];
  for (let k = 0; k < 10_000; k++) {
    const r = f.subarray(6 * k, 6 * k + 6);
    lines.push(`ray ${r[0]},${r[1]},${r[2]} ${r[3]},${r[4]},${r[5]}`);
  }
  const apiTimes = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const r = await ask('POST', '/api/query', JSON.stringify({ object: name, queries: lines }));
    JSON.parse(new TextDecoder().decode(r.body));
    apiTimes.push(performance.now() - t0);
  }
  const med = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
  return { cast_ms: med(timings), api_ms: med(apiTimes), hits, n: f.length / 6 };
}, [native.map, rays.toString('base64')]);
await browser.close();

const html = readFileSync(HTML);
const wasmOpen = median(opens);
const wasmRays = (wasm.n / wasm.cast_ms) * 1e3;
console.log(JSON.stringify({ native, wasm: { open_verify_ms: wasmOpen, rays_per_s: wasmRays, api_rays_per_s: (10_000 / wasm.api_ms) * 1e3, hits: wasm.hits } }));
console.log(`| what | wasm (Chromium) | native | ratio |
|---|---|---|---|
| open + verify, MiscBin.pak + .p00 | ${wasmOpen.toFixed(0)} ms | ${native.open_verify_ms.toFixed(0)} ms | ${(wasmOpen / native.open_verify_ms).toFixed(2)}x |
| rays/s, ${native.map}, 1 thread | ${(wasmRays / 1e6).toFixed(2)} M | ${(native.rays_per_s / 1e6).toFixed(2)} M | ${(native.rays_per_s / wasmRays).toFixed(2)}x |
| rays/s through the API's query lines | ${((10_000 / wasm.api_ms) * 1e3 / 1e3).toFixed(0)} k | | |
| sylcol.html | ${(html.length / 1e6).toFixed(2)} MB | ${(gzipSync(html, { level: 9 }).length / 1e6).toFixed(2)} MB gzipped | |`);
if (wasm.hits !== native.hits) console.log(`# hits differ: wasm ${wasm.hits}, native ${native.hits}`);
