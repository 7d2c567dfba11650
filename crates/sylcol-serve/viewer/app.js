// sylcol viewer: the objects of `sylcol serve`, of a `sylcol view` file or
// of the files dropped on sylcol.html, drawn from the glTF scenes sylcol
// exports, picked, ray-cast and verified. A classic script over the
// globals THREE (vendor/three.bundle.min.js), SylcolDraw (draw.js),
// SylcolScene (scene.js) and, in sylcol.html, SylcolBackend (wasm.js).
(() => {
  'use strict';

  // ---- back end: one request -> {status, body} of sylcol's JSON API
  // (docs/viewer.md), answered by the server (`sylcol serve`) or by
  // sylcol compiled to WebAssembly in the page (sylcol.html, wasm.js);
  // a `sylcol view` file has no back end, only the data it embeds ----
  const embedded = document.getElementById('sylcol-data');
  const DATA = embedded ? JSON.parse(embedded.textContent) : null;
  const http = {
    kind: 'server',
    request: async (method, url, body) => {
      const init = body === undefined ? { method } : { method, body, headers: { 'Content-Type': 'application/json' } };
      const r = await fetch(url, init);
      return { status: r.status, body: new Uint8Array(await r.arrayBuffer()) };
    },
  };
  const backend = DATA ? null : (window.SylcolBackend || http);
  const text = (bytes) => new TextDecoder().decode(bytes);
  const ask = async (method, url, body) => {
    const r = await backend.request(method, url, body);
    if (r.status >= 400) {
      let message = `${r.status}`;
      try { message = JSON.parse(text(r.body)).error; } catch (_) { /* not JSON */ }
      throw new Error(message);
    }
    return r.body;
  };
  const getJson = async (url) => JSON.parse(text(await ask('GET', url)));
  const fromBase64 = (b64) => {
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  };
  const enc = encodeURIComponent;
  // Every answer's bytes as the API gives them (a glb as it would be
  // downloaded from the server).
  const api = {
    collider: !!backend, // rays answered by sylcol's own collider
    backend: backend ? backend.kind : 'embedded',
    objects: () => (DATA ? Promise.resolve(DATA.objects) : getJson('/api/objects')),
    glb: async (name) => (DATA ? fromBase64(DATA.glb[name]) : ask('GET', `/api/objects/${enc(name)}.glb`)),
    obj: (name) => (DATA ? Promise.reject(new Error('a sylcol view file holds no OBJ')) : ask('GET', `/api/objects/${enc(name)}.obj`)),
    verify: (name) => (DATA ? Promise.resolve(DATA.verify[name]) : getJson(`/api/verify/${enc(name)}`)),
    query: async (object, mesh, queries) => {
      const body = JSON.stringify({ object, mesh, queries, cells: true });
      return JSON.parse(text(await ask('POST', '/api/query', body)));
    },
  };

  // ---- numbers: f32 values printed as the shortest text that reads back ----
  const f32 = (v) => {
    const x = Math.fround(v);
    if (x === 0) return '0';
    for (let p = 1; p <= 9; p++) {
      const s = String(Number(x.toPrecision(p)));
      if (Math.fround(Number(s)) === x) return s;
    }
    return String(x);
  };
  const vec = (v) => `${f32(v.x)},${f32(v.y)},${f32(v.z)}`;
  const vecText = (a) => `(${a.map(f32).join(', ')})`;
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  const $ = (sel) => document.querySelector(sel);

  // ---- three.js scene ----
  const canvas = $('#canvas');
  // Antialiasing costs a software renderer (SwiftShader, as in headless
  // Chromium) most of its frame rate: it is off there, on elsewhere.
  const software = (() => {
    const gl = document.createElement('canvas').getContext('webgl2');
    const ext = gl && gl.getExtension('WEBGL_debug_renderer_info');
    return !!ext && /swiftshader|llvmpipe|software/i.test(gl.getParameter(ext.UNMASKED_RENDERER_WEBGL));
  })();
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: !software });
  renderer.setPixelRatio(software ? 1 : Math.min(window.devicePixelRatio, 2));
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0x16191f);
  const camera = new THREE.PerspectiveCamera(45, 1, 1, 1e7);
  scene.add(camera);
  const controls = new THREE.OrbitControls(camera, canvas);
  controls.enableDamping = false;
  const overlay = new THREE.Group(); // picks, rays, highlights
  scene.add(overlay);

  const state = {
    name: null, // object shown
    kind: null, // 'map' | 'library'
    root: null, // its glTF root
    layers: {}, // layer name -> Object3D
    pickables: [], // meshes a click or a ray can hit
    parts: new Map(), // library: part name -> {node, mesh}
    lists: null, // map: triangle -> cells listing it
    grid: null, // map: {origin, cell, dims}
    spheres: null, // map: triangle -> [cx, cy, cz, r]
    radius: 1, // scene size
    frames: 0,
    loaded: false,
  };

  // Drawn on demand: a change asks for one frame; nothing runs while
  // nothing changes.
  let frameAsked = false;
  function requestRender() {
    if (frameAsked) return;
    frameAsked = true;
    requestAnimationFrame(frame);
  }
  controls.addEventListener('change', requestRender);
  new ResizeObserver(requestRender).observe(canvas);
  // A software renderer is bound by pixels: while the camera moves it
  // draws at half resolution, and at full resolution once it stops.
  let moving = false;
  controls.addEventListener('start', () => { moving = true; });
  controls.addEventListener('end', () => { moving = false; requestRender(); });
  // A wheel zoom is a run of separate steps: it counts as moving until
  // WHEEL_QUIET ms after its last step, then one full frame follows.
  const WHEEL_QUIET = 200;
  let wheelUntil = 0, wheelTimer = null;
  canvas.addEventListener('wheel', () => {
    wheelUntil = performance.now() + WHEEL_QUIET;
    clearTimeout(wheelTimer);
    wheelTimer = setTimeout(requestRender, WHEEL_QUIET);
  }, { passive: true });
  function resize() {
    const w = canvas.clientWidth, h = canvas.clientHeight;
    if (canvas.width !== Math.floor(w * renderer.getPixelRatio()) || canvas.height !== Math.floor(h * renderer.getPixelRatio())) {
      renderer.setSize(w, h, false);
      camera.aspect = w / Math.max(h, 1);
      camera.updateProjectionMatrix();
    }
  }
  // Renders the scene once: first the sphere layers sort their spheres
  // by size on screen and each library part picks its level of detail.
  function draw() {
    scene.updateMatrixWorld();
    const focal = 0.5 * canvas.height * camera.projectionMatrix.elements[5];
    scene.traverseVisible((o) => {
      if (o instanceof SylcolDraw.SphereLayer) o.update(camera, canvas.height);
      else if (o instanceof SylcolDraw.LibraryDrawing) o.update(camera, focal);
    });
    renderer.render(scene, camera);
  }
  let spin = null; // {angle per frame} while measuring
  function frame() {
    frameAsked = false;
    const zooming = performance.now() < wheelUntil;
    const ratio = software && (moving || zooming || (spin && !spin.full)) ? 0.5 : 1;
    if (software && renderer.getPixelRatio() !== ratio) renderer.setPixelRatio(ratio);
    resize();
    if (spin) {
      const off = camera.position.clone().sub(controls.target);
      off.applyAxisAngle(new THREE.Vector3(0, 1, 0), spin.step);
      camera.position.copy(controls.target).add(off);
      camera.lookAt(controls.target);
      spin.frames++;
      spin.at.push(performance.now());
      requestRender();
    }
    draw();
    state.frames++;
    document.body.dataset.frames = String(state.frames);
  }
  requestRender();

  // ---- loading an object ----
  const loader = new THREE.GLTFLoader();
  const parse = (buffer) => new Promise((ok, fail) => loader.parse(buffer, '', ok, fail));

  function setStatus(text) { $('#status').textContent = text; }

  async function show(name, kind) {
    state.loaded = false;
    document.body.dataset.loaded = '';
    setStatus(`loading ${name}…`);
    const glb = await api.glb(name);
    const gltf = await parse(glb.buffer.slice(glb.byteOffset, glb.byteOffset + glb.byteLength));
    if (state.root) {
      scene.remove(state.root);
      disposeTree(state.root);
    }
    clearOverlay();
    const root = gltf.scene.children[0] || gltf.scene;
    Object.assign(state, { name, kind, root: gltf.scene, layers: {}, pickables: [], parts: new Map(), lists: null, grid: null, spheres: null });
    scene.add(gltf.scene);
    const { layers, pickables, parts, lists, grid, spheres } = SylcolScene.prepare(root, kind);
    Object.assign(state, { layers, pickables, parts, lists, grid, spheres });
    frameCamera(gltf.scene);
    buildLayerToggles();
    $('#about .body').textContent = JSON.stringify(root.userData, null, 1);
    buildDownloads(name, kind);
    document.querySelectorAll('#objects li').forEach((li) => li.classList.toggle('current', li.dataset.name === name && !li.dataset.part));
    $('#pick .body').textContent = 'Click a triangle.';
    $('#ray .body').textContent = 'Choose the ray tool, press, drag.';
    await showVerify(name);
    state.loaded = true;
    document.body.dataset.loaded = name;
    setStatus(`${name}: ${countTriangles()} triangles`);
    requestRender();
  }

  function countTriangles() {
    return state.pickables.reduce((n, m) => n + m.geometry.index.count / 3, 0);
  }

  function disposeTree(obj) {
    obj.traverse((o) => {
      if (o.geometry) o.geometry.dispose();
      if (o.material) [].concat(o.material).forEach((m) => m.dispose());
    });
  }

  function frameCamera(obj) {
    const box = new THREE.Box3().setFromObject(obj);
    const sphere = box.getBoundingSphere(new THREE.Sphere());
    const r = Math.max(sphere.radius, 1e-3);
    state.radius = r;
    controls.target.copy(sphere.center);
    camera.near = r / 500;
    camera.far = r * 50;
    camera.position.copy(sphere.center).add(new THREE.Vector3(0.9, 0.7, 1.3).normalize().multiplyScalar(r * 2.0));
    camera.updateProjectionMatrix();
    controls.update();
    requestRender();
  }

  function buildLayerToggles() {
    const box = $('#layers');
    box.innerHTML = '';
    const order = ['hull', 'cells', 'cell-spheres', 'tri-spheres', 'failures'];
    for (const name of order) {
      const nodes = state.layers[name];
      if (!nodes) continue;
      const on = name === 'hull' || name === 'failures';
      nodes.forEach((n) => { n.visible = on; });
      const label = document.createElement('label');
      label.innerHTML = `<input type="checkbox" data-layer="${name}" ${on ? 'checked' : ''}> ${name}`;
      label.querySelector('input').addEventListener('change', (e) => {
        nodes.forEach((n) => { n.visible = e.target.checked; });
        requestRender();
      });
      box.appendChild(label);
    }
  }

  // ---- overlay helpers ----
  function clearOverlay() {
    for (const o of [...overlay.children]) { overlay.remove(o); disposeTree(o); }
  }
  function boxLines(cells, color) {
    if (!state.grid || !cells.length) return null;
    const { origin, cell } = state.grid;
    const pts = [];
    for (const [x, y, z] of cells) {
      const lo = [origin[0] + x * cell[0], origin[1] + y * cell[1], origin[2] + z * cell[2]];
      const hi = [lo[0] + cell[0], lo[1] + cell[1], lo[2] + cell[2]];
      const c = (i) => [i & 1 ? hi[0] : lo[0], i & 2 ? hi[1] : lo[1], i & 4 ? hi[2] : lo[2]];
      for (const [a, b] of [[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7], [0, 4], [1, 5], [2, 6], [3, 7]]) {
        pts.push(...c(a), ...c(b));
      }
    }
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute(pts, 3));
    const lines = new THREE.LineSegments(g, SylcolDraw.flatMaterial(color, { over: true }));
    lines.renderOrder = 5;
    return lines;
  }
  function marker(point, color) {
    const m = new THREE.Mesh(new THREE.SphereGeometry(state.radius / 120, 12, 8), SylcolDraw.flatMaterial(color, { over: true }));
    m.position.copy(point);
    m.renderOrder = 6;
    return m;
  }
  function segment(a, b, color) {
    const g = new THREE.BufferGeometry().setFromPoints([a, b]);
    const l = new THREE.Line(g, SylcolDraw.flatMaterial(color, { over: true }));
    l.renderOrder = 6;
    return l;
  }
  function triangleHighlight(mesh, face) {
    const pos = mesh.geometry.getAttribute('position');
    const idx = mesh.geometry.index;
    const corners = [0, 1, 2].map((k) => new THREE.Vector3().fromBufferAttribute(pos, idx.getX(3 * face + k)));
    const world = corners.map((c) => c.clone().applyMatrix4(mesh.matrixWorld));
    const g = new THREE.BufferGeometry().setFromPoints(world);
    g.setIndex([0, 1, 2]);
    const m = new THREE.Mesh(g, SylcolDraw.flatMaterial(0xffd23f, { side: THREE.DoubleSide, over: true, opacity: 0.85 }));
    m.renderOrder = 4;
    return { mesh: m, corners, world };
  }

  // ---- picking ----
  const raycaster = new THREE.Raycaster();
  const ndc = (ev) => {
    const r = canvas.getBoundingClientRect();
    return new THREE.Vector2(((ev.clientX - r.left) / r.width) * 2 - 1, -((ev.clientY - r.top) / r.height) * 2 + 1);
  };
  function pickAt(ev) {
    raycaster.setFromCamera(ndc(ev), camera);
    return raycaster.intersectObjects(shownPickables(), false)[0] || null;
  }
  // The pick meshes are never drawn: they count as shown with the hull.
  function shownPickables() {
    const hull = state.layers.hull && state.layers.hull[0];
    return hull && visibleChain(hull) ? state.pickables : [];
  }
  function visibleChain(o) {
    for (let x = o; x; x = x.parent) if (!x.visible) return false;
    return true;
  }

  function showTriangle(mesh, face, point, part = null) {
    clearOverlay();
    const h = triangleHighlight(mesh, face);
    overlay.add(h.mesh);
    const rows = [];
    if (part) rows.push(['part', `${esc(part.name)} (record ${part.userData.sylcol_record}, ${esc(part.userData.family || '')})`]);
    rows.push(['triangle', `<b id="pick-index">${face}</b>`]);
    h.corners.forEach((c, k) => rows.push([`vertex ${k}`, vecText([c.x, c.y, c.z])]));
    if (point) rows.push(['clicked', vecText([point.x, point.y, point.z])]);
    const s = state.spheres && state.spheres[face];
    if (s) {
      rows.push(['sphere', `centre ${vecText(s.slice(0, 3))}, radius ${f32(s[3])}`]);
      overlay.add(new SylcolDraw.SphereLayer(new Float32Array(s), new THREE.Color(0xff66ff)));
    }
    const cells = state.lists ? state.lists.get(face) || [] : null;
    if (cells) {
      rows.push(['cells', cells.length ? cells.map((c) => `(${c.join(',')})`).join(' ') : 'none lists it']);
      const lines = boxLines(cells, 0xffd23f);
      if (lines) overlay.add(lines);
    } else {
      rows.push(['cells', 'a library part has no stored grid']);
    }
    const body = $('#pick .body');
    body.dataset.triangle = String(face);
    body.dataset.part = part ? part.name : '';
    body.innerHTML = `<table>${rows.map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join('')}</table>`;
    requestRender();
  }

  // ---- the ray tool ----
  function planePoint(ev, through) {
    raycaster.setFromCamera(ndc(ev), camera);
    const normal = camera.getWorldDirection(new THREE.Vector3());
    const plane = new THREE.Plane().setFromNormalAndCoplanarPoint(normal, through);
    return raycaster.ray.intersectPlane(plane, new THREE.Vector3());
  }

  async function castRay(origin, dir) {
    const o = new THREE.Vector3(Math.fround(origin.x), Math.fround(origin.y), Math.fround(origin.z));
    const d = new THREE.Vector3(Math.fround(dir.x), Math.fround(dir.y), Math.fround(dir.z));
    const line = `ray ${vec(o)} ${vec(d)}`;
    const body = $('#ray .body');
    body.dataset.query = line;
    body.dataset.answer = '';
    body.textContent = `${line}\n…`;
    clearOverlay();
    let answer, how, offset = new THREE.Vector3();
    try {
      if (api.collider) {
        let mesh = null;
        if (state.kind === 'library') {
          // The part the ray meets first (three.js), asked of sylcol in its own frame.
          const hit = new THREE.Raycaster(o, d.clone().normalize()).intersectObjects(state.pickables, false)[0];
          const part = hit && SylcolScene.resolve(hit.object, hit.faceIndex).part;
          if (!part) throw new Error('the ray meets no part');
          mesh = part.name;
          offset = part.position.clone();
        }
        const local = `ray ${vec(o.clone().sub(offset))} ${vec(d)}`;
        [answer] = await api.query(state.name, mesh, [local]);
        how = mesh ? `sylcol's grid walk (part ${mesh}, derived grid)` : "sylcol's grid walk (the map's own grid)";
      } else {
        answer = localRay(o, d);
        how = "three.js's own ray cast (no server)";
      }
    } catch (e) {
      body.textContent = `${line}\n${e.message}`;
      body.dataset.answer = JSON.stringify({ error: e.message });
      return;
    }
    drawAnswer(o, d, answer, offset);
    body.dataset.answer = JSON.stringify(answer);
    const rows = [['query', esc(line)], ['answered by', how]];
    if (answer.hit) {
      rows.push(['triangle', String(answer.triangle)], ['t', f32(answer.time_of_impact)]);
      rows.push(['point', vecText(answer.point)], ['normal', vecText(answer.normal)]);
    } else {
      rows.push(['hit', 'none']);
    }
    if (answer.cells) rows.push(['cells walked', String(answer.cells.length)]);
    body.innerHTML = `<table>${rows.map(([k, v]) => `<tr><td>${k}</td><td>${v}</td></tr>`).join('')}</table>`;
    requestRender();
  }

  function localRay(o, d) {
    const len = d.length();
    const hit = new THREE.Raycaster(o, d.clone().normalize()).intersectObjects(shownPickables(), false)[0];
    if (!hit) return { query: 'ray', hit: false };
    const n = hit.face.normal.clone().transformDirection(hit.object.matrixWorld);
    return {
      query: 'ray', hit: true, time_of_impact: hit.distance / len,
      point: hit.point.toArray(), normal: n.toArray(), triangle: SylcolScene.resolve(hit.object, hit.faceIndex).face,
    };
  }

  function drawAnswer(o, d, answer, offset) {
    const far = answer.hit ? new THREE.Vector3().fromArray(answer.point).add(offset) : o.clone().add(d.clone().normalize().multiplyScalar(state.radius * 4));
    overlay.add(marker(o, 0x66d9ff), segment(o, far, 0x66d9ff));
    if (answer.hit) {
      overlay.add(marker(far, 0xffd23f));
      const n = new THREE.Vector3().fromArray(answer.normal);
      overlay.add(segment(far, far.clone().add(n.multiplyScalar(state.radius / 8)), 0x7dff8a));
    }
    if (answer.cells) {
      const lines = boxLines(answer.cells, 0x66d9ff);
      if (lines) overlay.add(lines);
    }
  }

  let press = null;
  canvas.addEventListener('pointerdown', (ev) => {
    if (ev.button !== 0) return;
    const tool = document.querySelector('input[name=tool]:checked').value;
    press = { x: ev.clientX, y: ev.clientY, tool };
    if (tool === 'ray') {
      controls.enabled = false;
      press.start = planePoint(ev, controls.target);
      canvas.setPointerCapture(ev.pointerId);
    }
  });
  canvas.addEventListener('pointermove', (ev) => {
    if (!press || press.tool !== 'ray' || !press.start) return;
    const end = planePoint(ev, press.start);
    clearOverlay();
    if (end) overlay.add(marker(press.start, 0x66d9ff), segment(press.start, end, 0x66d9ff));
    requestRender();
  });
  canvas.addEventListener('pointerup', (ev) => {
    if (!press) return;
    const p = press;
    press = null;
    controls.enabled = true;
    const moved = Math.hypot(ev.clientX - p.x, ev.clientY - p.y);
    if (p.tool === 'pick' && moved < 4) {
      const hit = pickAt(ev);
      if (hit) {
        const r = SylcolScene.resolve(hit.object, hit.faceIndex);
        showTriangle(r.mesh, r.face, hit.point, r.part);
      }
    } else if (p.tool === 'ray' && p.start) {
      const end = planePoint(ev, p.start);
      let dir = end ? end.clone().sub(p.start) : null;
      if (!dir || moved < 4) dir = camera.getWorldDirection(new THREE.Vector3()).multiplyScalar(state.radius);
      castRay(p.start, dir);
    }
  });
  $('#ray-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const m = /^\s*ray\s+(\S+)\s+(\S+)\s*$/.exec($('#ray-line').value);
    const v = (s) => { const p = s.split(',').map(Number); return p.length === 3 && p.every(Number.isFinite) ? new THREE.Vector3(...p) : null; };
    const o = m && v(m[1]), d = m && v(m[2]);
    if (!o || !d) { $('#ray .body').textContent = 'type: ray OX,OY,OZ DX,DY,DZ'; return; }
    castRay(o, d);
  });

  // ---- downloads: the bytes of the API's answers, saved by the browser
  // (a blob: URL; nothing is sent anywhere) ----
  function save(bytes, file, type) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes], { type }));
    a.download = file;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
  }
  const fileName = (name) => name.replace(/[\\/:*?"<>|]/g, '_');
  function buildDownloads(name, kind) {
    const box = $('#downloads');
    box.innerHTML = '';
    const add = (label, what, run) => {
      const b = document.createElement('button');
      b.textContent = label;
      b.dataset.download = what;
      b.addEventListener('click', () => run().catch(fail));
      box.appendChild(b);
    };
    add('GLB (every layer)', 'glb', async () => save(await api.glb(name), `${fileName(name)}.glb`, 'model/gltf-binary'));
    if (kind === 'map' && !DATA) add('OBJ', 'obj', async () => save(await api.obj(name), `${fileName(name)}.obj`, 'model/obj'));
    add('verify JSON', 'verify', async () => {
      const v = { ...(await api.verify(name)) };
      delete v.name;
      delete v.flagged;
      save(JSON.stringify(v, null, 2), `${fileName(name)}.verify.json`, 'application/json');
    });
  }

  // ---- verify panel ----
  async function showVerify(name) {
    const box = $('#verify .body');
    box.textContent = '…';
    let v;
    try { v = await api.verify(name); } catch (e) { box.textContent = e.message; return; }
    const failing = (v.checks || []).filter((c) => !c.ok);
    const f = v.flagged || {};
    const items = [];
    for (const t of f.triangles || []) items.push(`<button class="jump" data-triangle="${t.triangle}" title="${esc(t.checks.join('; '))}">triangle ${t.triangle}</button>`);
    for (const c of f.cells || []) items.push(`<button class="jump" data-cell="${c.cell.join(',')}" title="${esc(c.checks.join('; '))}">cell ${c.cell.join(',')}</button>`);
    for (const p of f.parts || []) items.push(`<button class="jump" data-part="${esc(p.name)}" title="${esc(p.checks.join('; '))}">${esc(p.name)}</button>`);
    box.dataset.ok = String(v.ok);
    box.dataset.flagged = String(items.length);
    box.innerHTML = `<div class="${v.ok ? 'ok' : 'bad'}">${v.ok ? 'every check passes' : `${failing.length} check(s) fail`}` +
      ` (${(v.checks || []).length} checks)</div>` +
      failing.map((c) => `<div class="bad">${esc(c.name)}: ${c.passed} / ${c.total}</div>`).join('') +
      (items.length ? `<div>${items.join('')}</div>` : '');
    box.querySelectorAll('button.jump').forEach((b) => b.addEventListener('click', () => jump(b.dataset)));
  }

  function jump(d) {
    if (d.triangle !== undefined) {
      const mesh = state.pickables[0];
      if (!mesh) return;
      showTriangle(mesh, Number(d.triangle), null);
      const pos = mesh.geometry.getAttribute('position'), idx = mesh.geometry.index;
      const c = new THREE.Vector3();
      for (let k = 0; k < 3; k++) c.add(new THREE.Vector3().fromBufferAttribute(pos, idx.getX(3 * Number(d.triangle) + k)));
      focus(c.multiplyScalar(1 / 3));
    } else if (d.cell !== undefined) {
      clearOverlay();
      const cell = d.cell.split(',').map(Number);
      const lines = boxLines([cell], 0xff3030);
      if (lines) overlay.add(lines);
      const { origin, cell: size } = state.grid;
      focus(new THREE.Vector3(...cell.map((x, k) => origin[k] + (x + 0.5) * size[k])));
    } else if (d.part !== undefined) {
      focusPart(d.part);
    }
  }

  function focus(point) {
    const off = camera.position.clone().sub(controls.target).setLength(state.radius * 0.8);
    controls.target.copy(point);
    camera.position.copy(point).add(off);
    controls.update();
    requestRender();
  }

  // The world box of a library part (its node is hidden: from its mesh).
  function partBox(name) {
    const p = state.parts.get(name);
    if (!p) return null;
    p.mesh.geometry.computeBoundingBox();
    return p.mesh.geometry.boundingBox.clone().applyMatrix4(p.mesh.matrixWorld);
  }

  function focusPart(name) {
    const box = partBox(name);
    if (!box) return;
    const sphere = box.getBoundingSphere(new THREE.Sphere());
    const off = camera.position.clone().sub(controls.target).setLength(sphere.radius * 3);
    controls.target.copy(sphere.center);
    camera.position.copy(sphere.center).add(off);
    controls.update();
    requestRender();
  }

  // ---- the object list ----
  let objects = [];
  function buildList() {
    const q = $('#search').value.trim().toLowerCase();
    const ul = $('#objects');
    ul.innerHTML = '';
    for (const o of objects) {
      const parts = (o.parts || []).filter((p) => !q || p.toLowerCase().includes(q));
      const match = !q || o.name.toLowerCase().includes(q);
      if (!match && !parts.length) continue;
      const li = document.createElement('li');
      li.dataset.name = o.name;
      li.innerHTML = `${esc(o.name)}<span class="kind">${o.kind}${o.parts ? `, ${o.parts.length} parts` : ''}</span>`;
      li.classList.toggle('current', o.name === state.name);
      li.addEventListener('click', () => show(o.name, o.kind).catch(fail));
      ul.appendChild(li);
      if (q && o.parts) {
        for (const p of parts.slice(0, 200)) {
          const pli = document.createElement('li');
          pli.className = 'part';
          pli.dataset.name = o.name;
          pli.dataset.part = p;
          pli.textContent = p;
          pli.addEventListener('click', async () => {
            if (state.name !== o.name) await show(o.name, o.kind);
            focusPart(p);
          });
          ul.appendChild(pli);
        }
      }
    }
  }
  $('#search').addEventListener('input', buildList);

  function fail(e) {
    setStatus(`error: ${e.message}`);
    document.body.dataset.error = e.message;
  }

  // Fills the object list and shows the first object (the one named by
  // ?object= if there is one); again after files are dropped on sylcol.html.
  async function load() {
    delete document.body.dataset.error;
    objects = await api.objects();
    buildList();
    const wanted = new URLSearchParams(location.search).get('object');
    const first = objects.find((o) => o.name === wanted) || objects.find((o) => o.kind === 'map') || objects[0];
    if (first) await show(first.name, first.kind);
    else setStatus(backend && backend.emptyText ? backend.emptyText : 'no objects');
  }

  // ---- what the browser tests and `cargo xtask screenshots` call ----
  window.sylcol = {
    state,
    api,
    load: () => load().catch(fail),
    show: (name) => show(name, (objects.find((o) => o.name === name) || {}).kind),
    castRay: (o, d) => castRay(new THREE.Vector3(...o), new THREE.Vector3(...d)),
    setLayer: (name, on) => {
      const box = document.querySelector(`input[data-layer="${name}"]`);
      if (box && box.checked !== on) box.click();
    },
    cameraPosition: () => camera.position.toArray(),
    // The translation the library layout gave part `name`.
    partOffset: (name) => state.parts.get(name).node.position.toArray(),
    focusPart: (name) => focusPart(name),
    // Frames the library parts whose names start with `prefix`.
    focusFamily: (prefix) => {
      const box = new THREE.Box3();
      for (const name of state.parts.keys()) if (name.startsWith(prefix)) box.union(partBox(name));
      if (box.isEmpty()) return;
      const sphere = box.getBoundingSphere(new THREE.Sphere());
      const off = camera.position.clone().sub(controls.target).setLength(sphere.radius * 2.2);
      controls.target.copy(sphere.center);
      camera.position.copy(sphere.center).add(off);
      controls.update();
      requestRender();
    },
    triangleCount: (part) => {
      const mesh = part ? state.parts.get(part).mesh : state.pickables[0];
      return mesh ? mesh.geometry.index.count / 3 : 0;
    },
    // The world centroid of triangle `t` of the map's hull (or of library
    // part `part`), and where it is on screen: what a test clicks.
    triangleCentroid: (t, part) => {
      const h = triangleHighlight(part ? state.parts.get(part).mesh : state.pickables[0], t);
      h.mesh.geometry.dispose();
      const c = h.world[0].clone().add(h.world[1]).add(h.world[2]).multiplyScalar(1 / 3);
      const p = c.clone().project(camera);
      const r = canvas.getBoundingClientRect();
      return { world: c.toArray(), x: r.left + (p.x + 1) / 2 * r.width, y: r.top + (1 - p.y) / 2 * r.height, visible: Math.abs(p.x) < 0.9 && Math.abs(p.y) < 0.9 && p.z < 1 };
    },
    // Moves the camera `factor` times as far from the orbit centre.
    zoom: (factor) => {
      camera.position.sub(controls.target).multiplyScalar(factor).add(controls.target);
      controls.update();
      requestRender();
    },
    view: (dir) => {
      const off = new THREE.Vector3(...dir).normalize().multiplyScalar(camera.position.distanceTo(controls.target));
      camera.position.copy(controls.target).add(off);
      controls.update();
      requestRender();
    },
    // Draws `n` frames at once, the camera orbiting, each timed around
    // draw() (the script's side: level of detail, sphere lists,
    // renderer.render) and until a pixel can be read back (the GL work
    // done too, without the page's compositing): the median of each and
    // what renderer.info counted for the last frame.
    profile: (n = 15, full = true) => {
      const gl = renderer.getContext();
      if (software) renderer.setPixelRatio(full ? 1 : 0.5);
      resize();
      const script = [], done = [], pixel = new Uint8Array(4);
      for (let i = 0; i < n; i++) {
        const off = camera.position.clone().sub(controls.target).applyAxisAngle(new THREE.Vector3(0, 1, 0), (2 * Math.PI) / 600);
        camera.position.copy(controls.target).add(off);
        camera.lookAt(controls.target);
        const t0 = performance.now();
        draw();
        const t1 = performance.now();
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
        script.push(t1 - t0);
        done.push(performance.now() - t0);
      }
      const median = (a) => a.sort((x, y) => x - y)[a.length >> 1];
      const { calls, triangles, lines, points } = renderer.info.render;
      requestRender();
      return { script_ms: median(script), gl_ms: median(done), calls, triangles, lines, points, width: canvas.width, height: canvas.height };
    },
    // Renders continuously for `ms`, the camera orbiting (as when you drag
    // it; `full` keeps full resolution on a software renderer): frames
    // drawn, the mean time between them, the median and 90th percentile
    // of those times, and what the last frame drew (renderer.info).
    measure: (ms, full = false) => new Promise((done) => {
      spin = { step: (2 * Math.PI) / 600, frames: 0, full, at: [] };
      requestRender();
      const t0 = performance.now();
      setTimeout(() => {
        const elapsed = performance.now() - t0;
        const { frames, at } = spin;
        spin = null;
        requestRender();
        const gaps = at.slice(1).map((t, k) => t - at[k]).sort((a, b) => a - b);
        const pick = (q) => (gaps.length ? gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))] : NaN);
        const { calls, triangles, lines } = renderer.info.render;
        done({
          software, full, frames, ms: elapsed, frame_ms: elapsed / Math.max(frames, 1), fps: (1000 * frames) / elapsed,
          median_ms: pick(0.5), p90_ms: pick(0.9), calls, triangles, lines, width: canvas.width, height: canvas.height,
        });
      }, ms);
    }),
  };

  load().catch(fail);
})();
