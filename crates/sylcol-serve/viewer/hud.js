// sylcol viewer: what is drawn over and beside the scene: the axes and
// the scale bar in the file's own coordinates and units, the object's
// `info` as a table, the view kept in the URL's hash, and the library's
// families outlined and labelled. A classic script over the global THREE;
// defines the global SylcolHud, used by app.js.
(() => {
  'use strict';
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
  const SVG = 'http://www.w3.org/2000/svg';

  // ---- axes: the file's x, y, z as seen from the camera (no axis is
  // swapped: y is up in glTF and in the game's files) ----
  const AXES = [['x', 0xff5c5c, [1, 0, 0]], ['y', 0x6fd08c, [0, 1, 0]], ['z', 0x5c9dff, [0, 0, 1]]];
  function axesGizmo(box) {
    const svg = document.createElementNS(SVG, 'svg');
    svg.setAttribute('id', 'axes');
    svg.setAttribute('viewBox', '-40 -40 80 80');
    const parts = AXES.map(([name, color]) => {
      const hex = `#${color.toString(16).padStart(6, '0')}`;
      const line = document.createElementNS(SVG, 'line');
      line.setAttribute('stroke', hex);
      line.setAttribute('stroke-width', '2.5');
      line.dataset.axis = name;
      const label = document.createElementNS(SVG, 'text');
      label.setAttribute('fill', hex);
      label.textContent = name;
      svg.append(line, label);
      return { line, label };
    });
    box.appendChild(svg);
    return {
      // Each axis drawn from the middle along its direction on screen.
      update(camera) {
        const inverse = camera.quaternion.clone().invert();
        AXES.forEach(([, , dir], k) => {
          const v = new THREE.Vector3(...dir).applyQuaternion(inverse);
          const [x, y] = [v.x * 28, -v.y * 28];
          const { line, label } = parts[k];
          line.setAttribute('x1', '0');
          line.setAttribute('y1', '0');
          line.setAttribute('x2', x.toFixed(2));
          line.setAttribute('y2', y.toFixed(2));
          line.dataset.screen = `${v.x.toFixed(4)},${v.y.toFixed(4)}`;
          label.setAttribute('x', (x * 1.2 - 3).toFixed(2));
          label.setAttribute('y', (y * 1.2 + 4).toFixed(2));
        });
      },
    };
  }

  // ---- the scale bar: a round length of the game's units (as the files
  // hold them; what one unit is in the game is not settled) as long as
  // it is on screen at the orbit centre's distance ----
  function scaleBar(box) {
    const el = document.createElement('div');
    el.id = 'scale';
    el.innerHTML = '<div class="bar"></div><span></span>';
    box.appendChild(el);
    const bar = el.querySelector('.bar'), text = el.querySelector('span');
    return {
      update(camera, target, heightPx) {
        const dist = camera.position.distanceTo(target);
        const perPx = (2 * dist * Math.tan((camera.fov * Math.PI) / 360)) / Math.max(heightPx, 1);
        const units = niceBelow(perPx * 120);
        const px = units / perPx;
        bar.style.width = `${px.toFixed(1)}px`;
        text.textContent = `${group(units)} units`;
        el.dataset.units = String(units);
        el.dataset.px = px.toFixed(2);
      },
    };
  }
  // The largest 1, 2 or 5 times a power of ten at most `x`.
  function niceBelow(x) {
    const p = 10 ** Math.floor(Math.log10(x));
    return [5, 2, 1].map((m) => m * p).find((v) => v <= x) || p;
  }
  // 25000 -> "25 000"; 0.05 stays "0.05".
  function group(v) {
    const s = Number(v.toPrecision(6)).toString();
    return v >= 1e4 ? s.replace(/\B(?=(\d{3})+(?!\d))/g, '\u2009') : s;
  }

  // ---- the object's `info` (what `info --json` says) as a table: nested
  // objects as indented rows, short lists of numbers inline, long lists
  // folded ----
  function infoTable(info) {
    const rows = [];
    const cell = (v) => (v === null ? '–' : esc(typeof v === 'number' ? group(v) : v));
    // `path`: the dotted keys down to the value (`grid.dims`).
    const walk = (value, key, depth, path) => {
      const pad = `style="padding-left:${3 + depth * 10}px"`;
      if (Array.isArray(value)) {
        if (value.every((x) => x === null || typeof x !== 'object') && value.length <= 4) {
          rows.push(`<tr><td ${pad}>${esc(key)}</td><td>${value.map(cell).join(', ')}</td></tr>`);
        } else {
          const inner = value.map((x, i) => `<li>${typeof x === 'object' && x ? esc(summary(x, i)) : cell(x)}</li>`).join('');
          rows.push(`<tr><td ${pad}>${esc(key)}</td><td><details><summary>${value.length} entries</summary><ol start="0">${inner}</ol></details></td></tr>`);
        }
      } else if (value && typeof value === 'object') {
        rows.push(`<tr><td ${pad} colspan="2">${esc(key)}</td></tr>`);
        for (const [k, v] of Object.entries(value)) walk(v, k, depth + 1, `${path}.${k}`);
      } else {
        rows.push(`<tr data-key="${esc(path)}"><td ${pad}>${esc(key)}</td><td>${cell(value)}</td></tr>`);
      }
    };
    for (const [k, v] of Object.entries(info || {})) walk(v, k, 0, k);
    return `<table class="info">${rows.join('')}</table>`;
  }
  // One line for an object in a list: its name, else its first fields.
  function summary(x, i) {
    const fields = Object.entries(x).filter(([, v]) => v === null || typeof v !== 'object');
    const name = x.name || x.path;
    const rest = fields.filter(([k]) => k !== 'name' && k !== 'path').slice(0, 3).map(([k, v]) => `${k} ${v}`).join(', ');
    return `${name || `#${i}`}${rest ? `: ${rest}` : ''}`;
  }

  // ---- the view in the URL's hash: #object=NAME&layers=a,b&camera=
  // px,py,pz,tx,ty,tz (camera position and orbit centre, each the
  // shortest text that reads back to the same f32) ----
  const f32 = (v) => {
    const x = Math.fround(v);
    for (let p = 1; p <= 9; p++) {
      const s = String(Number(x.toPrecision(p)));
      if (Math.fround(Number(s)) === x) return s;
    }
    return String(x);
  };
  function readHash(hash) {
    const p = new URLSearchParams(hash.replace(/^#/, ''));
    const nums = (p.get('camera') || '').split(',').map(Number);
    return {
      object: p.get('object'),
      layers: p.has('layers') ? p.get('layers').split(',').filter(Boolean) : null,
      camera: nums.length === 6 && nums.every(Number.isFinite) ? nums : null,
    };
  }
  function writeHash({ object, layers, position, target }) {
    const p = new URLSearchParams();
    p.set('object', object);
    p.set('layers', layers.join(','));
    p.set('camera', [...position, ...target].map(f32).join(','));
    return `#${p.toString().replace(/%2C/g, ',')}`;
  }

  // ---- the library's families: a wire box and a label each ----
  function familyBoxes(parts) {
    const boxes = new Map();
    for (const [, p] of parts) {
      const family = p.node.userData.family || 'other';
      p.mesh.geometry.computeBoundingBox();
      const b = p.mesh.geometry.boundingBox.clone().applyMatrix4(p.mesh.matrixWorld);
      if (!boxes.has(family)) boxes.set(family, { box: new THREE.Box3(), parts: 0 });
      const f = boxes.get(family);
      f.box.union(b);
      f.parts++;
    }
    return boxes;
  }
  // The twelve edges of each box, as one set of line segments.
  function familyOutline(boxes, material) {
    const pts = [];
    for (const [, { box: { min: lo, max: hi } }] of boxes) {
      const c = (i) => [i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z];
      for (const [a, b] of [[0, 1], [2, 3], [4, 5], [6, 7], [0, 2], [1, 3], [4, 6], [5, 7], [0, 4], [1, 5], [2, 6], [3, 7]]) {
        pts.push(...c(a), ...c(b));
      }
    }
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.Float32BufferAttribute(pts, 3));
    return new THREE.LineSegments(g, material);
  }

  window.SylcolHud = { axesGizmo, scaleBar, infoTable, readHash, writeHash, familyBoxes, familyOutline, niceBelow };
})();
