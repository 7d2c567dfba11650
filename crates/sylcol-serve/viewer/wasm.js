// sylcol.html's back end: sylcol compiled to WebAssembly (crates/sylcol-wasm)
// answers the viewer's JSON API inside the page, over the files the user
// drops or picks; nothing they hold leaves the page. A classic script run
// before app.js, over the globals `wasm_bindgen` (the module's glue, built
// by wasm-bindgen --target no-modules) and the module itself, base64 in
// the element #sylcol-wasm. It sets window.SylcolBackend, which app.js
// asks as it would ask the server.
(() => {
  'use strict';
  const $ = (sel) => document.querySelector(sel);
  const fromBase64 = (b64) => {
    const bin = atob(b64.trim());
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  };
  // The module, compiled from the bytes in the page (no request).
  const ready = (async () => {
    await wasm_bindgen({ module_or_path: fromBase64($('#sylcol-wasm').textContent) });
    return new wasm_bindgen.Page();
  })();

  window.SylcolBackend = {
    kind: 'wasm',
    emptyText: 'drop MiscBin.pak and MiscBin.p00 (or any sylcol file) here',
    request: async (method, url, body) => {
      const page = await ready;
      const bytes = body === undefined ? new Uint8Array(0) : new TextEncoder().encode(body);
      const r = page.request(method, url, bytes);
      const out = { status: r.status, body: r.body };
      r.free();
      return out;
    },
    // Rays (a Float32Array, six floats each) through the collider of map
    // `object` (or part `mesh`): time of impact and triangle per ray
    // (NaN, -1: a miss). What the benchmark times (tests/web/wasm_bench.mjs).
    castRays: async (object, rays, mesh, max = Infinity) => (await ready).castRays(object, mesh, rays, max),
  };

  // ---- the files: dropped (files or folders) or picked ----
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  const box = $('#files');
  box.hidden = false;

  // Every file of a dropped folder, recursively.
  async function entryFiles(entry) {
    if (entry.isFile) return [await new Promise((ok, fail) => entry.file(ok, fail))];
    if (!entry.isDirectory) return [];
    const reader = entry.createReader();
    const out = [];
    for (;;) {
      const batch = await new Promise((ok, fail) => reader.readEntries(ok, fail));
      if (!batch.length) return out;
      for (const e of batch) out.push(...(await entryFiles(e)));
    }
  }

  // Adds `files` to those held (a file of the same name replaces the
  // earlier one), walks them all as `sylcol verify FILE...` would, and
  // shows the objects; the run is kept for the tests and the download.
  async function open(files) {
    const page = await ready;
    const status = $('#status');
    status.textContent = `reading ${files.length} file(s)…`;
    document.body.dataset.opened = '';
    const t0 = performance.now();
    for (const f of files) page.add(f.name, new Uint8Array(await f.arrayBuffer()));
    const t1 = performance.now();
    const summary = JSON.parse(page.open());
    const t2 = performance.now();
    const run = JSON.parse(page.verify());
    const t3 = performance.now();
    window.sylcolFiles = { summary, run, ms: { read: t1 - t0, open: t2 - t1, verify: t3 - t2 } };
    showRun(summary, run);
    document.body.dataset.opened = String(summary.objects.length);
    await window.sylcol.load();
  }

  function showRun(summary, run) {
    const failed = run.objects.filter((o) => !o.ok).length;
    // As the CLI's last line: objects that repeat an earlier one's bytes
    // (`shares_content_with`) are counted once among the contents.
    const seen = new Set();
    let distinct = 0;
    for (const o of run.objects) {
      if (!o.shares_content_with.some((p) => seen.has(p))) distinct += 1;
      seen.add(o.path);
    }
    const contents = distinct < run.objects.length ? ` (${distinct} distinct contents)` : '';
    const rows = [
      `<div class="${run.ok ? 'ok' : 'bad'}">${run.objects.length} object(s) verified: ${run.objects.length - failed} ok, ${failed} failed, ${run.errors.length} unreadable${contents}</div>`,
      `<div>${summary.objects.length} shown, ${run.skipped.length} entries in other formats</div>`,
      ...run.errors.map((e) => `<div class="error">${esc(e.message)}</div>`),
      '<button type="button" id="verify-all" data-download="verify-all">verify JSON (every file)</button>',
    ];
    const body = box.querySelector('.body');
    body.innerHTML = rows.join('');
    body.dataset.errors = JSON.stringify(run.errors.map((e) => e.message));
    $('#verify-all').addEventListener('click', () => {
      const a = document.createElement('a');
      a.href = URL.createObjectURL(new Blob([JSON.stringify(run, null, 2)], { type: 'application/json' }));
      a.download = 'verify.json';
      document.body.appendChild(a);
      a.click();
      a.remove();
    });
  }

  function failed(e) {
    box.querySelector('.body').innerHTML = `<div class="error">${esc(e.message || e)}</div>`;
    document.body.dataset.opened = 'error';
  }

  for (const input of [$('#file-input'), $('#folder-input')]) {
    input.addEventListener('change', () => {
      const files = [...input.files];
      input.value = '';
      open(files).catch(failed);
    });
  }
  $('#forget').addEventListener('click', async () => {
    (await ready).clear();
    box.querySelector('.body').innerHTML = '';
    window.sylcol.load();
  });
  // Dropped anywhere on the page.
  document.addEventListener('dragover', (ev) => {
    ev.preventDefault();
    document.body.classList.add('dragging');
  });
  document.addEventListener('dragleave', (ev) => {
    if (!ev.relatedTarget) document.body.classList.remove('dragging');
  });
  document.addEventListener('drop', async (ev) => {
    ev.preventDefault();
    document.body.classList.remove('dragging');
    const entries = [...ev.dataTransfer.items].map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry()).filter(Boolean);
    try {
      const files = entries.length
        ? (await Promise.all(entries.map(entryFiles))).flat()
        : [...ev.dataTransfer.files];
      await open(files);
    } catch (e) {
      failed(e);
    }
  });
  // The module's own failure (it could not be compiled) shows in place.
  ready.catch(failed);
})();
