// sylcol viewer: a glTF scene sylcol exported, made ready to draw and to
// pick. A classic script over the globals THREE and SylcolDraw (draw.js);
// defines the global SylcolScene, used by app.js.
(() => {
  'use strict';

  /** Turns the glTF nodes under `root` (an object of `kind`, 'map',
   *  'library' or 'points', a REGN's vertex section) into what draws fast
   *  (draw.js): a map's hull drawn by a
   *  flat-lit copy (the glTF mesh stays, hidden, for picking), each sphere
   *  layer as outlines, lines and failures unlit; a library as below.
   *  Returns what the page keeps of it: `layers` (name -> [Object3D]),
   *  `pickables` (meshes a click or a ray can hit), `parts` (library: part
   *  name -> {node, mesh}), `lists` (map: triangle -> cells listing it),
   *  `grid` ({origin, cell, dims}), `spheres` (triangle -> [cx, cy, cz, r]). */
  function prepare(root, kind) {
    const s = { kind, layers: {}, pickables: [], parts: new Map(), lists: null, grid: null, spheres: null, materials: new Map() };
    const parts = root.children.filter((n) => n.userData.sylcol_record !== undefined);
    if (parts.length) prepareLibrary(s, root, parts);
    for (const node of [...root.children]) {
      const layer = node.userData.sylcol_layer || null;
      if (node.userData.sylcol_record !== undefined || node.userData.drawn) continue;
      if (!layer) continue;
      s.layers[layer] = [node];
      if (layer === 'hull') {
        root.updateMatrixWorld(true);
        const toRoot = root.matrixWorld.clone().invert();
        const drawn = new THREE.Group();
        drawn.name = 'hull';
        drawn.userData.drawn = true;
        node.traverse((o) => {
          if (!o.isMesh) return;
          const m = toRoot.clone().multiply(o.matrixWorld);
          const { positions, index } = meshArrays(o, m);
          drawn.add(new THREE.Mesh(SylcolDraw.flatGeometry(positions, index), hullMaterial(s, o.material, 0.45)));
          s.pickables.push(o);
        });
        node.visible = false;
        root.add(drawn);
        s.layers.hull = [drawn];
      } else if (layer === 'points') {
        // A REGN's vertex section: fixed-size dots, whatever the distance.
        node.traverse((o) => {
          if (!o.isPoints) return;
          // The loader's PointsMaterial (the bundle exports no constructor).
          o.material.color.setHex(0x66d9ff);
          o.material.size = 3;
          o.material.sizeAttenuation = false;
          o.material.needsUpdate = true;
        });
      } else if (layer === 'cell-spheres' || layer === 'tri-spheres') {
        const spheres = readSpheres(node);
        node.clear();
        if (spheres.count) node.add(new SylcolDraw.SphereLayer(spheres.data, spheres.color));
        if (layer === 'tri-spheres') s.spheres = spheres.byTriangle;
      } else {
        if (layer === 'cells') readLists(s, node.userData);
        const failures = layer === 'failures';
        node.traverse((o) => {
          if (!o.material) return;
          if (layer === 'cells' && o.isLineSegments) SylcolDraw.shareCellEdges(o, node.userData);
          // Failures are drawn over the translucent hull, in full red.
          SylcolDraw.useFlatMaterial(o, failures ? { over: true, opacity: 0.95 } : { depthTest: false });
          if (failures) o.renderOrder = 3;
        });
      }
    }
    return s;
  }

  // One hull material per glTF material: its colour, flat-lit;
  // translucent on a map.
  function hullMaterial(s, m, opacity) {
    if (!s.materials.has(m)) s.materials.set(m, SylcolDraw.hullMaterial(m.color, s.kind === 'map' ? opacity : 1));
    return s.materials.get(m);
  }

  // A library: drawn by SylcolDraw.LibraryDrawing (every part at its
  // level of detail, in world coordinates, one draw call per side);
  // picking ray-casts one merged mesh per family material, which keeps,
  // per run of faces, the part and its own mesh, so picks and rays name
  // the part and its triangle. The part nodes stay, hidden, for their
  // names and geometry.
  function prepareLibrary(s, root, parts) {
    root.updateMatrixWorld(true);
    const groups = new Map();
    const drawn = [];
    for (const node of parts) {
      node.traverse((o) => {
        if (!o.isMesh) return;
        if (!groups.has(o.material)) groups.set(o.material, []);
        groups.get(o.material).push({ node, mesh: o });
        s.parts.set(node.name, { node, mesh: o });
        const { positions, index } = meshArrays(o);
        drawn.push({ positions, index, color: o.material.color });
      });
      node.visible = false;
    }
    const drawing = new SylcolDraw.LibraryDrawing(drawn);
    drawing.name = 'hull';
    drawing.userData.drawn = true;
    const picking = new THREE.Group();
    picking.visible = false;
    picking.userData.drawn = true;
    for (const list of groups.values()) picking.add(pickMesh(list));
    s.pickables.push(...picking.children);
    // World coordinates already: beside the root, not under its scale.
    (root.parent || root).add(drawing, picking);
    s.layers.hull = [drawing];
  }

  // A glTF mesh's positions under `matrix` (its world matrix) and its
  // triangles.
  function meshArrays(mesh, matrix = mesh.matrixWorld) {
    const p = mesh.geometry.getAttribute('position'), ix = mesh.geometry.index;
    const positions = new Float32Array(3 * p.count);
    const v = new THREE.Vector3();
    for (let i = 0; i < p.count; i++) v.fromBufferAttribute(p, i).applyMatrix4(matrix).toArray(positions, 3 * i);
    const index = ix ? Array.from({ length: ix.count }, (_, k) => ix.getX(k)) : Array.from({ length: p.count }, (_, k) => k);
    return { positions, index };
  }

  // The library parts `list` ({node, mesh}) as one mesh to ray-cast, with
  // `userData.ranges`: the part and mesh of each run of faces.
  function pickMesh(list) {
    const arrays = list.map(({ mesh }) => meshArrays(mesh));
    const nv = arrays.reduce((n, a) => n + a.positions.length / 3, 0);
    const ni = arrays.reduce((n, a) => n + a.index.length, 0);
    const positions = new Float32Array(3 * nv), indices = new Uint32Array(ni);
    const ranges = [];
    let v0 = 0, i0 = 0;
    list.forEach(({ node, mesh }, k) => {
      const { positions: p, index } = arrays[k];
      positions.set(p, 3 * v0);
      for (let j = 0; j < index.length; j++) indices[i0 + j] = index[j] + v0;
      ranges.push({ start: i0 / 3, end: (i0 + index.length) / 3, node, mesh });
      v0 += p.length / 3;
      i0 += index.length;
    });
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(positions, 3));
    g.setIndex(new THREE.BufferAttribute(indices, 1));
    const merged = new THREE.Mesh(g, new THREE.MeshBasicMaterial({ side: THREE.DoubleSide }));
    merged.userData.ranges = ranges;
    return merged;
  }

  /** A hit on a pick mesh as (the mesh holding the triangle, its index
   *  there, the library part or null). */
  function resolve(object, face) {
    const ranges = object.userData.ranges;
    if (!ranges) return { mesh: object, face, part: null };
    let lo = 0, hi = ranges.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (ranges[mid].start <= face) lo = mid; else hi = mid - 1;
    }
    const r = ranges[lo];
    return { mesh: r.mesh, face: face - r.start, part: r.node };
  }

  // A sphere layer's spheres (one glTF node each: translation = centre,
  // scale = radius) as four floats each, its colour, and the triangle
  // spheres by triangle.
  function readSpheres(node) {
    const data = [], byTriangle = {};
    let color = new THREE.Color(0xffffff);
    for (const holder of node.children) {
      let shape = null;
      holder.traverse((o) => { if (!shape && o.material) shape = o; });
      if (!shape) continue;
      color = shape.material.color;
      const t = holder.position, r = holder.scale.x;
      data.push(t.x, t.y, t.z, r);
      const tri = /^triangle (\d+)/.exec(holder.name || shape.name);
      if (tri) byTriangle[tri[1]] = [t.x, t.y, t.z, r];
    }
    return { data: new Float32Array(data), count: data.length / 4, color: color.clone(), byTriangle };
  }

  function readLists(s, extras) {
    s.grid = extras.grid || null;
    const byTriangle = new Map();
    for (const entry of extras.lists || []) {
      for (const t of entry.triangles) {
        if (!byTriangle.has(t)) byTriangle.set(t, []);
        const cells = byTriangle.get(t);
        if (!cells.some((c) => c.join() === entry.cell.join())) cells.push(entry.cell);
      }
    }
    s.lists = byTriangle;
  }

  window.SylcolScene = { prepare, resolve };
})();
