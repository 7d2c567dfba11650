// The picture of sylcol.html after a drop (docs/img/sylcol-html.png): the
// page from file://, the samples given through its file input, a ray cast
// by the collider in the page. Run by screenshots.mjs when
// target/sylcol.html exists (`cargo html`), or alone:
//   node tests/web/html_screenshot.mjs [OUT_DIR]
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ROOT, SAMPLES, launchBrowser, nextFrame } from './lib.mjs';

export const HTML = join(ROOT, 'target/sylcol.html');

/** Writes sylcol-html.png into `out`; false when there is no page. */
export async function shootHtml(out) {
  if (!existsSync(HTML)) return false;
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(pathToFileURL(HTML).href);
    await page.waitForFunction(() => window.sylcol && document.querySelector('#status').textContent.startsWith('drop'));
    const files = ['MiscBin.pak', 'MiscBin.p00', 'Tables.pak', 'Tables.p00'].map((f) => join(dirname(SAMPLES), f));
    await page.setInputFiles('#file-input', files);
    await page.waitForFunction(() => document.body.dataset.loaded, null, { timeout: 120_000 });
    await page.evaluate(() => window.sylcol.setLayer('cells', true));
    await page.evaluate(() => window.sylcol.castRay([0, 0, 0], [1, 0.35, 0.2]));
    await page.waitForFunction(() => document.querySelector('#ray .body').dataset.answer);
    await nextFrame(page);
    await page.screenshot({ path: join(out, 'sylcol-html.png') });
    return true;
  } finally {
    await browser.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = resolve(process.argv[2] || join(ROOT, 'docs/img'));
  console.log((await shootHtml(out)) ? `wrote ${join(out, 'sylcol-html.png')}` : `no ${HTML}: run cargo html`);
}
