// sylcol viewer: how the scenes are drawn fast, on a GPU and on a software
// renderer alike (headless Chromium's SwiftShader: every pixel and every
// primitive costs CPU time there). A classic script over the global THREE;
// defines the global SylcolDraw, used by app.js.
//
// - Hulls: a flat-lit shader whose colour is worked out once per triangle
//   in the vertex shader (a `flat` varying); the fragment shader only
//   writes it. three.js's Lambert / Basic shaders cost a software renderer
//   about ten times as much per pixel.
// - Spheres: each drawn as its outline on screen (the circle where the
//   view cone touches it), a polygon of 8 to 64 line segments by its size
//   on screen, one draw call per layer, spheres out of view skipped.
//   (Three great circles of 16 segments each cost 48 segments a sphere
//   whatever its size.)
// - Lines and flagged triangles: an unlit shader, colour per vertex; the
//   cells' wire boxes with each shared edge drawn once.
// - Library parts: each drawn at the coarsest of three levels of detail
//   (vertex clustering) whose cells stay under 1.5 pixels on screen.
// Picking never sees any of this: it ray-casts the exported meshes.
(() => {
  'use strict';

  const GLSL_SRGB = `
    vec3 toSrgb(vec3 c) {
      return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
    }`;

  // ---- hulls ----

  /** Non-indexed copy of `geometry` with each triangle's own normal
   *  (`faceNormal`) on its three corners: what [`hullMaterial`] draws. */
  function flatGeometry(positions, index) {
    const n = index ? index.length : positions.length / 3;
    const pos = new Float32Array(3 * n), nor = new Float32Array(3 * n);
    const at = (k) => (index ? index[k] : k);
    for (let t = 0; t + 2 < n; t += 3) {
      const a = 3 * at(t), b = 3 * at(t + 1), c = 3 * at(t + 2);
      for (let j = 0; j < 3; j++) {
        pos[3 * t + j] = positions[a + j];
        pos[3 * t + 3 + j] = positions[b + j];
        pos[3 * t + 6 + j] = positions[c + j];
      }
      const ux = positions[b] - positions[a], uy = positions[b + 1] - positions[a + 1], uz = positions[b + 2] - positions[a + 2];
      const vx = positions[c] - positions[b], vy = positions[c + 1] - positions[b + 1], vz = positions[c + 2] - positions[b + 2];
      let nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
      const len = Math.hypot(nx, ny, nz) || 1;
      nx /= len; ny /= len; nz /= len;
      for (let k = 0; k < 3; k++) {
        nor[3 * (t + k)] = nx;
        nor[3 * (t + k) + 1] = ny;
        nor[3 * (t + k) + 2] = nz;
      }
    }
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(pos, 3));
    g.setAttribute('faceNormal', new THREE.BufferAttribute(nor, 3));
    g.computeBoundingSphere();
    return g;
  }

  // The colour worked out per triangle (flat), at the material's opacity.
  const FLAT_FRAGMENT = `
    precision mediump float;
    uniform float opacity;
    flat in vec3 vColor;
    out vec4 fragColor;
    void main() { fragColor = vec4(vColor, opacity); }`;

  /** A hull material of linear colour `color` (times the geometry's
   *  `tint` per vertex when `tinted`): three.js's Lambert under a
   *  hemisphere light (sky above +Y) and a light at the eye, worked out
   *  per triangle; translucent when `opacity` < 1; `side` the side drawn
   *  (lit as the side the camera sees). */
  function hullMaterial(color, opacity = 1, side = THREE.DoubleSide, tinted = false) {
    const translucent = opacity < 1;
    return new THREE.RawShaderMaterial({
      glslVersion: THREE.GLSL3,
      uniforms: { color: { value: new THREE.Color(color) }, opacity: { value: opacity } },
      vertexShader: `
        in vec3 position;
        in vec3 faceNormal;
        ${tinted ? 'in vec3 tint;' : 'const vec3 tint = vec3(1.0);'}
        uniform mat4 modelMatrix, modelViewMatrix, projectionMatrix;
        uniform mat3 normalMatrix;
        uniform vec3 color;
        flat out vec3 vColor;
        ${GLSL_SRGB}
        void main() {
          vec4 view = modelViewMatrix * vec4(position, 1.0);
          // The side the camera sees, in view space (n) and in the world (up).
          float side = dot(normalMatrix * faceNormal, view.xyz) > 0.0 ? -1.0 : 1.0;
          vec3 n = normalize(normalMatrix * faceNormal) * side;
          vec3 up = normalize(mat3(modelMatrix) * faceNormal) * side;
          // three.js's Lambert under the viewer's former lights: a
          // hemisphere (sky above +Y) and a light at the eye.
          vec3 hemi = mix(vec3(0.029, 0.034, 0.051), vec3(0.723, 0.791, 1.0), 0.5 + 0.5 * up.y) * 1.6;
          float eye = max(dot(n, normalize(-view.xyz)), 0.0) * 1.4;
          vColor = toSrgb(clamp(color * tint * (hemi + eye) / 3.14159265, 0.0, 1.0));
          gl_Position = projectionMatrix * view;
        }`,
      fragmentShader: FLAT_FRAGMENT,
      side,
      // One pass over both sides (three.js would draw a translucent
      // double-sided material twice, back faces first).
      forceSinglePass: true,
      // A translucent hull writes no depth, so it tests none either: a
      // software renderer saves the read on every pixel.
      transparent: translucent,
      depthWrite: !translucent,
      depthTest: !translucent,
    });
  }

  // ---- lines and flat triangles ----

  /** An unlit material of linear colour `color`, times the geometry's
   *  `color0` attribute when `vertexColors`. `over`: drawn after the
   *  scene (three.js's transparent pass) and over it. Without a depth
   *  test it writes no depth either. */
  function flatMaterial(color, { opacity = 1, vertexColors = false, depthTest = true, over = false, side = THREE.FrontSide } = {}) {
    return new THREE.RawShaderMaterial({
      glslVersion: THREE.GLSL3,
      uniforms: { color: { value: new THREE.Color(color) }, opacity: { value: opacity } },
      vertexShader: `
        in vec3 position;
        ${vertexColors ? 'in vec4 color0;' : ''}
        uniform mat4 modelViewMatrix, projectionMatrix;
        uniform vec3 color;
        flat out vec3 vColor;
        ${GLSL_SRGB}
        void main() {
          vColor = toSrgb(color${vertexColors ? ' * color0.rgb' : ''});
          gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
        }`,
      fragmentShader: FLAT_FRAGMENT,
      transparent: opacity < 1 || over,
      depthTest: depthTest && !over,
      depthWrite: opacity >= 1 && depthTest && !over,
      side,
    });
  }

  /** `object` (a glTF line or triangle mesh) drawn with [`flatMaterial`]:
   *  its material's colour, its COLOR_0 per vertex if it has one. */
  function useFlatMaterial(object, options = {}) {
    const g = object.geometry;
    const vertexColors = !!g.getAttribute('color');
    if (vertexColors) g.setAttribute('color0', g.getAttribute('color'));
    const old = object.material;
    const side = object.isMesh ? THREE.DoubleSide : THREE.FrontSide;
    object.material = flatMaterial(old.color, { vertexColors, side, ...options });
    old.dispose();
  }

  /** The cells layer's wire boxes (`lines`: 12 segments a box, boxes in
   *  the order of `extras.lists`) with each edge drawn once: neighbouring
   *  cells share edges (a full 5 x 5 x 5 grid has 540 edges, not 1 500),
   *  and a shared edge takes the colour of the cell with the longest
   *  list. Leaves the geometry alone if it is not laid out so. */
  function shareCellEdges(lines, extras) {
    const g = lines.geometry, index = g.index, pos = g.getAttribute('position');
    const lists = extras.lists || [], grid = extras.grid;
    if (!index || !grid || index.count !== 24 * lists.length) return 0;
    const corner = (i) => [0, 1, 2].map((k) => Math.round((pos.getComponent(i, k) - grid.origin[k]) / grid.cell[k])).join();
    const best = new Map();
    for (let s = 0; s < index.count / 2; s++) {
      const a = index.getX(2 * s), b = index.getX(2 * s + 1);
      const [p, q] = [corner(a), corner(b)].sort();
      const key = `${p} ${q}`, heat = lists[Math.floor(s / 12)].triangles.length;
      const kept = best.get(key);
      if (!kept || heat > kept.heat) best.set(key, { heat, a, b });
    }
    const kept = [...best.values()].sort((x, y) => x.heat - y.heat); // hottest drawn last
    g.setIndex(kept.flatMap((e) => [e.a, e.b]));
    return index.count / 2 - kept.length;
  }

  // ---- spheres ----

  // Each sphere is drawn as its outline on screen, a polygon of 8, 16, 32
  // or 64 segments by its radius on screen (drawing-buffer pixels): the
  // fewest that stay within about a pixel of the circle. A software
  // renderer pays about a microsecond a segment, so this counts. (Not
  // instanced: SwiftShader draws each instance on its own, some 20 us
  // apiece; nor quads or point sprites with a ring shader: they cost it
  // more than lines once a sphere is over ten pixels across.)
  const SEGMENTS = 64;
  const STEPS = [[20, 8], [78, 4], [313, 2], [Infinity, 1]]; // radius up to -> every n-th corner

  const SPHERE_VERTEX = `
    in vec3 position;
    in vec4 sphere;
    uniform mat4 modelViewMatrix, projectionMatrix;
    void main() {
      float scale = length(modelViewMatrix[0].xyz);
      vec3 c = (modelViewMatrix * vec4(sphere.xyz, 1.0)).xyz;
      float r = sphere.w * scale;
      // The outline: the circle where the cone from the eye touches the
      // sphere, centred on the line from the eye to the sphere's centre.
      float k = max(1.0 - r * r / dot(c, c), 1e-6);
      vec3 w = normalize(c);
      vec3 u = normalize(cross(w, abs(w.y) < 0.99 ? vec3(0.0, 1.0, 0.0) : vec3(1.0, 0.0, 0.0)));
      vec3 v = cross(u, w);
      vec3 p = c * k + r * sqrt(k) * (position.x * u + position.y * v);
      gl_Position = projectionMatrix * vec4(p, 1.0);
    }`;

  // Opaque, with no depth test: nothing to blend or read per pixel.
  function outlineMaterial(color) {
    return new THREE.RawShaderMaterial({
      glslVersion: THREE.GLSL3,
      uniforms: { color: { value: new THREE.Color(color).convertLinearToSRGB() } },
      vertexShader: SPHERE_VERTEX,
      fragmentShader: `
        precision mediump float;
        uniform vec3 color;
        out vec4 fragColor;
        void main() { fragColor = vec4(color, 1.0); }`,
      depthTest: false,
      depthWrite: false,
    });
  }

  /** A layer of spheres (`data`: centre and radius, four floats each)
   *  drawn as their outlines in linear colour `color`, in one draw. The
   *  corners of every outline are fixed; `update`, before each render,
   *  writes the segments to draw: none for a sphere out of view (or
   *  around the eye), every n-th corner by its size on screen. */
  class SphereLayer extends THREE.Group {
    constructor(data, color) {
      super();
      this.data = data;
      this.count = data.length / 4;
      const corners = new Float32Array(this.count * SEGMENTS * 3);
      const spheres = new Float32Array(this.count * SEGMENTS * 4);
      for (let i = 0; i < this.count; i++) {
        for (let j = 0; j < SEGMENTS; j++) {
          const a = (2 * Math.PI * j) / SEGMENTS, at = i * SEGMENTS + j;
          corners[3 * at] = Math.cos(a);
          corners[3 * at + 1] = Math.sin(a);
          spheres.set(data.subarray(4 * i, 4 * i + 4), 4 * at);
        }
      }
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(corners, 3));
      g.setAttribute('sphere', new THREE.BufferAttribute(spheres, 4));
      const index = new THREE.BufferAttribute(new Uint32Array(2 * this.count * SEGMENTS), 1);
      index.setUsage(THREE.DynamicDrawUsage);
      g.setIndex(index);
      g.boundingBox = sphereBox(data); // what framing the camera sees
      this.lines = new THREE.LineSegments(g, outlineMaterial(color));
      this.lines.frustumCulled = false;
      this.add(this.lines);
      this._frustum = new THREE.Frustum();
      this._modelView = new THREE.Matrix4();
      this._clip = new THREE.Matrix4();
      this._s = new THREE.Sphere();
      this._v = new THREE.Vector3();
    }

    /** Writes the segments to draw for `camera` and a drawing buffer
     *  `height` pixels high; returns how many. */
    update(camera, height) {
      const modelView = this._modelView.multiplyMatrices(camera.matrixWorldInverse, this.matrixWorld);
      const e = modelView.elements;
      const scale = Math.hypot(e[0], e[1], e[2]);
      this._frustum.setFromProjectionMatrix(this._clip.multiplyMatrices(camera.projectionMatrix, modelView));
      const focal = 0.5 * height * camera.projectionMatrix.elements[5];
      const g = this.lines.geometry, out = g.index.array;
      const s = this._s, v = this._v, data = this.data;
      let n = 0;
      for (let i = 0; i < this.count; i++) {
        s.center.fromArray(data, 4 * i);
        s.radius = data[4 * i + 3];
        if (!this._frustum.intersectsSphere(s)) continue;
        v.copy(s.center).applyMatrix4(modelView);
        const r = s.radius * scale, d2 = v.lengthSq();
        if (d2 <= r * r) continue; // the eye is inside: no outline
        const px = (r * focal) / Math.sqrt(d2 - r * r);
        const step = STEPS.find(([upTo]) => px <= upTo)[1];
        const base = i * SEGMENTS;
        for (let j = 0; j < SEGMENTS; j += step) {
          out[n++] = base + j;
          out[n++] = base + ((j + step) % SEGMENTS);
        }
      }
      g.setDrawRange(0, n);
      this.lines.visible = n > 0;
      g.index.clearUpdateRanges();
      g.index.addUpdateRange(0, n);
      g.index.needsUpdate = true;
      return n / 2;
    }
  }

  /** The box holding every sphere of `data`. */
  function sphereBox(data) {
    const box = new THREE.Box3();
    const v = new THREE.Vector3();
    for (let i = 0; i < data.length; i += 4) {
      const r = data[i + 3];
      box.expandByPoint(v.set(data[i] - r, data[i + 1] - r, data[i + 2] - r));
      box.expandByPoint(v.set(data[i] + r, data[i + 1] + r, data[i + 2] + r));
    }
    return box;
  }

  // ---- library parts: levels of detail ----

  /** The triangles of indexed mesh (`positions`, `index`) with every
   *  vertex snapped to the mean of the vertices in its cell of a grid of
   *  `cell` units; triangles that collapse, or repeat, are dropped. */
  function cluster(positions, index, cell) {
    const n = positions.length / 3;
    const lo = [Infinity, Infinity, Infinity];
    for (let i = 0; i < 3 * n; i++) lo[i % 3] = Math.min(lo[i % 3], positions[i]);
    // Cell coordinates from the low corner, packed in one number (2^20 a side).
    const cellOf = (i) => {
      const c = [0, 1, 2].map((k) => Math.floor((positions[3 * i + k] - lo[k]) / cell));
      return (c[0] * 1048576 + c[1]) * 1048576 + c[2];
    };
    const keys = new Map(), remap = new Int32Array(n);
    const sums = [];
    for (let i = 0; i < n; i++) {
      const key = cellOf(i);
      let k = keys.get(key);
      if (k === undefined) { k = sums.length / 4; keys.set(key, k); sums.push(0, 0, 0, 0); }
      for (let j = 0; j < 3; j++) sums[4 * k + j] += positions[3 * i + j];
      sums[4 * k + 3]++;
      remap[i] = k;
    }
    const points = new Float32Array((3 * sums.length) / 4);
    for (let k = 0; k < sums.length / 4; k++) {
      for (let j = 0; j < 3; j++) points[3 * k + j] = sums[4 * k + j] / sums[4 * k + 3];
    }
    const tris = [], seen = new Set();
    const m = sums.length / 4;
    for (let t = 0; t + 2 < index.length; t += 3) {
      const a = remap[index[t]], b = remap[index[t + 1]], c = remap[index[t + 2]];
      if (a === b || b === c || a === c) continue;
      const key = (Math.min(a, b, c) * m + a + b + c - Math.min(a, b, c) - Math.max(a, b, c)) * m + Math.max(a, b, c);
      if (seen.has(key)) continue;
      seen.add(key);
      tris.push(a, b, c);
    }
    return { points, index: tris };
  }

  // Cells across a part's bounding sphere at each coarser level, and the
  // longest mean edge on screen (pixels) a level may show.
  const LEVELS = [32, 16, 8, 4];
  const EDGE_PX = 8;

  /** The mean edge length of the triangles of (`positions`, `index`). */
  function meanEdge(positions, index) {
    let sum = 0;
    const a = new THREE.Vector3(), b = new THREE.Vector3();
    for (let t = 0; t + 2 < index.length; t += 3) {
      for (let k = 0; k < 3; k++) {
        a.fromArray(positions, 3 * index[t + k]);
        b.fromArray(positions, 3 * index[t + (k + 1) % 3]);
        sum += a.distanceTo(b);
      }
    }
    return sum / Math.max(index.length, 1);
  }

  /** Which side of a part can be seen: the outside of a closed mesh
   *  (every edge used once each way) whose signed volume says which way
   *  its triangles face, else both. Culling the other side spares a
   *  software renderer a quarter of its work on the library. */
  function visibleSide(positions, index) {
    const n = positions.length / 3;
    const edges = new Map(); // a * n + b -> uses of the edge a -> b
    let volume = 0;
    for (let t = 0; t + 2 < index.length; t += 3) {
      for (let k = 0; k < 3; k++) {
        const key = index[t + k] * n + index[t + (k + 1) % 3];
        edges.set(key, (edges.get(key) || 0) + 1);
      }
      const [a, b, c] = [3 * index[t], 3 * index[t + 1], 3 * index[t + 2]];
      const p = (i, j) => positions[i + j];
      volume += p(a, 0) * (p(b, 1) * p(c, 2) - p(b, 2) * p(c, 1))
        - p(a, 1) * (p(b, 0) * p(c, 2) - p(b, 2) * p(c, 0))
        + p(a, 2) * (p(b, 0) * p(c, 1) - p(b, 1) * p(c, 0));
    }
    for (const [key, uses] of edges) {
      const a = Math.floor(key / n), b = key % n;
      if (uses !== 1 || edges.get(b * n + a) !== 1) return THREE.DoubleSide;
    }
    if (volume > 0) return THREE.FrontSide;
    return volume < 0 ? THREE.BackSide : THREE.DoubleSide;
  }

  /** A whole library drawn in one draw call per visible side (a software
   *  renderer pays some 100 us a draw call, more than for a thousand
   *  triangles): every part's levels of detail sit in one buffer of
   *  flat triangles with the part's colour; `update`, before each
   *  render, lists the triangles of the level each part in view shows.
   *  `parts`: {positions (world), index, color (linear)} each. */
  class LibraryDrawing extends THREE.Group {
    constructor(parts) {
      super();
      const sides = new Map(); // side -> {chunks, vertices}
      this.parts = parts.map((p) => {
        const side = visibleSide(p.positions, p.index);
        if (!sides.has(side)) sides.set(side, { chunks: [], vertices: 0 });
        const bucket = sides.get(side);
        const levels = this.levels(p.positions, p.index).map((l) => {
          const geometry = flatGeometry(l.positions, l.index);
          const at = { start: bucket.vertices, count: l.index.length, edge: l.edge };
          bucket.chunks.push({ geometry, color: p.color });
          bucket.vertices += l.index.length;
          return at;
        });
        const sphere = sphereOf(p.positions);
        return { side, levels, sphere };
      });
      this.draws = new Map();
      for (const [side, bucket] of sides) {
        const mesh = new THREE.Mesh(mergeChunks(bucket), hullMaterial(new THREE.Color(1, 1, 1), 1, side, true));
        mesh.frustumCulled = false;
        this.add(mesh);
        this.draws.set(side, mesh);
      }
      this._frustum = new THREE.Frustum();
      this._clip = new THREE.Matrix4();
    }

    /** The finest level (positions, index, mean edge) and the coarser
     *  ones that cut its triangles by 30 % or more. */
    levels(positions, index) {
      const out = [{ positions, index, edge: 0 }];
      const box = new THREE.Box3().setFromArray(positions);
      const size = box.getSize(new THREE.Vector3()).length();
      let triangles = index.length / 3;
      for (const across of LEVELS) {
        const c = cluster(positions, index, size / across);
        if (!c.index.length || c.index.length / 3 > 0.7 * triangles) continue;
        triangles = c.index.length / 3;
        out.push({ positions: c.points, index: c.index, edge: meanEdge(c.points, c.index) });
      }
      return out;
    }

    /** Lists, for `camera` (`focal`: pixels per unit at unit depth), the
     *  triangles of each part in view at the coarsest level whose mean
     *  edge is at most EDGE_PX on screen; returns how many. */
    update(camera, focal) {
      this._frustum.setFromProjectionMatrix(this._clip.multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse));
      const fill = new Map([...this.draws.keys()].map((side) => [side, 0]));
      for (const part of this.parts) {
        if (!this._frustum.intersectsSphere(part.sphere)) continue;
        const d = camera.position.distanceTo(part.sphere.center) - part.sphere.radius;
        let level = part.levels[0];
        if (d > 0) for (const l of part.levels) if ((l.edge * focal) / d <= EDGE_PX) level = l;
        const out = this.draws.get(part.side).geometry.index.array;
        let n = fill.get(part.side);
        for (let v = level.start, end = level.start + level.count; v < end; v++) out[n++] = v;
        fill.set(part.side, n);
      }
      let total = 0;
      for (const [side, mesh] of this.draws) {
        const n = fill.get(side), index = mesh.geometry.index;
        mesh.geometry.setDrawRange(0, n);
        mesh.visible = n > 0;
        index.clearUpdateRanges();
        index.addUpdateRange(0, n);
        index.needsUpdate = true;
        total += n / 3;
      }
      return total;
    }
  }

  /** The sphere about the box of a flat position array that holds it. */
  function sphereOf(positions) {
    const centre = new THREE.Box3().setFromArray(positions).getCenter(new THREE.Vector3());
    let r2 = 0;
    for (let i = 0; i < positions.length; i += 3) {
      const dx = positions[i] - centre.x, dy = positions[i + 1] - centre.y, dz = positions[i + 2] - centre.z;
      r2 = Math.max(r2, dx * dx + dy * dy + dz * dz);
    }
    return new THREE.Sphere(centre, Math.sqrt(r2));
  }

  /** One geometry of flat chunks ({geometry, color}), with a `tint`
   *  attribute holding each chunk's colour and an index buffer as long
   *  as every vertex, written by LibraryDrawing.update. */
  function mergeChunks(bucket) {
    const n = bucket.vertices;
    const pos = new Float32Array(3 * n), nor = new Float32Array(3 * n), tint = new Float32Array(3 * n);
    let at = 0;
    for (const { geometry, color } of bucket.chunks) {
      const p = geometry.getAttribute('position'), f = geometry.getAttribute('faceNormal');
      pos.set(p.array, 3 * at);
      nor.set(f.array, 3 * at);
      for (let i = 3 * at; i < 3 * (at + p.count); i += 3) {
        tint[i] = color.r;
        tint[i + 1] = color.g;
        tint[i + 2] = color.b;
      }
      at += p.count;
      geometry.dispose();
    }
    const g = new THREE.BufferGeometry();
    g.setAttribute('position', new THREE.BufferAttribute(pos, 3));
    g.setAttribute('faceNormal', new THREE.BufferAttribute(nor, 3));
    g.setAttribute('tint', new THREE.BufferAttribute(tint, 3));
    const index = new THREE.BufferAttribute(new Uint32Array(n), 1);
    index.setUsage(THREE.DynamicDrawUsage);
    g.setIndex(index);
    g.computeBoundingBox();
    return g;
  }

  window.SylcolDraw = {
    flatGeometry, hullMaterial, flatMaterial, useFlatMaterial, shareCellEdges, SphereLayer, LibraryDrawing, cluster,
  };
})();
